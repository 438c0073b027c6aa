// TrainingData's own members, outside the LibTorch half: its cache is made and used through
// module.h, so a TrainingData can be loaded by a binary that has not loaded LibTorch yet.
#include "models/torch/dataset.h"

#include <utility>

#include "models/torch/module.h"

namespace dcnas::models::libtorch {

TrainingData TrainingData::Load(const std::string& dir) {
  return TrainingData(ReadFashionMnist(dir, "train"), ReadFashionMnist(dir, "t10k"));
}

TrainingData::TrainingData(ImageSet train, ImageSet test)
    : train_(std::make_shared<const ImageSet>(std::move(train))),
      test_(std::make_shared<const ImageSet>(std::move(test))),
      cache_(NewTrainingCache()) {}

int64_t TrainingData::CachedBytes() const { return TrainingCacheBytes(*cache_); }

void TrainingData::ClearCache() const { ClearTrainingCache(*cache_); }

}  // namespace dcnas::models::libtorch
