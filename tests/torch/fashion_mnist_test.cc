#include "models/torch/fashion_mnist.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <set>

namespace dcnas::models::libtorch {
namespace {

TEST_CASE("the image selection is a fixed split, and limits keep its first images") {
  const ImageSelection full = SelectImages(60000, 10000, 5000, 0, 0);
  CHECK(full.train.size() == 55000);
  CHECK(full.val.size() == 5000);
  CHECK(full.test.size() == 10000);
  std::set<int64_t> all(full.train.begin(), full.train.end());
  all.insert(full.val.begin(), full.val.end());
  CHECK(all.size() == 60000);  // disjoint, and every image is used
  CHECK(*all.rbegin() == 59999);
  CHECK_FALSE(std::is_sorted(full.train.begin(), full.train.end()));
  CHECK(full.test.front() == 0);
  CHECK(full.test.back() == 9999);

  const ImageSelection limited = SelectImages(60000, 10000, 5000, 10000, 256);
  REQUIRE(limited.train.size() == 10000);
  CHECK(std::equal(limited.train.begin(), limited.train.end(), full.train.begin()));
  REQUIRE(limited.val.size() == 256);
  CHECK(std::equal(limited.val.begin(), limited.val.end(), full.val.begin()));
  CHECK(limited.test.size() == 256);
  CHECK(SelectImages(60000, 10000, 5000, 10000, 256).train == limited.train);
  CHECK(SelectImages(60000, 10000, 5000, 60000, 0).train == full.train);  // limit above size
}

TEST_CASE("the validation split must leave training images") {
  CHECK_THROWS_WITH(SelectImages(100, 10, 100, 0, 0), Catch::Contains("1..99"));
  CHECK_THROWS_WITH(SelectImages(100, 10, 0, 0, 0), Catch::Contains("validation images"));
}

}  // namespace
}  // namespace dcnas::models::libtorch
