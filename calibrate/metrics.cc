#include "calibrate/metrics.h"

#include <algorithm>
#include <cmath>

#include "common/errors.h"

namespace dcnas::calibrate {
namespace {

double Median(std::vector<double> values) {
  const size_t n = values.size();
  std::sort(values.begin(), values.end());
  return n % 2 == 1 ? values[n / 2] : 0.5 * (values[n / 2 - 1] + values[n / 2]);
}

int Sign(double x) { return (x > 0) - (x < 0); }

}  // namespace

double AbsolutePercentageError(double predicted, double measured) {
  return std::abs(predicted - measured) / measured;
}

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

ErrorMetrics ComputeMetrics(const std::vector<double>& predicted,
                            const std::vector<double>& measured,
                            const std::vector<std::string>& labels,
                            const std::vector<std::string>& groups) {
  if (predicted.size() != measured.size()) {
    throw InputError("metrics: " + std::to_string(predicted.size()) + " predictions for " +
                     std::to_string(measured.size()) + " measurements");
  }
  if (!labels.empty() && labels.size() != measured.size()) {
    throw InputError("metrics: labels do not match the measurements");
  }
  if (!groups.empty() && groups.size() != measured.size()) {
    throw InputError("metrics: groups do not match the measurements");
  }
  if (measured.empty()) throw InputError("metrics: no rows");
  ErrorMetrics m;
  m.count = measured.size();
  std::vector<double> ape(m.count);
  std::vector<double> signed_error(m.count);
  size_t worst = 0;
  for (size_t i = 0; i < m.count; ++i) {
    if (!(measured[i] > 0) || !(predicted[i] > 0) || !std::isfinite(predicted[i])) {
      throw InputError("metrics: row " + std::to_string(i) + " has a non-positive value" +
                       (labels.empty() ? std::string() : " (" + labels[i] + ")"));
    }
    ape[i] = AbsolutePercentageError(predicted[i], measured[i]);
    signed_error[i] = (predicted[i] - measured[i]) / measured[i];
    if (ape[i] > ape[worst]) worst = i;
    m.mape += ape[i];
    m.within_10 += ape[i] <= 0.10;
    m.within_20 += ape[i] <= 0.20;
  }
  m.mape /= static_cast<double>(m.count);
  m.within_10 /= static_cast<double>(m.count);
  m.within_20 /= static_cast<double>(m.count);
  m.median_ape = Median(ape);
  m.median_signed = Median(signed_error);
  m.worst_ape = ape[worst];
  if (!labels.empty()) m.worst_label = labels[worst];
  m.kendall_tau = KendallTau(predicted, measured, groups);
  return m;
}

}  // namespace dcnas::calibrate
