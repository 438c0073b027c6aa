// EfficientNet and EfficientNet-X, as defined in tensorflow/tpu models/official/efficientnet
// (efficientnet_builder.py: _DEFAULT_BLOCKS_ARGS, efficientnet_params;
// tpu/efficientnet_x_builder.py version 1: blocks and efficientnet_x_params). See data/README.md
// for provenance.
#include <optional>
#include <string>
#include <vector>

#include "models/block_string.h"
#include "models/registry.h"
#include "models/zoo/zoo.h"

namespace dcnas::models::zoo {
namespace {

const std::vector<std::string> kEfficientNetBlocks = {
    "r1_k3_s11_e1_i32_o16_se0.25",   "r2_k3_s22_e6_i16_o24_se0.25",
    "r2_k5_s22_e6_i24_o40_se0.25",   "r3_k3_s22_e6_i40_o80_se0.25",
    "r3_k5_s11_e6_i80_o112_se0.25",  "r4_k5_s22_e6_i112_o192_se0.25",
    "r1_k3_s11_e6_i192_o320_se0.25",
};

const std::vector<std::string> kEfficientNetXBlocks = {
    "r1_k3_s11_e1_i32_o16_se0.25_d1_a0", "r2_k3_s22_e6_i16_o24_se0.25_f1_d2_a1",
    "r2_k5_s22_e6_i24_o40_se0.25_f1_a1", "r3_k3_s22_e6_i40_o80_se0.25_a0",
    "r3_k5_s11_e6_i80_o112_se0.25_a0",   "r4_k5_s22_e6_i112_o192_se0.25_a0",
    "r1_k3_s11_e6_i192_o320_se0.25_a0",
};

struct Scaling {
  const char* suffix;
  double width;
  double depth;
  int resolution;
  double dropout;
  double se_coefficient;
};

// efficientnet_params (width, depth, resolution, dropout).
const std::vector<Scaling> kEfficientNetScalings = {
    {"b0", 1.0, 1.0, 224, 0.2, 1}, {"b1", 1.0, 1.1, 240, 0.2, 1}, {"b2", 1.1, 1.2, 260, 0.3, 1},
    {"b3", 1.2, 1.4, 300, 0.3, 1}, {"b4", 1.4, 1.8, 380, 0.4, 1}, {"b5", 1.6, 2.2, 456, 0.4, 1},
    {"b6", 1.8, 2.6, 528, 0.5, 1}, {"b7", 2.0, 3.1, 600, 0.5, 1},
};

// efficientnet_x_params (width, depth, resolution, dropout, se_coefficient).
const std::vector<Scaling> kXScalings = {
    {"b0", 1.0, 1.0, 224, 0.2, 4}, {"b1", 1.0, 1.1, 240, 0.2, 2}, {"b2", 1.1, 1.2, 260, 0.3, 1},
    {"b3", 1.2, 1.4, 300, 0.3, 1}, {"b4", 1.4, 1.8, 380, 0.4, 1}, {"b5", 1.6, 2.2, 456, 0.4, 1},
    {"b6", 1.8, 2.6, 528, 0.5, 1}, {"b7", 2.0, 3.1, 600, 0.5, 1},
};
const std::vector<Scaling> kXTpuScalings = {
    {"b0", 1.0, 1.0, 224, 0.2, 4},   {"b1", 1.05, 1.09, 229, 0.2, 2},
    {"b2", 1.13, 1.29, 244, 0.3, 1}, {"b3", 1.27, 1.62, 263, 0.3, 1},
    {"b4", 1.54, 2.38, 299, 0.4, 1}, {"b5", 1.96, 2.76, 332, 0.4, 1},
    {"b6", 2.75, 3.01, 328, 0.5, 1}, {"b7", 3.26, 3.44, 350, 0.5, 1},
};
const std::vector<Scaling> kXGpuScalings = {
    {"b0", 1.0, 1.0, 224, 0.2, 4},   {"b1", 1.05, 1.09, 229, 0.2, 2},
    {"b2", 1.13, 1.24, 237, 0.3, 1}, {"b3", 1.31, 1.63, 255, 0.3, 1},
    {"b4", 1.63, 2.4, 282, 0.4, 1},  {"b5", 1.94, 3.29, 306, 0.4, 1},
    {"b6", 2.25, 4.28, 328, 0.5, 1}, {"b7", 2.58, 5.46, 350, 0.5, 1},
};

BlockNetworkSpec MakeSpec(const std::vector<std::string>& blocks, const Scaling& s,
                          Activation activation) {
  BlockNetworkSpec spec;
  spec.blocks = ParseBlockStrings(blocks);
  spec.width = s.width;
  spec.depth = s.depth;
  spec.resolution = s.resolution;
  spec.dropout = s.dropout;
  spec.se_coefficient = s.se_coefficient;
  spec.default_activation = activation;
  return spec;
}

struct Family {
  const char* name;
  const std::vector<std::string>* blocks;
  const std::vector<Scaling>* scalings;
  Activation activation;
  const char* source;
};

const std::vector<Family>& Families() {
  static const std::vector<Family> kFamilies = {
      {"efficientnet", &kEfficientNetBlocks, &kEfficientNetScalings, Activation::kSwish,
       "Tan & Le 2019; tensorflow/tpu efficientnet_builder.py"},
      {"efficientnet-x", &kEfficientNetXBlocks, &kXScalings, Activation::kRelu,
       "X-B0 scaled with EfficientNet's tuples; tensorflow/tpu efficientnet_x_builder.py"},
      {"efficientnet-x-tpu", &kEfficientNetXBlocks, &kXTpuScalings, Activation::kRelu,
       "Li et al. 2021 LACS (TPU); efficientnet_x_builder.py"},
      {"efficientnet-x-gpu", &kEfficientNetXBlocks, &kXGpuScalings, Activation::kRelu,
       "Li et al. 2021 LACS (GPU); efficientnet_x_builder.py"},
  };
  return kFamilies;
}

void RegisterFamily(ModelRegistry& registry, const std::string& family,
                    const std::vector<std::string>& blocks, const std::vector<Scaling>& scalings,
                    Activation activation, const std::string& source) {
  for (const Scaling& s : scalings) {
    const BlockNetworkSpec spec = MakeSpec(blocks, s, activation);
    const std::string name = family + "-" + s.suffix;
    registry.Register({.name = name,
                       .family = family,
                       .description = "w=" + std::to_string(s.width).substr(0, 4) +
                                      " d=" + std::to_string(s.depth).substr(0, 4) +
                                      " r=" + std::to_string(s.resolution) + "; " + source,
                       .native_resolution = s.resolution,
                       .build = [name, spec](const BuildOptions& options) {
                         return BuildBlockNetwork(name, spec, options);
                       }});
  }
}

}  // namespace

void RegisterEfficientNets(ModelRegistry& registry) {
  for (const Family& f : Families()) {
    RegisterFamily(registry, f.name, *f.blocks, *f.scalings, f.activation, f.source);
  }
}

std::optional<BlockNetworkSpec> EfficientNetSpec(const std::string& name) {
  for (const Family& f : Families()) {
    for (const Scaling& s : *f.scalings) {
      if (name == std::string(f.name) + "-" + s.suffix) {
        return MakeSpec(*f.blocks, s, f.activation);
      }
    }
  }
  return std::nullopt;
}

}  // namespace dcnas::models::zoo
