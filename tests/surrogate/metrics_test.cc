#include "surrogate/metrics.h"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <cmath>
#include <random>

#include "common/errors.h"

namespace sur = dcnas::surrogate;
using V = std::vector<float>;

namespace {

// O(n^2) tau-b straight from the definition.
double BruteTauB(const V& a, const V& b) {
  double c = 0, d = 0, ta = 0, tb = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    for (std::size_t j = i + 1; j < a.size(); ++j) {
      const double x = a[i] - a[j], y = b[i] - b[j];
      if (x == 0 && y == 0) continue;
      if (x == 0) {
        ++ta;
      } else if (y == 0) {
        ++tb;
      } else if ((x > 0) == (y > 0)) {
        ++c;
      } else {
        ++d;
      }
    }
  }
  return (c - d) / std::sqrt((c + d + ta) * (c + d + tb));
}

}  // namespace

TEST_CASE("RMSE and R^2 on hand-computed values", "[surrogate]") {
  const V y = {1, 2, 3}, p = {1, 2, 5};
  CHECK(sur::Rmse(y, p) == Approx(std::sqrt(4.0 / 3.0)));
  CHECK(sur::RSquared(y, p) == Approx(-1.0));  // SS_res 4, SS_tot 2
  CHECK(sur::RSquared(y, y) == 1.0);
  CHECK(std::isnan(sur::RSquared(V{2, 2}, V{1, 3})));
  CHECK_THROWS_AS(sur::Rmse(V{1, 2}, V{1}), dcnas::InputError);
  CHECK_THROWS_AS(sur::Rmse(V{1, NAN}, V{1, 2}), dcnas::InputError);
}

TEST_CASE("Kendall tau-b of known permutations", "[surrogate]") {
  const V a = {1, 2, 3, 4, 5};
  CHECK(sur::KendallTau(a, a) == 1.0);
  CHECK(sur::KendallTau(a, V{5, 4, 3, 2, 1}) == -1.0);
  // 7 concordant, 3 discordant pairs.
  CHECK(sur::KendallTau(a, V{3, 1, 2, 5, 4}) == Approx(0.4));
  // Ties: 4 concordant, one tie in each variable: 4 / sqrt(5 * 5).
  CHECK(sur::KendallTau(V{1, 2, 2, 3}, V{1, 3, 2, 3}) == Approx(0.8));
  CHECK(std::isnan(sur::KendallTau(V{1, 1, 1}, V{1, 2, 3})));
  CHECK(std::isnan(sur::KendallTau(V{1}, V{1})));
}

TEST_CASE("Kendall tau-b agrees with the O(n^2) definition on data with ties", "[surrogate]") {
  std::mt19937_64 rng(5);
  for (int trial = 0; trial < 20; ++trial) {
    const int n = 2 + static_cast<int>(rng() % 400);
    V a(n), b(n);
    for (int i = 0; i < n; ++i) {
      a[i] = static_cast<float>(rng() % 30);
      b[i] = static_cast<float>(rng() % 30) + 0.1f * a[i];
    }
    CHECK(sur::KendallTau(a, b) == Approx(BruteTauB(a, b)).margin(1e-12));
  }
}

TEST_CASE("Sparse Kendall tau ignores differences below round_to", "[surrogate]") {
  const V truth = {70.01f, 70.04f, 71.0f}, pred = {70.04f, 70.01f, 70.5f};
  CHECK(sur::KendallTau(truth, pred) == Approx(1.0 / 3.0));
  // At 0.1 pp the first two tie in both variables: (3 - 1 - 1 + 1) / sqrt(2 * 2) = 1.
  CHECK(sur::SparseKendallTau(truth, pred, 0.1) == Approx(1.0));
  // The same data as fractions needs round_to = 0.001.
  V tf, pf;
  for (float v : truth) tf.push_back(v / 100.0f);
  for (float v : pred) pf.push_back(v / 100.0f);
  CHECK(sur::SparseKendallTau(tf, pf, 0.001) == Approx(1.0));
  CHECK(sur::SparseKendallTau(tf, pf, 0.0001) == Approx(1.0 / 3.0));
  CHECK_THROWS_AS(sur::SparseKendallTau(tf, pf, 0.0), dcnas::InputError);
}

TEST_CASE("Top-10% recall", "[surrogate]") {
  V truth(20), pred(20);
  for (int i = 0; i < 20; ++i) truth[i] = pred[i] = static_cast<float>(i);
  CHECK(sur::TopFractionRecall(truth, pred) == 1.0);  // k = 2: rows 19 and 18
  pred[18] = 0.0f;
  pred[5] = 100.0f;  // predicted top 2: rows 5 and 19
  CHECK(sur::TopFractionRecall(truth, pred) == 0.5);
  pred[19] = -1.0f;
  CHECK(sur::TopFractionRecall(truth, pred) == 0.0);
  // k = ceil(0.1 * 25) = 3.
  V t25(25), p25(25);
  for (int i = 0; i < 25; ++i) t25[i] = p25[i] = static_cast<float>(i);
  p25[24] = 0.0f;
  CHECK(sur::TopFractionRecall(t25, p25) == Approx(2.0 / 3.0));
  CHECK(sur::TopFractionRecall(t25, p25, 1.0) == 1.0);
}

TEST_CASE("Std calibration counts points within one and two std", "[surrogate]") {
  const V truth = {0, 0, 0, 0}, mean = {0.5f, 1.5f, 2.5f, 0}, stddev = {1, 1, 1, 0};
  const auto c = sur::StdCalibration(truth, mean, stddev);
  CHECK(c.within_1_std == 0.5);
  CHECK(c.within_2_std == 0.75);
  const auto r = sur::Evaluate(truth, mean, stddev, 0.1);
  CHECK(r.calibration.within_2_std == 0.75);
  const auto j = r.ToJson();
  CHECK(j["r_squared"].is_null());  // constant truth
  CHECK(j["within_1_std"] == 0.5);
  CHECK(j["count"] == 4);
}
