// Train/validation/test split by group: rows that share a group key (the canonical architecture
// encoding; repeated trainings of one architecture share it) always land in the same split, so a
// surrogate is never scored on an architecture it has seen.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace dcnas::surrogate {

struct SplitFractions {
  double train = 0.8;  // NAS-Bench-301's 80/10/10 (Siems et al.)
  double valid = 0.1;
  double test = 0.1;
};

struct GroupSplit {
  std::vector<std::size_t> train;  // row indices, ascending
  std::vector<std::size_t> valid;
  std::vector<std::size_t> test;
};

// Shuffles the distinct keys (sorted first, so the result does not depend on row order) with
// `seed`, then gives the first round(train * G) groups to train, the next round(valid * G) to
// valid and the rest to test. With at least three groups and positive fractions every split gets
// at least one group. Throws InputError when the fractions are negative or do not sum to 1, or
// when there are no rows.
GroupSplit SplitByGroup(std::span<const std::string> group_keys, std::uint64_t seed,
                        const SplitFractions& fractions = {});

}  // namespace dcnas::surrogate
