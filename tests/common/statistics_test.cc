#include "common/statistics.h"

#include <catch2/catch.hpp>

#include "common/errors.h"
#include "common/table.h"

namespace dcnas {
namespace {

TEST_CASE("median and quantiles of small samples", "[statistics]") {
  CHECK(Median({3.0, 1.0, 2.0}) == 2.0);
  CHECK(Median({4.0, 1.0, 2.0, 3.0}) == 2.5);
  CHECK(Median({7.0}) == 7.0);
  CHECK_THROWS_AS(Median({}), InternalError);
  // Type 7: 1 + q (n - 1) in 1-based order statistics.
  const std::vector<double> v = {10.0, 40.0, 20.0, 30.0};
  CHECK(Quantile(v, 0.0) == 10.0);
  CHECK(Quantile(v, 1.0) == 40.0);
  CHECK(Quantile(v, 0.5) == 25.0);
  CHECK(Quantile(v, 0.25) == Approx(17.5));
  CHECK(Quantile(v, 0.75) == Approx(32.5));
  CHECK_THROWS_AS(Quantile(v, 1.5), InternalError);
  CHECK_THROWS_AS(Quantile({}, 0.5), InternalError);
}

TEST_CASE("numbers for files round-trip; numbers for people have six digits", "[statistics]") {
  CHECK(FormatShortest(0.1) == "0.1");
  CHECK(FormatShortest(15.0) == "15");
  CHECK(FormatShortestReal(15.0) == "15.0");
  CHECK(FormatShortestReal(0.25) == "0.25");
  CHECK(FormatShortestReal(1e20) == "1e+20");
  CHECK(std::stod(FormatShortest(1.0 / 3.0)) == 1.0 / 3.0);
  CHECK(FormatSignificant(1.0 / 3.0) == "0.333333");
  CHECK(FormatSignificant(1234567.0) == "1.23457e+06");
  CHECK(FormatSignificant(2.5, 2) == "2.5");
}

}  // namespace
}  // namespace dcnas
