#include "surrogate/metrics.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <nlohmann/json.hpp>
#include <numeric>
#include <string>
#include <vector>

#include "common/errors.h"
#include "common/rank_correlation.h"

namespace dcnas::surrogate {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

void CheckSame(std::span<const float> a, std::span<const float> b, const char* what) {
  if (a.size() != b.size()) {
    throw InputError(std::string(what) + ": " + std::to_string(a.size()) + " vs " +
                     std::to_string(b.size()) + " values");
  }
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (std::isnan(a[i]) || std::isnan(b[i])) {
      throw InputError(std::string(what) + ": NaN at row " + std::to_string(i));
    }
  }
}

std::vector<double> Doubles(std::span<const float> v) { return {v.begin(), v.end()}; }

nlohmann::json Number(double v) { return std::isfinite(v) ? nlohmann::json(v) : nullptr; }

}  // namespace

double Rmse(std::span<const float> truth, std::span<const float> predicted) {
  CheckSame(truth, predicted, "rmse");
  if (truth.empty()) return kNaN;
  double ss = 0.0;
  for (std::size_t i = 0; i < truth.size(); ++i) {
    const double d = static_cast<double>(truth[i]) - predicted[i];
    ss += d * d;
  }
  return std::sqrt(ss / static_cast<double>(truth.size()));
}

double RSquared(std::span<const float> truth, std::span<const float> predicted) {
  CheckSame(truth, predicted, "r_squared");
  if (truth.empty()) return kNaN;
  double mean = 0.0;
  for (float v : truth) mean += v;
  mean /= static_cast<double>(truth.size());
  double ss_res = 0.0, ss_tot = 0.0;
  for (std::size_t i = 0; i < truth.size(); ++i) {
    const double r = static_cast<double>(truth[i]) - predicted[i];
    const double t = static_cast<double>(truth[i]) - mean;
    ss_res += r * r;
    ss_tot += t * t;
  }
  if (ss_tot == 0.0) return kNaN;
  return 1.0 - ss_res / ss_tot;
}

double KendallTau(std::span<const float> a, std::span<const float> b) {
  CheckSame(a, b, "kendall_tau");
  return a.size() < 2 ? kNaN : dcnas::KendallTau(Doubles(a), Doubles(b));
}

double SparseKendallTau(std::span<const float> truth, std::span<const float> predicted,
                        double round_to) {
  CheckSame(truth, predicted, "sparse_kendall_tau");
  if (!(round_to > 0.0)) throw InputError("sparse_kendall_tau: round_to must be > 0");
  auto round = [round_to](std::span<const float> v) {
    std::vector<double> out(v.size());
    for (std::size_t i = 0; i < v.size(); ++i) {
      out[i] = std::round(static_cast<double>(v[i]) / round_to);
    }
    return out;
  };
  return truth.size() < 2 ? kNaN : dcnas::KendallTau(round(truth), round(predicted));
}

double TopFractionRecall(std::span<const float> truth, std::span<const float> predicted,
                         double fraction) {
  CheckSame(truth, predicted, "top_fraction_recall");
  if (!(fraction > 0.0 && fraction <= 1.0)) {
    throw InputError("top_fraction_recall: fraction must be in (0, 1]");
  }
  const std::size_t n = truth.size();
  if (n == 0) return kNaN;
  const std::size_t k = std::max<std::size_t>(
      1,
      std::min(n, static_cast<std::size_t>(std::ceil(fraction * static_cast<double>(n) - 1e-9))));
  auto top = [n, k](std::span<const float> v) {
    std::vector<std::size_t> idx(n);
    std::iota(idx.begin(), idx.end(), 0);
    std::stable_sort(idx.begin(), idx.end(),
                     [&](std::size_t i, std::size_t j) { return v[i] > v[j]; });
    std::vector<char> in(n, 0);
    for (std::size_t i = 0; i < k; ++i) in[idx[i]] = 1;
    return in;
  };
  const auto t = top(truth), p = top(predicted);
  std::size_t hits = 0;
  for (std::size_t i = 0; i < n; ++i) hits += (t[i] && p[i]) ? 1 : 0;
  return static_cast<double>(hits) / static_cast<double>(k);
}

Calibration StdCalibration(std::span<const float> truth, std::span<const float> mean,
                           std::span<const float> stddev) {
  CheckSame(truth, mean, "std_calibration");
  CheckSame(truth, stddev, "std_calibration");
  Calibration c;
  if (truth.empty()) return c;
  std::size_t one = 0, two = 0;
  for (std::size_t i = 0; i < truth.size(); ++i) {
    const double err = std::abs(static_cast<double>(truth[i]) - mean[i]);
    one += err <= stddev[i] ? 1 : 0;
    two += err <= 2.0 * stddev[i] ? 1 : 0;
  }
  c.within_1_std = static_cast<double>(one) / static_cast<double>(truth.size());
  c.within_2_std = static_cast<double>(two) / static_cast<double>(truth.size());
  return c;
}

nlohmann::json QualityReport::ToJson() const {
  return {{"count", count},
          {"rmse", Number(rmse)},
          {"r_squared", Number(r_squared)},
          {"kendall_tau", Number(kendall_tau)},
          {"sparse_kendall_tau", Number(sparse_kendall_tau)},
          {"sparse_round_to", round_to},
          {"top10_recall", Number(top10_recall)},
          {"within_1_std", calibration.within_1_std},
          {"within_2_std", calibration.within_2_std}};
}

QualityReport Evaluate(std::span<const float> truth, std::span<const float> mean,
                       std::span<const float> stddev, double round_to) {
  QualityReport r;
  r.count = truth.size();
  r.rmse = Rmse(truth, mean);
  r.r_squared = RSquared(truth, mean);
  r.kendall_tau = KendallTau(truth, mean);
  r.sparse_kendall_tau = SparseKendallTau(truth, mean, round_to);
  r.round_to = round_to;
  r.top10_recall = TopFractionRecall(truth, mean, 0.1);
  r.calibration = StdCalibration(truth, mean, stddev);
  return r;
}

}  // namespace dcnas::surrogate
