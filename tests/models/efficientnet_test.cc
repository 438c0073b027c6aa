// Acceptance: the zoo's EfficientNet and EfficientNet-X counts against published figures and
// against the counts derived from the reference TensorFlow code (tensorflow/tpu
// efficientnet_builder.py, efficientnet_x_builder.py).
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>

#include "common/errors.h"
#include "models/counts.h"
#include "models/zoo/zoo.h"

namespace dcnas::models {
namespace {

struct Expected {
  const char* name;
  int64_t params;
  double gmacs;  // derived from the reference code's definitions, 3 decimals
};

// Counted from the reference code's definitions: params are exact; GMACs are rounded to 3
// decimals.
const Expected kExpected[] = {
    {"efficientnet-b0", 5288548, 0.386},          {"efficientnet-b1", 7794184, 0.687},
    {"efficientnet-b2", 9109994, 0.994},          {"efficientnet-b3", 12233232, 1.827},
    {"efficientnet-b4", 19341616, 4.394},         {"efficientnet-b5", 30389784, 10.266},
    {"efficientnet-b6", 43040704, 19.068},        {"efficientnet-b7", 66347960, 37.746},
    {"efficientnet-x-b0", 7584104, 0.920},        {"efficientnet-x-b1", 9571024, 1.606},
    {"efficientnet-x-b2", 9974470, 2.307},        {"efficientnet-x-b3", 13293970, 4.334},
    {"efficientnet-x-b4", 21144322, 10.522},      {"efficientnet-x-b5", 33433452, 24.556},
    {"efficientnet-x-b6", 47653344, 47.477},      {"efficientnet-x-b7", 73156704, 91.787},
    {"efficientnet-x-tpu-b0", 7584104, 0.920},    {"efficientnet-x-tpu-b1", 10419068, 1.593},
    {"efficientnet-x-tpu-b2", 11493130, 2.697},   {"efficientnet-x-tpu-b3", 15768856, 4.207},
    {"efficientnet-x-tpu-b4", 33978936, 10.930},  {"efficientnet-x-tpu-b5", 59919646, 24.382},
    {"efficientnet-x-tpu-b6", 137204266, 53.825}, {"efficientnet-x-tpu-b7", 198638730, 85.472},
    {"efficientnet-x-gpu-b0", 7584104, 0.920},    {"efficientnet-x-gpu-b1", 10419068, 1.593},
    {"efficientnet-x-gpu-b2", 10753924, 2.530},   {"efficientnet-x-gpu-b3", 16807232, 4.262},
    {"efficientnet-x-gpu-b4", 37106070, 10.042},  {"efficientnet-x-gpu-b5", 72087216, 24.530},
    {"efficientnet-x-gpu-b6", 122194334, 46.839}, {"efficientnet-x-gpu-b7", 196730150, 84.538},
};

OpCounts Count(const std::string& name) {
  return CountGraph(BuiltinModels().Build(name, BuildOptions{}));
}

}  // namespace

TEST_CASE("EfficientNet-B0 has exactly the published 5,288,548 parameters", "[zoo][golden]") {
  CHECK(Count("efficientnet-b0").params == 5288548);
}

TEST_CASE("EfficientNet-X-B0 has exactly the authors' 7,584,104 parameters", "[zoo][golden]") {
  CHECK(Count("efficientnet-x-b0").params == 7584104);
}

TEST_CASE("EfficientNet-B0..B7 MACs match the published figures", "[zoo][golden]") {
  // Published (Tan & Le 2019, Table 2): 0.39/0.70/1.0/1.8/4.2/9.9/19/37 GFLOPs (multiply-adds),
  // given to 2 significant digits. Compare against the nearest value that rounds to the published
  // figure. B4 and B5 are the known exceptions: the reference architecture itself counts 4.39 G
  // and 10.27 G (3-4% above the rounded published values), so they are checked against the
  // reference-code derivation below instead.
  struct Published {
    const char* name;
    double gmacs;
    double half_step;  // half of the last published digit
  };
  const Published published[] = {
      {"efficientnet-b0", 0.39, 0.005}, {"efficientnet-b1", 0.70, 0.005},
      {"efficientnet-b2", 1.0, 0.05},   {"efficientnet-b3", 1.8, 0.05},
      {"efficientnet-b6", 19, 0.5},     {"efficientnet-b7", 37, 0.5},
  };
  for (const auto& p : published) {
    const double gmacs = static_cast<double>(Count(p.name).macs) / 1e9;
    const double nearest = std::clamp(gmacs, p.gmacs - p.half_step, p.gmacs + p.half_step);
    INFO(p.name << ": " << gmacs << " GMACs vs published " << p.gmacs);
    CHECK(std::fabs(gmacs - nearest) / nearest <= 0.02);
  }
}

TEST_CASE("every EfficientNet / EfficientNet-X variant matches the reference-code counts",
          "[zoo][golden]") {
  for (const auto& e : kExpected) {
    const OpCounts c = Count(e.name);
    INFO(e.name);
    CHECK(c.params == e.params);
    CHECK(static_cast<double>(c.macs) / 1e9 == Approx(e.gmacs).margin(0.0006));
  }
}

TEST_CASE("EfficientNet-X-B0 layer structure follows the reference code", "[zoo]") {
  const Graph g = BuiltinModels().Build("efficientnet-x-b0", BuildOptions{});
  // The learned space-to-depth conv: 2x2 stride 2, 32 -> 128 channels, 112 -> 56.
  bool found_s2d = false;
  for (const Op& op : g.ops()) {
    if (op.kind == OpKind::kConv2d && op.attrs.kernel_h == 2 && op.attrs.stride_h == 2) {
      found_s2d = true;
      CHECK(op.block == "blocks.0");
      CHECK(op.out.shape == Shape{1, 56, 56, 128});
      CHECK(g.op(op.inputs[0]).out.shape == Shape{1, 112, 112, 32});
    }
  }
  CHECK(found_s2d);
  // Block activations: stage 1 relu, stages 2-3 (fused) swish, later relu; stem relu.
  int swish = 0;
  for (const Op& op : g.ops()) {
    if (op.kind != OpKind::kActivation || op.attrs.activation != Activation::kSwish) continue;
    ++swish;
    CHECK((op.stage == 2 || op.stage == 3));
  }
  CHECK(swish > 0);
}

TEST_CASE("builders honour resolution, batch, dtype and classes", "[zoo]") {
  BuildOptions o;
  o.resolution = 128;
  o.batch = 8;
  o.dtype = DType::kBf16;
  o.num_classes = 10;
  const Graph g = BuiltinModels().Build("efficientnet-b0", o);
  CHECK(g.op(0).out.shape == Shape{8, 128, 128, 3});
  CHECK(g.op(g.size() - 1).out.shape == Shape{8, 1, 1, 10});
  CHECK(g.op(g.size() - 1).out.dtype == DType::kBf16);
  // MACs scale with batch exactly.
  o.batch = 1;
  const auto one = CountGraph(BuiltinModels().Build("efficientnet-b0", o));
  CHECK(CountGraph(g).macs == 8 * one.macs);
}

TEST_CASE("unknown model names are answered with the closest valid names", "[zoo]") {
  try {
    BuiltinModels().Build("efficientnet-bO", BuildOptions{});
    FAIL("expected an InputError");
  } catch (const InputError& e) {
    CHECK(std::string(e.what()).find("efficientnet-b0") != std::string::npos);
  }
}

TEST_CASE("proxy scaling removes early downsampling and narrows the network", "[zoo]") {
  BuildOptions o;
  o.resolution = 32;
  o.in_channels = 1;
  o.num_classes = 10;
  o.proxy_removed_downsamples = 2;
  o.width_scale = 0.5;
  const Graph g = BuiltinModels().Build("efficientnet-b0", o);
  // 32 px with 3 of the 5 stride-2 steps left: 4x4 before the head.
  int64_t last_spatial = 0;
  for (const Op& op : g.ops()) {
    if (op.block == "head" && op.kind == OpKind::kConv2d) last_spatial = op.out.shape.h;
  }
  CHECK(last_spatial == 4);
  CHECK(CountGraph(g).params < 5288548 / 2);
}

}  // namespace dcnas::models
