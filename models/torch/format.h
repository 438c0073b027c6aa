// Text for training progress: durations, percentages and the progress lines of an epoch.
#pragma once

#include <cstdint>
#include <string>

namespace dcnas::models::libtorch {

struct EpochMetrics;

// "1h02m", "3m05s", "12s".
std::string FormatDuration(double seconds);
// 0.91234 -> "91.23%".
std::string Percent(double fraction);
// `value` with `digits` decimals.
std::string Fixed(double value, int digits);

// The status line during an epoch: "epoch 2/10 40%  loss 0.8123  acc 71.25%  950 img/s".
std::string StepLine(int epoch, int epochs, double done_fraction, double mean_loss, double accuracy,
                     double images_per_s);
// The line of a finished epoch: losses, accuracies, throughput, its time and the ETA.
std::string EpochLine(const EpochMetrics& m, int epochs);

}  // namespace dcnas::models::libtorch
