#include "models/torch/dataset.h"

#include "models/torch/input_cache.h"
#include "models/torch/module.h"

namespace dcnas::models::libtorch {
namespace {

int64_t TensorBytes(const ::torch::Tensor& t) {
  return t.defined() ? t.numel() * static_cast<int64_t>(t.element_size()) : 0;
}

int64_t PreparedBytes(const PreparedImages& p) {
  return TensorBytes(p.plain) + TensorBytes(p.mirrored) + TensorBytes(p.labels);
}

}  // namespace

std::shared_ptr<TrainingData::Cache> NewTrainingCache() {
  return std::make_shared<TrainingData::Cache>();
}

int64_t TrainingCacheBytes(const TrainingData::Cache& cache) { return cache.Bytes(); }

void ClearTrainingCache(TrainingData::Cache& cache) { cache.Clear(); }

RunImages TrainingData::Cache::Get(const TrainingData& data, int64_t resolution,
                                   int validation_images, int64_t limit_train, int64_t limit_eval,
                                   bool mirrored) {
  const std::lock_guard<std::mutex> lock(mutex_);
  const Key key{resolution, validation_images, limit_train, limit_eval};
  auto it = entries_.find(key);
  if (it != entries_.end() && (!mirrored || it->second.train.mirrored.defined())) {
    return it->second;
  }
  const ImageSelection selection = data.Select(validation_images, limit_train, limit_eval);
  if (it == entries_.end()) {
    RunImages images;
    images.train = PrepareImages(data.train(), selection.train, resolution, mirrored);
    images.val = PrepareImages(data.val_source(), selection.val, resolution, false);
    images.test = PrepareImages(data.test(), selection.test, resolution, false);
    it = entries_.emplace(key, std::move(images)).first;
  } else if (mirrored && !it->second.train.mirrored.defined()) {
    it->second.train = PrepareImages(data.train(), selection.train, resolution, true);
  }
  return it->second;
}

int64_t TrainingData::Cache::Bytes() const {
  const std::lock_guard<std::mutex> lock(mutex_);
  int64_t bytes = 0;
  for (const auto& [key, images] : entries_) {
    bytes += PreparedBytes(images.train) + PreparedBytes(images.val) + PreparedBytes(images.test);
  }
  return bytes;
}

void TrainingData::Cache::Clear() {
  const std::lock_guard<std::mutex> lock(mutex_);
  entries_.clear();
}

}  // namespace dcnas::models::libtorch
