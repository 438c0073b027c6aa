#include "proxy/label_noise.h"

#include <algorithm>
#include <cmath>
#include <numbers>
#include <random>

#include "common/errors.h"
#include "common/rank_correlation.h"
#include "proxy/accuracy_data.h"

namespace dcnas::proxy {
namespace {

double Mean(const std::vector<double>& v) {
  double s = 0.0;
  for (const double x : v) s += x;
  return s / static_cast<double>(v.size());
}

// The networks' true means as the model sees them: observed means shrunk to sigma_a.
std::vector<double> ShrunkMeans(const std::vector<std::vector<double>>& groups,
                                const NoiseModel& m) {
  std::vector<double> means;
  for (const auto& g : groups) {
    if (!g.empty()) means.push_back(Mean(g));
  }
  const double grand = Mean(means);
  double var = 0.0;
  for (const double x : means) var += (x - grand) * (x - grand);
  var /= static_cast<double>(means.size() - 1);
  const double s = var > 0.0 ? m.spread_sd / std::sqrt(var) : 0.0;
  for (double& x : means) x = grand + s * (x - grand);
  return means;
}

void CheckDraws(int k, int draws) {
  if (k < 1 || draws < 1) throw InternalError("label noise: k >= 1 and draws >= 1");
}

}  // namespace

NoiseModel EstimateNoise(const std::vector<std::vector<double>>& groups) {
  NoiseModel m;
  const double nan = std::nan("");
  m.icc = m.noise_sd = m.spread_sd = nan;
  double within = 0.0, dof = 0.0, inv_m = 0.0;
  std::vector<double> means;
  for (const auto& g : groups) {
    if (g.empty()) continue;
    m.networks += 1;
    const double mean = Mean(g);
    means.push_back(mean);
    inv_m += 1.0 / static_cast<double>(g.size());
    if (g.size() < 2) continue;
    m.replicated += 1;
    for (const double x : g) within += (x - mean) * (x - mean);
    dof += static_cast<double>(g.size() - 1);
  }
  if (m.replicated < 2 || means.size() < 3) return m;
  m.icc = IntraClassCorrelation(groups);
  const double noise_var = within / dof;
  m.noise_sd = std::sqrt(noise_var);
  const double grand = Mean(means);
  double var = 0.0;
  for (const double x : means) var += (x - grand) * (x - grand);
  var /= static_cast<double>(means.size() - 1);
  m.spread_sd = std::sqrt(std::max(0.0, var - noise_var * inv_m / static_cast<double>(m.networks)));
  return m;
}

double NormalTauCeiling(double icc, int k) {
  CheckDraws(k, 1);
  if (std::isnan(icc)) return icc;
  const double r = std::clamp(icc, 0.0, 1.0);
  const double reliability = k * r / (1.0 + (k - 1) * r);
  return 2.0 / std::numbers::pi * std::asin(std::sqrt(reliability));
}

double NormalReplicateTau(double icc) {
  if (std::isnan(icc)) return icc;
  return 2.0 / std::numbers::pi * std::asin(std::clamp(icc, 0.0, 1.0));
}

double SimulatedTauCeiling(const std::vector<std::vector<double>>& groups, int k, int draws,
                           uint64_t seed) {
  CheckDraws(k, draws);
  const NoiseModel m = EstimateNoise(groups);
  if (std::isnan(m.noise_sd)) return std::nan("");
  const std::vector<double> mu = ShrunkMeans(groups, m);
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> noise(0.0, m.noise_sd / std::sqrt(static_cast<double>(k)));
  double sum = 0.0;
  std::vector<double> label(mu.size());
  for (int d = 0; d < draws; ++d) {
    for (size_t i = 0; i < mu.size(); ++i) label[i] = mu[i] + noise(rng);
    sum += KendallTau(mu, label);
  }
  return sum / draws;
}

double SimulatedReplicateTau(const std::vector<std::vector<double>>& groups, int draws,
                             uint64_t seed) {
  CheckDraws(1, draws);
  const NoiseModel m = EstimateNoise(groups);
  if (std::isnan(m.noise_sd)) return std::nan("");
  const std::vector<double> mu = ShrunkMeans(groups, m);
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> noise(0.0, m.noise_sd);
  double sum = 0.0;
  std::vector<double> a(mu.size()), b(mu.size());
  for (int d = 0; d < draws; ++d) {
    for (size_t i = 0; i < mu.size(); ++i) {
      a[i] = mu[i] + noise(rng);
      b[i] = mu[i] + noise(rng);
    }
    sum += KendallTau(a, b);
  }
  return sum / draws;
}

}  // namespace dcnas::proxy
