// The training recipe's optimizers and learning-rate schedule. No LibTorch headers here.
#pragma once

#include <cstdint>
#include <string>

namespace dcnas::models::libtorch {

enum class Optimizer { kSgd, kRmsProp, kAdamW };
Optimizer ParseOptimizer(const std::string& name);  // sgd, rmsprop, adamw; throws InputError
std::string OptimizerName(Optimizer optimizer);
// Default learning rate and weight decay of each optimizer (for batch 128).
double DefaultLearningRate(Optimizer optimizer);
double DefaultWeightDecay(Optimizer optimizer);

// Linear warm-up from base / warmup_steps to `base`, then cosine decay to 0 at total_steps.
struct LrSchedule {
  double base = 0.0;
  int64_t warmup_steps = 0;
  int64_t total_steps = 0;

  // `warmup_epochs` rounded to whole steps.
  static LrSchedule ForEpochs(double base, double warmup_epochs, int64_t steps_per_epoch,
                              int epochs);
  // Learning rate of step `step` (0-based).
  double At(int64_t step) const;
};

}  // namespace dcnas::models::libtorch
