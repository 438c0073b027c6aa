// Learning curve: how test ranking quality grows with the number of training rows.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "surrogate/ensemble.h"

namespace dcnas::surrogate {

struct LearningCurvePoint {
  std::size_t train_rows = 0;
  double test_kendall_tau = 0.0;
  double test_sparse_kendall_tau = 0.0;
  double test_rmse = 0.0;
  double test_r_squared = 0.0;
};

inline constexpr std::size_t kDefaultLearningCurveSizes[] = {50, 100, 200, 400};

// Shuffles the training rows with `seed`, then for each size n in `sizes` below the training
// set's size (and once for all rows) fits an ensemble with `params` on the first n shuffled rows,
// early-stopping on `valid`, and scores the mean prediction on `test`.
std::vector<LearningCurvePoint> LearningCurve(
    const LabeledView& train, const LabeledView& valid, const LabeledView& test,
    const EnsembleParams& params, double round_to, std::uint64_t seed,
    std::span<const std::size_t> sizes = kDefaultLearningCurveSizes);

nlohmann::json LearningCurveToJson(std::span<const LearningCurvePoint> curve);

}  // namespace dcnas::surrogate
