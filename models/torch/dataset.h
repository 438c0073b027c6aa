// Fashion-MNIST loaded once for many training runs in one process. No LibTorch headers here.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "models/torch/fashion_mnist.h"

namespace dcnas::models::libtorch {

// Both files of the dataset (the 60,000 training and 10,000 test images) and a cache of their
// prepared inputs: the images a run selects, normalised and resized (bilinear) to its graph's
// resolution, with a left-right mirrored copy for runs with random flips. An entry is made by
// the first run that needs it, keyed by resolution and selection (validation_images,
// limit_train, limit_eval), so runs at the same resolution and selection pay the resizing once.
// A 32 px entry of the full selection takes about 0.5 GB (with the mirrored copy); 10,000
// training images at 32 px about 0.14 GB. Copies share the images and the cache; the cache is
// safe to use from several threads.
class TrainingData {
 public:
  // Reads "<dir>/{train,t10k}-{images-idx3,labels-idx1}-ubyte.gz" (ReadFashionMnist).
  static TrainingData Load(const std::string& dir = kFashionMnistDir);
  TrainingData(ImageSet train, ImageSet test);

  const std::string& name() const { return name_; }  // "fashion-mnist"
  const ImageSet& train() const { return *train_; }
  const ImageSet& test() const { return *test_; }

  // Bytes held by the cache, and emptying it (runs in progress keep what they use).
  int64_t CachedBytes() const;
  void ClearCache() const;

  class Cache;
  Cache& cache() const { return *cache_; }

 private:
  std::string name_ = "fashion-mnist";
  std::shared_ptr<const ImageSet> train_;
  std::shared_ptr<const ImageSet> test_;
  std::shared_ptr<Cache> cache_;
};

}  // namespace dcnas::models::libtorch
