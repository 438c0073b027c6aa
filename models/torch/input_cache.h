// The prepared inputs cached by TrainingData. Includes LibTorch: for models/torch/ only.
#pragma once

#include <cstdint>
#include <map>
#include <mutex>
#include <tuple>

#include "models/torch/augment.h"
#include "models/torch/dataset.h"

namespace dcnas::models::libtorch {

// The images of one run, prepared at one resolution.
struct RunImages {
  PreparedImages train;  // `mirrored` defined when asked for
  PreparedImages val;
  PreparedImages test;
};

class TrainingData::Cache {
 public:
  // The images SelectImages(validation_images, limit_train, limit_eval) picks from `data`,
  // prepared at `resolution`, made on first use; `mirrored` adds the flipped training images to
  // the entry when it lacks them.
  RunImages Get(const TrainingData& data, int64_t resolution, int validation_images,
                int64_t limit_train, int64_t limit_eval, bool mirrored);
  int64_t Bytes() const;
  void Clear();

 private:
  using Key = std::tuple<int64_t, int, int64_t, int64_t>;
  mutable std::mutex mutex_;
  std::map<Key, RunImages> entries_;
};

}  // namespace dcnas::models::libtorch
