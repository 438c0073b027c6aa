// Surrogate files (data/surrogates/*.ubj, `--accuracy surrogate:FILE`, `dcnas surrogate
// predict`): the container reader as UBJSON and as JSON, its members' checksums, the structural
// check of each member's XGBoost model (Forest::CheckModel) and XGBoost's loader behind it. A
// surrogate that loads predicts one row of zeros and one of NaN (missing values) through the
// compiled forests and XGBoost.
#include <cstddef>
#include <limits>
#include <span>
#include <string>
#include <vector>

#include "common/errors.h"
#include "surrogate/surrogate_file.h"
#include "tests/fuzz/fuzz_common.h"

namespace {

void Exercise(const dcnas::surrogate::Surrogate& s) {
  const std::size_t cols = s.ensemble.num_features();
  std::vector<float> x(2 * cols, 0.0F);
  for (std::size_t c = cols; c < 2 * cols; ++c) x[c] = std::numeric_limits<float>::quiet_NaN();
  std::vector<float> mean(2), stddev(2);
  s.ensemble.Predict({x.data(), 2, cols}, mean, stddev);
  std::vector<float> booster(2);
  for (const auto& m : s.ensemble.members()) m.booster().Predict({x.data(), 2, cols}, booster);
}

void Body(const std::string& text) {
  try {
    Exercise(dcnas::surrogate::ParseSurrogate(text, "fuzz.ubj"));
  } catch (const dcnas::InputError&) {
  }
  Exercise(dcnas::surrogate::ParseSurrogate(text, "fuzz.json"));
}

}  // namespace

DCNAS_FUZZ_TARGET(Body)
