#include "models/block_string.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <map>
#include <string>

#include "common/errors.h"
#include "common/text.h"
#include "models/blocks.h"

namespace dcnas::models {
namespace {

[[noreturn]] void Bad(const std::string& text, const std::string& why) {
  throw InputError("block string '" + text + "': " + why);
}

double ParseNumber(const std::string& text, const std::string& key, const std::string& value) {
  double result = 0.0;
  const char* end = value.data() + value.size();
  const auto [ptr, ec] = std::from_chars(value.data(), end, result);
  if (ec != std::errc() || ptr != end || !std::isfinite(result)) {
    Bad(text, "key '" + key + "' has malformed value '" + value + "'");
  }
  return result;
}

int ParseInt(const std::string& text, const std::string& key, const std::string& value) {
  const double v = ParseNumber(text, key, value);
  if (v != std::floor(v) || v < 0 || v > 1e6) {
    Bad(text, "key '" + key + "' needs a non-negative integer, got '" + value + "'");
  }
  return static_cast<int>(v);
}

std::string FormatNumber(double value) {
  char buffer[32];
  const auto [ptr, ec] = std::to_chars(buffer, buffer + sizeof(buffer), value);
  if (ec != std::errc()) throw InternalError("cannot format number");
  return {buffer, ptr};
}

// The limits of a block's fields (`text` names the block in messages).
void CheckLimits(const std::string& text, const BlockArgs& a) {
  if (a.num_repeat < 1 || a.num_repeat > kMaxBlockRepeats) {
    Bad(text, "repeats 'r' must be in 1.." + std::to_string(kMaxBlockRepeats));
  }
  if (a.kernel < 1 || a.kernel > kMaxBlockKernel) {
    Bad(text, "kernel 'k' must be in 1.." + std::to_string(kMaxBlockKernel));
  }
  if (a.expand_ratio <= 0 || a.expand_ratio > kMaxBlockExpansion) {
    Bad(text, "expansion 'e' must be in (0, " + std::to_string(kMaxBlockExpansion) + "]");
  }
  if (a.input_filters < 1 || a.output_filters < 1 || a.input_filters > kMaxBlockFilters ||
      a.output_filters > kMaxBlockFilters) {
    Bad(text, "filters 'i' and 'o' must be in 1.." + std::to_string(kMaxBlockFilters));
  }
  if (a.hidden_filters < 0 || a.hidden_filters > kMaxBlockFilters) {
    Bad(text, "hidden filters 'h' must be in 0.." + std::to_string(kMaxBlockFilters) +
                  " (0: the default)");
  }
}

// The limits ParseBlockString checks, for args that did not come from text.
void CheckArgs(const BlockArgs& a) {
  const bool in_range = a.num_repeat >= 1 && a.num_repeat <= kMaxBlockRepeats && a.kernel >= 1 &&
                        a.kernel <= kMaxBlockKernel && a.stride >= 1 && a.stride <= 9 &&
                        a.expand_ratio > 0 && a.expand_ratio <= kMaxBlockExpansion &&
                        a.input_filters >= 1 && a.input_filters <= kMaxBlockFilters &&
                        a.output_filters >= 1 && a.output_filters <= kMaxBlockFilters &&
                        (!a.se_ratio || (*a.se_ratio > 0 && *a.se_ratio <= 1)) &&
                        a.space2depth >= 0 && a.space2depth <= 2 && a.conv_type >= 0 &&
                        a.conv_type <= 4 && a.hidden_filters >= 0 &&
                        a.hidden_filters <= kMaxBlockFilters;
  if (in_range) return;
  // The message of the string that would carry them; a squeeze-excite ratio of 0 has none (the
  // string's se0 means no squeeze-excite).
  const std::string text = EncodeBlockString(a);
  ParseBlockString(text);
  Bad(text, "squeeze-excite ratio must be in (0, 1] when set");
}

}  // namespace

BlockArgs ParseBlockString(const std::string& text) {
  if (text.empty()) Bad(text, "empty");
  std::map<std::string, std::string> options;
  bool noskip = false;
  for (const std::string& token : Split(text, '_')) {
    if (token.empty()) Bad(text, "empty token (doubled or trailing '_')");
    if (token == "noskip") {
      if (noskip) Bad(text, "flag 'noskip' given twice");
      noskip = true;
      continue;
    }
    const size_t digit = token.find_first_of("0123456789");
    if (digit == std::string::npos || digit == 0) {
      Bad(text, "token '" + token + "' is not <key><value>");
    }
    std::string key = token.substr(0, digit);
    if (options.count(key) > 0) Bad(text, "key '" + key + "' given twice");
    options[key] = token.substr(digit);
  }
  static const std::vector<std::string> kKeys = {"r", "k", "s", "e", "i", "o", "se",
                                                 "f", "d", "a", "c", "h", "p", "noskip"};
  for (const auto& [key, value] : options) {
    if (key == "cc") Bad(text, "CondConv blocks (cc) are not supported");
    if (std::find(kKeys.begin(), kKeys.end(), key) == kKeys.end()) {
      Bad(text, "unknown key '" + key + "'" + DidYouMean(key, kKeys));
    }
  }
  for (const char* required : {"r", "k", "s", "e", "i", "o"}) {
    if (options.count(required) == 0) Bad(text, std::string("missing key '") + required + "'");
  }
  BlockArgs a;
  a.num_repeat = ParseInt(text, "r", options["r"]);
  a.kernel = ParseInt(text, "k", options["k"]);
  const std::string& s = options["s"];
  if (s.size() != 2 || s[0] < '1' || s[0] > '9' || s[0] != s[1]) {
    Bad(text, "strides 's" + s + "' must be two equal non-zero digits (s11, s22)");
  }
  a.stride = s[0] - '0';
  a.expand_ratio = ParseNumber(text, "e", options["e"]);
  a.input_filters = ParseInt(text, "i", options["i"]);
  a.output_filters = ParseInt(text, "o", options["o"]);
  if (options.count("se") > 0) {
    const double se = ParseNumber(text, "se", options["se"]);
    if (se < 0 || se > 1) {
      Bad(text, "squeeze-excite ratio 'se" + options["se"] + "' must be in [0, 1] (0: none)");
    }
    if (se > 0) a.se_ratio = se;
  }
  if (options.count("f") > 0) a.fused = ParseInt(text, "f", options["f"]) != 0;
  if (options.count("d") > 0) {
    a.space2depth = ParseInt(text, "d", options["d"]);
    if (a.space2depth > 2) Bad(text, "space2depth 'd' must be 0, 1 or 2");
  }
  if (options.count("a") > 0) {
    const int act = ParseInt(text, "a", options["a"]);
    if (act > 1) Bad(text, "activation 'a" + options["a"] + "' must be a0 (relu) or a1 (swish)");
    a.activation = act == 0 ? Activation::kRelu : Activation::kSwish;
  }
  if (options.count("c") > 0) {
    a.conv_type = ParseInt(text, "c", options["c"]);
    if (a.conv_type > 4) Bad(text, "conv type 'c' must be 0 to 4");
  }
  if (options.count("h") > 0) a.hidden_filters = ParseInt(text, "h", options["h"]);
  if (options.count("p") > 0) {
    const int p = ParseInt(text, "p", options["p"]);
    if (p > 1) Bad(text, "projection 'p" + options["p"] + "' must be p0 or p1");
    a.projection = p == 1;
  }
  a.id_skip = !noskip;
  CheckLimits(text, a);
  return a;
}

std::string EncodeBlockString(const BlockArgs& a) {
  std::string s = "r" + std::to_string(a.num_repeat) + "_k" + std::to_string(a.kernel) + "_s" +
                  std::to_string(a.stride) + std::to_string(a.stride) + "_e" +
                  FormatNumber(a.expand_ratio) + "_i" + std::to_string(a.input_filters) + "_o" +
                  std::to_string(a.output_filters);
  if (a.se_ratio) s += "_se" + FormatNumber(*a.se_ratio);
  if (a.fused) s += "_f1";
  if (a.space2depth != 0) s += "_d" + std::to_string(a.space2depth);
  if (a.activation) {
    if (*a.activation == Activation::kRelu) {
      s += "_a0";
    } else if (*a.activation == Activation::kSwish) {
      s += "_a1";
    } else {
      throw InputError("block activation " + std::string(ActivationName(*a.activation)) +
                       " has no block-string encoding (a0 relu, a1 swish)");
    }
  }
  if (a.conv_type != 0) s += "_c" + std::to_string(a.conv_type);
  if (a.hidden_filters != 0) s += "_h" + std::to_string(a.hidden_filters);
  if (a.projection) s += "_p1";
  if (!a.id_skip) s += "_noskip";
  return s;
}

int64_t RoundFilters(int64_t filters, double width, int divisor) {
  const double scaled = static_cast<double>(filters) * width;
  if (!std::isfinite(width) || width <= 0.0 || divisor < 1 || !(scaled <= kMaxScaledFilters)) {
    throw InputError("width multiplier " + FormatNumber(width) + " on " + std::to_string(filters) +
                     " filters: must be finite and above 0, and give " + "at most " +
                     std::to_string(kMaxScaledFilters) + " filters");
  }
  const int64_t rounded =
      std::max<int64_t>(divisor, static_cast<int64_t>(scaled + divisor / 2.0) / divisor * divisor);
  return static_cast<double>(rounded) < 0.9 * scaled ? rounded + divisor : rounded;
}

int RoundRepeats(int repeats, double depth) {
  const double r = std::ceil(depth * static_cast<double>(repeats));
  if (!std::isfinite(depth) || depth <= 0.0 || !(r <= kMaxStageRepeats)) {
    throw InputError("depth multiplier " + FormatNumber(depth) + " on " + std::to_string(repeats) +
                     " repeats: must be finite and above 0, and give at most " +
                     std::to_string(kMaxStageRepeats) + " repeats per stage");
  }
  return static_cast<int>(r);
}

int64_t HiddenFilters(const BlockArgs& a) {
  if (a.hidden_filters > 0) return a.hidden_filters;
  const int64_t base = a.conv_type >= 3 ? a.output_filters : a.input_filters;
  return std::max<int64_t>(1, static_cast<int64_t>(static_cast<double>(base) * a.expand_ratio));
}

namespace {

// The residual join of a block: identity where the shapes agree, a strided 1x1 conv + BN where
// they differ and the block asks for a projection, else none.
int JoinShortcut(GraphBuilder& b, int input, int x, const BlockArgs& a) {
  if (!a.id_skip) return x;
  if (a.stride == 1 && b.type(input) == b.type(x)) return b.Add(x, input);
  if (!a.projection) return x;
  GraphBuilder::ConvOptions strided;
  strided.stride = a.stride;
  return b.Add(x, b.ConvBn(input, a.output_filters, 1, strided));
}

}  // namespace

int AppendMBConvBlock(GraphBuilder& b, int x, const BlockArgs& a, double se_coefficient,
                      Activation default_activation) {
  const Activation act = a.activation.value_or(default_activation);
  const int input = x;
  const int64_t filters = HiddenFilters(a);
  GraphBuilder::ConvOptions strided;
  strided.stride = a.stride;
  if (a.space2depth == 1) x = LearnedSpaceToDepth(b, x, a.input_filters, act);
  if (a.conv_type == 2) return b.ConvBn(x, a.output_filters, a.kernel, strided);
  if (a.conv_type == 3 || a.conv_type == 4) {
    if (a.conv_type == 4) x = b.ConvBnAct(x, filters, 1, {}, act);
    x = b.ConvBnAct(x, filters, a.kernel, strided, act);
    x = b.ConvBn(x, a.output_filters, a.conv_type == 4 ? 1 : a.kernel, {});
    return b.Act(JoinShortcut(b, input, x, a), act);
  }
  const bool expands = a.hidden_filters > 0 ? filters != a.input_filters : a.expand_ratio != 1.0;
  if (a.conv_type == 1) {
    if (expands) x = b.ConvBnAct(x, filters, 3, strided, act);
  } else {
    if (a.fused) {
      x = b.ConvBnAct(x, filters, a.kernel, strided, act);
    } else {
      if (expands) x = b.ConvBnAct(x, filters, 1, {}, act);
      x = b.Act(b.BatchNorm(b.DepthwiseConv(x, a.kernel, a.stride)), act);
    }
    if (a.se_ratio) {
      int64_t reduced =
          std::max<int64_t>(1, static_cast<int64_t>(static_cast<double>(a.input_filters) *
                                                    *a.se_ratio * se_coefficient));
      if (a.space2depth == 1) reduced = std::max<int64_t>(1, reduced / 4);
      x = SqueezeExcite(b, x, reduced, act);
    }
  }
  x = b.ConvBn(x, a.output_filters, 1, {});
  return JoinShortcut(b, input, x, a);
}

std::vector<BlockArgs> ParseBlockStrings(const std::vector<std::string>& texts) {
  std::vector<BlockArgs> blocks;
  blocks.reserve(texts.size());
  for (const std::string& text : texts) blocks.push_back(ParseBlockString(text));
  return blocks;
}

std::vector<std::string> EncodeBlockStrings(const std::vector<BlockArgs>& blocks) {
  std::vector<std::string> texts;
  texts.reserve(blocks.size());
  for (const BlockArgs& a : blocks) texts.push_back(EncodeBlockString(a));
  return texts;
}

void LayoutBlockNetwork(const BlockNetworkSpec& spec, const BuildOptions& options,
                        BlockNetworkLayout& out) {
  ValidateBuildOptions(options);
  out.options = options;
  if (out.options.resolution == 0) out.options.resolution = spec.resolution;
  const double width = spec.width * options.width_scale;
  out.stem_filters = RoundFilters(spec.stem_filters, width, spec.depth_divisor);
  if (spec.stem_stride != 1 && spec.stem_stride != 2) {
    throw InputError("stem stride " + std::to_string(spec.stem_stride) + ": must be 1 or 2");
  }
  out.stem_stride = spec.stem_stride;
  out.default_activation = spec.default_activation;
  out.se_coefficient = spec.se_coefficient;
  out.dropout = spec.dropout;
  out.blocks.clear();
  int stage = 0;
  for (const BlockArgs& given : spec.blocks) {
    ++stage;
    CheckArgs(given);
    BlockArgs a = given;
    const int64_t in_f = RoundFilters(a.input_filters, width, spec.depth_divisor);
    const int64_t out_f = RoundFilters(a.output_filters, width, spec.depth_divisor);
    const int kernel = a.kernel;
    const int factor = a.space2depth > 0 ? 4 / (a.stride * a.stride) : 1;
    if (a.space2depth > 0 && factor < 1) {
      Bad(EncodeBlockString(given), "space-to-depth needs stride 1 or 2");
    }
    const int64_t hidden_f =
        a.hidden_filters > 0 ? RoundFilters(a.hidden_filters, width, spec.depth_divisor) : 0;
    a.input_filters = in_f * factor;
    a.output_filters = out_f * factor;
    a.hidden_filters = hidden_f * factor;
    const int repeats = RoundRepeats(a.num_repeat, spec.depth);
    if (factor > 1) a.kernel = (kernel + 1) / 2;
    // A stride-2 stage in space-to-depth layout: the stride was absorbed by the s2d conv, and
    // later repeats leave the s2d layout.
    const bool absorbed = a.space2depth != 0 && a.stride == 2;
    if (absorbed) a.stride = 1;
    out.blocks.push_back({a, stage});
    if (absorbed) {
      a.space2depth = 0;
      a.input_filters = in_f;
      a.output_filters = out_f;
      a.hidden_filters = hidden_f;
      a.kernel = kernel;
    } else if (a.space2depth == 1) {
      a.space2depth = 2;  // later repeats stay in the s2d layout
    }
    if (repeats > 1) {
      a.input_filters = a.output_filters;
      a.stride = 1;
    }
    for (int r = 1; r < repeats; ++r) out.blocks.push_back({a, stage});
  }
  out.stages = stage;
  out.head_filters =
      spec.head_filters > 0 ? RoundFilters(spec.head_filters, width, spec.depth_divisor) : 0;
}

BlockNetworkLayout LayoutBlockNetwork(const BlockNetworkSpec& spec, const BuildOptions& options) {
  BlockNetworkLayout layout;
  LayoutBlockNetwork(spec, options, layout);
  return layout;
}

int AppendStem(GraphBuilder& b, const BlockNetworkLayout& layout) {
  const int resolution = layout.options.resolution;
  const int x = b.Input(resolution, resolution, layout.options.in_channels);
  GraphBuilder::ConvOptions stem;
  stem.stride = layout.stem_stride;
  b.SetScope("stem", 0);
  return b.ConvBnAct(x, layout.stem_filters, 3, stem, layout.default_activation);
}

int AppendBlock(GraphBuilder& b, int x, const BlockNetworkLayout& layout, size_t index) {
  const BlockNetworkLayout::Block& block = layout.blocks.at(index);
  b.SetScope("blocks." + std::to_string(index), block.stage);
  return AppendMBConvBlock(b, x, block.args, layout.se_coefficient, layout.default_activation);
}

int AppendHead(GraphBuilder& b, int x, const BlockNetworkLayout& layout) {
  b.SetScope("head", layout.stages + 1);
  if (layout.head_filters > 0) {
    x = b.ConvBnAct(x, layout.head_filters, 1, {}, layout.default_activation);
  }
  x = b.GlobalPool(x, PoolMode::kAvg);
  if (layout.dropout > 0) x = b.Dropout(x, layout.dropout);
  return b.FullyConnected(x, layout.options.num_classes, true);
}

Graph BuildBlockNetwork(const std::string& model, const BlockNetworkLayout& layout) {
  GraphBuilder b(model, layout.options);
  int x = AppendStem(b, layout);
  for (size_t i = 0; i < layout.blocks.size(); ++i) x = AppendBlock(b, x, layout, i);
  AppendHead(b, x, layout);
  return b.Finish();
}

Graph BuildBlockNetwork(const std::string& model, const BlockNetworkSpec& spec,
                        const BuildOptions& options) {
  return BuildBlockNetwork(model, LayoutBlockNetwork(spec, options));
}

}  // namespace dcnas::models
