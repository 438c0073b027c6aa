// Rank agreement between two samples (calibration, accuracy data, the surrogate's metrics).
#pragma once

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

}  // namespace dcnas
