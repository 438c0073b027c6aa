// RegNetX and RegNetY (Radosavovic et al. 2020, "Designing Network Design Spaces") as pycls
// builds them (facebookresearch/pycls pycls/models/regnet.py generate_regnet and
// adjust_block_compatibility; anynet.py SimpleStem, ResBottleneckBlock, BottleneckTransform, SE,
// AnyHead): a 3x3/2 stem conv to 32 channels with BN and ReLU; four stages of residual
// bottlenecks (bottleneck multiplier 1, 3x3 group conv with the stage's group width, stride 2 on
// each stage's first block with a 1x1 strided projection shortcut); RegNetY adds a squeeze-
// excite after the 3x3 conv whose width is round(0.25 * block input width); global average pool
// and a linear classifier.
//
// Design points: pycls configs/dds_baselines/regnet{x,y}/RegNet{X,Y}-*_dds_8gpu.yaml (the same
// DEPTH/W0/WA/WM/GROUP_W values as timm's regnet.py model_cfgs).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iterator>
#include <string>
#include <vector>

#include "common/errors.h"
#include "models/blocks.h"
#include "models/registry.h"
#include "models/zoo/comparison_families.h"

namespace dcnas::models::zoo {
namespace {

constexpr int kWidthQuantum = 8;    // pycls generate_regnet q
constexpr int64_t kStemWidth = 32;  // pycls cfg.REGNET.STEM_W

// numpy.round / Python round: round half to even (the default floating-point rounding mode).
double RoundHalfEven(double value) { return std::nearbyint(value); }

int64_t QuantizeWidth(double width) {
  return std::max<int64_t>(
      kWidthQuantum, static_cast<int64_t>(RoundHalfEven(width / kWidthQuantum)) * kWidthQuantum);
}

Graph BuildRegNet(const std::string& model, const RegNetParams& params,
                  const BuildOptions& options) {
  const std::vector<RegNetStage> stages = RegNetStages(params, options.width_scale);
  GraphBuilder b(model, options);
  int x = b.Input(options.resolution, options.resolution, options.in_channels);
  b.SetScope("stem", 0);
  const int64_t stem_width =
      options.width_scale == 1.0 ? kStemWidth : QuantizeWidth(kStemWidth * options.width_scale);
  x = b.ConvBnAct(x, stem_width, 3, TorchConv(3, 2), Activation::kRelu);
  int64_t width_in = stem_width;
  int block = 0;
  for (size_t stage = 0; stage < stages.size(); ++stage) {
    const RegNetStage& s = stages[stage];
    for (int j = 0; j < s.depth; ++j) {
      b.SetScope("blocks." + std::to_string(block++), static_cast<int>(stage) + 1);
      BottleneckSpec bottleneck;
      bottleneck.width = s.width;
      bottleneck.out_channels = s.width;
      bottleneck.stride = j == 0 ? 2 : 1;
      bottleneck.groups = static_cast<int>(s.width / s.group_width);
      if (params.se_ratio > 0) {
        bottleneck.se_reduced = std::max<int64_t>(
            1,
            static_cast<int64_t>(RoundHalfEven(static_cast<double>(width_in) * params.se_ratio)));
        bottleneck.se_position = SePosition::kAfterConv2;
      }
      bottleneck.shortcut = Shortcut::kConv;
      x = ResidualBottleneck(b, x, bottleneck);
      width_in = s.width;
    }
  }
  b.SetScope("head", static_cast<int>(stages.size()) + 1);
  x = b.GlobalPool(x, PoolMode::kAvg);
  b.FullyConnected(x, options.num_classes, true);
  return b.Finish();
}

struct DesignPoint {
  const char* suffix;
  RegNetParams params;
};

// pycls configs/dds_baselines (DEPTH, W0, WA, WM, GROUP_W).
const DesignPoint kRegNetX[] = {
    {"200mf", {13, 24, 36.44, 2.49, 8}},   {"400mf", {22, 24, 24.48, 2.54, 16}},
    {"600mf", {16, 48, 36.97, 2.24, 24}},  {"800mf", {16, 56, 35.73, 2.28, 16}},
    {"1.6gf", {18, 80, 34.01, 2.25, 24}},  {"3.2gf", {25, 88, 26.31, 2.25, 48}},
    {"4.0gf", {23, 96, 38.65, 2.43, 40}},  {"6.4gf", {17, 184, 60.83, 2.07, 56}},
    {"8.0gf", {23, 80, 49.56, 2.88, 120}}, {"12gf", {19, 168, 73.36, 2.37, 112}},
    {"16gf", {22, 216, 55.59, 2.1, 128}},
};
const DesignPoint kRegNetY[] = {
    {"200mf", {13, 24, 36.44, 2.49, 8}},    {"400mf", {16, 48, 27.89, 2.09, 8}},
    {"600mf", {15, 48, 32.54, 2.32, 16}},   {"800mf", {14, 56, 38.84, 2.4, 16}},
    {"1.6gf", {27, 48, 20.71, 2.65, 24}},   {"3.2gf", {21, 80, 42.63, 2.66, 24}},
    {"4.0gf", {22, 96, 31.41, 2.24, 64}},   {"6.4gf", {25, 112, 33.22, 2.27, 72}},
    {"8.0gf", {17, 192, 76.82, 2.19, 56}},  {"12gf", {19, 168, 73.36, 2.37, 112}},
    {"16gf", {18, 200, 106.23, 2.48, 112}},
};

void RegisterFamily(ModelRegistry& registry, const std::string& family, const DesignPoint* points,
                    size_t count, double se_ratio) {
  for (size_t i = 0; i < count; ++i) {
    RegNetParams params = points[i].params;
    params.se_ratio = se_ratio;
    const std::string name = family + "-" + points[i].suffix;
    char description[160];
    std::snprintf(description, sizeof(description),
                  "d=%d w0=%g wa=%g wm=%g g=%d%s; Radosavovic et al. 2020, pycls dds_baselines",
                  params.depth, params.w0, params.wa, params.wm, params.group_width,
                  se_ratio > 0 ? " se=0.25" : "");
    registry.Register({.name = name,
                       .family = family,
                       .description = description,
                       .native_resolution = 224,
                       .build = [name, params](const BuildOptions& options) {
                         return BuildRegNet(name, params, options);
                       }});
  }
}

}  // namespace

std::vector<RegNetStage> RegNetStages(const RegNetParams& params, double width_scale) {
  if (params.depth < 1 || params.w0 <= 0 || params.wa < 0 || params.wm <= 1 ||
      params.group_width < 1 || std::fmod(params.w0, kWidthQuantum) != 0) {
    throw InputError(
        "RegNet parameters need depth >= 1, w0 > 0 divisible by 8, wa >= 0, "
        "wm > 1 and group width >= 1");
  }
  if (!(width_scale > 0)) throw InputError("RegNet width_scale must be positive");
  std::vector<RegNetStage> stages;
  for (int j = 0; j < params.depth; ++j) {
    const double width_cont = params.w0 + params.wa * j;
    const double exponent = RoundHalfEven(std::log(width_cont / params.w0) / std::log(params.wm));
    const auto width = static_cast<int64_t>(
        RoundHalfEven(params.w0 * std::pow(params.wm, exponent) / kWidthQuantum) * kWidthQuantum);
    if (!stages.empty() && stages.back().width == width) {
      ++stages.back().depth;
    } else {
      stages.push_back({width, 1, params.group_width});
    }
  }
  for (RegNetStage& stage : stages) {
    if (width_scale != 1.0) {
      stage.width = QuantizeWidth(static_cast<double>(stage.width) * width_scale);
    }
    // adjust_block_compatibility with bottleneck multiplier 1.
    stage.group_width = static_cast<int>(std::min<int64_t>(stage.group_width, stage.width));
    const int64_t g = stage.group_width;
    stage.width =
        std::max<int64_t>(g, static_cast<int64_t>(RoundHalfEven(static_cast<double>(stage.width) /
                                                                static_cast<double>(g))) *
                                 g);
  }
  return stages;
}

void RegisterRegNets(ModelRegistry& registry) {
  RegisterFamily(registry, "regnetx", kRegNetX, std::size(kRegNetX), 0.0);
  RegisterFamily(registry, "regnety", kRegNetY, std::size(kRegNetY), 0.25);
}

}  // namespace dcnas::models::zoo
