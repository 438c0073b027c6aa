#include "calibrate/csv_reader.h"

#include <catch2/catch.hpp>

#include "common/errors.h"

namespace dcnas::calibrate {

TEST_CASE("CSV records keep quoted commas, quotes and line breaks", "[calibrate]") {
  const auto records =
      ParseCsv("a,b,c\n1,\"x, y\",\"say \"\"hi\"\"\"\r\n\n2,\"two\nlines\",\n3,,z\n", "t.csv");
  REQUIRE(records.size() == 4);
  CHECK(records[0].line == 1);
  CHECK(records[1].fields == std::vector<std::string>{"1", "x, y", "say \"hi\""});
  CHECK(records[1].line == 2);
  CHECK(records[2].line == 4);  // the blank line 3 is skipped
  CHECK(records[2].fields == std::vector<std::string>{"2", "two\nlines", ""});
  CHECK(records[3].line == 6);  // the quoted line break advanced the count
  CHECK(records[3].fields == std::vector<std::string>{"3", "", "z"});
}

TEST_CASE("CSV without a final newline keeps its last record", "[calibrate]") {
  const auto records = ParseCsv("a,b\n1,2", "t.csv");
  REQUIRE(records.size() == 2);
  CHECK(records[1].fields == std::vector<std::string>{"1", "2"});
}

TEST_CASE("malformed CSV quoting names file and line", "[calibrate]") {
  CHECK_THROWS_WITH(ParseCsv("a,b\n1,\"open\n2,3\n", "m.csv"),
                    Catch::Contains("m.csv:2") && Catch::Contains("unterminated"));
  CHECK_THROWS_WITH(ParseCsv("a,b\n1,x\"y\n", "m.csv"),
                    Catch::Contains("m.csv:2") && Catch::Contains("quote"));
  CHECK_THROWS_WITH(ParseCsv("a,b\n\"1\"x,2\n", "m.csv"), Catch::Contains("m.csv:2"));
}

}  // namespace dcnas::calibrate
