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
  // c1: MBConv without depthwise (3x3 expand, 1x1 project); c2: a plain k x k conv + BN, no
  // activation and no shortcut (a strided projection, e.g. NAS-Bench-Macro's "identity" on a
  // stage's first layer); c3: a ResNet basic block (k x k conv to the hidden width, BN, act,
  // k x k conv, BN, shortcut, act); c4: a ResNet bottleneck (1x1 to the hidden width, k x k
  // strided, 1x1 out, BN after each, shortcut, act).
  int conv_type = 0;
  // h: the hidden width (MBConv's expanded width, a basic block's first conv, a bottleneck's
  // middle); 0: input x e for MBConv, output x e for c3 / c4.
  int64_t hidden_filters = 0;
  // p1: where the input and output shapes differ, the shortcut is a 1x1 conv + BN (strided) instead
  // of none.
  bool projection = false;
  bool id_skip = true;  // noskip disables the identity shortcut

  bool operator==(const BlockArgs&) const = default;
};

// Parses one block string; throws InputError naming the token on malformed input.
BlockArgs ParseBlockString(const std::string& text);
// Encodes block args back to the canonical string (parse(encode(a)) == a).
std::string EncodeBlockString(const BlockArgs& args);
// The same for a list (one block per stage): block strings are for files and messages; networks
// travel as parsed args.
std::vector<BlockArgs> ParseBlockStrings(const std::vector<std::string>& texts);
std::vector<std::string> EncodeBlockStrings(const std::vector<BlockArgs>& blocks);

// A whole EfficientNet-style network.
struct BlockNetworkSpec {
  std::vector<BlockArgs> blocks;  // one per stage
  double width = 1.0;
  double depth = 1.0;
  int resolution = 224;
  double dropout = 0.2;
  double se_coefficient = 1.0;  // multiplies every block's se ratio (EfficientNet-X)
  Activation default_activation = Activation::kSwish;
  int64_t stem_filters = 32;
  int stem_stride = 2;          // 1: CIFAR-style stems (NAS-Bench-Macro)
  int64_t head_filters = 1280;  // 0: no 1x1 head conv (ResNet: pool and classify)
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

// The hidden width of a block (BlockArgs::hidden_filters, or its default).
int64_t HiddenFilters(const BlockArgs& args);

// Appends one MBConv / Fused-MBConv block (with its space-to-depth conv, SE and skip as the args
// say) to `b` and returns the output id. Exposed for tests and for search-space decoding.
int AppendMBConvBlock(GraphBuilder& b, int x, const BlockArgs& args, double se_coefficient,
                      Activation default_activation);

// A block network laid out for building: the stem and head widths scaled and rounded, and every
// block as AppendMBConvBlock gets it (filters scaled and rounded, repeats unrolled, the
// space-to-depth layout resolved). Each piece (the stem, one block, the head) appends ops that
// depend only on its own fields and its input tensor, so a piece built once need not be built
// again to be costed (sim/block_cost_cache.h).
struct BlockNetworkLayout {
  BuildOptions options;  // resolution resolved (never 0)
  int64_t stem_filters = 0;
  int stem_stride = 2;
  int64_t head_filters = 0;
  Activation default_activation = Activation::kSwish;
  double se_coefficient = 1.0;
  double dropout = 0.0;
  struct Block {
    BlockArgs args;
    int stage = 0;  // 1-based: the spec's block (stage) it repeats
  };
  std::vector<Block> blocks;
  int stages = 0;  // the spec's blocks; the head's stage is stages + 1
};

// Lays out `spec` for `options` into `out` (reusing its storage). options.resolution overrides
// spec.resolution when non-zero; options.width_scale multiplies the width coefficient. Throws
// InputError for bad options, widths, depths or block args.
void LayoutBlockNetwork(const BlockNetworkSpec& spec, const BuildOptions& options,
                        BlockNetworkLayout& out);
BlockNetworkLayout LayoutBlockNetwork(const BlockNetworkSpec& spec, const BuildOptions& options);

// The pieces of a laid-out network, each in its scope ("stem", "blocks.N", "head"): the input and
// stem convolution (returns its output id), block `index`, and the head (pool, dropout,
// classifier).
int AppendStem(GraphBuilder& b, const BlockNetworkLayout& layout);
int AppendBlock(GraphBuilder& b, int x, const BlockNetworkLayout& layout, size_t index);
int AppendHead(GraphBuilder& b, int x, const BlockNetworkLayout& layout);

// Builds the full network (stem, blocks, head).
Graph BuildBlockNetwork(const std::string& model, const BlockNetworkLayout& layout);
// LayoutBlockNetwork, then the network.
Graph BuildBlockNetwork(const std::string& model, const BlockNetworkSpec& spec,
                        const BuildOptions& options);

}  // namespace dcnas::models
