// ResNet v1.5 and ResNeXt / SE-ResNeXt.
//
// ResNet-50/101/152 v1.5 as torchvision defines them (torchvision/models/resnet.py: 7x7/2 stem
// conv with padding 3, BN, ReLU, 3x3/2 max pool with padding 1; Bottleneck with the stride on
// the 3x3 conv, BN after every conv, 1x1 strided projection shortcut; global average pool and a
// 2048 -> classes linear layer).
//
// ResNeXt-101 32x4d and SE-ResNeXt-101 32x4d as NVIDIA DeepLearningExamples
// (PyTorch/Classification/ConvNets/image_classification/models/resnet.py: widths 128..1024,
// expansion 2, cardinality 32, stride on the grouped 3x3 conv) and timm build them. The squeeze-
// excite sits on the block output before the residual add with reduction 16 (Hu et al. 2018;
// Cadene pretrainedmodels senet.py and timm: out_channels / 16 squeeze channels). NVIDIA's code
// passes a fixed 16-channel squeeze instead; the published 48,955,416-parameter count is the
// reduction-16 model.
#include <algorithm>
#include <cmath>
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

struct ResNetSpec {
  std::vector<int> layers;
  int groups = 1;        // cardinality of the 3x3 convs
  int base_width = 64;   // width per group at 64 planes
  int se_reduction = 0;  // 0: no squeeze-excite
};

Graph BuildResNet(const std::string& model, const ResNetSpec& spec, const BuildOptions& options) {
  const double scale = options.width_scale;
  GraphBuilder b(model, options);
  int x = b.Input(options.resolution, options.resolution, options.in_channels);
  b.SetScope("stem", 0);
  x = b.ConvBnAct(x, RoundFilters(64, scale), 7, TorchConv(7, 2), Activation::kRelu);
  x = b.Pool(x, PoolMode::kMax, 3, 2, Padding::Symmetric(1));
  int block = 0;
  for (size_t stage = 0; stage < spec.layers.size(); ++stage) {
    const int64_t planes = kStagePlanes[stage];
    const double group_width = static_cast<double>(planes * spec.base_width) / 64.0;
    // torchvision: width = int(planes * base_width / 64) * groups. Scaled widths keep the
    // cardinality and round the per-group width (dense ResNets round to multiples of 8).
    const int64_t width =
        spec.groups == 1 ? RoundFilters(static_cast<int64_t>(group_width), scale)
                         : std::max<int64_t>(1, std::llround(group_width * scale)) * spec.groups;
    const int64_t out_channels = RoundFilters(planes * 4, scale);
    for (int j = 0; j < spec.layers[stage]; ++j) {
      b.SetScope("blocks." + std::to_string(block++), static_cast<int>(stage) + 1);
      BottleneckSpec bottleneck;
      bottleneck.width = width;
      bottleneck.out_channels = out_channels;
      bottleneck.stride = (j == 0 && stage > 0) ? 2 : 1;
      bottleneck.groups = spec.groups;
      if (spec.se_reduction > 0) {
        bottleneck.se_reduced = std::max<int64_t>(1, out_channels / spec.se_reduction);
        bottleneck.se_position = SePosition::kAfterConv3;
      }
      bottleneck.shortcut = Shortcut::kConv;
      x = ResidualBottleneck(b, x, bottleneck);
    }
  }
  b.SetScope("head", static_cast<int>(spec.layers.size()) + 1);
  x = b.GlobalPool(x, PoolMode::kAvg);
  b.FullyConnected(x, options.num_classes, true);
  return b.Finish();
}

void Register(ModelRegistry& registry, const std::string& name, const std::string& family,
              const ResNetSpec& spec, const std::string& description) {
  registry.Register({.name = name,
                     .family = family,
                     .description = description,
                     .native_resolution = 224,
                     .build = [name, spec](const BuildOptions& options) {
                       return BuildResNet(name, spec, options);
                     }});
}

}  // namespace

void RegisterResNets(ModelRegistry& registry) {
  Register(registry, "resnet50", "resnet", {{3, 4, 6, 3}},
           "ResNet-50 v1.5 (He et al. 2016); torchvision resnet.py");
  Register(registry, "resnet101", "resnet", {{3, 4, 23, 3}},
           "ResNet-101 v1.5 (He et al. 2016); torchvision resnet.py");
  Register(registry, "resnet152", "resnet", {{3, 8, 36, 3}},
           "ResNet-152 v1.5 (He et al. 2016); torchvision resnet.py");
  Register(registry, "resnext101-32x4d", "resnext", {{3, 4, 23, 3}, 32, 4, 0},
           "ResNeXt-101 32x4d (Xie et al. 2017); NVIDIA DeepLearningExamples resnet.py, timm");
  Register(registry, "seresnext101-32x4d", "resnext", {{3, 4, 23, 3}, 32, 4, 16},
           "SE-ResNeXt-101 32x4d, SE reduction 16 (Hu et al. 2018); NVIDIA DeepLearningExamples, "
           "timm");
}

}  // namespace dcnas::models::zoo
