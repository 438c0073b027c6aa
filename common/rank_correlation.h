// Rank agreement between two samples (calibration, accuracy data, the surrogate's metrics).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace dcnas {

// Kendall's tau-b of two equally long samples (ties handled as in tau-b); NaN when no pair is
// comparable (one row, or one model per group). With `groups` (one key per element), only pairs
// within the same group count: the ranking of models measured under the same condition (e.g. the
// same batch size), so that the trivial ordering of batch sizes does not inflate the agreement.
// O(n log n) (Knight 1966); throws InputError for samples of different lengths or a NaN.
double KendallTau(const std::vector<double>& a, const std::vector<double>& b,
                  const std::vector<std::string>& groups = {});

// A two-sided percentile bootstrap interval of Kendall's tau-b: the pairs (a_i, b_i) resampled
// with replacement `draws` times (seeded: the same inputs give the same interval), the
// (1 - level) / 2 and (1 + level) / 2 quantiles of the resampled taus. NaN bounds with fewer than
// three pairs. The statistic behind every "tau [lo, hi]" this project reports.
struct TauInterval {
  double tau = 0.0;  // of the sample itself
  double lo = 0.0;
  double hi = 0.0;
};
// Kendall tau of `a` against `b` over only the pairs whose `size` values are within a factor
// `ratio` of each other: (concordant - discordant) / (concordant + discordant), pairs tied in a or
// b left out. What a score says about b at (nearly) equal size. tau is NaN without such pairs.
struct MatchedTau {
  double tau = 0.0;
  size_t pairs = 0;  // matched pairs that are not ties
};
MatchedTau SizeMatchedKendallTau(const std::vector<double>& a, const std::vector<double>& b,
                                 const std::vector<double>& size, double ratio);

TauInterval BootstrapKendallTau(const std::vector<double>& a, const std::vector<double>& b,
                                int draws = 1000, double level = 0.95, uint64_t seed = 0);

}  // namespace dcnas
