// How well anything can rank networks whose labels are noisy trainings. A training's accuracy is
// y = mu + e: the network's own mean mu (spread sigma_a across networks) and seed noise e (sigma_e,
// the same for every network). A predictor is scored against labels that average k trainings; even
// a perfect predictor of mu cannot rank those labels perfectly. That limit is the label's ceiling,
// and it depends on k: seed-to-seed agreement (two single trainings) is a lower, different figure.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace dcnas::proxy {

struct NoiseModel {
  size_t networks = 0;     // groups with at least one training
  size_t replicated = 0;   // groups with two or more
  double icc = 0.0;        // ICC(1) of the replicated groups (IntraClassCorrelation); NaN: none
  double noise_sd = 0.0;   // sigma_e: pooled within-network standard deviation; NaN: none
  double spread_sd = 0.0;  // sigma_a: the networks' means' spread less their noise (>= 0)
};

// The noise model of groups of repeated trainings (one group per network; networks with a single
// training contribute to the spread, those with two or more to the noise as well).
NoiseModel EstimateNoise(const std::vector<std::vector<double>>& groups);

// The ceiling under normality: Kendall tau between mu and the mean of k trainings is
// (2 / pi) asin(sqrt(R_k)) with R_k = k ICC / (1 + (k - 1) ICC) (the Spearman-Brown reliability of
// a k-training mean; Greiner's relation for a bivariate normal).
double NormalTauCeiling(double icc, int k);
// Seed-to-seed tau under the same model: two single trainings correlate at ICC, so
// (2 / pi) asin(ICC).
double NormalReplicateTau(double icc);

// The same without assuming normal network means: the observed means shrunk towards their mean
// to the spread sigma_a (so the sample's shape, e.g. a long tail of weak networks, is kept), then
// Gaussian seed noise sigma_e / sqrt(k) added, and Kendall tau between the two averaged over
// `draws` seeded draws. NaN when the groups give no noise estimate.
double SimulatedTauCeiling(const std::vector<std::vector<double>>& groups, int k, int draws = 200,
                           uint64_t seed = 0);

// What the same simulation predicts for two single trainings of every network (seed-to-seed
// tau): compared with the measured one, a check of the noise model.
double SimulatedReplicateTau(const std::vector<std::vector<double>>& groups, int draws = 200,
                             uint64_t seed = 0);

}  // namespace dcnas::proxy
