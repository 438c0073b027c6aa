// Networks timm builds with its EfficientNet builder (timm/models/_efficientnet_builder.py,
// _efficientnet_blocks.py, efficientnet.py, mobilenetv3.py; Apache-2.0), rebuilt from the
// architecture columns of the shipped table data/benchmarks/timm-imagenet-mbconv/models.csv:
// timm's block grammar, its depth and channel rounding, its squeeze-excite variants, stems and
// heads, PyTorch or TensorFlow "same" padding, pruned widths. Every buildable row's parameter count
// equals the table's `params_exact` (tests/models/timm_test.cc). Names: "timm:<arch>".
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "models/builder.h"
#include "models/graph.h"
#include "models/op.h"

namespace dcnas::models {
class ModelRegistry;
}

namespace dcnas::models::timm {

// The shipped table and the folder of its pruned-width files, relative to the data directory.
inline constexpr const char* kTimmTableFile = "benchmarks/timm-imagenet-mbconv/models.csv";
inline constexpr const char* kTimmPrunedDir = "benchmarks/timm-imagenet-mbconv";
inline constexpr const char* kTimmPrefix = "timm:";

enum class BlockType : uint8_t {
  kDs,   // depthwise separable (dw k x k, BN, act, SE, pw 1x1, BN), residual
  kDsa,  // the same with an activation after the pw conv and no residual (MobileNetV1)
  kIr,   // inverted residual (MBConv)
  kEr,   // edge residual (Fused-MBConv)
  kCn,   // conv + BN + act
  kUir,  // MobileNetV4 universal inverted residual
  kMqa,  // MobileNetV4 mobile multi-query attention
};

// One block string of timm's grammar, e.g. "ir_r2_k3_s2_e6_c24_se0.25".
struct Block {
  BlockType type = BlockType::kIr;
  std::string text;          // as written
  int repeats = 1;           // r
  std::vector<int> kernel;   // k: several = mixed kernels over channel groups; uir: 0 = no mid dw
  int start_kernel = 0;      // a: ir/er expansion kernel (0 = 1); uir: start dw kernel (0 = none)
  int end_kernel = 0;        // p: pw kernel (0 = 1); uir: end dw kernel (0 = none)
  int stride = 1;            // s
  double exp_ratio = 1.0;    // e
  int64_t out_chs = 0;       // c
  double se_ratio = 0.0;     // se
  std::optional<bool> skip;  // noskip / skip
  std::optional<Activation> act;  // nre, nr6, nhs, nsw
  int s2d = 0;                    // d (not mqa): 1 = the network's space-to-depth starts here
  int64_t force_in_chs = 0;       // fc
  int experts = 0;                // cc (CondConv)
  int group_size = 0;             // gs
  int heads = 0;                  // mqa h
  int key_dim = 0;                // mqa d
  int kv_stride = 1;              // mqa v
};

// Parses one block string; InputError naming the string and the token otherwise.
Block ParseBlock(const std::string& text);

enum class ModelClass : uint8_t { kEfficientNet, kMobileNetV3 };
enum class SeType : uint8_t { kSqueezeExcite, kGlobalContext };
enum class SeRound : uint8_t { kRound, kRoundChannels, kMakeDivisible1 };
enum class Norm : uint8_t { kBatch, kLayer2d, kGroup, kEvoS0 };
enum class AntiAlias : uint8_t { kNone, kAvg, kBlur };

// The architecture columns of one row.
struct Arch {
  std::string arch;    // timm architecture name, e.g. "efficientnet_b0"
  std::string family;  // e.g. "EfficientNet-EdgeTPU"
  std::string where;   // "FILE:LINE" of its first row
  ModelClass model_class = ModelClass::kEfficientNet;
  std::vector<std::vector<Block>> stages;
  std::vector<double> depth_multiplier;  // one, or one per stage
  bool depth_round = false;              // depth_trunc: round (else ceil)
  bool fix_first_last = false;
  int experts_multiplier = 1;
  double channel_multiplier = 1.0;
  int channel_divisor = 8;
  double round_limit = 0.9;
  int64_t stem_size = 32;
  int stem_kernel = 3;
  bool fix_stem = false;
  int64_t num_features = 1280;  // 0: no head conv
  bool head_bias = false;
  bool head_norm = false;
  Activation act = Activation::kSwish;
  SeType se_type = SeType::kSqueezeExcite;
  bool se_from_exp = false;
  Activation se_gate = Activation::kSigmoid;
  SeRound se_round = SeRound::kRound;
  std::optional<Activation> se_force_act;
  Norm norm = Norm::kBatch;
  bool same_padding = false;  // pad_type 'same' (TensorFlow ports)
  AntiAlias aa = AntiAlias::kNone;
  double layer_scale = 0.0;       // 0: none
  std::string pruned_file;        // relative to kTimmPrunedDir; empty: not pruned
  std::vector<int> stage_depths;  // the table's blocks per stage after depth scaling
  int64_t params_exact = 0;
  int native_resolution = 224;  // the smallest evaluation size of its rows
};

// One evaluation (a row): the architecture and its published figures.
struct Row {
  std::string model;  // timm tag, arch.tag
  std::string arch;
  std::string family;
  std::string where;
  int img_size = 224;
  double top1 = 0.0;
  double top5 = 0.0;
  double param_count_m = 0.0;
  std::string pretrain;  // in1k, in1k-ap, jft300m-ns, in21k, in12k
  bool extra_data = false;
};

struct Table {
  std::vector<Row> rows;
  std::map<std::string, Arch> archs;  // by arch name
  std::string directory;              // where pruned files are read from
};

// Reads the table (models.csv format, data/benchmarks/timm-imagenet-mbconv/README.md). InputError
// naming the file, line and column for a malformed field, a block string outside the grammar, an
// architecture whose rows disagree, or a scaled depth that differs from `stage_depths`.
Table ReadTable(const std::string& path);

// The shipped table, read once.
const Table& ShippedTable();

// Why an architecture cannot be built as a layer graph (empty when it can).
std::string Unsupported(const Arch& arch);

// Builds the network. `pruned` holds the pruned file's shapes (module name -> weight shape) when
// arch.pruned_file is set. InputError when Unsupported(arch) is not empty or a rule cannot be
// honoured.
Graph Build(const Arch& arch, const BuildOptions& options,
            const std::map<std::string, std::vector<int64_t>>& pruned = {});
// The pruned file's weight shapes ("name:[d0, d1, ...]" joined by "***").
std::map<std::string, std::vector<int64_t>> ReadPrunedShapes(const std::string& path);

// Registers "timm:<arch>" for every architecture of the shipped table (read on first use).
void RegisterTimm(ModelRegistry& registry);

}  // namespace dcnas::models::timm
