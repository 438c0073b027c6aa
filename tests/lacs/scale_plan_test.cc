#include "lacs/scale_plan.h"

#include <catch2/catch.hpp>
#include <functional>
#include <string>

#include "common/errors.h"

namespace dcnas::lacs {
namespace {

using Catch::Matchers::Contains;

ScaleRequest ZooRequest() {
  ScaleRequest r;
  r.model = "efficientnet-x-b0";
  r.out = "family-dir";
  return r;
}

TEST_CASE("a scale plan: the base, the modes, the recipe and the files resolved") {
  const ScalePlan plan = PlanScale(ZooRequest());
  CHECK(plan.base.name == "efficientnet-x-b0");
  CHECK(plan.family == "efficientnet-x-b0");
  REQUIRE(plan.modes.size() == 1);
  CHECK(plan.modes[0] == Mode::kLacs);
  CHECK(plan.request.trained_file == "family-dir/trained.jsonl");
  // The default recipe key over the shipped space's proxy (32 px, width 0.25).
  CHECK(plan.recipe.resolution == 16);
  CHECK(plan.recipe.train_images == 5000);
  CHECK(plan.recipe.epochs == 2);
  CHECK(plan.recipe.width == 0.25);
  CHECK(plan.options.proxy_resolution == 16);
  CHECK(plan.in_channels == 1);
  CHECK(plan.num_classes == 10);
  CHECK(plan.options.grid.depth == DefaultGrid().depth);

  ScaleRequest r = ZooRequest();
  r.mode = "both";
  r.name = "x";
  r.trained_file = "elsewhere.jsonl";
  r.recipe_key = "r24_e6";
  r.grid = "d=1.2,w=1.1,r=1.15";
  const ScalePlan both = PlanScale(r);
  CHECK(both.modes == std::vector<Mode>{Mode::kLacs, Mode::kFlops});
  CHECK(both.family == "x");
  CHECK(both.request.trained_file == "elsewhere.jsonl");
  CHECK(both.recipe.epochs == 6);
  CHECK(both.options.proxy_resolution == 24);
  CHECK(both.options.grid.depth == std::vector<double>{1.2});

  ScaleRequest blocks;
  blocks.blocks = "r1_k3_s11_e1_i32_o16_se0.25,r2_k3_s22_e6_i16_o24_se0.25";
  blocks.base_resolution = 160;
  blocks.out = "f";
  const ScalePlan b = PlanScale(blocks);
  CHECK(b.base.spec.blocks.size() == 2);
  CHECK(b.base.spec.resolution == 160);
}

// What PlanScale says of the zoo request after `change`: the InputError's message.
std::string Refusal(const std::function<void(ScaleRequest&)>& change) {
  ScaleRequest r = ZooRequest();
  change(r);
  try {
    PlanScale(r);
  } catch (const InputError& e) {
    return e.what();
  }
  return "accepted";
}

TEST_CASE("a scale request is refused naming what is wrong") {
  CHECK_THAT(Refusal([](ScaleRequest& r) { r.model.clear(); }),
             Contains("exactly one base") && Contains("(got 0)"));
  CHECK_THAT(Refusal([](ScaleRequest& r) { r.blocks = "r1_k3_s11_e1_i32_o16"; }),
             Contains("(got 2)"));
  CHECK_THAT(Refusal([](ScaleRequest& r) { r.out.clear(); }),
             Contains("--out FAMILY_DIR is required"));
  CHECK_THAT(Refusal([](ScaleRequest& r) { r.references = "some"; }),
             Contains("--references 'some' (valid: auto, none)"));
  CHECK_THAT(Refusal([](ScaleRequest& r) { r.mode = "fast"; }), Contains("lacs, flops, both"));
  CHECK_THAT(Refusal([](ScaleRequest& r) { r.grid = "depth=1:2:0.5,k=3"; }),
             Contains("unknown axis 'k'"));
  CHECK_THAT(Refusal([](ScaleRequest& r) { r.recipe_key = "r16_x9"; }),
             Contains("unknown part 'x9'"));
  CHECK_THAT(Refusal([](ScaleRequest& r) { r.model = "resnet-50"; }),
             Contains("'resnet-50' is not a block network"));
  CHECK_THAT(Refusal([](ScaleRequest& r) {
               r.model.clear();
               r.run_dir = "no-such-run";
             }),
             Contains("summary.json: missing"));
  CHECK(Refusal([](ScaleRequest&) {}) == "accepted");
}

}  // namespace
}  // namespace dcnas::lacs
