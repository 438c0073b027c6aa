// Kendall's tau-b (O(n log n)) against its definition over pairs, with ties and groups.
#include "common/rank_correlation.h"

#include <catch2/catch.hpp>
#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "common/errors.h"

namespace dcnas {
namespace {

double ByPairs(const std::vector<double>& a, const std::vector<double>& b,
               const std::vector<std::string>& groups) {
  auto sign = [](double v) { return (v > 0) - (v < 0); };
  double cd = 0, ua = 0, ub = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    for (size_t j = i + 1; j < a.size(); ++j) {
      if (!groups.empty() && groups[i] != groups[j]) continue;
      cd += sign(a[i] - a[j]) * sign(b[i] - b[j]);
      ua += a[i] != a[j];
      ub += b[i] != b[j];
    }
  }
  return ua == 0 || ub == 0 ? std::nan("") : cd / std::sqrt(ua * ub);
}

TEST_CASE("tau-b equals its pairwise definition, with ties and groups", "[rank]") {
  std::mt19937_64 rng(7);
  for (int trial = 0; trial < 200; ++trial) {
    const size_t n = 2 + rng() % 60;
    const int levels = 2 + static_cast<int>(rng() % 12);  // few levels: many ties
    std::vector<double> a(n), b(n);
    std::vector<std::string> groups(n);
    for (size_t i = 0; i < n; ++i) {
      a[i] = static_cast<double>(rng() % levels);
      b[i] = a[i] + static_cast<double>(rng() % 5) - 2.0;
      groups[i] = std::to_string(rng() % 3);
    }
    const double plain = KendallTau(a, b), grouped = KendallTau(a, b, groups);
    const double want_plain = ByPairs(a, b, {}), want_grouped = ByPairs(a, b, groups);
    if (std::isnan(want_plain)) {
      CHECK(std::isnan(plain));
    } else {
      CHECK(plain == Approx(want_plain).margin(1e-12));
    }
    if (std::isnan(want_grouped)) {
      CHECK(std::isnan(grouped));
    } else {
      CHECK(grouped == Approx(want_grouped).margin(1e-12));
    }
  }
}

TEST_CASE("tau-b's edge cases", "[rank]") {
  CHECK(KendallTau({1, 2, 3}, {10, 20, 30}) == 1.0);
  CHECK(KendallTau({1, 2, 3}, {30, 20, 10}) == -1.0);
  CHECK(std::isnan(KendallTau({1, 1, 1}, {1, 2, 3})));
  CHECK(std::isnan(KendallTau({1}, {1})));
  // One element per group: no comparable pair.
  CHECK(std::isnan(KendallTau({1, 2}, {1, 2}, {"a", "b"})));
  CHECK_THROWS_AS(KendallTau({1, 2}, {1}), InputError);
  CHECK_THROWS_AS(KendallTau({1, std::nan("")}, {1, 2}), InputError);
}

}  // namespace
}  // namespace dcnas

namespace dcnas {
namespace {

TEST_CASE("size-matched Kendall tau counts only pairs of similar size") {
  // Sizes 1, 1.1, 10, 11: two matched pairs at ratio 1.25, (0,1) and (2,3).
  const std::vector<double> size = {1.0, 1.1, 10.0, 11.0};
  const std::vector<double> truth = {1.0, 2.0, 3.0, 4.0};
  // A score that agrees on the small pair and disagrees on the large one: tau 0 from 2 pairs,
  // although its overall ranking (by size) would agree on 5 of 6 pairs.
  const MatchedTau m = SizeMatchedKendallTau({1.0, 2.0, 4.0, 3.0}, truth, size, 1.25);
  CHECK(m.pairs == 2);
  CHECK(m.tau == 0.0);
  CHECK(SizeMatchedKendallTau({1.0, 2.0, 3.0, 4.0}, truth, size, 1.25).tau == 1.0);
  // Ties are left out; a wide ratio matches every pair.
  CHECK(SizeMatchedKendallTau({1.0, 1.0, 3.0, 4.0}, truth, size, 1.25).pairs == 1);
  CHECK(SizeMatchedKendallTau({1.0, 2.0, 3.0, 4.0}, truth, size, 100.0).pairs == 6);
  CHECK(std::isnan(SizeMatchedKendallTau({1.0, 2.0}, {1.0, 2.0}, {1.0, 5.0}, 1.25).tau));
}

}  // namespace
}  // namespace dcnas
