// Error metrics of predicted against measured latencies.
#pragma once

#include <string>
#include <vector>

#include "common/rank_correlation.h"

namespace dcnas::calibrate {

struct ErrorMetrics {
  size_t count = 0;
  double mape = 0;           // mean |pred - meas| / meas, as a fraction (0.1 = 10%)
  double median_ape = 0;     // median of the same
  double within_10 = 0;      // share of rows with |error| <= 10%
  double within_20 = 0;      // share of rows with |error| <= 20%
  double kendall_tau = 0;    // tau-b of predicted vs measured over pairs in the same group;
                             // NaN when there is no such pair
  double worst_ape = 0;      // largest |error|
  double median_signed = 0;  // median (pred - meas) / meas: > 0 means over-prediction
  std::string worst_label;   // label of the worst row, when labels were given
};

// Absolute percentage error of one prediction, as a fraction.
double AbsolutePercentageError(double predicted, double measured);

// Kendall's tau-b: common/rank_correlation.h.
using dcnas::KendallTau;

// Metrics over paired predictions and measurements (> 0). `labels` is empty or one per row;
// `groups` (empty or one per row) restricts the Kendall tau to pairs within a group.
// Throws InputError on mismatched lengths, no rows, or a non-positive value.
ErrorMetrics ComputeMetrics(const std::vector<double>& predicted,
                            const std::vector<double>& measured,
                            const std::vector<std::string>& labels = {},
                            const std::vector<std::string>& groups = {});

}  // namespace dcnas::calibrate
