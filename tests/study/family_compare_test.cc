// Comparing families: pairing by member suffix, baseline columns, speedups and their geomean.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>

#include "common/errors.h"
#include "models/registry.h"
#include "models/zoo/zoo.h"
#include "sim/engine.h"
#include "study/family_compare.h"

namespace dcnas::study {
namespace {

using Catch::Contains;

models::ModelRegistry Registry(const std::vector<std::pair<std::string, std::string>>& entries) {
  models::ModelRegistry registry;
  for (const auto& [name, family] : entries) {
    registry.Register(models::ModelEntry{
        .name = name, .family = family, .description = "test", .build = nullptr});
  }
  return registry;
}

TEST_CASE("family members are paired by suffix; members one family lacks are left out") {
  const models::ModelRegistry registry = Registry(
      {{"a-b0", "a"}, {"a-b1", "a"}, {"a-b2", "a"}, {"x-b2", "x"}, {"x-b0", "x"}, {"x-b9", "x"}});
  const Lineup lineup = PairFamilyMembers({"a", "x"}, registry);
  CHECK(lineup.headers == std::vector<std::string>{"a", "x"});
  CHECK(lineup.members == std::vector<std::string>{"b0", "b2"});
  REQUIRE(lineup.models.size() == 2);
  CHECK(lineup.models[0] == std::vector<std::string>{"a-b0", "a-b2"});
  CHECK(lineup.models[1] == std::vector<std::string>{"x-b0", "x-b2"});
  // The baseline family decides the order and the set of members.
  const Lineup reversed = PairFamilyMembers({"x", "a"}, registry);
  CHECK(reversed.members == std::vector<std::string>{"b2", "b0"});
}

TEST_CASE("pairing the built-in EfficientNet and EfficientNet-X (TPU) families") {
  const Lineup lineup =
      PairFamilyMembers({"efficientnet", "efficientnet-x-tpu"}, models::BuiltinModels());
  CHECK(lineup.members == std::vector<std::string>{"b0", "b1", "b2", "b3", "b4", "b5", "b6", "b7"});
  CHECK(lineup.models[1].front() == "efficientnet-x-tpu-b0");
  CHECK(lineup.models[1].back() == "efficientnet-x-tpu-b7");
}

TEST_CASE("member labels: the name less FAMILY-, or the whole name") {
  CHECK(MemberLabel("efficientnet", "efficientnet-b0") == "b0");
  CHECK(MemberLabel("resnet", "resnet50") == "resnet50");
  CHECK(MemberLabel("resnet", "resnet101") == "resnet101");
  CHECK(MemberLabel("vit", "deit-ti-16") == "deit-ti-16");
  CHECK(MemberLabel("timm/EfficientNet", "timm:efficientnet_b0") == "timm:efficientnet_b0");
  CHECK(MemberLabel("a", "a-") == "a-");
  // The built-in ResNet and ViT families, each compared across two chips.
  const Lineup resnet = PairFamilyMembers({"resnet"}, models::BuiltinModels());
  CHECK(resnet.members == std::vector<std::string>{"resnet50", "resnet101", "resnet152"});
  const Lineup vit = PairFamilyMembers({"vit"}, models::BuiltinModels());
  CHECK(std::find(vit.members.begin(), vit.members.end(), "deit-ti-16") != vit.members.end());
  // A prefixed set's family is taken too.
  const Lineup timm = PairFamilyMembers({"timm/EfficientNet-EdgeTPU"}, models::BuiltinModels());
  CHECK_FALSE(timm.members.empty());
  CHECK(timm.members.front().rfind("timm:", 0) == 0);
}

TEST_CASE("an unknown family or families that share nothing fail") {
  const models::ModelRegistry registry = Registry({{"a-b0", "a"}, {"x-c1", "x"}});
  CHECK_THROWS_AS(PairFamilyMembers({"a", "y"}, registry), InputError);
  CHECK_THROWS_WITH(PairFamilyMembers({"a", "y"}, registry), Contains("unknown model family 'y'"));
  CHECK_THROWS_WITH(PairFamilyMembers({"efficientnet", "efficientnet-z"}, models::BuiltinModels()),
                    Contains("efficientnet-z") && Contains("did you mean"));
  CHECK_THROWS_WITH(PairFamilyMembers({"a", "x"}, registry), Contains("share no members"));
}

TEST_CASE("model pairs form a baseline and a candidate column") {
  const Lineup lineup = PairModels({{"resnet50", "efficientnet-b3"}, {"m1", "m2"}});
  CHECK(lineup.headers == std::vector<std::string>{"baseline", "candidate"});
  CHECK(lineup.members == std::vector<std::string>{"resnet50:efficientnet-b3", "m1:m2"});
  CHECK(lineup.models[0] == std::vector<std::string>{"resnet50", "m1"});
  CHECK(lineup.models[1] == std::vector<std::string>{"efficientnet-b3", "m2"});
  CHECK_THROWS_WITH(PairModels({}), Contains("no BASELINE:CANDIDATE pair"));
}

TEST_CASE("with one setup every column is compared with the first") {
  Lineup lineup{{"a", "b", "c"}, {"b0"}, {{"a-b0"}, {"b-b0"}, {"c-b0"}}};
  const auto columns = CompareColumns(lineup, {"tpu-v3"});
  REQUIRE(columns.size() == 3);
  CHECK(columns[0].header == "a");
  CHECK_FALSE(columns[0].baseline.has_value());
  CHECK(columns[1].baseline == 0u);
  CHECK(columns[2].baseline == 0u);
  CHECK(columns[2].lineup_column == 2);
  CHECK(columns[2].setup == 0);
}

TEST_CASE("with two setups each column is compared with itself on the first") {
  Lineup lineup{{"a", "b"}, {"b0"}, {{"a-b0"}, {"b-b0"}}};
  const auto columns = CompareColumns(lineup, {"tpu-v2", "tpu-v3"});
  REQUIRE(columns.size() == 4);
  CHECK(columns[0].header == "a@tpu-v2");
  CHECK(columns[1].header == "a@tpu-v3");
  CHECK(columns[2].header == "b@tpu-v2");
  CHECK(columns[3].header == "b@tpu-v3");
  CHECK_FALSE(columns[0].baseline.has_value());
  CHECK(columns[1].baseline == 0u);
  CHECK_FALSE(columns[2].baseline.has_value());
  CHECK(columns[3].baseline == 2u);
  CHECK(columns[3].lineup_column == 1);
  CHECK(columns[3].setup == 1);
  CHECK_THROWS_AS(CompareColumns(lineup, {}), InputError);
  CHECK_THROWS_AS(CompareColumns(lineup, {"a", "b", "c"}), InputError);
}

TEST_CASE("speedups are baseline latency over latency; their geomean is exp(mean(ln))") {
  CHECK(Speedups({10, 20, 40}, {5, 10, 10}) == std::vector<double>{2, 2, 4});
  CHECK(GeometricMean({2, 8}) == Approx(4.0));
  CHECK(GeometricMean({2, 2, 4}) == Approx(std::cbrt(16.0)));
  CHECK(GeometricMean({0.5, 2}) == Approx(1.0));
  CHECK_THROWS_AS(Speedups({1, 2}, {1}), InternalError);
  CHECK_THROWS_AS(GeometricMean({}), InternalError);

  std::vector<CompareColumn> columns(3);
  columns[0].latency_ms = {10, 20, 40};
  columns[1].latency_ms = {5, 10, 10};
  columns[1].baseline = 0;
  columns[2].latency_ms = {20, 20, 20};
  columns[2].baseline = 0;
  ComputeSpeedups(columns);
  CHECK(columns[0].speedup.empty());
  CHECK(columns[0].geomean_speedup == 1.0);
  CHECK(columns[1].speedup == std::vector<double>{2, 2, 4});
  CHECK(columns[1].geomean_speedup == Approx(2.5198421));
  CHECK(columns[2].speedup == std::vector<double>{0.5, 1, 2});
  CHECK(columns[2].geomean_speedup == Approx(1.0));
}

TEST_CASE("Compare simulates each column and divides by its baseline") {
  const auto& registry = models::BuiltinModels();
  const sim::SimSetup setup = sim::LoadSetup("tpu-v3", "", "", {});
  RunOptions options;
  options.batch = 8;
  const Lineup lineup = PairModels({{"resnet50", "efficientnet-b0"}, {"resnet50", "resnet50"}});
  const Comparison cmp = Compare(lineup, {setup}, options, registry);
  REQUIRE(cmp.columns.size() == 2);
  models::BuildOptions build;
  build.batch = 8;
  build.dtype = models::DType::kBf16;  // the TPU default
  const auto latency_ms = [&](const std::string& name) {
    return sim::Simulate(registry.Build(name, build), setup.spec, setup.stack, setup.calibration,
                         options.sim)
               .latency_s *
           1e3;
  };
  CHECK(cmp.columns[0].latency_ms[0] == Approx(latency_ms("resnet50")));
  CHECK(cmp.columns[1].latency_ms[0] == Approx(latency_ms("efficientnet-b0")));
  CHECK(cmp.columns[1].speedup[0] ==
        Approx(latency_ms("resnet50") / latency_ms("efficientnet-b0")));
  CHECK(cmp.columns[1].speedup[1] == Approx(1.0));
  CHECK(cmp.columns[1].geomean_speedup == Approx(std::sqrt(cmp.columns[1].speedup[0])));
}

TEST_CASE("Compare fails on an unknown model name, naming it") {
  const sim::SimSetup setup = sim::LoadSetup("v100", "", "", {});
  const Lineup lineup = PairModels({{"resnet50", "resnet5"}});
  CHECK_THROWS_AS(Compare(lineup, {setup}, RunOptions{}, models::BuiltinModels()), InputError);
  CHECK_THROWS_WITH(Compare(lineup, {setup}, RunOptions{}, models::BuiltinModels()),
                    Contains("unknown model 'resnet5'") && Contains("resnet50"));
}

}  // namespace
}  // namespace dcnas::study
