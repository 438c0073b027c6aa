// The what-if sweep: the grid of override values and one simulation per variant.
#include <catch2/catch.hpp>

#include <numeric>

#include "common/errors.h"
#include "models/registry.h"
#include "models/zoo/zoo.h"
#include "study/sweep.h"

namespace dcnas::study {
namespace {

std::vector<std::string> Labels(const std::vector<std::vector<Override>>& grid) {
  std::vector<std::string> out;
  for (const auto& variant : grid) out.push_back(VariantLabel(variant));
  return out;
}

TEST_CASE("the grid holds every combination, the first key varying slowest") {
  const auto grid = SweepGrid({{"a", {"1", "2"}}, {"b", {"x", "y", "z"}}});
  CHECK(Labels(grid) ==
        std::vector<std::string>{"a=1 b=x", "a=1 b=y", "a=1 b=z", "a=2 b=x", "a=2 b=y", "a=2 b=z"});
  REQUIRE(grid[4].size() == 2);
  CHECK(grid[4][0].path == "a");
  CHECK(grid[4][0].value == "2");
  CHECK(grid[4][1].path == "b");
  CHECK(grid[4][1].value == "y");
}

TEST_CASE("one key gives one variant per value; no keys give one empty variant") {
  CHECK(Labels(SweepGrid({{"hbm.bandwidth_gbps", {"450", "900"}}})) ==
        std::vector<std::string>{"hbm.bandwidth_gbps=450", "hbm.bandwidth_gbps=900"});
  const auto none = SweepGrid({});
  REQUIRE(none.size() == 1);
  CHECK(none[0].empty());
  CHECK(SweepGrid({{"a", {"1"}}, {"b", {}}}).empty());
  CHECK(SweepGrid({{"a", {"1", "2"}}, {"b", {"3", "4"}}, {"c", {"5", "6", "7"}}}).size() == 12);
}

TEST_CASE("a bandwidth sweep: speedup over the first variant, bound shares sum to 100") {
  models::BuildOptions build;
  build.batch = 16;
  build.dtype = models::DType::kBf16;
  const models::Graph graph = models::BuiltinModels().Build("efficientnet-b0", build);
  const auto grid = SweepGrid({{"hbm.bandwidth_gbps", {"450", "900", "1800"}}});
  sim::SimOptions options;
  options.details = false;
  const std::vector<SweepRow> rows = Sweep(graph, {"tpu-v3", "", ""}, grid, options);
  REQUIRE(rows.size() == 3);
  CHECK(rows[0].label == "hbm.bandwidth_gbps=450");
  CHECK(rows[0].speedup == 1.0);
  for (const SweepRow& row : rows) {
    INFO(row.label);
    CHECK(row.speedup == Approx(rows[0].report.latency_s / row.report.latency_s));
    CHECK(std::accumulate(row.bound_pct.begin(), row.bound_pct.end(), 0.0) == Approx(100.0));
    CHECK(row.bound_pct[static_cast<size_t>(sim::Bound::kMemory)] ==
          Approx(BoundPercent(row.report, sim::Bound::kMemory)));
  }
  // More bandwidth never makes the model slower; at 450 GB/s it is partly memory-bound.
  CHECK(rows[1].speedup >= 1.0);
  CHECK(rows[2].speedup >= rows[1].speedup);
  CHECK(rows[2].speedup > 1.0);
  CHECK(rows[0].bound_pct[static_cast<size_t>(sim::Bound::kMemory)] >
        rows[2].bound_pct[static_cast<size_t>(sim::Bound::kMemory)]);
}

TEST_CASE("a sweep over an unknown key or with no variants fails") {
  models::BuildOptions build;
  build.batch = 1;
  const models::Graph graph = models::BuiltinModels().Build("efficientnet-b0", build);
  CHECK_THROWS_AS(Sweep(graph, {"tpu-v3", "", ""}, SweepGrid({{"hbm.bandwith_gbps", {"9"}}}), {}),
                  InputError);
  CHECK_THROWS_AS(Sweep(graph, {"tpu-v3", "", ""}, {}, {}), InputError);
}

}  // namespace
}  // namespace dcnas::study
