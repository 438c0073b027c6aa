// MobileNetV2 1.0, MobileNetV3-Large 1.0 and MnasNet-B1 1.0 as torchvision defines them
// (torchvision/models/mobilenetv2.py, mobilenetv3.py _mobilenet_v3_conf("mobilenet_v3_large"),
// mnasnet.py mnasnet1_0). Channel counts go through torchvision's _make_divisible (the same
// rounding as RoundFilters: nearest multiple of 8, never below 90%); width_scale plays the role
// of torchvision's width_mult / MnasNet's alpha, with each model's own rule for the last layer.
#include <algorithm>
#include <iterator>
#include <string>
#include <vector>

#include "models/block_string.h"
#include "models/blocks.h"
#include "models/registry.h"
#include "models/zoo/comparison_families.h"

namespace dcnas::models::zoo {
namespace {

// torchvision MobileNetV2 inverted_residual_setting: expansion t, channels c, repeats n, stride s.
struct V2Row {
  int t;
  int64_t c;
  int n;
  int s;
};
const V2Row kMobileNetV2[] = {
    {1, 16, 1, 1}, {6, 24, 2, 2},  {6, 32, 3, 2},  {6, 64, 4, 2},
    {6, 96, 3, 1}, {6, 160, 3, 2}, {6, 320, 1, 1},
};

Graph BuildMobileNetV2(const std::string& model, const BuildOptions& options) {
  const double scale = options.width_scale;
  GraphBuilder b(model, options);
  int x = b.Input(options.resolution, options.resolution, options.in_channels);
  b.SetScope("stem", 0);
  x = b.ConvBnAct(x, RoundFilters(32, scale), 3, TorchConv(3, 2), Activation::kRelu6);
  int block = 0;
  int stage = 0;
  for (const V2Row& row : kMobileNetV2) {
    ++stage;
    const int64_t out = RoundFilters(row.c, scale);
    for (int j = 0; j < row.n; ++j) {
      b.SetScope("blocks." + std::to_string(block++), stage);
      InvertedResidualSpec spec;
      // hidden_dim = int(round(inp * expand_ratio)).
      spec.expanded = b.channels(x) * row.t;
      spec.out_channels = out;
      spec.kernel = 3;
      spec.stride = j == 0 ? row.s : 1;
      spec.activation = Activation::kRelu6;
      x = InvertedResidual(b, x, spec);
    }
  }
  b.SetScope("head", stage + 1);
  // last_channel = _make_divisible(1280 * max(1.0, width_mult)).
  x = b.ConvBnAct(x, RoundFilters(1280, std::max(1.0, scale)), 1, TorchConv(1), Activation::kRelu6);
  x = b.GlobalPool(x, PoolMode::kAvg);
  x = b.Dropout(x, 0.2);
  b.FullyConnected(x, options.num_classes, true);
  return b.Finish();
}

// torchvision _mobilenet_v3_conf("mobilenet_v3_large") bneck_conf rows: input channels, kernel,
// expanded channels, output channels, squeeze-excite, activation (RE relu / HS hard-swish),
// stride.
struct V3Row {
  int64_t in;
  int kernel;
  int64_t expanded;
  int64_t out;
  bool se;
  bool hard_swish;
  int stride;
};
const V3Row kMobileNetV3Large[] = {
    {16, 3, 16, 16, false, false, 1},  {16, 3, 64, 24, false, false, 2},
    {24, 3, 72, 24, false, false, 1},  {24, 5, 72, 40, true, false, 2},
    {40, 5, 120, 40, true, false, 1},  {40, 5, 120, 40, true, false, 1},
    {40, 3, 240, 80, false, true, 2},  {80, 3, 200, 80, false, true, 1},
    {80, 3, 184, 80, false, true, 1},  {80, 3, 184, 80, false, true, 1},
    {80, 3, 480, 112, true, true, 1},  {112, 3, 672, 112, true, true, 1},
    {112, 5, 672, 160, true, true, 2}, {160, 5, 960, 160, true, true, 1},
    {160, 5, 960, 160, true, true, 1},
};

Graph BuildMobileNetV3Large(const std::string& model, const BuildOptions& options) {
  const double scale = options.width_scale;
  GraphBuilder b(model, options);
  int x = b.Input(options.resolution, options.resolution, options.in_channels);
  b.SetScope("stem", 0);
  x = b.ConvBnAct(x, RoundFilters(kMobileNetV3Large[0].in, scale), 3, TorchConv(3, 2),
                  Activation::kHardSwish);
  int block = 0;
  int stage = 1;  // a new stage at every stride-2 block (torchvision's C1..C4 markers)
  for (const V3Row& row : kMobileNetV3Large) {
    if (row.stride == 2) ++stage;
    b.SetScope("blocks." + std::to_string(block++), stage);
    InvertedResidualSpec spec;
    spec.expanded = RoundFilters(row.expanded, scale);
    spec.out_channels = RoundFilters(row.out, scale);
    spec.kernel = row.kernel;
    spec.stride = row.stride;
    spec.activation = row.hard_swish ? Activation::kHardSwish : Activation::kRelu;
    if (row.se) {
      // SqueezeExcitation(expanded, _make_divisible(expanded // 4, 8), scale=Hardsigmoid).
      spec.se_reduced = RoundFilters(spec.expanded / 4, 1.0);
      spec.se_activation = Activation::kRelu;
      spec.se_gate = Activation::kHardSigmoid;
    }
    x = InvertedResidual(b, x, spec);
  }
  b.SetScope("head", stage + 1);
  x = b.ConvBnAct(x, 6 * b.channels(x), 1, TorchConv(1), Activation::kHardSwish);
  x = b.GlobalPool(x, PoolMode::kAvg);
  x = b.Act(b.FullyConnected(x, RoundFilters(1280, scale), true), Activation::kHardSwish);
  x = b.Dropout(x, 0.2);
  b.FullyConnected(x, options.num_classes, true);
  return b.Finish();
}

// torchvision mnasnet.py _stack arguments: out channels index, kernel, stride, expansion,
// repeats; the channel list is _get_depths(alpha) of {32, 16, 24, 40, 80, 96, 192, 320}.
struct MnasRow {
  int kernel;
  int stride;
  int expansion;
  int repeats;
};
const int64_t kMnasDepths[] = {32, 16, 24, 40, 80, 96, 192, 320};
const MnasRow kMnasNetB1[] = {
    {3, 2, 3, 3}, {5, 2, 3, 3}, {5, 2, 6, 3}, {3, 1, 6, 2}, {5, 2, 6, 4}, {3, 1, 6, 1},
};

Graph BuildMnasNetB1(const std::string& model, const BuildOptions& options) {
  const double alpha = options.width_scale;
  std::vector<int64_t> depths;
  // _round_to_multiple_of(depth * alpha, 8) with round_up_bias 0.9: RoundFilters.
  for (int64_t depth : kMnasDepths) depths.push_back(RoundFilters(depth, alpha));
  GraphBuilder b(model, options);
  int x = b.Input(options.resolution, options.resolution, options.in_channels);
  b.SetScope("stem", 0);
  x = b.ConvBnAct(x, depths[0], 3, TorchConv(3, 2), Activation::kRelu);
  // Depthwise separable, no skip.
  b.SetScope("blocks.0", 1);
  x = b.Act(b.BatchNorm(b.DepthwiseConv(x, 3, 1, Padding::Symmetric(1))), Activation::kRelu);
  x = b.ConvBn(x, depths[1], 1, TorchConv(1));
  int block = 1;
  int stage = 1;
  for (size_t i = 0; i < std::size(kMnasNetB1); ++i) {
    const MnasRow& row = kMnasNetB1[i];
    ++stage;
    for (int j = 0; j < row.repeats; ++j) {
      b.SetScope("blocks." + std::to_string(block++), stage);
      InvertedResidualSpec spec;
      spec.expanded = b.channels(x) * row.expansion;
      spec.out_channels = depths[i + 2];
      spec.kernel = row.kernel;
      spec.stride = j == 0 ? row.stride : 1;
      spec.activation = Activation::kRelu;
      x = InvertedResidual(b, x, spec);
    }
  }
  b.SetScope("head", stage + 1);
  x = b.ConvBnAct(x, 1280, 1, TorchConv(1), Activation::kRelu);
  x = b.GlobalPool(x, PoolMode::kAvg);
  x = b.Dropout(x, 0.2);
  b.FullyConnected(x, options.num_classes, true);
  return b.Finish();
}

void Register(ModelRegistry& registry, const std::string& name, const std::string& family,
              const std::string& description,
              Graph (*build)(const std::string&, const BuildOptions&)) {
  registry.Register(
      {.name = name,
       .family = family,
       .description = description,
       .native_resolution = 224,
       .build = [name, build](const BuildOptions& options) { return build(name, options); }});
}

}  // namespace

void RegisterMobileNets(ModelRegistry& registry) {
  Register(registry, "mobilenetv2-1.0", "mobilenet",
           "MobileNetV2 1.0 (Sandler et al. 2018); torchvision mobilenetv2.py", BuildMobileNetV2);
  Register(registry, "mobilenetv3-large", "mobilenet",
           "MobileNetV3-Large 1.0 (Howard et al. 2019); torchvision mobilenetv3.py",
           BuildMobileNetV3Large);
  Register(registry, "mnasnet-b1", "mnasnet",
           "MnasNet-B1 1.0 (Tan et al. 2019); torchvision mnasnet.py mnasnet1_0", BuildMnasNetB1);
}

}  // namespace dcnas::models::zoo
