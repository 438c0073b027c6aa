// Comparisons at equal accuracy: the baseline's Pareto front, the log-linear reading of its
// latency at a top-1, and the comparison of zoo families on a simulated setup.
#include "study/equal_accuracy.h"

#include <catch2/catch.hpp>

#include <cmath>

#include "common/data_dir.h"
#include "common/errors.h"
#include "models/zoo/zoo.h"

namespace dcnas::study {
namespace {

using Catch::Contains;

TEST_CASE("the baseline curve is its Pareto front, read log-linearly between members") {
  // c is slower and less accurate than b: off the front.
  const std::vector<AccuracyLatency> front =
      AccuracyFront({{"b", 78.0, 4.0}, {"a", 76.0, 1.0}, {"c", 77.0, 5.0}, {"d", 80.0, 16.0}});
  REQUIRE(front.size() == 3);
  CHECK(front[0].model == "a");
  CHECK(front[1].model == "b");
  CHECK(front[2].model == "d");
  CHECK(*LatencyAtTop1(front, 76.0) == Approx(1.0));
  CHECK(*LatencyAtTop1(front, 77.0) == Approx(2.0));  // halfway from 1 to 4 on a log scale
  CHECK(*LatencyAtTop1(front, 79.0) == Approx(8.0));  // halfway from 4 to 16
  CHECK(*LatencyAtTop1(front, 80.0) == Approx(16.0));
  CHECK_FALSE(LatencyAtTop1(front, 75.9).has_value());  // no extrapolation
  CHECK_FALSE(LatencyAtTop1(front, 80.1).has_value());
  CHECK_FALSE(LatencyAtTop1({}, 77.0).has_value());
}

TEST_CASE("zoo families at equal published top-1 on a simulated TPU v3") {
  sim::SimSetup setup = sim::LoadSetup("tpu-v3", "", "", {});
  setup.batch = 8;
  RunOptions options;
  options.batch = 8;
  const auto published = models::ReadPublishedTop1(DataPath(models::kPublishedTop1File));
  const EqualAccuracy r = CompareAtEqualAccuracy({"efficientnet", "regnety", "resnet"}, setup,
                                                 options, models::BuiltinModels(), published);
  CHECK(r.baseline == "efficientnet");
  CHECK(r.curve.size() >= 2);
  REQUIRE(r.families.size() == 2);
  const EqualAccuracyFamily& regnety = r.families[0];
  CHECK(regnety.family == "regnety");
  CHECK(regnety.rows.size() == models::BuiltinModels().Family("regnety").size());
  for (const EqualAccuracyRow& row : regnety.rows) {
    REQUIRE(row.top1.has_value());  // the table has every RegNetY
    if (row.speedup) {
      CHECK(*row.speedup == Approx(*row.baseline_ms / row.latency_ms));
      CHECK(*row.top1 >= r.curve.front().top1);
      CHECK(*row.top1 <= r.curve.back().top1);
    } else {
      CHECK((*row.top1 < r.curve.front().top1 || *row.top1 > r.curve.back().top1));
    }
  }
  CHECK(regnety.compared > 0);
  REQUIRE(regnety.geomean_speedup.has_value());
  double log_sum = 0.0;
  for (const auto& row : regnety.rows) log_sum += row.speedup ? std::log(*row.speedup) : 0.0;
  CHECK(*regnety.geomean_speedup ==
        Approx(std::exp(log_sum / static_cast<double>(regnety.compared))));
  const nlohmann::json j = EqualAccuracyToJson(r);
  CHECK(j["families"].size() == 2);
  CHECK(j["baseline_front"].size() == r.curve.size());
}

TEST_CASE("at equal accuracy refuses what it cannot compare") {
  sim::SimSetup setup = sim::LoadSetup("tpu-v3", "", "", {});
  const auto published = models::ReadPublishedTop1(DataPath(models::kPublishedTop1File));
  const RunOptions options;
  CHECK_THROWS_WITH(
      CompareAtEqualAccuracy({"efficientnet"}, setup, options, models::BuiltinModels(), published),
      Contains("at least one other"));
  CHECK_THROWS_WITH(CompareAtEqualAccuracy({"efficientnet", "regnetz"}, setup, options,
                                           models::BuiltinModels(), published),
                    Contains("unknown model family 'regnetz'"));
  // EfficientNet-X has no published top-1 in the table: no curve.
  CHECK_THROWS_WITH(CompareAtEqualAccuracy({"efficientnet-x", "efficientnet"}, setup, options,
                                           models::BuiltinModels(), published),
                    Contains("0 member(s) with a published top-1"));
}

}  // namespace
}  // namespace dcnas::study
