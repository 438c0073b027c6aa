// Cross-validation splitters: which rows a fit sees and which it is judged on.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace dcnas::calibrate {

struct Fold {
  std::string label;          // "fold 3/5", "family resnet", "device t4"
  std::vector<size_t> train;  // row indices, ascending
  std::vector<size_t> test;   // row indices, ascending
};

// k folds of a seeded shuffle of rows 0..n-1; every row is tested exactly once. When
// `groups` is given (one key per row), rows sharing a key stay in the same fold, so repeated
// measurements of one model never sit on both sides. Throws InputError if k < 2 or there are
// fewer rows (or groups) than folds.
std::vector<Fold> KFold(size_t n, int k, uint64_t seed,
                        const std::vector<std::string>& groups = {});

// One fold per distinct key: train on all other keys, test on this one (leave-one-family-out,
// leave-one-device-out). Folds are in key order. Throws InputError on fewer than two keys.
std::vector<Fold> LeaveOneGroupOut(const std::vector<std::string>& keys, const std::string& what);

}  // namespace dcnas::calibrate
