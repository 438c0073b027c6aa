#include "common/statistics.h"

#include <algorithm>

#include "common/errors.h"

namespace dcnas {

double Median(std::vector<double> values) {
  if (values.empty()) throw InternalError("median of an empty sample");
  const size_t n = values.size();
  std::sort(values.begin(), values.end());
  return n % 2 == 1 ? values[n / 2] : 0.5 * (values[n / 2 - 1] + values[n / 2]);
}

double Quantile(std::vector<double> values, double q) {
  if (values.empty()) throw InternalError("quantile of an empty sample");
  if (!(q >= 0.0 && q <= 1.0)) throw InternalError("quantile outside [0, 1]");
  std::sort(values.begin(), values.end());
  const double pos = q * static_cast<double>(values.size() - 1);
  const auto lo = static_cast<size_t>(pos);
  const size_t hi = std::min(lo + 1, values.size() - 1);
  return values[lo] + (pos - static_cast<double>(lo)) * (values[hi] - values[lo]);
}

}  // namespace dcnas
