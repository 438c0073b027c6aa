#include "common/table.h"

#include <catch2/catch.hpp>
#include <cmath>
#include <string>
#include <vector>

#include "common/errors.h"
#include "tests/common/parse_util.h"

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

TEST_CASE("table CSV round trip: the cells written parse back unchanged", "[common]") {
  const std::vector<std::vector<std::string>> cells = {
      {"name", "value", "note"},
      {"a,b", "1", "plain"},
      {"say \"hi\"", "-2.5", "two\nlines"},
      {"", "3", "trailing space "},
  };
  Table t(cells[0]);
  for (size_t r = 1; r < cells.size(); ++r) t.AddRow(cells[r]);
  const auto parsed = testing::ParseCsv(t.ToCsv());
  CHECK(parsed == cells);
}

TEST_CASE("table text round trip: aligned columns split back into the cells", "[common]") {
  const std::vector<std::vector<std::string>> cells = {
      {"model", "batch", "latency_ms"},
      {"efficientnet-b0", "128", "22.7689"},
      {"long name here", "1", "0.5"},
  };
  Table t(cells[0]);
  t.SetRightAligned({false, true, true});
  for (size_t r = 1; r < cells.size(); ++r) t.AddRow(cells[r]);
  CHECK(testing::ParseTextTable("title line\n\n" + t.ToText()) == cells);
}

TEST_CASE("number formatting round trip: parsed values are within the printed precision",
          "[common]") {
  for (double v : {0.0, 1.23456, -7.5, 12345.678901, 1e-5}) {
    for (int digits : {0, 1, 3, 6}) {
      const double back = std::stod(FormatFixed(v, digits));
      CHECK(std::abs(back - v) <= 0.5 * std::pow(10.0, -digits) * (1 + 1e-12));
    }
  }
  for (double v : {3.86e8, 1.5e3, 7.25e9, 42.0, 9.99e12}) {
    const std::string s = FormatSi(v);
    double scale = 1;
    std::string number = s;
    const std::string suffixes = "kMGTP";
    const size_t at = suffixes.find(s.back());
    if (at != std::string::npos) {
      scale = std::pow(1e3, static_cast<double>(at + 1));
      number.pop_back();
    }
    INFO(s);
    CHECK(std::stod(number) * scale == Approx(v).epsilon(5e-3));
  }
  const std::string grouped = FormatInt(-1234567);
  std::string digits;
  for (char ch : grouped) {
    if (ch != ',') digits += ch;
  }
  CHECK(std::stoll(digits) == -1234567);
}

}  // namespace dcnas
