#include "calibrate/metrics.h"

#include <catch2/catch.hpp>

#include <cmath>

#include "common/errors.h"

namespace dcnas::calibrate {

TEST_CASE("error metrics of a hand-computed case", "[calibrate]") {
  // Errors: +10%, -5%, +30%, -20%  (predicted vs measured).
  const std::vector<double> measured = {10, 20, 30, 40};
  const std::vector<double> predicted = {11, 19, 39, 32};
  const ErrorMetrics m = ComputeMetrics(predicted, measured, {"a", "b", "c", "d"});
  CHECK(m.count == 4);
  CHECK(m.mape == Approx((0.10 + 0.05 + 0.30 + 0.20) / 4));
  CHECK(m.median_ape == Approx((0.10 + 0.20) / 2));
  CHECK(m.within_10 == Approx(0.5));  // 10% and 5%
  CHECK(m.within_20 == Approx(0.75));
  CHECK(m.worst_ape == Approx(0.30));
  CHECK(m.worst_label == "c");
  CHECK(m.median_signed == Approx((0.10 - 0.05) / 2));
  // Orders: measured 10<20<30<40, predicted 11<19<32<39: one swapped pair of six.
  CHECK(m.kendall_tau == Approx((5.0 - 1.0) / 6.0));
}

TEST_CASE("Kendall tau-b: perfect, reversed and tied rankings", "[calibrate]") {
  CHECK(KendallTau({1, 2, 3, 4}, {10, 20, 30, 40}) == Approx(1.0));
  CHECK(KendallTau({1, 2, 3, 4}, {4, 3, 2, 1}) == Approx(-1.0));
  // a: 1,2,2,3 (one tie), b: 1,2,3,4. n0 = 6, n1 = 1, n2 = 0, concordant 5, discordant 0.
  CHECK(KendallTau({1, 2, 2, 3}, {1, 2, 3, 4}) == Approx(5.0 / std::sqrt(5.0 * 6.0)));
  CHECK(std::isnan(KendallTau({1, 1}, {1, 2})));
  CHECK(std::isnan(KendallTau({1, 2}, {1, 2}, {"b1", "b8"})));
  // Groups: only the pairs (0,1) and (2,3) count; the first agrees, the second disagrees.
  CHECK(KendallTau({1, 2, 30, 40}, {1, 2, 40, 30}, {"b1", "b1", "b8", "b8"}) == Approx(0.0));
  CHECK(KendallTau({1, 2, 30, 40}, {1, 2, 300, 400}, {"b1", "b1", "b8", "b8"}) == Approx(1.0));
  // Without groups, the cross-group pairs dominate.
  CHECK(KendallTau({1, 2, 30, 40}, {1, 2, 40, 30}) == Approx(4.0 / 6.0));
}

TEST_CASE("metrics reject unusable input", "[calibrate]") {
  CHECK_THROWS_AS(ComputeMetrics({1, 2}, {1}), InputError);
  CHECK_THROWS_AS(ComputeMetrics({}, {}), InputError);
  CHECK_THROWS_AS(ComputeMetrics({0.0}, {1.0}), InputError);
  CHECK_THROWS_AS(ComputeMetrics({1.0}, {-1.0}), InputError);
}

}  // namespace dcnas::calibrate
