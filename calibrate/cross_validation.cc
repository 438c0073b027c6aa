#include "calibrate/cross_validation.h"

#include <algorithm>
#include <map>
#include <random>

#include "common/errors.h"

namespace dcnas::calibrate {

std::vector<Fold> KFold(size_t n, int k, uint64_t seed, const std::vector<std::string>& groups) {
  if (k < 2) throw InputError("k-fold cross-validation needs k >= 2, got " + std::to_string(k));
  if (!groups.empty() && groups.size() != n) {
    throw InputError("k-fold: " + std::to_string(groups.size()) + " group keys for " +
                     std::to_string(n) + " rows");
  }
  // Units that are assigned to folds: single rows, or whole groups.
  std::vector<std::vector<size_t>> units;
  if (groups.empty()) {
    for (size_t i = 0; i < n; ++i) units.push_back({i});
  } else {
    std::map<std::string, size_t> unit_of;
    for (size_t i = 0; i < n; ++i) {
      const auto [it, inserted] = unit_of.emplace(groups[i], units.size());
      if (inserted) units.emplace_back();
      units[it->second].push_back(i);
    }
  }
  if (units.size() < static_cast<size_t>(k)) {
    throw InputError("k-fold: " + std::to_string(units.size()) +
                     (groups.empty() ? " rows" : " groups") + " cannot fill " + std::to_string(k) +
                     " folds");
  }
  std::mt19937_64 rng(seed);
  std::vector<size_t> order(units.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  // Fisher-Yates with the generator's raw output, so the shuffle is the same on every standard
  // library (std::shuffle's distribution is implementation-defined).
  for (size_t i = order.size(); i > 1; --i) std::swap(order[i - 1], order[rng() % i]);
  std::vector<int> fold_of_row(n, 0);
  for (size_t u = 0; u < order.size(); ++u) {
    for (size_t row : units[order[u]]) fold_of_row[row] = static_cast<int>(u % k);
  }
  std::vector<Fold> folds(k);
  for (int f = 0; f < k; ++f) {
    folds[f].label = "fold " + std::to_string(f + 1) + "/" + std::to_string(k);
    for (size_t i = 0; i < n; ++i) {
      (fold_of_row[i] == f ? folds[f].test : folds[f].train).push_back(i);
    }
  }
  return folds;
}

std::vector<Fold> LeaveOneGroupOut(const std::vector<std::string>& keys, const std::string& what) {
  std::map<std::string, std::vector<size_t>> by_key;
  for (size_t i = 0; i < keys.size(); ++i) by_key[keys[i]].push_back(i);
  if (by_key.size() < 2) {
    throw InputError("leave-one-" + what + "-out needs rows of at least two " + what +
                     " values, found " + std::to_string(by_key.size()));
  }
  std::vector<Fold> folds;
  for (const auto& [key, rows] : by_key) {
    Fold fold;
    fold.label = what + " " + key;
    fold.test = rows;
    for (size_t i = 0; i < keys.size(); ++i) {
      if (keys[i] != key) fold.train.push_back(i);
    }
    folds.push_back(std::move(fold));
  }
  return folds;
}

}  // namespace dcnas::calibrate
