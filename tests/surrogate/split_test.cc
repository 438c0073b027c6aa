#include "surrogate/split.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <map>
#include <random>
#include <set>

#include "common/errors.h"

namespace sur = dcnas::surrogate;

namespace {

// 1,000 rows over 300 groups; group sizes vary (some architectures trained several times).
std::vector<std::string> Keys(std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<std::string> keys;
  for (int g = 0; g < 300; ++g) keys.push_back("arch-" + std::to_string(g));
  while (keys.size() < 1000) keys.push_back("arch-" + std::to_string(rng() % 300));
  std::shuffle(keys.begin(), keys.end(), rng);
  return keys;
}

std::map<std::string, int> GroupToSplit(const std::vector<std::string>& keys,
                                        const sur::GroupSplit& s) {
  std::map<std::string, int> out;
  const std::vector<std::size_t>* parts[] = {&s.train, &s.valid, &s.test};
  for (int p = 0; p < 3; ++p) {
    for (std::size_t r : *parts[p]) out.emplace(keys[r], p);
  }
  return out;
}

}  // namespace

TEST_CASE("Split by group never puts one group in two splits", "[surrogate]") {
  const auto keys = Keys(1);
  for (std::uint64_t seed : {0u, 1u, 2u, 99u}) {
    const auto s = sur::SplitByGroup(keys, seed);
    // Every row exactly once.
    std::vector<int> seen(keys.size(), 0);
    for (const auto* part : {&s.train, &s.valid, &s.test}) {
      CHECK(std::is_sorted(part->begin(), part->end()));
      for (std::size_t r : *part) ++seen[r];
    }
    CHECK(std::all_of(seen.begin(), seen.end(), [](int c) { return c == 1; }));
    // No group in two splits.
    std::map<std::string, std::set<int>> splits_of;
    const std::vector<std::size_t>* parts[] = {&s.train, &s.valid, &s.test};
    for (int p = 0; p < 3; ++p) {
      for (std::size_t r : *parts[p]) splits_of[keys[r]].insert(p);
    }
    CHECK(splits_of.size() == 300);
    for (const auto& [key, set] : splits_of) CHECK(set.size() == 1);
    // 80/10/10 of the 300 groups.
    std::array<int, 3> groups{};
    for (const auto& [key, set] : splits_of) ++groups[*set.begin()];
    CHECK(groups[0] == 240);
    CHECK(groups[1] == 30);
    CHECK(groups[2] == 30);
  }
}

TEST_CASE("Split by group is seeded and independent of row order", "[surrogate]") {
  const auto keys = Keys(2);
  const auto a = sur::SplitByGroup(keys, 7);
  const auto b = sur::SplitByGroup(keys, 7);
  CHECK(a.train == b.train);
  CHECK(a.valid == b.valid);
  CHECK(a.test == b.test);
  CHECK(sur::SplitByGroup(keys, 8).test != a.test);
  auto shuffled = keys;
  std::mt19937_64 rng(3);
  std::shuffle(shuffled.begin(), shuffled.end(), rng);
  CHECK(GroupToSplit(shuffled, sur::SplitByGroup(shuffled, 7)) == GroupToSplit(keys, a));
}

TEST_CASE("Split by group keeps small splits non-empty and checks fractions", "[surrogate]") {
  const std::vector<std::string> keys = {"a", "b", "c", "a", "c"};
  const auto s = sur::SplitByGroup(keys, 0);
  CHECK_FALSE(s.train.empty());
  CHECK_FALSE(s.valid.empty());
  CHECK_FALSE(s.test.empty());
  CHECK_THROWS_AS(sur::SplitByGroup(keys, 0, {0.5, 0.2, 0.2}), dcnas::InputError);
  CHECK_THROWS_AS(sur::SplitByGroup(keys, 0, {1.2, -0.1, -0.1}), dcnas::InputError);
  CHECK_THROWS_AS(sur::SplitByGroup(std::vector<std::string>{}, 0), dcnas::InputError);
  const auto all_train = sur::SplitByGroup(keys, 0, {1.0, 0.0, 0.0});
  CHECK(all_train.train.size() == keys.size());
}
