#include "models/torch/schedule.h"

#include <algorithm>
#include <cmath>

#include "common/errors.h"

namespace dcnas::models::libtorch {

Optimizer ParseOptimizer(const std::string& name) {
  if (name == "sgd") return Optimizer::kSgd;
  if (name == "rmsprop") return Optimizer::kRmsProp;
  if (name == "adamw") return Optimizer::kAdamW;
  throw InputError("unknown optimizer '" + name + "' (valid: sgd, rmsprop, adamw)");
}

std::string OptimizerName(Optimizer optimizer) {
  switch (optimizer) {
    case Optimizer::kSgd:
      return "sgd";
    case Optimizer::kRmsProp:
      return "rmsprop";
    case Optimizer::kAdamW:
      return "adamw";
  }
  throw InternalError("unknown optimizer");
}

double DefaultLearningRate(Optimizer optimizer) {
  switch (optimizer) {
    case Optimizer::kSgd:
      return 0.1;
    case Optimizer::kRmsProp:
      return 0.008;  // 0.016 per 256 images (EfficientNet reference)
    case Optimizer::kAdamW:
      return 0.002;
  }
  throw InternalError("unknown optimizer");
}

double DefaultWeightDecay(Optimizer optimizer) {
  switch (optimizer) {
    case Optimizer::kSgd:
      return 5e-5;
    case Optimizer::kRmsProp:
      return 1e-5;  // EfficientNet reference
    case Optimizer::kAdamW:
      return 0.05;
  }
  throw InternalError("unknown optimizer");
}

LrSchedule LrSchedule::ForEpochs(double base, double warmup_epochs, int64_t steps_per_epoch,
                                 int epochs) {
  return {base, static_cast<int64_t>(std::llround(warmup_epochs * steps_per_epoch)),
          steps_per_epoch * epochs};
}

double LrSchedule::At(int64_t step) const {
  if (step < warmup_steps) {
    return base * static_cast<double>(step + 1) / static_cast<double>(warmup_steps);
  }
  const double span = static_cast<double>(std::max<int64_t>(total_steps - warmup_steps, 1));
  const double progress = std::min(1.0, static_cast<double>(step - warmup_steps) / span);
  return base * 0.5 * (1.0 + std::cos(M_PI * progress));
}

}  // namespace dcnas::models::libtorch
