// TrainingData's own members, outside the LibTorch half: its cache is made and used through
// module.h, so a TrainingData can be loaded by a binary that has not loaded LibTorch yet.
#include "models/torch/dataset.h"

#include <algorithm>
#include <numeric>
#include <random>
#include <utility>

#include "models/torch/module.h"

namespace dcnas::models::libtorch {

TrainingData TrainingData::Load(const std::string& spec, const DatasetLoadOptions& options) {
  return TrainingData(LoadDataset(spec, options));
}

TrainingData::TrainingData(LoadedDataset data)
    : name_(data.name),
      id_(DatasetId(data)),
      classes_(data.classes),
      train_(std::make_shared<const ImageSet>(std::move(data.train))),
      val_(data.val ? std::make_shared<const ImageSet>(std::move(*data.val)) : nullptr),
      carved_(data.val_carved),
      test_(std::make_shared<const ImageSet>(std::move(data.test))),
      cache_(NewTrainingCache()) {
  data.val.reset();
  facts_ = std::make_shared<const LoadedDataset>(std::move(data));
}

TrainingData::TrainingData(ImageSet train, ImageSet test)
    : train_(std::make_shared<const ImageSet>(std::move(train))),
      test_(std::make_shared<const ImageSet>(std::move(test))),
      cache_(NewTrainingCache()) {
  LoadedDataset facts;
  facts.name = name_;
  facts.classes = classes_;
  facts.content_hash = ContentHash({train_.get(), test_.get()});
  id_ = DatasetId(facts);
  facts_ = std::make_shared<const LoadedDataset>(std::move(facts));
}

ImageSelection TrainingData::Select(int validation_images, int64_t limit_train,
                                    int64_t limit_eval) const {
  if (!val_ && carved_) {
    return SelectImagesStratified(train_->labels, classes_, test_->count, validation_images,
                                  limit_train, limit_eval);
  }
  if (!val_) {
    return SelectImages(train_->count, test_->count, validation_images, limit_train, limit_eval);
  }
  ImageSelection s;
  s.train.resize(static_cast<size_t>(train_->count));
  std::iota(s.train.begin(), s.train.end(), 0);
  std::shuffle(s.train.begin(), s.train.end(), std::mt19937_64(kValidationSplitSeed));
  // An image folder's val/ and test/ are listed class by class: fixed shuffles, so that a
  // limit_eval subset holds every class, not the first ones.
  s.val.resize(static_cast<size_t>(val_->count));
  std::iota(s.val.begin(), s.val.end(), 0);
  std::shuffle(s.val.begin(), s.val.end(), std::mt19937_64(kValidationSplitSeed + 2));
  s.test.resize(static_cast<size_t>(test_->count));
  std::iota(s.test.begin(), s.test.end(), 0);
  std::shuffle(s.test.begin(), s.test.end(), std::mt19937_64(kValidationSplitSeed + 1));
  if (limit_train > 0 && limit_train < train_->count)
    s.train.resize(static_cast<size_t>(limit_train));
  if (limit_eval > 0 && limit_eval < val_->count) s.val.resize(static_cast<size_t>(limit_eval));
  if (limit_eval > 0 && limit_eval < test_->count) s.test.resize(static_cast<size_t>(limit_eval));
  return s;
}

int64_t TrainingData::CachedBytes() const { return TrainingCacheBytes(*cache_); }

void TrainingData::ClearCache() const { ClearTrainingCache(*cache_); }

}  // namespace dcnas::models::libtorch
