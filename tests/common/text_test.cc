#include "common/text.h"

#include <catch2/catch.hpp>

namespace dcnas {

TEST_CASE("edit distance", "[common]") {
  CHECK(EditDistance("kitten", "sitting") == 3);
  CHECK(EditDistance("", "abc") == 3);
  CHECK(EditDistance("same", "same") == 0);
}

TEST_CASE("closest names suggest the nearest candidates first", "[common]") {
  const std::vector<std::string> names = {"efficientnet-b0", "efficientnet-b1", "resnet50"};
  const auto closest = ClosestNames("efficientnet-bo", names, 2);
  REQUIRE(closest.size() == 2);
  CHECK(closest[0] == "efficientnet-b0");
  CHECK(DidYouMean("resnet-50", names).find("resnet50") != std::string::npos);
}

TEST_CASE("split and join are inverses", "[common]") {
  const auto parts = Split("a_b__c", '_');
  REQUIRE(parts.size() == 4);
  CHECK(parts[2].empty());
  CHECK(Join(parts, "_") == "a_b__c");
}

}  // namespace dcnas
