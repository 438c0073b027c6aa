// ResNeSt-50 and ResNeSt-101 (Zhang et al. 2020, "ResNeSt: Split-Attention Networks"), as the
// authors' code builds them (zhanghang1989/ResNeSt resnest/torch/models/resnest.py, resnet.py,
// splat.py): radix 2, cardinality 1, bottleneck width 64; deep stem of three 3x3 convs (stem
// width 32 for ResNeSt-50, 64 for ResNeSt-101; the third conv doubles it) then BN, ReLU and a
// 3x3/2 max pool; "avd": the first block of stages 2-4 downsamples with a 3x3/2 average pool after
// the split attention instead of a strided conv; "avg down" shortcuts (average pool with kernel =
// stride, then 1x1 conv and BN). The split attention is formulated from primitive ops as
// models/blocks.h SplitAttentionConv documents (same parameters and MACs as the reference).
#include <algorithm>
#include <string>
#include <vector>

#include "models/block_string.h"
#include "models/blocks.h"
#include "models/registry.h"
#include "models/zoo/comparison_families.h"

namespace dcnas::models::zoo {
namespace {

// Bottleneck planes of the four stages (the output is 4x planes).
const int64_t kStagePlanes[] = {64, 128, 256, 512};

struct ResNeStSpec {
  std::vector<int> layers;
  int64_t stem_width = 32;
  int radix = 2;
  int cardinality = 1;
  int bottleneck_width = 64;
  int native_resolution = 224;
};

Graph BuildResNeSt(const std::string& model, const ResNeStSpec& spec, const BuildOptions& options) {
  const double scale = options.width_scale;
  GraphBuilder b(model, options);
  int x = b.Input(options.resolution, options.resolution, options.in_channels);
  b.SetScope("stem", 0);
  const int64_t stem_width = RoundFilters(spec.stem_width, scale);
  x = b.ConvBnAct(x, stem_width, 3, TorchConv(3, 2), Activation::kRelu);
  x = b.ConvBnAct(x, stem_width, 3, TorchConv(3), Activation::kRelu);
  x = b.ConvBnAct(x, 2 * stem_width, 3, TorchConv(3), Activation::kRelu);
  x = b.Pool(x, PoolMode::kMax, 3, 2, Padding::Symmetric(1));
  int block = 0;
  // SplAtConv2d: inter_channels = max(in_channels * radix // reduction_factor(4), 32).
  const int64_t min_inter = RoundFilters(32, scale);
  for (size_t stage = 0; stage < spec.layers.size(); ++stage) {
    const int64_t planes = RoundFilters(kStagePlanes[stage], scale);
    const int64_t group_width = planes * spec.bottleneck_width / 64 * spec.cardinality;
    for (int j = 0; j < spec.layers[stage]; ++j) {
      b.SetScope("blocks." + std::to_string(block++), static_cast<int>(stage) + 1);
      const int stride = (j == 0 && stage > 0) ? 2 : 1;
      // _make_layer passes is_first=False for layer1 and True (default) to the first block of
      // the other layers: avd = avd and (stride > 1 or is_first).
      const bool is_first = j == 0 && stage > 0;
      SplitAttentionBottleneckSpec bottleneck;
      bottleneck.attention.reduce_channels = group_width;
      bottleneck.attention.channels = group_width;
      bottleneck.attention.radix = spec.radix;
      bottleneck.attention.cardinality = spec.cardinality;
      bottleneck.attention.inter_channels = std::max(group_width * spec.radix / 4, min_inter);
      bottleneck.attention.kernel = 3;
      bottleneck.out_channels = planes * 4;
      bottleneck.stride = stride;
      bottleneck.avd = stride > 1 || is_first;
      bottleneck.shortcut = Shortcut::kAvgPoolConv;
      x = SplitAttentionBottleneck(b, x, bottleneck);
    }
  }
  b.SetScope("head", static_cast<int>(spec.layers.size()) + 1);
  x = b.GlobalPool(x, PoolMode::kAvg);
  b.FullyConnected(x, options.num_classes, true);
  return b.Finish();
}

void Register(ModelRegistry& registry, const std::string& name, const ResNeStSpec& spec,
              const std::string& description) {
  registry.Register({.name = name,
                     .family = "resnest",
                     .description = description,
                     .native_resolution = spec.native_resolution,
                     .build = [name, spec](const BuildOptions& options) {
                       return BuildResNeSt(name, spec, options);
                     }});
}

}  // namespace

void RegisterResNeSts(ModelRegistry& registry) {
  Register(registry, "resnest50", {{3, 4, 6, 3}, 32, 2, 1, 64, 224},
           "ResNeSt-50 2s1x64d (Zhang et al. 2020); zhanghang1989/ResNeSt resnest.py");
  Register(registry, "resnest101", {{3, 4, 23, 3}, 64, 2, 1, 64, 256},
           "ResNeSt-101 2s1x64d, 256 px (Zhang et al. 2020); zhanghang1989/ResNeSt resnest.py");
}

}  // namespace dcnas::models::zoo
