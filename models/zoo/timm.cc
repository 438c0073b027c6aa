#include "models/zoo/timm.h"

#include <cmath>
#include <set>
#include <sstream>

#include "common/csv_file.h"
#include "common/data_dir.h"
#include "common/errors.h"
#include "common/file_io.h"
#include "common/table.h"
#include "common/text.h"
#include "models/blocks.h"
#include "models/registry.h"

namespace dcnas::models::timm {
namespace {

// ---------------------------------------------------------------------------------------------
// Block strings.

bool IsDigits(const std::string& s) {
  return !s.empty() && s.find_first_not_of("0123456789") == std::string::npos;
}

int ParseInt(const std::string& value, const std::string& text, const std::string& token, int lo,
             int hi) {
  if (!IsDigits(value) || value.size() > 9) {
    throw InputError("block string '" + text + "': token '" + token + "': not a whole number");
  }
  const int v = std::stoi(value);
  if (v < lo || v > hi) {
    throw InputError("block string '" + text + "': token '" + token + "': " + value + " not in [" +
                     std::to_string(lo) + ", " + std::to_string(hi) + "]");
  }
  return v;
}

double ParseRatio(const std::string& value, const std::string& text, const std::string& token,
                  double hi) {
  double v = 0.0;
  size_t used = 0;
  try {
    v = std::stod(value, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used != value.size() || value.empty() || !(v >= 0.0 && v <= hi)) {
    throw InputError("block string '" + text + "': token '" + token + "': not a number in [0, " +
                     FormatShortest(hi) + "]");
  }
  return v;
}

std::vector<int> ParseKernels(const std::string& value, const std::string& text,
                              const std::string& token) {
  std::vector<int> ks;
  for (const std::string& part : Split(value, '.'))
    ks.push_back(ParseInt(part, text, token, 0, 31));
  return ks;
}

const std::map<std::string, BlockType>& BlockTypes() {
  static const std::map<std::string, BlockType> kTypes = {
      {"ds", BlockType::kDs},  {"dsa", BlockType::kDsa}, {"ir", BlockType::kIr},
      {"er", BlockType::kEr},  {"cn", BlockType::kCn},   {"uir", BlockType::kUir},
      {"mqa", BlockType::kMqa}};
  return kTypes;
}

// The option keys each block type reads (timm's _decode_block_str).
const std::set<std::string>& KeysOf(BlockType type) {
  static const std::set<std::string> kIr = {"r", "k", "s", "e",  "c", "se",
                                            "a", "p", "d", "cc", "gs"};
  static const std::set<std::string> kDs = {"r", "k", "s", "e", "c", "se", "p", "d", "gs"};
  static const std::set<std::string> kEr = {"r", "k", "s", "e", "c", "se", "p", "fc", "gs"};
  static const std::set<std::string> kCn = {"r", "k", "s", "e", "c", "gs"};
  static const std::set<std::string> kUir = {"r", "k", "s", "e", "c", "se", "a", "p", "gs"};
  static const std::set<std::string> kMqa = {"r", "k", "s", "c", "h", "v", "d", "gs"};
  switch (type) {
    case BlockType::kIr:
      return kIr;
    case BlockType::kDs:
    case BlockType::kDsa:
      return kDs;
    case BlockType::kEr:
      return kEr;
    case BlockType::kCn:
      return kCn;
    case BlockType::kUir:
      return kUir;
    case BlockType::kMqa:
      return kMqa;
  }
  throw InternalError("block type");
}

// ---------------------------------------------------------------------------------------------
// timm's rounding (timm/layers/helpers.py make_divisible; _efficientnet_builder.py round_channels,
// _scale_stage_depth). Python's round() rounds halves to even, as std::nearbyint does.

int64_t MakeDivisible(double v, int divisor = 8, double round_limit = 0.9) {
  const int64_t min_value = divisor;
  int64_t new_v =
      std::max<int64_t>(min_value, static_cast<int64_t>(v + divisor / 2.0) / divisor * divisor);
  if (static_cast<double>(new_v) < round_limit * v) new_v += divisor;
  return new_v;
}

int64_t PyRound(double v) { return static_cast<int64_t>(std::nearbyint(v)); }
// int(v + 0.5) of a positive v: make_divisible with divisor 1 and no round limit.
int64_t RoundHalfUp(double v) { return static_cast<int64_t>(std::floor(v + 0.5)); }

std::vector<int> ScaleStageDepth(const std::vector<int>& repeats, double multiplier, bool round) {
  int num_repeat = 0;
  for (int r : repeats) num_repeat += r;
  const double scaled = num_repeat * multiplier;
  int num_scaled = round ? static_cast<int>(std::max<int64_t>(1, PyRound(scaled)))
                         : static_cast<int>(std::ceil(scaled));
  std::vector<int> out(repeats.size());
  for (size_t i = repeats.size(); i-- > 0;) {
    const int r = repeats[i];
    const int rs = static_cast<int>(
        std::max<int64_t>(1, PyRound(static_cast<double>(r) / num_repeat * num_scaled)));
    out[i] = rs;
    num_repeat -= r;
    num_scaled -= rs;
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// The table.

std::optional<Activation> ParseActivationName(const std::string& text) {
  const std::string name = text.substr(0, text.find(' '));
  if (name == "relu") return Activation::kRelu;
  if (name == "relu6") return Activation::kRelu6;
  if (name == "swish" || name == "silu") return Activation::kSwish;
  if (name == "hard_swish") return Activation::kHardSwish;
  if (name == "gelu") return Activation::kGelu;
  if (name == "sigmoid") return Activation::kSigmoid;
  if (name == "hard_sigmoid") return Activation::kHardSigmoid;
  return std::nullopt;
}

struct Fields {
  const CsvFile& csv;
  const CsvFile::Row& row;

  const std::string& Get(const std::string& column) const { return csv.Field(row, column); }
  [[noreturn]] void Fail(const std::string& column, const std::string& why) const {
    throw InputError(row.where + ": column '" + column + "': " + why);
  }
  double Number(const std::string& column, double lo, double hi) const {
    const double v = ParseNumberField(Get(column), row.where, column);
    if (!(v >= lo && v <= hi)) {
      Fail(column,
           "'" + Get(column) + "' not in [" + FormatShortest(lo) + ", " + FormatShortest(hi) + "]");
    }
    return v;
  }
  int64_t Whole(const std::string& column, int64_t lo, int64_t hi) const {
    const double v = Number(column, static_cast<double>(lo), static_cast<double>(hi));
    if (v != std::floor(v)) Fail(column, "'" + Get(column) + "' is not a whole number");
    return static_cast<int64_t>(v);
  }
  bool Bool(const std::string& column, bool empty_value) const {
    const std::string& v = Get(column);
    if (v.empty()) return empty_value;
    if (v == "True") return true;
    if (v == "False") return false;
    Fail(column, "'" + v + "' is not True, False or empty");
  }
  Activation Act(const std::string& column) const {
    const auto a = ParseActivationName(Get(column));
    if (!a) Fail(column, "'" + Get(column) + "' is not an activation of the layer graph");
    return *a;
  }
};

// The architecture columns, joined: rows of one arch must agree on them.
const std::vector<std::string>& ArchColumns() {
  static const std::vector<std::string> kColumns = {"family",
                                                    "model_class",
                                                    "arch_def",
                                                    "depth_multiplier",
                                                    "depth_trunc",
                                                    "fix_first_last",
                                                    "experts_multiplier",
                                                    "group_size",
                                                    "channel_multiplier",
                                                    "channel_divisor",
                                                    "round_limit",
                                                    "stem_size",
                                                    "stem_kernel_size",
                                                    "fix_stem",
                                                    "num_features",
                                                    "head_bias",
                                                    "head_norm",
                                                    "act_layer",
                                                    "se_type",
                                                    "se_from_exp",
                                                    "se_gate",
                                                    "se_rd_round",
                                                    "se_force_act",
                                                    "norm_type",
                                                    "pad_type",
                                                    "aa_layer",
                                                    "layer_scale_init_value",
                                                    "pruned_file",
                                                    "params_exact",
                                                    "stage_depths"};
  return kColumns;
}

Arch ParseArch(const Fields& f) {
  Arch a;
  a.arch = f.Get("arch");
  a.family = f.Get("family");
  a.where = f.row.where;
  const std::string& mc = f.Get("model_class");
  if (mc == "EfficientNet") {
    a.model_class = ModelClass::kEfficientNet;
  } else if (mc == "MobileNetV3") {
    a.model_class = ModelClass::kMobileNetV3;
  } else {
    f.Fail("model_class", "'" + mc + "' is not EfficientNet or MobileNetV3");
  }
  for (const std::string& stage : Split(f.Get("arch_def"), '|')) {
    std::vector<Block> blocks;
    for (const std::string& text : Split(stage, ';')) {
      try {
        blocks.push_back(ParseBlock(text));
      } catch (const InputError& e) {
        f.Fail("arch_def", e.what());
      }
    }
    a.stages.push_back(std::move(blocks));
  }
  for (const std::string& m : Split(f.Get("depth_multiplier"), '|')) {
    const double v = ParseNumberField(m, f.row.where, "depth_multiplier");
    if (!(v > 0.0 && v <= 100.0)) f.Fail("depth_multiplier", "'" + m + "' not in (0, 100]");
    a.depth_multiplier.push_back(v);
  }
  if (a.depth_multiplier.size() != 1 && a.depth_multiplier.size() != a.stages.size()) {
    f.Fail("depth_multiplier",
           "one value or one per stage (" + std::to_string(a.stages.size()) + ")");
  }
  const std::string& trunc = f.Get("depth_trunc");
  if (trunc != "ceil" && trunc != "round")
    f.Fail("depth_trunc", "'" + trunc + "' is not ceil or round");
  a.depth_round = trunc == "round";
  a.fix_first_last = f.Bool("fix_first_last", false);
  a.experts_multiplier = static_cast<int>(f.Whole("experts_multiplier", 1, 64));
  if (!f.Get("group_size").empty()) {
    const int gs = static_cast<int>(f.Whole("group_size", 1, 4096));
    for (auto& stage : a.stages) {
      for (Block& b : stage) {
        if (b.group_size == 0) b.group_size = gs;
      }
    }
  }
  a.channel_multiplier = f.Number("channel_multiplier", 0.01, 100.0);
  a.channel_divisor = static_cast<int>(f.Whole("channel_divisor", 1, 256));
  a.round_limit = f.Number("round_limit", 0.0, 1.0);
  a.stem_size = f.Whole("stem_size", 1, 100000);
  a.stem_kernel = static_cast<int>(f.Whole("stem_kernel_size", 1, 31));
  a.fix_stem = f.Bool("fix_stem", false);
  a.num_features = f.Whole("num_features", 0, 1000000);
  a.head_bias = f.Bool("head_bias", false);
  a.head_norm = f.Bool("head_norm", false);
  a.act = f.Act("act_layer");
  const std::string& se = f.Get("se_type");
  if (se == "SqueezeExcite") {
    a.se_type = SeType::kSqueezeExcite;
  } else if (se == "GlobalContext") {
    a.se_type = SeType::kGlobalContext;
  } else {
    f.Fail("se_type", "'" + se + "' is not SqueezeExcite or GlobalContext");
  }
  a.se_from_exp = f.Bool("se_from_exp", true);
  a.se_gate = f.Act("se_gate");
  const std::string& rd = f.Get("se_rd_round");
  if (rd == "round") {
    a.se_round = SeRound::kRound;
  } else if (rd.starts_with("round_channels(")) {
    a.se_round = SeRound::kRoundChannels;
  } else if (rd == "make_divisible(divisor=1, round_limit=0)") {
    a.se_round = SeRound::kMakeDivisible1;
  } else {
    f.Fail("se_rd_round",
           "'" + rd +
               "' is not round, round_channels(...) or make_divisible(divisor=1, round_limit=0)");
  }
  if (!f.Get("se_force_act").empty()) a.se_force_act = f.Act("se_force_act");
  const std::string& norm = f.Get("norm_type");
  if (norm == "batchnorm") {
    a.norm = Norm::kBatch;
  } else if (norm == "layernorm2d") {
    a.norm = Norm::kLayer2d;
  } else if (norm == "groupnorm") {
    a.norm = Norm::kGroup;
  } else if (norm == "evonorm_s0") {
    a.norm = Norm::kEvoS0;
  } else {
    f.Fail("norm_type", "'" + norm + "' is not batchnorm, layernorm2d, groupnorm or evonorm_s0");
  }
  const std::string& pad = f.Get("pad_type");
  if (pad != "" && pad != "same") f.Fail("pad_type", "'" + pad + "' is not empty or same");
  a.same_padding = pad == "same";
  const std::string& aa = f.Get("aa_layer");
  if (aa.empty()) {
    a.aa = AntiAlias::kNone;
  } else if (aa == "avg") {
    a.aa = AntiAlias::kAvg;
  } else if (aa == "blurpc" || aa == "blur") {
    a.aa = AntiAlias::kBlur;
  } else {
    f.Fail("aa_layer", "'" + aa + "' is not empty, avg, blur or blurpc");
  }
  if (!f.Get("layer_scale_init_value").empty()) {
    a.layer_scale = f.Number("layer_scale_init_value", 1e-12, 10.0);
  }
  a.pruned_file = f.Get("pruned_file");
  if (a.pruned_file.find("..") != std::string::npos || a.pruned_file.starts_with("/")) {
    f.Fail("pruned_file", "'" + a.pruned_file + "' must be a path inside the table's folder");
  }
  for (const std::string& d : Split(f.Get("stage_depths"), '|')) {
    if (!IsDigits(d) || d.size() > 5) f.Fail("stage_depths", "'" + d + "' is not a whole number");
    a.stage_depths.push_back(std::stoi(d));
  }
  if (a.stage_depths.size() != a.stages.size()) {
    f.Fail("stage_depths", std::to_string(a.stage_depths.size()) + " stages, arch_def has " +
                               std::to_string(a.stages.size()));
  }
  a.params_exact = f.Whole("params_exact", 1, 100000000000LL);
  a.native_resolution = static_cast<int>(f.Whole("img_size", 16, 4096));
  return a;
}

// ---------------------------------------------------------------------------------------------
// Building.

// One block of a laid-out network: the block string's args after timm's builder (stride of later
// repeats 1, the space-to-depth region resolved), with its position.
struct LaidBlock {
  Block args;
  int stage = 0;  // 0-based stage
  int index = 0;  // index within the stage
  int s2d = 0;
};

std::vector<LaidBlock> LayOut(const Arch& arch) {
  std::vector<LaidBlock> out;
  int space2depth = 0;
  for (size_t s = 0; s < arch.stages.size(); ++s) {
    const double m = arch.fix_first_last && (s == 0 || s + 1 == arch.stages.size())
                         ? 1.0
                         : arch.depth_multiplier[arch.depth_multiplier.size() == 1 ? 0 : s];
    std::vector<int> repeats;
    for (const Block& b : arch.stages[s]) repeats.push_back(b.repeats);
    const std::vector<int> scaled = ScaleStageDepth(repeats, m, arch.depth_round);
    int total = 0;
    for (int r : scaled) total += r;
    if (total != arch.stage_depths[s]) {
      throw InputError(arch.where + ": column 'stage_depths': stage " + std::to_string(s + 1) +
                       " scales to " + std::to_string(total) + " blocks, the table says " +
                       std::to_string(arch.stage_depths[s]));
    }
    int index = 0;
    for (size_t j = 0; j < arch.stages[s].size(); ++j) {
      for (int r = 0; r < scaled[j]; ++r, ++index) {
        LaidBlock lb{arch.stages[s][j], static_cast<int>(s), index, 0};
        if (lb.args.stride != 1 && lb.args.stride != 2) {
          throw InputError(arch.where + ": block '" + lb.args.text + "': stride must be 1 or 2");
        }
        if (index >= 1) lb.args.stride = 1;
        if (space2depth == 0 && lb.args.s2d > 0) {
          if (lb.args.stride != 1) {
            throw InputError(arch.where + ": block '" + lb.args.text +
                             "': space-to-depth (d1) needs stride 1");
          }
          space2depth = 1;
        }
        if (space2depth > 0) {
          if (space2depth == 2 && lb.args.stride == 2) {
            lb.args.stride = 1;
            lb.args.exp_ratio /= 4;
            space2depth = 0;
          } else {
            lb.s2d = space2depth;
          }
        }
        out.push_back(lb);
        if (space2depth == 1) space2depth = 2;
      }
    }
  }
  return out;
}

class NetBuilder {
 public:
  NetBuilder(const Arch& arch, const BuildOptions& options,
             const std::map<std::string, std::vector<int64_t>>& pruned)
      : arch_(arch), options_(options), pruned_(pruned), b_("timm:" + arch.arch, options) {}

  Graph Build() {
    const double multiplier = arch_.channel_multiplier * options_.width_scale;
    // Stem.
    b_.SetScope("stem", 0);
    int x = b_.Input(options_.resolution, options_.resolution, options_.in_channels);
    int64_t stem = arch_.fix_stem ? arch_.stem_size : RoundChs(arch_.stem_size, multiplier);
    stem = Width("conv_stem", stem);
    x = b_.Conv(x, stem, arch_.stem_kernel, ConvOpts(arch_.stem_kernel, 2, 1));
    x = NormAct(x, arch_.act);
    // Blocks.
    const std::vector<LaidBlock> blocks = LayOut(arch_);
    for (size_t i = 0; i < blocks.size(); ++i) {
      b_.SetScope("blocks." + std::to_string(i), blocks[i].stage + 1);
      prefix_ =
          "blocks." + std::to_string(blocks[i].stage) + "." + std::to_string(blocks[i].index) + ".";
      x = AppendBlock(x, blocks[i], multiplier);
    }
    // Head.
    b_.SetScope("head", static_cast<int>(arch_.stages.size()) + 1);
    prefix_.clear();
    int64_t features = arch_.num_features;
    if (options_.width_scale != 1.0 && features > 0) {
      features = MakeDivisible(static_cast<double>(features) * options_.width_scale,
                               arch_.channel_divisor, arch_.round_limit);
    }
    features = features > 0 ? Width("conv_head", features) : 0;
    if (arch_.model_class == ModelClass::kEfficientNet) {
      if (features > 0) {
        x = b_.Conv(x, features, 1, ConvOpts(1, 1, 1));
        x = NormAct(x, arch_.act);
      }
      x = b_.GlobalPool(x, PoolMode::kAvg);
    } else {
      x = b_.GlobalPool(x, PoolMode::kAvg);
      GraphBuilder::ConvOptions o = ConvOpts(1, 1, 1);
      o.bias = arch_.head_norm ? false : arch_.head_bias;
      x = b_.Conv(x, features, 1, o);
      x = arch_.head_norm ? NormAct(x, arch_.act) : b_.Act(x, arch_.act);
    }
    x = b_.Dropout(x, 0.2);
    b_.FullyConnected(x, options_.num_classes, true);
    return b_.Finish();
  }

 private:
  int64_t RoundChs(int64_t chs, double multiplier) const {
    return MakeDivisible(static_cast<double>(chs) * multiplier, arch_.channel_divisor,
                         arch_.round_limit);
  }

  // The pruned width of module `name` (its weight's first dimension), else `fallback`.
  int64_t Width(const std::string& name, int64_t fallback) const {
    const auto it = pruned_.find(prefix_ + name + ".weight");
    if (it == pruned_.end() || it->second.empty()) return fallback;
    if (options_.width_scale == 1.0) return it->second[0];
    return MakeDivisible(static_cast<double>(it->second[0]) * options_.width_scale,
                         arch_.channel_divisor, arch_.round_limit);
  }

  GraphBuilder::ConvOptions ConvOpts(int kernel, int stride, int groups) const {
    GraphBuilder::ConvOptions o;
    o.stride = stride;
    o.groups = groups;
    // timm pads a 2x2 kernel (the space-to-depth convs) 'same' whatever the network's pad type.
    o.padding = arch_.same_padding || kernel == 2
                    ? Padding::Same()
                    : Padding::Symmetric(((stride - 1) + (kernel - 1)) / 2);
    return o;
  }

  int Norm(int x) {
    switch (arch_.norm) {
      case timm::Norm::kBatch:
        return b_.BatchNorm(x);
      case timm::Norm::kLayer2d:
        return b_.LayerNorm(x, true);
      case timm::Norm::kGroup:
      case timm::Norm::kEvoS0:
        break;
    }
    throw InternalError("timm: unsupported norm reached the builder");
  }
  int NormAct(int x, std::optional<Activation> act) {
    x = Norm(x);
    return act ? b_.Act(x, *act) : x;
  }

  // The parameter-free downsampling after an anti-aliased strided conv: avg 2x2, or the blur
  // filter costed as a 3x3 average.
  int AntiAliasPool(int x) {
    return arch_.aa == AntiAlias::kAvg ? b_.Pool(x, PoolMode::kAvg, 2, 2, Padding::Symmetric(0))
                                       : b_.Pool(x, PoolMode::kAvg, 3, 2, Padding::Symmetric(1));
  }

  // A strided convolution (+ norm, + act) as timm writes it: with anti-aliasing, the conv runs at
  // stride 1 and a parameter-free pool downsamples after the activation.
  int ConvNormAct(int x, int64_t out, int kernel, int stride, int groups,
                  std::optional<Activation> act, bool allow_aa = true) {
    const bool aa = allow_aa && arch_.aa != AntiAlias::kNone && stride > 1;
    x = b_.Conv(x, out, kernel, ConvOpts(kernel, aa ? 1 : stride, groups));
    x = NormAct(x, act);
    return aa ? AntiAliasPool(x) : x;
  }

  // Depthwise with one or several kernels (mixed: channel groups, the first taking the rest).
  int Depthwise(int x, const std::vector<int>& kernels, int stride, std::optional<Activation> act,
                const std::string& text, int group_size = 1) {
    const int64_t c = b_.channels(x);
    auto groups_of = [&](int64_t chs) {
      if (group_size <= 0) return int64_t{1};
      if (chs % group_size != 0) {
        throw InputError("timm:" + arch_.arch + ": block '" + text + "': " + std::to_string(chs) +
                         " channels not divisible by group size " + std::to_string(group_size));
      }
      return chs / group_size;
    };
    if (kernels.size() == 1) {
      return ConvNormAct(x, c, kernels[0], stride, static_cast<int>(groups_of(c)), act);
    }
    const auto n = static_cast<int64_t>(kernels.size());
    std::vector<int64_t> split(kernels.size(), c / n);
    split[0] += c - (c / n) * n;
    std::vector<int> parts;
    int64_t offset = 0;
    const Shape in = b_.type(x).shape;
    const bool aa = arch_.aa != AntiAlias::kNone && stride > 1;
    for (size_t i = 0; i < kernels.size(); ++i) {
      const int s = b_.Slice(x, Shape{in.n, in.h, in.w, split[i]}, {0, 0, 0, offset}, {1, 1, 1, 1});
      parts.push_back(
          b_.Conv(s, split[i], kernels[i],
                  ConvOpts(kernels[i], aa ? 1 : stride, static_cast<int>(groups_of(split[i])))));
      offset += split[i];
    }
    x = b_.Concat(parts);
    x = NormAct(x, act);
    return aa ? AntiAliasPool(x) : x;
  }

  int Se(int x, double ratio, Activation block_act) {
    const int64_t chs = b_.channels(x);
    const double v = static_cast<double>(chs) * ratio;
    if (arch_.se_type == SeType::kGlobalContext) {
      const int64_t rd = Width("se.fc1", std::max<int64_t>(1, RoundHalfUp(v)));
      return GlobalContext(x, rd, block_act);
    }
    int64_t rd = 0;
    switch (arch_.se_round) {
      case SeRound::kRound:
        rd = PyRound(v);
        break;
      case SeRound::kRoundChannels:
        rd = MakeDivisible(v, 8, 0.9);
        break;
      case SeRound::kMakeDivisible1:
        rd = std::max<int64_t>(1, RoundHalfUp(v));
        break;
    }
    rd = Width("se.conv_reduce", rd);
    if (rd < 1) rd = 1;
    return SqueezeExcite(b_, x, rd, arch_.se_force_act.value_or(block_act), arch_.se_gate);
  }

  // timm's GlobalContext (fuse_scale): softmax attention pooling by a 1-channel conv, a 1x1 conv
  // MLP with a LayerNorm2d, a sigmoid gate on x.
  int GlobalContext(int x, int64_t rd, Activation act) {
    const Shape s = b_.type(x).shape;
    int attn = b_.Conv(x, 1, 1, GraphBuilder::ConvOptions{1, 1, 1, true, Padding::Symmetric(0)});
    attn = b_.Reshape4(attn, Shape{s.n, 1, 1, s.h * s.w});
    attn = b_.Softmax(attn);
    const int flat = b_.Reshape4(x, Shape{s.n, 1, s.h * s.w, s.c});
    int ctx = b_.MatMul(attn, flat);
    ctx = b_.Conv(ctx, rd, 1, GraphBuilder::ConvOptions{1, 1, 1, true, Padding::Symmetric(0)});
    ctx = b_.LayerNorm(ctx, true);
    ctx = b_.Act(ctx, act);
    ctx = b_.Conv(ctx, s.c, 1, GraphBuilder::ConvOptions{1, 1, 1, true, Padding::Symmetric(0)});
    ctx = b_.Act(ctx, arch_.se_gate);
    return b_.Mul(x, ctx);
  }

  int LayerScale(int x) {
    if (arch_.layer_scale <= 0.0) return x;
    const int gamma = b_.Constant(Shape{1, 1, 1, b_.channels(x)}, true);
    return b_.Mul(x, gamma);
  }

  std::string Where(const Block& blk) const {
    return "timm:" + arch_.arch + ": block '" + blk.text + "'";
  }

  int AppendBlock(int x, const LaidBlock& lb, double multiplier) {
    Block blk = lb.args;
    const int64_t in = b_.channels(x);
    int64_t out = RoundChs(blk.out_chs, multiplier);
    if (lb.s2d > 0) out *= 4;
    const Activation act = blk.act.value_or(arch_.act);
    // The SE ratio as the builder passes it: relative to the block's input width unless
    // se_from_exp, a quarter on the block that starts the space-to-depth region.
    double se_ratio = blk.se_ratio;
    if (blk.type != BlockType::kCn && se_ratio > 0.0) {
      if (!arch_.se_from_exp) se_ratio /= blk.exp_ratio;
      if (lb.s2d == 1) se_ratio /= 4;
    }
    const int shortcut = x;
    switch (blk.type) {
      case BlockType::kDs:
      case BlockType::kDsa: {
        const bool pw_act = blk.type == BlockType::kDsa;
        const bool noskip = pw_act || blk.skip == std::optional<bool>(false);
        std::vector<int> k = blk.kernel;
        if (lb.s2d == 1) {
          // The learned space-to-depth: a 2x2 stride-2 conv to 4x the channels, BN, act; the
          // depthwise kernel shrinks to (k + 1) / 2.
          x = b_.Conv(x, Width("conv_s2d", in * 4), 2, ConvOpts(2, 2, 1));
          x = NormAct(x, act);
          for (int& kk : k) kk = (kk + 1) / 2;
        }
        x = Depthwise(x, k, blk.stride, act, blk.text, blk.group_size == 0 ? 1 : blk.group_size);
        if (se_ratio > 0.0) x = Se(x, se_ratio, act);
        const int pk = blk.end_kernel > 0 ? blk.end_kernel : 1;
        x = b_.Conv(x, Width("conv_pw", out), pk, ConvOpts(pk, 1, 1));
        x = NormAct(x, pw_act ? std::optional<Activation>(act) : std::nullopt);
        if (!noskip && blk.stride == 1 && lb.s2d != 1 && in == b_.channels(x))
          x = b_.Add(x, shortcut);
        return x;
      }
      case BlockType::kIr: {
        if (blk.experts > 0) throw InternalError("CondConv reached the builder");
        const int64_t mid =
            Width("conv_pw", MakeDivisible(static_cast<double>(in) * blk.exp_ratio));
        const int ek = blk.start_kernel > 0 ? blk.start_kernel : 1;
        x = b_.Conv(x, mid, ek, ConvOpts(ek, 1, 1));
        x = NormAct(x, act);
        if (const int64_t dw = Width("conv_dw", mid); dw != mid) {
          throw InputError(Where(blk) + ": pruned conv_dw width " + std::to_string(dw) +
                           " differs from conv_pw's " + std::to_string(mid));
        }
        x = Depthwise(x, blk.kernel, blk.stride, act, blk.text,
                      blk.group_size == 0 ? 1 : blk.group_size);
        if (se_ratio > 0.0) x = Se(x, se_ratio, act);
        const int pk = blk.end_kernel > 0 ? blk.end_kernel : 1;
        x = b_.Conv(x, Width("conv_pwl", out), pk, ConvOpts(pk, 1, 1));
        x = Norm(x);
        if (blk.skip != std::optional<bool>(false) && blk.stride == 1 && in == b_.channels(x)) {
          x = b_.Add(x, shortcut);
        }
        return x;
      }
      case BlockType::kEr: {
        const double base = blk.force_in_chs > 0
                                ? static_cast<double>(RoundChs(blk.force_in_chs, multiplier))
                                : static_cast<double>(in);
        const int64_t mid = MakeDivisible(base * blk.exp_ratio);
        if (blk.kernel.size() != 1)
          throw InputError(Where(blk) + ": mixed kernels on a dense conv");
        const int groups = blk.group_size > 0 ? static_cast<int>(mid / blk.group_size) : 1;
        x = ConvNormAct(x, mid, blk.kernel[0], blk.stride, groups, act);
        if (se_ratio > 0.0) x = Se(x, se_ratio, act);
        const int pk = blk.end_kernel > 0 ? blk.end_kernel : 1;
        x = b_.Conv(x, out, pk, ConvOpts(pk, 1, 1));
        x = Norm(x);
        if (blk.skip != std::optional<bool>(false) && blk.stride == 1 && in == out)
          x = b_.Add(x, shortcut);
        return x;
      }
      case BlockType::kCn: {
        if (blk.kernel.size() != 1)
          throw InputError(Where(blk) + ": mixed kernels on a dense conv");
        const int groups = blk.group_size > 0 ? static_cast<int>(in / blk.group_size) : 1;
        x = ConvNormAct(x, out, blk.kernel[0], blk.stride, groups, act);
        if (blk.skip == std::optional<bool>(true) && blk.stride == 1 && in == out)
          x = b_.Add(x, shortcut);
        return x;
      }
      case BlockType::kUir: {
        const int mid_k = blk.kernel.size() == 1 ? blk.kernel[0] : -1;
        if (mid_k < 0) throw InputError(Where(blk) + ": mixed kernels in a uir block");
        const int gs = blk.group_size == 0 ? 1 : blk.group_size;
        if (blk.start_kernel > 0) {
          const int s = mid_k > 0 ? 1 : blk.stride;
          x = ConvNormAct(x, in, blk.start_kernel, s, static_cast<int>(in / gs), std::nullopt);
        }
        const int64_t mid = MakeDivisible(static_cast<double>(in) * blk.exp_ratio);
        x = b_.Conv(x, mid, 1, ConvOpts(1, 1, 1));
        x = NormAct(x, act);
        if (mid_k > 0) x = ConvNormAct(x, mid, mid_k, blk.stride, static_cast<int>(mid / gs), act);
        if (se_ratio > 0.0) x = Se(x, se_ratio, act);
        x = b_.Conv(x, out, 1, ConvOpts(1, 1, 1));
        x = Norm(x);
        if (blk.end_kernel > 0) {
          const int s = blk.start_kernel == 0 && mid_k == 0 ? blk.stride : 1;
          x = ConvNormAct(x, out, blk.end_kernel, s, static_cast<int>(out / gs), std::nullopt,
                          false);
        }
        x = LayerScale(x);
        if (blk.skip != std::optional<bool>(false) && blk.stride == 1 && in == out)
          x = b_.Add(x, shortcut);
        return x;
      }
      case BlockType::kMqa: {
        if (blk.stride != 1) throw InputError(Where(blk) + ": strided attention is not supported");
        if (blk.kernel.size() != 1)
          throw InputError(Where(blk) + ": mixed kernels in an mqa block");
        const int h = blk.heads;
        const int64_t kd = blk.key_dim;
        const int64_t vd = blk.key_dim;
        const int normed = Norm(x);
        const Shape s = b_.type(normed).shape;
        // Query: 1x1 to heads x key_dim, as [n, heads, HW, kd].
        int q = b_.Conv(normed, h * kd, 1, ConvOpts(1, 1, 1));
        q = b_.Reshape4(q, Shape{s.n, s.h * s.w, h, kd});
        q = b_.Transpose(q, {0, 2, 1, 3});
        // Key and value, each with its own strided depthwise conv + BN when kv_stride > 1.
        auto kv = [&](int64_t dim) {
          int t = normed;
          if (blk.kv_stride > 1) {
            t = b_.Conv(t, s.c, blk.kernel[0],
                        ConvOpts(blk.kernel[0], blk.kv_stride, static_cast<int>(s.c)));
            t = Norm(t);
          }
          t = b_.Conv(t, dim, 1, ConvOpts(1, 1, 1));
          const Shape ts = b_.type(t).shape;
          return b_.Reshape4(t, Shape{ts.n, 1, ts.h * ts.w, dim});
        };
        const int k = kv(kd);
        const int v = kv(vd);
        int attn = b_.MatMul(q, k, true);
        attn = b_.Softmax(attn);
        int o = b_.MatMul(attn, v);
        o = b_.Transpose(o, {0, 2, 1, 3});
        o = b_.Reshape4(o, Shape{s.n, s.h, s.w, h * vd});
        x = b_.Conv(o, out, 1, ConvOpts(1, 1, 1));
        x = LayerScale(x);
        if (blk.skip != std::optional<bool>(false) && in == out) x = b_.Add(x, shortcut);
        return x;
      }
    }
    throw InternalError("block type");
  }

  const Arch& arch_;
  BuildOptions options_;
  const std::map<std::string, std::vector<int64_t>>& pruned_;
  GraphBuilder b_;
  std::string prefix_;
};

}  // namespace

Block ParseBlock(const std::string& text) {
  const std::vector<std::string> tokens = Split(text, '_');
  const auto type = BlockTypes().find(tokens[0]);
  if (type == BlockTypes().end()) {
    std::vector<std::string> names;
    for (const auto& [n, t] : BlockTypes()) names.push_back(n);
    throw InputError("block string '" + text + "': unknown block type '" + tokens[0] + "'" +
                     DidYouMean(tokens[0], names) + " (valid: " + Join(names, ", ") + ")");
  }
  Block b;
  b.type = type->second;
  b.text = text;
  std::map<std::string, std::string> options;
  for (size_t i = 1; i < tokens.size(); ++i) {
    const std::string& tok = tokens[i];
    if (tok == "noskip") {
      b.skip = false;
    } else if (tok == "skip") {
      b.skip = true;
    } else if (tok.size() == 3 && tok[0] == 'n' &&
               !std::isdigit(static_cast<unsigned char>(tok[1]))) {
      const std::string v = tok.substr(1);
      if (v == "re") {
        b.act = Activation::kRelu;
      } else if (v == "r6") {
        b.act = Activation::kRelu6;
      } else if (v == "hs") {
        b.act = Activation::kHardSwish;
      } else if (v == "sw") {
        b.act = Activation::kSwish;
      } else if (v == "mi") {
        throw InputError("block string '" + text +
                         "': token 'nmi': mish is not an activation of the layer graph");
      } else {
        throw InputError("block string '" + text + "': token '" + tok +
                         "': unknown activation (nre, nr6, nhs, nsw)");
      }
    } else {
      const size_t digit = tok.find_first_of("0123456789");
      if (digit == 0 || digit == std::string::npos) {
        throw InputError("block string '" + text + "': token '" + tok + "' is not KEY<value>");
      }
      const std::string key = tok.substr(0, digit);
      if (KeysOf(b.type).count(key) == 0) {
        throw InputError("block string '" + text + "': token '" + tok + "': '" + key +
                         "' is not an option of '" + tokens[0] + "' blocks");
      }
      if (!options.emplace(key, tok.substr(digit)).second) {
        throw InputError("block string '" + text + "': option '" + key + "' given twice");
      }
    }
  }
  auto require = [&](const std::string& key) -> const std::string& {
    const auto it = options.find(key);
    if (it == options.end()) {
      throw InputError("block string '" + text + "': option '" + key + "' missing");
    }
    return it->second;
  };
  b.repeats = ParseInt(require("r"), text, "r" + require("r"), 1, 1000);
  b.stride = ParseInt(require("s"), text, "s" + require("s"), 1, 2);
  b.out_chs = ParseInt(require("c"), text, "c" + require("c"), 1, 100000);
  if (b.type == BlockType::kIr || b.type == BlockType::kEr || b.type == BlockType::kUir) {
    b.exp_ratio = ParseRatio(require("e"), text, "e" + require("e"), 64.0);
    if (b.exp_ratio <= 0.0)
      throw InputError("block string '" + text + "': expansion must be positive");
  }
  b.kernel = ParseKernels(require("k"), text, "k" + require("k"));
  for (int k : b.kernel) {
    if (k == 0 && b.type != BlockType::kUir) {
      throw InputError("block string '" + text + "': kernel 0 is only allowed in uir blocks");
    }
  }
  if (b.kernel.size() > 1 && b.type == BlockType::kUir) {
    throw InputError("block string '" + text + "': mixed kernels in a uir block");
  }
  if (options.count("se")) b.se_ratio = ParseRatio(options["se"], text, "se" + options["se"], 1.0);
  if (options.count("a")) {
    const std::vector<int> a = ParseKernels(options["a"], text, "a" + options["a"]);
    if (a.size() != 1)
      throw InputError("block string '" + text + "': mixed expansion kernels are not supported");
    b.start_kernel = a[0];
  }
  if (options.count("p")) {
    const std::vector<int> p = ParseKernels(options["p"], text, "p" + options["p"]);
    if (p.size() != 1)
      throw InputError("block string '" + text + "': mixed projection kernels are not supported");
    b.end_kernel = p[0];
  }
  if (options.count("fc"))
    b.force_in_chs = ParseInt(options["fc"], text, "fc" + options["fc"], 0, 100000);
  if (options.count("cc")) b.experts = ParseInt(options["cc"], text, "cc" + options["cc"], 1, 1024);
  if (options.count("gs"))
    b.group_size = ParseInt(options["gs"], text, "gs" + options["gs"], 1, 100000);
  if (b.type == BlockType::kMqa) {
    b.heads = ParseInt(require("h"), text, "h" + require("h"), 1, 1024);
    b.key_dim = ParseInt(require("d"), text, "d" + require("d"), 1, 100000);
    if (options.count("v")) b.kv_stride = ParseInt(options["v"], text, "v" + options["v"], 1, 8);
  } else if (options.count("d")) {
    b.s2d = ParseInt(options["d"], text, "d" + options["d"], 0, 1);
  }
  return b;
}

Table ReadTable(const std::string& path) {
  std::vector<std::string> required = {"model",       "arch",     "img_size",   "top1",    "top5",
                                       "param_count", "pretrain", "extra_data", "arch_def"};
  for (const std::string& c : ArchColumns()) required.push_back(c);
  const CsvFile csv = ReadCsvFile(path, required, "timm-imagenet-mbconv models.csv");
  Table table;
  const size_t slash = path.find_last_of('/');
  table.directory = slash == std::string::npos ? "." : path.substr(0, slash);
  std::map<std::string, std::vector<std::string>> signature;
  std::set<std::string> models;
  for (const CsvFile::Row& row : csv.rows) {
    const Fields f{csv, row};
    Row r;
    r.model = f.Get("model");
    r.arch = f.Get("arch");
    r.where = row.where;
    if (r.arch.empty() || r.arch.find_first_of(" :/") != std::string::npos) {
      f.Fail("arch", "'" + r.arch + "' is not an architecture name");
    }
    if (!r.model.starts_with(r.arch + "."))
      f.Fail("model", "'" + r.model + "' is not '" + r.arch + ".<tag>'");
    r.family = f.Get("family");
    r.img_size = static_cast<int>(f.Whole("img_size", 16, 4096));
    r.top1 = f.Number("top1", 0.0, 100.0);
    r.top5 = f.Number("top5", 0.0, 100.0);
    r.param_count_m = f.Number("param_count", 0.0, 1e6);
    r.pretrain = f.Get("pretrain");
    r.extra_data = f.Get("extra_data") == "yes";
    if (f.Get("extra_data") != "yes" && f.Get("extra_data") != "no") {
      f.Fail("extra_data", "'" + f.Get("extra_data") + "' is not yes or no");
    }
    if (!models.insert(r.model + "@" + std::to_string(r.img_size)).second) {
      f.Fail("model", "'" + r.model + "' at " + std::to_string(r.img_size) + " px twice");
    }
    std::vector<std::string> sig;
    for (const std::string& c : ArchColumns()) sig.push_back(f.Get(c));
    const auto [it, fresh] = signature.emplace(r.arch, sig);
    if (fresh) {
      table.archs.emplace(r.arch, ParseArch(f));
    } else {
      Arch& a = table.archs.at(r.arch);
      a.native_resolution = std::min(a.native_resolution, r.img_size);
      for (size_t i = 0; i < sig.size(); ++i) {
        if (sig[i] != it->second[i]) {
          f.Fail(ArchColumns()[i], "'" + sig[i] + "' differs from architecture '" + r.arch +
                                       "' at " + table.archs.at(r.arch).where);
        }
      }
    }
    if (std::fabs(r.param_count_m -
                  static_cast<double>(table.archs.at(r.arch).params_exact) / 1e6) > 0.0051) {
      f.Fail("param_count", "'" + f.Get("param_count") + "' does not round params_exact " +
                                std::to_string(table.archs.at(r.arch).params_exact));
    }
    table.rows.push_back(std::move(r));
  }
  if (table.rows.empty()) throw InputError(path + ": no rows");
  return table;
}

const Table& ShippedTable() {
  static const Table kTable = ReadTable(DataPath(kTimmTableFile));
  return kTable;
}

std::string Unsupported(const Arch& arch) {
  for (const auto& stage : arch.stages) {
    for (const Block& b : stage) {
      if (b.experts > 0) {
        return "CondConv experts ('" + b.text +
               "': per-sample mixtures of expert weights) are not a layer-graph op";
      }
    }
  }
  if (arch.norm == Norm::kGroup) return "GroupNorm is not a layer-graph op";
  if (arch.norm == Norm::kEvoS0) return "EvoNorm-S0 is not a layer-graph op";
  return "";
}

std::map<std::string, std::vector<int64_t>> ReadPrunedShapes(const std::string& path) {
  std::map<std::string, std::vector<int64_t>> shapes;
  std::string text = ReadFile(path);
  while (!text.empty() && (text.back() == '\n' || text.back() == '\r')) text.pop_back();
  size_t start = 0;
  while (start <= text.size()) {
    size_t end = text.find("***", start);
    if (end == std::string::npos) end = text.size();
    const std::string item = text.substr(start, end - start);
    const size_t colon = item.find(':');
    if (colon == std::string::npos || item.size() < colon + 3 || item[colon + 1] != '[' ||
        item.back() != ']') {
      throw InputError(path + ": entry '" + item.substr(0, 80) + "' is not NAME:[d0, d1, ...]");
    }
    std::vector<int64_t> dims;
    const std::string inner = item.substr(colon + 2, item.size() - colon - 3);
    if (!inner.empty()) {
      for (std::string d : Split(inner, ',')) {
        while (!d.empty() && d.front() == ' ') d.erase(d.begin());
        if (!IsDigits(d) || d.size() > 9) {
          throw InputError(path + ": entry '" + item.substr(0, colon) + "': dimension '" + d +
                           "' is not a whole number");
        }
        dims.push_back(std::stoll(d));
      }
    }
    shapes[item.substr(0, colon)] = std::move(dims);
    if (end == text.size()) break;
    start = end + 3;
  }
  return shapes;
}

Graph Build(const Arch& arch, const BuildOptions& options,
            const std::map<std::string, std::vector<int64_t>>& pruned) {
  if (const std::string why = Unsupported(arch); !why.empty()) {
    throw InputError("timm:" + arch.arch + " cannot be built: " + why);
  }
  if (!arch.pruned_file.empty() && pruned.empty()) {
    throw InputError("timm:" + arch.arch + ": needs the widths of " + arch.pruned_file);
  }
  BuildOptions o = options;
  if (o.resolution == 0) o.resolution = arch.native_resolution;
  return NetBuilder(arch, o, pruned).Build();
}

void RegisterTimm(ModelRegistry& registry) {
  ModelPrefix p;
  p.prefix = kTimmPrefix;
  p.description =
      "timm:<arch>: the published MBConv-family networks of data/benchmarks/timm-imagenet-mbconv";
  p.names = [] {
    std::vector<std::string> names;
    for (const auto& [arch, a] : ShippedTable().archs) names.push_back(kTimmPrefix + arch);
    return names;
  };
  p.resolve = [](const std::string& name) {
    const Table& table = ShippedTable();
    const Arch& arch = table.archs.at(name.substr(std::string(kTimmPrefix).size()));
    auto pruned = std::make_shared<std::map<std::string, std::vector<int64_t>>>();
    if (!arch.pruned_file.empty()) {
      *pruned = ReadPrunedShapes(table.directory + "/" + arch.pruned_file);
    }
    ModelEntry e;
    e.name = name;
    e.family = "timm/" + arch.family;
    std::ostringstream d;
    d << "timm " << arch.arch << " (" << arch.family << "), " << arch.params_exact
      << " parameters; timm's EfficientNet builder";
    if (const std::string why = Unsupported(arch); !why.empty()) d << "; not buildable: " << why;
    e.description = d.str();
    e.native_resolution = arch.native_resolution;
    e.build = [&arch, pruned](const BuildOptions& o) { return Build(arch, o, *pruned); };
    return e;
  };
  registry.RegisterPrefix(std::move(p));
}

}  // namespace dcnas::models::timm
