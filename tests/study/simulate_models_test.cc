// Simulating a list of zoo models on one setup.
#include <catch2/catch.hpp>

#include "common/errors.h"
#include "models/registry.h"
#include "models/zoo/zoo.h"
#include "study/simulate_models.h"

namespace dcnas::study {
namespace {

using Catch::Contains;

TEST_CASE("one report per model, in order, at the setup's default precision") {
  const sim::SimSetup setup = sim::LoadSetup("tpu-v3", "", "", {});
  RunOptions options;
  options.batch = 4;
  options.resolution = 160;
  const auto reports = SimulateModels({"resnet50", "efficientnet-b0", "resnet50"}, setup, options,
                                      models::BuiltinModels());
  REQUIRE(reports.size() == 3);
  CHECK(reports[0].model == "resnet50");
  CHECK(reports[1].model == "efficientnet-b0");
  CHECK(reports[1].dtype == "bf16");
  CHECK(reports[1].batch == 4);
  CHECK(reports[1].resolution == 160);
  CHECK(reports[2].latency_s == reports[0].latency_s);
  options.precision = "fp32";
  sim::CostCache cache;
  const auto fp32 = SimulateModels({"resnet50"}, setup, options, models::BuiltinModels(), &cache);
  CHECK(fp32[0].dtype == "fp32");
  CHECK(fp32[0].latency_s > reports[0].latency_s);
}

TEST_CASE("an unknown model name fails, naming it and the closest names") {
  const sim::SimSetup setup = sim::LoadSetup("v100", "", "", {});
  CHECK_THROWS_AS(
      SimulateModels({"resnet50", "efficientnet-b9"}, setup, {}, models::BuiltinModels()),
      InputError);
  CHECK_THROWS_WITH(
      SimulateModels({"resnet50", "efficientnet-b9"}, setup, {}, models::BuiltinModels()),
      Contains("unknown model 'efficientnet-b9'") && Contains("efficientnet-b"));
  CHECK_THROWS_WITH(RequireKnownModels({"resnet50", "resnet5"}, models::BuiltinModels()),
                    Contains("'resnet5'"));
  CHECK_NOTHROW(RequireKnownModels({"resnet50"}, models::BuiltinModels()));
}

}  // namespace
}  // namespace dcnas::study
