// The EfficientNet-X paper's comparison families, one registration function per zoo file, and the
// RegNet width rule (exposed for tests and for anyone generating RegNet-style design points).
#pragma once

#include <cstdint>
#include <vector>

namespace dcnas::models {
class ModelRegistry;
}

namespace dcnas::models::zoo {

// resnet.cc: ResNet-50/101/152 v1.5 (family "resnet"); ResNeXt-101 32x4d and SE-ResNeXt-101 32x4d
// (family "resnext").
void RegisterResNets(ModelRegistry& registry);

// resnest.cc: ResNeSt-50 and ResNeSt-101 (family "resnest").
void RegisterResNeSts(ModelRegistry& registry);

// regnet.cc: RegNetX and RegNetY, 200MF to 16GF (families "regnetx", "regnety").
void RegisterRegNets(ModelRegistry& registry);

// mobilenet.cc: MobileNetV2 1.0 and MobileNetV3-Large (family "mobilenet"); MnasNet-B1 1.0
// (family "mnasnet").
void RegisterMobileNets(ModelRegistry& registry);

// efficientnetv2.cc: EfficientNetV2-S (family "efficientnetv2").
void RegisterEfficientNetV2(ModelRegistry& registry);

// transformers.cc: ViT-B/16, B/32, L/16, DeiT-Ti/S (family "vit"), Swin-T/S/B ("swin"),
// ConvNeXt-T/S/B/L ("convnext"), as torchvision builds them; MLP-Mixer S/B/L at 16 and 32 px
// patches ("mixer") and ResMLP-12/24/36/big-24 ("resmlp"), as timm builds them.
void RegisterTransformers(ModelRegistry& registry);

// A RegNet design point (pycls REGNET config keys DEPTH, W0, WA, WM, GROUP_W, SE_R).
struct RegNetParams {
  int depth = 13;
  double w0 = 24;
  double wa = 36.44;
  double wm = 2.49;
  int group_width = 8;
  double se_ratio = 0.0;  // 0.25 for RegNetY
};

struct RegNetStage {
  int64_t width = 0;
  int depth = 0;
  int group_width = 0;
};

// pycls generate_regnet + adjust_block_compatibility (bottleneck multiplier 1): per-block widths
// w0 + wa * j quantized to w0 * wm^round(log(u_j / w0) / log(wm)), rounded to multiples of 8,
// grouped into stages of equal width; then each group width is capped at the stage width and the
// stage width rounded to a multiple of the group width. Rounding is round-half-to-even, as
// numpy's and Python's round. width_scale multiplies the stage widths (rounded to multiples of 8,
// at least 8) before the compatibility adjustment.
std::vector<RegNetStage> RegNetStages(const RegNetParams& params, double width_scale = 1.0);

}  // namespace dcnas::models::zoo
