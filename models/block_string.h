// EfficientNet-style block strings ("r1_k3_s11_e1_i32_o16_se0.25_d1_a0") and the networks built
// from them with (width, depth, resolution) scaling, following the reference TensorFlow code
// (tensorflow/tpu models/official/efficientnet: efficientnet_builder.py, efficientnet_model.py,
// tpu/efficientnet_x_builder.py) including its rounding and space-to-depth handling.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "models/builder.h"
#include "models/graph.h"

namespace dcnas::models {

struct BlockArgs {
  int num_repeat = 1;                    // r
  int kernel = 3;                        // k
  int stride = 1;                        // s (both digits must be equal)
  double expand_ratio = 1.0;             // e
  int64_t input_filters = 0;             // i
  int64_t output_filters = 0;            // o
  std::optional<double> se_ratio;        // se
  bool fused = false;                    // f1: k x k conv replaces expand + depthwise
  int space2depth = 0;                   // d: 0 none, 1 block starts with a learned s2d conv, 2 s2d
  std::optional<Activation> activation;  // a0 relu, a1 swish; none: the network's default
  int conv_type = 0;                     // c1: MBConv without depthwise (3x3 expand, 1x1 project)
  bool id_skip = true;                   // noskip disables the identity shortcut

  bool operator==(const BlockArgs&) const = default;
};

// Parses one block string; throws InputError naming the token on malformed input.
BlockArgs ParseBlockString(const std::string& text);
// Encodes block args back to the canonical string (parse(encode(a)) == a).
std::string EncodeBlockString(const BlockArgs& args);

// A whole EfficientNet-style network.
struct BlockNetworkSpec {
  std::vector<std::string> blocks;
  double width = 1.0;
  double depth = 1.0;
  int resolution = 224;
  double dropout = 0.2;
  double se_coefficient = 1.0;  // multiplies every block's se ratio (EfficientNet-X)
  Activation default_activation = Activation::kSwish;
  int64_t stem_filters = 32;
  int64_t head_filters = 1280;
  int depth_divisor = 8;
};

// Limits of a block string (ParseBlockString refuses values beyond them) and of a scaled stage.
inline constexpr int kMaxBlockRepeats = 1000;
inline constexpr int kMaxBlockKernel = 31;
inline constexpr double kMaxBlockExpansion = 64.0;
inline constexpr int kMaxBlockFilters = 100000;
inline constexpr int kMaxStageRepeats = 10000;
inline constexpr int kMaxScaledFilters = 1000000;

// round_filters of the reference code: scale by width, round to the divisor, never below 90%;
// InputError for a width that is not finite and positive or gives more than kMaxScaledFilters.
int64_t RoundFilters(int64_t filters, double width, int divisor = 8);
// round_repeats: ceil(depth * repeats); InputError for a depth that is not finite and positive or
// gives more than kMaxStageRepeats.
int RoundRepeats(int repeats, double depth);

// Appends one MBConv / Fused-MBConv block (with its space-to-depth conv, SE and skip as the args
// say) to `b` and returns the output id. Exposed for tests and for search-space decoding.
int AppendMBConvBlock(GraphBuilder& b, int x, const BlockArgs& args, double se_coefficient,
                      Activation default_activation);

// Builds the full network (stem, blocks, head). options.resolution overrides spec.resolution
// when non-zero; options.width_scale multiplies the width coefficient.
Graph BuildBlockNetwork(const std::string& model, const BlockNetworkSpec& spec,
                        const BuildOptions& options);

}  // namespace dcnas::models
