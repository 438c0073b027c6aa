#include "common/rank_correlation.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <numeric>
#include <random>

#include "common/errors.h"
#include "common/statistics.h"

namespace dcnas {
namespace {

uint64_t TiedPairs(uint64_t run) { return run * (run - 1) / 2; }

// Counts pairs i < j with v[i] > v[j] while merge-sorting v.
uint64_t CountInversions(std::vector<double>& v) {
  std::vector<double> buf(v.size());
  uint64_t inversions = 0;
  for (size_t width = 1; width < v.size(); width *= 2) {
    for (size_t lo = 0; lo < v.size(); lo += 2 * width) {
      const size_t mid = std::min(lo + width, v.size());
      const size_t hi = std::min(lo + 2 * width, v.size());
      size_t i = lo, j = mid, k = lo;
      while (i < mid && j < hi) {
        if (v[j] < v[i]) {
          inversions += mid - i;
          buf[k++] = v[j++];
        } else {
          buf[k++] = v[i++];
        }
      }
      while (i < mid) buf[k++] = v[i++];
      while (j < hi) buf[k++] = v[j++];
    }
    v.swap(buf);
  }
  return inversions;
}

// The pair counts of tau-b over the elements `rows` of a and b.
struct PairCounts {
  double concordant_minus_discordant = 0.0;
  double untied_a = 0.0;  // pairs not tied in a
  double untied_b = 0.0;  // pairs not tied in b
};

// Knight's O(n log n) algorithm: sort by (a, b), count ties, then count the discordant pairs as
// the inversions of b in that order.
PairCounts Count(const std::vector<double>& a, const std::vector<double>& b,
                 std::vector<size_t> rows) {
  const size_t n = rows.size();
  PairCounts c;
  if (n < 2) return c;
  std::sort(rows.begin(), rows.end(),
            [&](size_t i, size_t j) { return a[i] < a[j] || (a[i] == a[j] && b[i] < b[j]); });
  const uint64_t n0 = TiedPairs(n);
  uint64_t ties_a = 0, ties_joint = 0;
  for (size_t i = 0; i < n;) {
    size_t j = i + 1;
    while (j < n && a[rows[j]] == a[rows[i]]) ++j;
    ties_a += TiedPairs(j - i);
    for (size_t k = i; k < j;) {
      size_t m = k + 1;
      while (m < j && b[rows[m]] == b[rows[k]]) ++m;
      ties_joint += TiedPairs(m - k);
      k = m;
    }
    i = j;
  }
  std::vector<double> sorted_b(n);
  for (size_t i = 0; i < n; ++i) sorted_b[i] = b[rows[i]];
  const uint64_t discordant = CountInversions(sorted_b);
  uint64_t ties_b = 0;
  for (size_t i = 0; i < n;) {
    size_t j = i + 1;
    while (j < n && sorted_b[j] == sorted_b[i]) ++j;
    ties_b += TiedPairs(j - i);
    i = j;
  }
  c.concordant_minus_discordant = static_cast<double>(n0) - static_cast<double>(ties_a) -
                                  static_cast<double>(ties_b) + static_cast<double>(ties_joint) -
                                  2.0 * static_cast<double>(discordant);
  c.untied_a = static_cast<double>(n0 - ties_a);
  c.untied_b = static_cast<double>(n0 - ties_b);
  return c;
}

}  // namespace

double KendallTau(const std::vector<double>& a, const std::vector<double>& b,
                  const std::vector<std::string>& groups) {
  if (a.size() != b.size() || (!groups.empty() && groups.size() != a.size())) {
    throw InputError("Kendall tau: samples of different lengths");
  }
  for (size_t i = 0; i < a.size(); ++i) {
    if (std::isnan(a[i]) || std::isnan(b[i])) {
      throw InputError("Kendall tau: NaN at element " + std::to_string(i));
    }
  }
  std::map<std::string, std::vector<size_t>> by_group;
  for (size_t i = 0; i < a.size(); ++i) by_group[groups.empty() ? "" : groups[i]].push_back(i);
  PairCounts total;
  for (auto& [group, rows] : by_group) {
    const PairCounts c = Count(a, b, std::move(rows));
    total.concordant_minus_discordant += c.concordant_minus_discordant;
    total.untied_a += c.untied_a;
    total.untied_b += c.untied_b;
  }
  if (total.untied_a == 0 || total.untied_b == 0) return std::nan("");
  return total.concordant_minus_discordant / std::sqrt(total.untied_a * total.untied_b);
}

TauInterval BootstrapKendallTau(const std::vector<double>& a, const std::vector<double>& b,
                                int draws, double level, uint64_t seed) {
  if (draws < 1 || !(level > 0.0 && level < 1.0)) {
    throw InternalError("BootstrapKendallTau: draws >= 1 and 0 < level < 1");
  }
  TauInterval t;
  t.tau = KendallTau(a, b);
  const double nan = std::nan("");
  t.lo = t.hi = nan;
  const size_t n = a.size();
  if (n < 3) return t;
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<size_t> pick(0, n - 1);
  std::vector<double> taus, x(n), y(n);
  taus.reserve(draws);
  for (int d = 0; d < draws; ++d) {
    for (size_t i = 0; i < n; ++i) {
      const size_t k = pick(rng);
      x[i] = a[k];
      y[i] = b[k];
    }
    const double tau = KendallTau(x, y);
    if (!std::isnan(tau)) taus.push_back(tau);
  }
  if (taus.empty()) return t;
  t.lo = Quantile(taus, (1.0 - level) / 2.0);
  t.hi = Quantile(taus, (1.0 + level) / 2.0);
  return t;
}

MatchedTau SizeMatchedKendallTau(const std::vector<double>& a, const std::vector<double>& b,
                                 const std::vector<double>& size, double ratio) {
  if (a.size() != b.size() || a.size() != size.size()) {
    throw InternalError("SizeMatchedKendallTau: lengths differ");
  }
  const double limit = std::log(ratio);
  int64_t concordant = 0;
  int64_t discordant = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    for (size_t j = i + 1; j < a.size(); ++j) {
      if (!(size[i] > 0 && size[j] > 0) || std::fabs(std::log(size[i] / size[j])) > limit) continue;
      const double s = (a[i] - a[j]) * (b[i] - b[j]);
      if (s > 0) ++concordant;
      if (s < 0) ++discordant;
    }
  }
  MatchedTau m;
  m.pairs = static_cast<size_t>(concordant + discordant);
  m.tau = m.pairs == 0
              ? std::nan("")
              : static_cast<double>(concordant - discordant) / static_cast<double>(m.pairs);
  return m;
}

}  // namespace dcnas
