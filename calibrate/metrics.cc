#include "calibrate/metrics.h"

#include <algorithm>
#include <cmath>

#include "common/errors.h"
#include "common/statistics.h"

namespace dcnas::calibrate {
namespace {}  // namespace

double AbsolutePercentageError(double predicted, double measured) {
  return std::abs(predicted - measured) / measured;
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
