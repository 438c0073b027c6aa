#include "surrogate/parity_chart.h"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "common/errors.h"
#include "surrogate/learning_curve.h"
#include "tests/surrogate/synthetic.h"

namespace sur = dcnas::surrogate;

namespace {

std::size_t Count(const std::string& s, const std::string& what) {
  std::size_t n = 0;
  for (auto pos = s.find(what); pos != std::string::npos; pos = s.find(what, pos + 1)) ++n;
  return n;
}

}  // namespace

TEST_CASE("Parity chart draws every point, its error bar and the y = x line", "[surrogate]") {
  const std::vector<float> truth = {70.1f, 72.5f, 75.0f}, mean = {70.5f, 72.0f, 74.0f},
                           stddev = {0.3f, 0.0f, 1.0f};
  sur::ParityChartOptions options;
  options.title = "a <b> & c";
  const std::string svg = sur::ParityChartSvg(truth, mean, stddev, options);
  CHECK(svg.rfind("<svg", 0) == 0);
  CHECK(svg.find("</svg>") != std::string::npos);
  CHECK(Count(svg, "<circle") == 3);
  CHECK(svg.find("class=\"identity\"") != std::string::npos);
  CHECK(svg.find("a &lt;b&gt; &amp; c") != std::string::npos);
  // Zero std draws no bar: 2 bars inside the error-bar group.
  const auto bars = svg.substr(svg.find("class=\"error-bars\""),
                               svg.find("class=\"points\"") - svg.find("class=\"error-bars\""));
  CHECK(Count(bars, "<line") == 2);
  CHECK(Count(sur::ParityChartSvg(truth, mean, {}), "<circle") == 3);
  CHECK_THROWS_AS(sur::ParityChartSvg({}, {}, {}), dcnas::InputError);
  CHECK_THROWS_AS(sur::ParityChartSvg(truth, std::vector<float>{1.0f}, {}), dcnas::InputError);
  CHECK_THROWS_AS(sur::ParityChartSvg(truth, std::vector<float>{1.0f, NAN, 2.0f}, {}),
                  dcnas::InputError);
}

TEST_CASE("Learning curve reports each size below the training set and then all rows",
          "[surrogate]") {
  const auto train = sur::testing::MakeSynthetic(300, 10, 0.1, 31);
  const auto valid = sur::testing::MakeSynthetic(100, 10, 0.1, 32);
  const auto test = sur::testing::MakeSynthetic(200, 10, 0.1, 33);
  sur::EnsembleParams params;
  params.members = 2;
  params.member.max_rounds = 200;
  params.member.early_stopping_rounds = 20;
  params.member.learning_rate = 0.1;
  const auto curve = sur::LearningCurve(train.view(), valid.view(), test.view(), params, 0.1, 5);
  REQUIRE(curve.size() == 4);  // 50, 100, 200, all (300); 400 exceeds the training set
  CHECK(curve[0].train_rows == 50);
  CHECK(curve[1].train_rows == 100);
  CHECK(curve[2].train_rows == 200);
  CHECK(curve[3].train_rows == 300);
  CHECK(curve[3].test_kendall_tau > 0.6);
  CHECK(curve[3].test_kendall_tau > curve[0].test_kendall_tau);
  const auto j = sur::LearningCurveToJson(curve);
  CHECK(j.size() == 4);
  CHECK(j[3]["train_rows"] == 300);
}
