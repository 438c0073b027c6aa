// Surrogate quality metrics. Higher labels are better (accuracies). Every function throws
// InputError when its inputs differ in length or hold NaN.
#pragma once

#include <cstddef>
#include <span>

#include <nlohmann/json_fwd.hpp>

namespace dcnas::surrogate {

double Rmse(std::span<const float> truth, std::span<const float> predicted);

// 1 - SS_res / SS_tot; NaN when the truth is constant.
double RSquared(std::span<const float> truth, std::span<const float> predicted);

// Kendall's tau-b (ties in either variable corrected for), O(n log n) by Knight's algorithm.
// NaN when fewer than two points or either variable is constant.
double KendallTau(std::span<const float> a, std::span<const float> b);

// NAS-Bench-301's sparse Kendall tau: both variables are rounded to multiples of `round_to`
// before tau-b, so rank changes finer than that precision are ignored. Use round_to = 0.1 for
// accuracies in percent (0.1 percentage points), 0.001 for accuracies as fractions.
double SparseKendallTau(std::span<const float> truth, std::span<const float> predicted,
                        double round_to);

// Fraction of the true top `fraction` (k = ceil(fraction * n) points, at least 1) that is also
// in the predicted top k. Ties at the cut are broken by lower row index first.
double TopFractionRecall(std::span<const float> truth, std::span<const float> predicted,
                         double fraction = 0.1);

// Calibration of an ensemble's standard deviation: the fraction of points whose error is within
// one and two standard deviations (a Gaussian would give ~0.683 and ~0.954).
struct Calibration {
  double within_1_std = 0.0;
  double within_2_std = 0.0;
};
Calibration StdCalibration(std::span<const float> truth, std::span<const float> mean,
                           std::span<const float> stddev);

// Everything above for one held-out set.
struct QualityReport {
  std::size_t count = 0;
  double rmse = 0.0;
  double r_squared = 0.0;
  double kendall_tau = 0.0;
  double sparse_kendall_tau = 0.0;
  double round_to = 0.0;
  double top10_recall = 0.0;
  Calibration calibration;

  // NaN values are written as null.
  nlohmann::json ToJson() const;
};
QualityReport Evaluate(std::span<const float> truth, std::span<const float> mean,
                       std::span<const float> stddev, double round_to);

}  // namespace dcnas::surrogate
