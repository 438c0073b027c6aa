#include "common/rank.h"

#include <cmath>

#include "common/errors.h"

namespace dcnas {
namespace {

int Sign(double v) { return (v > 0) - (v < 0); }

}  // namespace

double KendallTau(const std::vector<double>& a, const std::vector<double>& b,
                  const std::vector<std::string>& groups) {
  if (a.size() != b.size() || (!groups.empty() && groups.size() != a.size())) {
    throw InputError("Kendall tau: samples of different lengths");
  }
  const size_t n = a.size();
  double concordant_minus_discordant = 0;
  double pairs_a = 0;  // pairs not tied in a
  double pairs_b = 0;  // pairs not tied in b
  for (size_t i = 0; i < n; ++i) {
    for (size_t j = i + 1; j < n; ++j) {
      if (!groups.empty() && groups[i] != groups[j]) continue;
      const int sa = Sign(a[i] - a[j]);
      const int sb = Sign(b[i] - b[j]);
      concordant_minus_discordant += sa * sb;
      pairs_a += sa != 0;
      pairs_b += sb != 0;
    }
  }
  if (pairs_a == 0 || pairs_b == 0) return std::nan("");
  return concordant_minus_discordant / std::sqrt(pairs_a * pairs_b);
}

}  // namespace dcnas
