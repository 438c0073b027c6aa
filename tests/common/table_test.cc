#include "common/table.h"

#include <catch2/catch.hpp>

#include "common/errors.h"

namespace dcnas {

TEST_CASE("table renders aligned text and quoted CSV", "[common]") {
  Table t({"name", "value"});
  t.SetRightAligned({false, true});
  t.AddRow({"a,b", "1"});
  t.AddRow({"long name", "12345"});
  CHECK(t.ToCsv() == "name,value\n\"a,b\",1\nlong name,12345\n");
  const std::string text = t.ToText();
  CHECK(text.find("a,b            1\n") != std::string::npos);
  CHECK_THROWS_AS(t.AddRow({"only one"}), InternalError);
}

TEST_CASE("number formatting", "[common]") {
  CHECK(FormatInt(5288548) == "5,288,548");
  CHECK(FormatInt(-1000) == "-1,000");
  CHECK(FormatInt(999) == "999");
  CHECK(FormatSi(3.86e8) == "386M");
  CHECK(FormatFixed(1.23456, 2) == "1.23");
}

}  // namespace dcnas
