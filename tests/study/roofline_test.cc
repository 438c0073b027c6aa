// The roofline study: the quantities of one point, and one point per (accelerator, model).
#include <catch2/catch.hpp>

#include "common/errors.h"
#include "models/registry.h"
#include "models/zoo/zoo.h"
#include "study/roofline.h"

namespace dcnas::study {
namespace {

using Catch::Contains;

TEST_CASE("a roofline point from a report, per image and in TFLOP/s, GB/s and ms") {
  sim::Report r;
  r.model = "m";
  r.accelerator = "chip";
  r.dtype = "bf16";
  r.flops = 8e12;
  r.compulsory_bytes = 4e10;
  r.intensity_flop_per_byte = 400;
  r.achieved_flops_per_s = 5e13;
  r.latency_s = 0.16;
  r.ridge_flop_per_byte = 137.5;
  r.peak_flops_per_s = 1.23e14;
  r.hbm_bytes_per_s = 9e11;
  const RooflinePoint p = PointOf(r, 4);
  CHECK(p.model == "m");
  CHECK(p.accelerator == "chip");
  CHECK(p.dtype == "bf16");
  CHECK(p.gflops_per_image == Approx(2000.0));
  CHECK(p.intensity_flop_per_byte == 400);
  CHECK(p.unfused_intensity_flop_per_byte == Approx(200.0));
  CHECK(p.achieved_tflop_per_s == Approx(50.0));
  CHECK(p.latency_ms == Approx(160.0));
  CHECK(p.ridge_flop_per_byte == 137.5);
  CHECK(p.peak_tflop_per_s == Approx(123.0));
  CHECK(p.bandwidth_gbps == Approx(900.0));
  r.compulsory_bytes = 0;
  CHECK(PointOf(r, 4).unfused_intensity_flop_per_byte == 0.0);
}

TEST_CASE("one point per accelerator and model, accelerators outermost") {
  const std::vector<sim::SimSetup> setups = {sim::LoadSetup("tpu-v3", "", "", {}),
                                             sim::LoadSetup("v100", "", "", {})};
  RunOptions options;
  options.batch = 8;
  const auto points =
      Roofline({"efficientnet-b0", "resnet50"}, setups, options, models::BuiltinModels());
  REQUIRE(points.size() == 4);
  CHECK(points[0].model == "efficientnet-b0");
  CHECK(points[1].model == "resnet50");
  CHECK(points[0].accelerator == "tpu-v3");
  CHECK(points[2].accelerator == "v100");
  CHECK(points[3].setup == 1);
  CHECK(points[0].dtype == "bf16");
  CHECK(points[2].dtype == "fp16");
  for (const auto& p : points) {
    INFO(p.model << " on " << p.accelerator);
    // Nothing runs above its roofline: min(peak, intensity x bandwidth).
    CHECK(p.achieved_tflop_per_s <=
          std::min(p.peak_tflop_per_s, p.intensity_flop_per_byte * p.bandwidth_gbps / 1e3) *
              (1 + 1e-9));
    CHECK(p.latency_ms > 0);
  }
  // ResNet-50 does more arithmetic per image than EfficientNet-B0.
  CHECK(points[1].gflops_per_image > points[0].gflops_per_image);
}

TEST_CASE("the roofline study fails on an unknown model name, naming it") {
  const std::vector<sim::SimSetup> setups = {sim::LoadSetup("v100", "", "", {})};
  CHECK_THROWS_WITH(
      Roofline({"efficientnet-b0", "resnet5"}, setups, RunOptions{}, models::BuiltinModels()),
      Contains("unknown model 'resnet5'") && Contains("resnet50"));
}

}  // namespace
}  // namespace dcnas::study
