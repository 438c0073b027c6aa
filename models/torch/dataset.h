// A dataset loaded once for many training runs in one process. No LibTorch headers here.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "models/torch/fashion_mnist.h"
#include "models/torch/image_datasets.h"

namespace dcnas::models::libtorch {

// The splits of a dataset (image_datasets.h: Fashion-MNIST, CIFAR-10/100, an image folder) and a
// cache of their prepared inputs: the images a run selects, normalised and resized (bilinear) to
// its graph's resolution, with a left-right mirrored copy for runs with random flips. An entry is
// made by the first run that needs it, keyed by resolution and selection (validation_images,
// limit_train, limit_eval), so runs at the same resolution and selection pay the resizing once.
// A 32 px entry of the full selection takes about 0.5 GB (with the mirrored copy); 10,000
// training images at 32 px about 0.14 GB. Copies share the images and the cache; the cache is
// safe to use from several threads.
class TrainingData {
 public:
  // Loads the dataset a spec names (LoadDataset: "fashion-mnist", "cifar10:DIR", a bare
  // directory for Fashion-MNIST, ...).
  static TrainingData Load(const std::string& spec = kFashionMnistDir,
                           const DatasetLoadOptions& options = {});
  explicit TrainingData(LoadedDataset data);
  // Fashion-MNIST-shaped splits made by the caller (tests).
  TrainingData(ImageSet train, ImageSet test);

  const std::string& name() const { return name_; }  // "fashion-mnist", "cifar10", ...
  const std::string& id() const { return id_; }      // DatasetId: what recipes record
  int classes() const { return classes_; }
  int channels() const { return train_->channels; }
  const ImageSet& train() const { return *train_; }
  const ImageSet& test() const { return *test_; }
  // The validation images' set: image folders' val/, else the training file (the last
  // validation_images of a fixed shuffle, SelectImages).
  bool separate_val() const { return val_ != nullptr; }
  const ImageSet& val_source() const { return val_ ? *val_ : *train_; }
  // Which images a run uses: SelectImages over train/test (SelectImagesStratified for an image
  // folder's carved validation images), or with a separate validation set the first limit_eval
  // images (all with 0) of fixed shuffles of val/ and test/ and the whole training set in a fixed
  // shuffle.
  ImageSelection Select(int validation_images, int64_t limit_train, int64_t limit_eval) const;
  const LoadedDataset& facts() const { return *facts_; }  // names, path, hash, cache file

  // Bytes held by the cache, and emptying it (runs in progress keep what they use).
  int64_t CachedBytes() const;
  void ClearCache() const;

  class Cache;
  Cache& cache() const { return *cache_; }

 private:
  std::string name_ = "fashion-mnist";
  std::string id_;
  int classes_ = kFashionMnistClasses;
  std::shared_ptr<const ImageSet> train_;
  std::shared_ptr<const ImageSet> val_;  // null: drawn from train_
  bool carved_ = false;                  // val_ null and drawn by class (an image folder's carve)
  std::shared_ptr<const ImageSet> test_;
  std::shared_ptr<const LoadedDataset> facts_;  // without the images
  std::shared_ptr<Cache> cache_;
};

}  // namespace dcnas::models::libtorch
