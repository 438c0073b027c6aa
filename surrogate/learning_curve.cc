#include "surrogate/learning_curve.h"

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>
#include <numeric>

#include "common/errors.h"
#include "surrogate/metrics.h"
#include "surrogate/random.h"

namespace dcnas::surrogate {

std::vector<LearningCurvePoint> LearningCurve(const LabeledView& train, const LabeledView& valid,
                                              const LabeledView& test, const EnsembleParams& params,
                                              double round_to, std::uint64_t seed,
                                              std::span<const std::size_t> sizes) {
  if (test.x.rows == 0 || test.y.size() != test.x.rows) {
    throw InputError("learning curve needs a non-empty labelled test set");
  }
  std::vector<std::size_t> order(train.x.rows);
  std::iota(order.begin(), order.end(), 0);
  Rng rng(seed);
  Shuffle(order, rng);

  std::vector<std::size_t> ns;
  for (std::size_t n : sizes) {
    if (n > 0 && n < train.x.rows) ns.push_back(n);
  }
  std::sort(ns.begin(), ns.end());
  ns.erase(std::unique(ns.begin(), ns.end()), ns.end());
  ns.push_back(train.x.rows);

  std::vector<LearningCurvePoint> curve;
  std::vector<float> mean(test.x.rows), stddev(test.x.rows);
  for (std::size_t n : ns) {
    const std::span<const std::size_t> rows(order.data(), n);
    const Matrix x = SelectRows(train.x, rows);
    const std::vector<float> y = SelectValues(train.y, rows);
    const Ensemble ensemble = Ensemble::Train({x.view(), y}, valid, params);
    ensemble.Predict(test.x, mean, stddev);
    LearningCurvePoint p;
    p.train_rows = n;
    p.test_kendall_tau = KendallTau(test.y, mean);
    p.test_sparse_kendall_tau = SparseKendallTau(test.y, mean, round_to);
    p.test_rmse = Rmse(test.y, mean);
    p.test_r_squared = RSquared(test.y, mean);
    curve.push_back(p);
  }
  return curve;
}

nlohmann::json LearningCurveToJson(std::span<const LearningCurvePoint> curve) {
  auto num = [](double v) {
    return std::isfinite(v) ? nlohmann::json(v) : nlohmann::json(nullptr);
  };
  nlohmann::json out = nlohmann::json::array();
  for (const auto& p : curve) {
    out.push_back({{"train_rows", p.train_rows},
                   {"test_kendall_tau", num(p.test_kendall_tau)},
                   {"test_sparse_kendall_tau", num(p.test_sparse_kendall_tau)},
                   {"test_rmse", num(p.test_rmse)},
                   {"test_r_squared", num(p.test_r_squared)}});
  }
  return out;
}

}  // namespace dcnas::surrogate
