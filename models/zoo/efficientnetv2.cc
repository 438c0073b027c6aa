// EfficientNetV2-S (Tan & Le 2021) as torchvision defines it (torchvision/models/efficientnet.py
// _efficientnet_conf("efficientnet_v2_s"): FusedMBConv and MBConv stages, SiLU, squeeze-excite
// with max(1, input_channels // 4) channels in the MBConv stages only, a 1x1 conv to 1280, global
// average pool, dropout 0.2 and a linear classifier; evaluated at 384 px). Channels go through
// _make_divisible(c * width_mult, 8); the last conv stays at 1280 as in torchvision.
#include <algorithm>
#include <string>

#include "models/block_string.h"
#include "models/blocks.h"
#include "models/registry.h"
#include "models/zoo/comparison_families.h"

namespace dcnas::models::zoo {
namespace {

constexpr int kNativeResolution = 384;  // EfficientNet_V2_S_Weights: resize/crop 384

// FusedMBConvConfig / MBConvConfig(expand_ratio, kernel, stride, input_channels, out_channels,
// num_layers).
struct Row {
  bool fused;
  int expand_ratio;
  int kernel;
  int stride;
  int64_t in;
  int64_t out;
  int layers;
};
const Row kEfficientNetV2S[] = {
    {true, 1, 3, 1, 24, 24, 2},   {true, 4, 3, 2, 24, 48, 4},    {true, 4, 3, 2, 48, 64, 4},
    {false, 4, 3, 2, 64, 128, 6}, {false, 6, 3, 1, 128, 160, 9}, {false, 6, 3, 2, 160, 256, 15},
};

Graph BuildEfficientNetV2S(const std::string& model, const BuildOptions& options) {
  const double scale = options.width_scale;
  GraphBuilder b(model, options);
  int x = b.Input(options.resolution, options.resolution, options.in_channels);
  b.SetScope("stem", 0);
  x = b.ConvBnAct(x, RoundFilters(kEfficientNetV2S[0].in, scale), 3, TorchConv(3, 2),
                  Activation::kSwish);
  int block = 0;
  int stage = 0;
  for (const Row& row : kEfficientNetV2S) {
    ++stage;
    const int64_t out = RoundFilters(row.out, scale);
    for (int j = 0; j < row.layers; ++j) {
      b.SetScope("blocks." + std::to_string(block++), stage);
      const int64_t in = b.channels(x);
      InvertedResidualSpec spec;
      // adjust_channels(input_channels, expand_ratio) = _make_divisible(in * ratio, 8).
      spec.expanded = RoundFilters(in, row.expand_ratio);
      spec.out_channels = out;
      spec.kernel = row.kernel;
      spec.stride = j == 0 ? row.stride : 1;
      spec.activation = Activation::kSwish;
      spec.fused = row.fused;
      if (!row.fused) {
        spec.se_reduced = std::max<int64_t>(1, in / 4);
        spec.se_activation = Activation::kSwish;
        spec.se_gate = Activation::kSigmoid;
      }
      x = InvertedResidual(b, x, spec);
    }
  }
  b.SetScope("head", stage + 1);
  x = b.ConvBnAct(x, 1280, 1, TorchConv(1), Activation::kSwish);
  x = b.GlobalPool(x, PoolMode::kAvg);
  x = b.Dropout(x, 0.2);
  b.FullyConnected(x, options.num_classes, true);
  return b.Finish();
}

}  // namespace

void RegisterEfficientNetV2(ModelRegistry& registry) {
  registry.Register(
      {.name = "efficientnetv2-s",
       .family = "efficientnetv2",
       .description = "EfficientNetV2-S, 384 px (Tan & Le 2021); torchvision efficientnet.py",
       .native_resolution = kNativeResolution,
       .build = [](const BuildOptions& options) {
         return BuildEfficientNetV2S("efficientnetv2-s", options);
       }});
}

}  // namespace dcnas::models::zoo
