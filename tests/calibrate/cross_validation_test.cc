#include "calibrate/cross_validation.h"

#include <catch2/catch.hpp>

#include <set>

#include "common/errors.h"

namespace dcnas::calibrate {

TEST_CASE("k-fold tests every row exactly once and never trains on it", "[calibrate]") {
  const auto folds = KFold(23, 5, 7);
  REQUIRE(folds.size() == 5);
  std::multiset<size_t> tested;
  for (const Fold& f : folds) {
    CHECK(f.train.size() + f.test.size() == 23);
    CHECK((f.test.size() == 4 || f.test.size() == 5));
    std::set<size_t> train(f.train.begin(), f.train.end());
    for (size_t t : f.test) {
      CHECK(train.count(t) == 0);
      tested.insert(t);
    }
  }
  CHECK(tested.size() == 23);
  CHECK(std::set<size_t>(tested.begin(), tested.end()).size() == 23);
}

TEST_CASE("k-fold is deterministic per seed and differs between seeds", "[calibrate]") {
  CHECK(KFold(40, 4, 1)[0].test == KFold(40, 4, 1)[0].test);
  CHECK(KFold(40, 4, 1)[0].test != KFold(40, 4, 2)[0].test);
}

TEST_CASE("grouped k-fold keeps a group's rows in one fold", "[calibrate]") {
  const std::vector<std::string> groups = {"a", "b", "a", "c", "d", "b", "e", "c", "a"};
  for (const Fold& f : KFold(groups.size(), 3, 3, groups)) {
    std::set<std::string> test_groups;
    std::set<std::string> train_groups;
    for (size_t t : f.test) test_groups.insert(groups[t]);
    for (size_t t : f.train) train_groups.insert(groups[t]);
    for (const auto& g : test_groups) CHECK(train_groups.count(g) == 0);
  }
  CHECK_THROWS_AS(KFold(groups.size(), 6, 3, groups), InputError);  // only 5 groups
}

TEST_CASE("leave-one-group-out holds out each key once", "[calibrate]") {
  const std::vector<std::string> keys = {"resnet", "regnet", "resnet", "efficientnet"};
  const auto folds = LeaveOneGroupOut(keys, "family");
  REQUIRE(folds.size() == 3);
  CHECK(folds[0].label == "family efficientnet");
  CHECK(folds[0].test == std::vector<size_t>{3});
  CHECK(folds[2].label == "family resnet");
  CHECK(folds[2].test == std::vector<size_t>{0, 2});
  CHECK(folds[2].train == std::vector<size_t>{1, 3});
  CHECK_THROWS_AS(LeaveOneGroupOut({"a", "a"}, "device"), InputError);
  CHECK_THROWS_AS(KFold(10, 1, 0), InputError);
}

}  // namespace dcnas::calibrate
