#include "common/text.h"

#include <catch2/catch.hpp>

#include "common/errors.h"

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

TEST_CASE("UTF-8 is checked byte by byte", "[common]") {
  CHECK(IsValidUtf8("tpu-v3"));
  CHECK(IsValidUtf8("\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80"));  // e-acute, euro, an emoji
  CHECK_FALSE(IsValidUtf8("tpu\xff"));
  CHECK_FALSE(IsValidUtf8("\xc3"));              // cut short
  CHECK_FALSE(IsValidUtf8("\xc0\xaf"));          // overlong '/'
  CHECK_FALSE(IsValidUtf8("\xed\xa0\x80"));      // a surrogate
  CHECK_FALSE(IsValidUtf8("\xf4\x90\x80\x80"));  // past U+10FFFF
}

TEST_CASE("messages are printed bounded and escaped", "[common]") {
  CHECK(BoundedMessage("unknown accelerator 'tpu\xff\x01'") ==
        "unknown accelerator 'tpu\\xff\\x01'");
  CHECK(BoundedMessage("line one\nline\ttwo") == "line one\nline\ttwo");
  CHECK(BoundedMessage("caf\xc3\xa9") == "caf\xc3\xa9");
  const std::string big = "--grid '" + std::string(100000, 'x') + "' expected AXIS=VALUES";
  const std::string m = BoundedMessage(big, 120);
  CHECK(m == "--grid '" + std::string(59, 'x') + "... (100002 bytes) expected AXIS=VALUES");
  CHECK(BoundedMessage(std::string(3, '\xc3')) == "\\xc3\\xc3\\xc3");
  // A cut never splits a UTF-8 sequence.
  std::string wide;
  for (int i = 0; i < 100; ++i) wide += "\xc3\xa9";
  CHECK(BoundedMessage(wide, 11) == "\xc3\xa9\xc3\xa9... (200 bytes)");
}

TEST_CASE("ParseNumberField takes finite numbers and names the field otherwise") {
  CHECK(ParseNumberField("77.1", "t.csv:2", "top1") == 77.1);
  CHECK(ParseNumberField("-3e2", "t.csv:2", "x") == -300.0);
  CHECK_THROWS_WITH(ParseNumberField("", "t.csv:2", "top1"),
                    Catch::Contains("t.csv:2: column 'top1': not a finite number: ''"));
  for (const char* bad : {"7x", " 7", "nan", "inf", "1e999"}) {
    CHECK_THROWS_AS(ParseNumberField(bad, "t.csv:3", "top1"), InputError);
  }
}

}  // namespace dcnas
