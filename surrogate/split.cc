#include "surrogate/split.h"

#include <algorithm>
#include <cmath>
#include <unordered_map>

#include "common/errors.h"
#include "surrogate/random.h"

namespace dcnas::surrogate {

GroupSplit SplitByGroup(std::span<const std::string> group_keys, std::uint64_t seed,
                        const SplitFractions& fractions) {
  if (group_keys.empty()) throw InputError("cannot split an empty data set");
  if (fractions.train < 0 || fractions.valid < 0 || fractions.test < 0 ||
      std::abs(fractions.train + fractions.valid + fractions.test - 1.0) > 1e-9) {
    throw InputError("split fractions must be non-negative and sum to 1 (got " +
                     std::to_string(fractions.train) + ", " + std::to_string(fractions.valid) +
                     ", " + std::to_string(fractions.test) + ")");
  }
  std::vector<std::string> keys(group_keys.begin(), group_keys.end());
  std::sort(keys.begin(), keys.end());
  keys.erase(std::unique(keys.begin(), keys.end()), keys.end());
  Rng rng(seed);
  Shuffle(keys, rng);

  const std::size_t g = keys.size();
  auto count = [g](double f) {
    return static_cast<std::size_t>(std::llround(f * static_cast<double>(g)));
  };
  std::size_t n_train = std::min(g, count(fractions.train));
  std::size_t n_valid = std::min(g - n_train, count(fractions.valid));
  if (g >= 3) {
    // Keep every split with a positive fraction non-empty.
    if (fractions.valid > 0 && n_valid == 0) n_valid = 1;
    if (fractions.test > 0 && n_train + n_valid == g) {
      if (n_train > n_valid) {
        --n_train;
      } else {
        --n_valid;
      }
    }
    if (fractions.train > 0 && n_train == 0) {
      n_train = 1;
      if (n_train + n_valid > g) --n_valid;
    }
  }
  std::unordered_map<std::string, int> which;
  for (std::size_t i = 0; i < g; ++i)
    which[keys[i]] = i < n_train ? 0 : i < n_train + n_valid ? 1 : 2;

  GroupSplit split;
  for (std::size_t r = 0; r < group_keys.size(); ++r) {
    switch (which.at(group_keys[r])) {
      case 0:
        split.train.push_back(r);
        break;
      case 1:
        split.valid.push_back(r);
        break;
      default:
        split.test.push_back(r);
        break;
    }
  }
  return split;
}

}  // namespace dcnas::surrogate
