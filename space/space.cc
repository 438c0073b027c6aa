#include "space/space.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <sstream>

#include "common/config_tree.h"
#include "common/errors.h"
#include "common/file_io.h"
#include "common/table.h"
#include "common/text.h"
#include "models/op.h"

namespace dcnas::space {
namespace {

constexpr const char* kFormat = "dcnas-search-space";
constexpr int kVersion = 1;
// Rejection sampling gives up after this many invalid draws (a space that rejects nearly
// everything is a broken file, not bad luck).
constexpr int kMaxDraws = 1000;
constexpr int kMaxRetries = 100;

const std::vector<std::string> kFieldKeys = {"block",
                                             "kernel",
                                             "expand",
                                             "se",
                                             "activation",
                                             "repeats_delta",
                                             "filters_multiplier",
                                             "space_to_depth",
                                             "filters",
                                             "hidden"};

// Sets one field of `patch` from a scalar YAML value.
void SetField(LayerPatch& patch, const std::string& field, const ConfigValue& value) {
  if (field == "block") {
    const std::string text = value.String();
    if (text == "mbconv") {
      patch.block = BlockType::kMBConv;
    } else if (text == "fused") {
      patch.block = BlockType::kFused;
    } else if (text == "skip" || text == "identity") {
      patch.block = BlockType::kSkip;
    } else if (text == "conv") {
      patch.block = BlockType::kConv;
    } else if (text == "basic") {
      patch.block = BlockType::kBasic;
    } else if (text == "bottleneck") {
      patch.block = BlockType::kBottleneck;
    } else {
      value.Fail("unknown block type '" + text +
                 "' (mbconv, fused, skip, conv, basic, bottleneck)");
    }
  } else if (field == "kernel") {
    const int64_t k = value.Integer(1, 15);
    if (k % 2 == 0) value.Fail("kernel " + std::to_string(k) + " is not odd");
    patch.kernel = static_cast<int>(k);
  } else if (field == "expand") {
    patch.expand = value.Number(1.0, 16.0);
  } else if (field == "se") {
    patch.se = value.Number(0.0, 1.0);
  } else if (field == "activation") {
    const std::string text = value.String();
    if (text == "relu") {
      patch.activation = models::Activation::kRelu;
    } else if (text == "swish" || text == "silu") {
      patch.activation = models::Activation::kSwish;
    } else {
      value.Fail("unknown activation '" + text + "' (relu, swish)");
    }
  } else if (field == "repeats_delta") {
    patch.repeats_delta = static_cast<int>(value.Integer(-16, 16));
  } else if (field == "filters_multiplier") {
    patch.filters_multiplier = value.Number(0.125, 8.0);
  } else if (field == "space_to_depth") {
    patch.space_to_depth = value.Bool();
  } else if (field == "filters") {
    patch.filters = value.Integer(1, models::kMaxBlockFilters);
  } else if (field == "hidden") {
    patch.hidden = value.Integer(1, models::kMaxBlockFilters);
  } else {
    throw InternalError("SetField: unknown field " + field);
  }
}

std::vector<std::string> PatchFields(const LayerPatch& p) {
  std::vector<std::string> f;
  if (p.block) f.emplace_back("block");
  if (p.kernel) f.emplace_back("kernel");
  if (p.expand) f.emplace_back("expand");
  if (p.se) f.emplace_back("se");
  if (p.activation) f.emplace_back("activation");
  if (p.repeats_delta) f.emplace_back("repeats_delta");
  if (p.filters_multiplier) f.emplace_back("filters_multiplier");
  if (p.space_to_depth) f.emplace_back("space_to_depth");
  if (p.filters) f.emplace_back("filters");
  if (p.hidden) f.emplace_back("hidden");
  return f;
}

// A raw choice list as read from YAML: key -> its value (a scalar, a sequence, or `op` maps),
// named by the key path where it was written (a stage's choices or the defaults).
using RawChoices = std::map<std::string, ConfigValue>;

void ReadChoiceMap(ConfigReader choices, RawChoices& out) {
  std::vector<std::string> known = kFieldKeys;
  known.emplace_back("op");
  for (const std::string& key : choices.Keys()) {
    if (std::find(known.begin(), known.end(), key) == known.end()) {
      choices.Fail(key, "unknown choice" + DidYouMean(key, known));
    }
    out.erase(key);
    out.emplace(key, choices.Value(key));
  }
}

// The values of one choice: `op` maps, a list of values of one field, or a single value.
std::vector<LayerPatch> ChoiceValues(const std::string& key, const ConfigValue& choice) {
  const YAML::Node& node = choice.node();
  std::vector<LayerPatch> values;
  if (key == "op") {
    if (!node.IsSequence()) choice.Fail("expected a list");
    for (size_t i = 0; i < node.size(); ++i) {
      ConfigReader op(node[i], choice.file(), choice.path() + "." + std::to_string(i));
      LayerPatch p;
      for (const std::string& field : op.Keys()) {
        if (std::find(kFieldKeys.begin(), kFieldKeys.end(), field) == kFieldKeys.end()) {
          op.Fail(field, "unknown field" + DidYouMean(field, kFieldKeys));
        }
        SetField(p, field, op.Value(field));
      }
      if (!p.block) op.Fail("", "an op must set block");
      values.push_back(p);
    }
  } else if (node.IsSequence()) {
    for (size_t i = 0; i < node.size(); ++i) {
      LayerPatch p;
      SetField(p, key,
               ConfigValue(node[i], choice.file(), choice.path() + "." + std::to_string(i)));
      values.push_back(p);
    }
  } else {
    LayerPatch p;
    SetField(p, key, choice);
    values.push_back(p);
  }
  if (values.empty()) choice.Fail("empty choice list");
  return values;
}

// `out` = `base` with the choices of `own` over it. A key of `own` replaces the same key of `base`;
// an `op` of `own` also drops the choices of `base` for the fields its values set (a field set by
// two choices is refused later, by BuildUnit).
void MergeChoices(const RawChoices& own, const RawChoices& base, RawChoices& out) {
  out = base;
  // erase + emplace: assigning a YAML::Node writes through to the node it refers to, which would
  // change the choices `base` was copied from.
  for (const auto& [k, v] : own) {
    out.erase(k);
    out.emplace(k, v);
  }
  if (!own.count("op")) return;
  for (const auto& f : kFieldKeys) {
    if (own.count(f) || !out.count(f) || !base.count(f)) continue;
    bool op_sets = false;
    for (const auto& v : own.at("op").node()) op_sets = op_sets || v[f].IsDefined();
    if (op_sets) out.erase(f);
  }
}

// Turns the merged raw choices of one unit into fixed values and searchable choices; `stage` names
// the unit's stage in messages.
void BuildUnit(const RawChoices& raw, const ConfigReader& stage, Unit& unit) {
  std::map<std::string, std::string> set_by;  // field -> choice key that sets it
  for (const auto& [key, choice] : raw) {
    std::vector<LayerPatch> values = ChoiceValues(key, choice);
    std::set<std::string> labels;
    for (const auto& v : values) {
      if (!labels.insert(v.Label()).second) {
        choice.Fail("value '" + v.Label() + "' listed twice");
      }
    }
    std::set<std::string> fields;
    for (const auto& v : values) {
      for (const auto& f : PatchFields(v)) fields.insert(f);
    }
    for (const auto& f : fields) {
      if (set_by.count(f)) {
        choice.Fail("sets '" + f + "', which '" + set_by[f] + "' also sets");
      }
      set_by[f] = key;
    }
    if (values.size() == 1) {
      values[0].ApplyTo(unit.fixed);
    } else {
      unit.choices.push_back({key, values, std::vector<std::string>(fields.begin(), fields.end())});
    }
  }
  for (const std::string f : {"block", "kernel", "expand", "se", "activation"}) {
    if (!set_by.count(f)) {
      stage.Fail("choices",
                 "no value for '" + f + "' (set it in the stage's choices or in defaults)");
    }
  }
  if (set_by.count("filters") && set_by.count("filters_multiplier")) {
    raw.at(set_by["filters"])
        .Fail("sets 'filters', and '" + set_by["filters_multiplier"] +
              "' sets 'filters_multiplier': a layer's width is one or the other");
  }
  // An op that sets a field for some values must set it for every value that needs it (a
  // skipped layer needs none, a plain conv only its kernel).
  for (const Choice& c : unit.choices) {
    for (size_t v = 0; v < c.values.size(); ++v) {
      const LayerPatch& p = c.values[v];
      const std::vector<std::string> needs =
          p.block == BlockType::kSkip   ? std::vector<std::string>{}
          : p.block == BlockType::kConv ? std::vector<std::string>{"kernel"}
          : p.block == BlockType::kBasic || p.block == BlockType::kBottleneck
              ? std::vector<std::string>{"kernel", "expand", "activation"}
              : std::vector<std::string>{"kernel", "expand", "se", "activation"};
      for (const std::string& f : needs) {
        const std::vector<std::string> own = PatchFields(p);
        if (set_by.at(f) == c.key && std::find(own.begin(), own.end(), f) == own.end()) {
          raw.at(c.key).Fail("value " + std::to_string(v) + " (" + p.Label() + ") sets no '" + f +
                             "', which the other values of '" + c.key + "' set");
        }
      }
    }
  }
}

std::string Base36(int v) {
  const char* digits = "0123456789abcdefghijklmnopqrstuvwxyz";
  std::string s;
  do {
    s.insert(s.begin(), digits[v % 36]);
    v /= 36;
  } while (v > 0);
  return s;
}

uint64_t Fnv1a(const std::string& s) {
  uint64_t h = 1469598103934665603ULL;
  for (unsigned char c : s) {
    h ^= c;
    h *= 1099511628211ULL;
  }
  return h;
}

// Two values of one choice give the same network: they set the same fields to the same values,
// filters multipliers compared by the width they round to for the stage's `filters`.
bool SameNetwork(const LayerPatch& a, const LayerPatch& b, int64_t filters) {
  const bool same_width =
      a.filters_multiplier.has_value() == b.filters_multiplier.has_value() &&
      (!a.filters_multiplier || models::RoundFilters(filters, *a.filters_multiplier) ==
                                    models::RoundFilters(filters, *b.filters_multiplier));
  return same_width && a.block == b.block && a.kernel == b.kernel && a.expand == b.expand &&
         a.se == b.se && a.activation == b.activation && a.repeats_delta == b.repeats_delta &&
         a.space_to_depth == b.space_to_depth && a.filters == b.filters && a.hidden == b.hidden;
}

}  // namespace

std::string BlockTypeName(BlockType type) {
  switch (type) {
    case BlockType::kMBConv:
      return "mbconv";
    case BlockType::kFused:
      return "fused";
    case BlockType::kSkip:
      return "skip";
    case BlockType::kConv:
      return "conv";
    case BlockType::kBasic:
      return "basic";
    case BlockType::kBottleneck:
      return "bottleneck";
  }
  throw InternalError("BlockTypeName: bad type");
}

void LayerPatch::ApplyTo(LayerPatch& base) const {
  if (block) base.block = block;
  if (kernel) base.kernel = kernel;
  if (expand) base.expand = expand;
  if (se) base.se = se;
  if (activation) base.activation = activation;
  if (repeats_delta) base.repeats_delta = repeats_delta;
  if (filters_multiplier) base.filters_multiplier = filters_multiplier;
  if (space_to_depth) base.space_to_depth = space_to_depth;
  if (filters) base.filters = filters;
  if (hidden) base.hidden = hidden;
}

std::string LayerPatch::Label() const {
  std::vector<std::string> parts;
  if (block) parts.push_back("block=" + BlockTypeName(*block));
  if (kernel) parts.push_back("kernel=" + std::to_string(*kernel));
  if (expand) parts.push_back("expand=" + FormatSignificant(*expand));
  if (se) parts.push_back("se=" + FormatSignificant(*se));
  if (activation) parts.push_back("activation=" + std::string(models::ActivationName(*activation)));
  if (repeats_delta) parts.push_back("repeats_delta=" + std::to_string(*repeats_delta));
  if (filters_multiplier)
    parts.push_back("filters_multiplier=" + FormatSignificant(*filters_multiplier));
  if (space_to_depth)
    parts.push_back(std::string("space_to_depth=") + (*space_to_depth ? "true" : "false"));
  if (filters) parts.push_back("filters=" + std::to_string(*filters));
  if (hidden) parts.push_back("hidden=" + std::to_string(*hidden));
  return Join(parts, " ");
}

Space Space::Load(const std::string& path) { return Parse(ReadFile(path), path); }

Space Space::Parse(const std::string& yaml_text, const std::string& file) {
  try {
    return ParseChecked(yaml_text, file);
  } catch (const YAML::Exception& e) {  // a node of the wrong kind the readers did not expect
    throw InputError(file + ":" + std::to_string(e.mark.line + 1) + ": " + e.msg);
  }
}

Space Space::ParseChecked(const std::string& yaml_text, const std::string& file) {
  const YAML::Node root = ParseYamlStrict(yaml_text, file);
  if (!root.IsDefined() || root.IsNull()) throw InputError(file + ": empty search-space file");
  ConfigReader top(root, file, "");
  if (top.String("format") != kFormat) {
    top.Fail("format", std::string("expected '") + kFormat + "'");
  }
  if (top.Integer("version", 1, 1000) != kVersion) {
    top.Fail("version", "unsupported version (this dcnas reads version 1)");
  }
  Space s;
  s.file_ = file;
  s.name_ = top.String("name");
  s.description_ = top.StringOr("description", "");
  top.Skip("sources");

  {
    ConfigReader n = top.Map("network");
    s.network_.resolution = static_cast<int>(n.Integer("resolution", 8, 4096));
    s.network_.stem_filters = n.IntegerOr("stem_filters", 32, 1, 4096);
    s.network_.stem_stride = static_cast<int>(n.IntegerOr("stem_stride", 2, 1, 2));
    s.network_.head_filters = n.IntegerOr("head_filters", 1280, 0, 16384);
    const std::string shortcut = n.StringOr("shortcut", "identity");
    if (shortcut != "identity" && shortcut != "projection") {
      n.Fail("shortcut", "unknown shortcut '" + shortcut +
                             "' (identity: only where shapes agree; projection: a 1x1 conv + BN "
                             "where they differ)");
    }
    s.network_.projection_shortcut = shortcut == "projection";
    s.network_.num_classes = static_cast<int>(n.IntegerOr("num_classes", 1000, 2, 100000));
    const std::string act = n.StringOr("activation", "swish");
    if (act == "relu") {
      s.network_.activation = models::Activation::kRelu;
    } else if (act == "swish" || act == "silu") {
      s.network_.activation = models::Activation::kSwish;
    } else {
      n.Fail("activation", "unknown activation '" + act + "' (relu, swish)");
    }
    s.network_.se_coefficient = n.NumberOr("se_coefficient", 1.0, 0.0, 16.0);
    s.network_.dropout = n.NumberOr("dropout", 0.2, 0.0, 0.9);
    n.Finish();
  }
  if (top.Has("proxy")) {
    ConfigReader p = top.Map("proxy");
    s.proxy_.resolution = static_cast<int>(p.IntegerOr("resolution", 32, 8, 512));
    s.proxy_.in_channels = static_cast<int>(p.IntegerOr("in_channels", 1, 1, 4));
    s.proxy_.num_classes = static_cast<int>(p.IntegerOr("num_classes", 10, 2, 100000));
    s.proxy_.removed_downsamples = static_cast<int>(p.IntegerOr("removed_downsamples", 1, 0, 6));
    s.proxy_.width = p.NumberOr("width", 0.25, 0.05, 4.0);
    p.Finish();
  }
  RawChoices defaults;
  if (top.Has("defaults")) ReadChoiceMap(top.Map("defaults"), defaults);

  std::vector<ConfigReader> stages = top.MapList("stages");
  const YAML::Node stage_nodes = top.Raw("stages");
  for (size_t i = 0; i < stages.size(); ++i) {
    ConfigReader& st = stages[i];
    StageSkeleton sk;
    sk.stride = static_cast<int>(st.Integer("stride", 1, 2));
    sk.filters = st.Integer("filters", 1, 16384);
    sk.repeats = static_cast<int>(st.Integer("repeats", 1, 64));
    sk.per_layer = st.BoolOr("per_layer", false);
    const std::string stage_name = st.StringOr("name", "stage" + std::to_string(i + 1));
    RawChoices merged = defaults;
    if (st.Has("choices")) {
      RawChoices own;
      ReadChoiceMap(st.Map("choices"), own);
      MergeChoices(own, defaults, merged);
    }
    RawChoices first = merged;
    if (st.Has("first_layer")) {
      if (!sk.per_layer || sk.repeats < 2) {
        st.Fail("first_layer", "needs a per-layer stage of at least 2 layers (per_layer: true)");
      }
      RawChoices own;
      ReadChoiceMap(st.Map("first_layer"), own);
      MergeChoices(own, merged, first);
      sk.own_first_layer = true;
    }
    st.Finish();
    const int units = sk.per_layer ? sk.repeats : 1;
    for (int l = 0; l < units; ++l) {
      Unit u;
      u.stage = static_cast<int>(i);
      u.layer = sk.per_layer ? l : -1;
      u.name = sk.per_layer ? stage_name + ".layer" + std::to_string(l + 1) : stage_name;
      BuildUnit(l == 0 ? first : merged, st, u);
      bool has_s2d = u.fixed.space_to_depth.value_or(false);
      bool has_delta = u.fixed.repeats_delta.value_or(0) != 0;
      for (const auto& c : u.choices) {
        for (const auto& v : c.values) {
          has_s2d = has_s2d || v.space_to_depth.value_or(false);
          has_delta = has_delta || v.repeats_delta.value_or(0) != 0;
        }
      }
      if (has_s2d && (i != 0 || sk.per_layer)) {
        st.Fail("choices.space_to_depth",
                "space-to-depth is allowed on the first stage only (and not per layer)");
      }
      if (has_s2d && (stages.size() < 2 || stage_nodes[1]["stride"].as<int>(1) != 2)) {
        st.Fail("choices.space_to_depth", "needs a stride-2 second stage to absorb");
      }
      if (has_delta && sk.per_layer) {
        st.Fail("choices.repeats_delta",
                "a per-layer stage has a fixed number of layers (use block: skip to let a layer "
                "vanish)");
      }
      s.units_.push_back(std::move(u));
    }
    s.stages_.push_back(sk);
  }
  top.Finish();
  s.Finalize();
  return s;
}

void Space::Finalize() {
  offsets_.clear();
  choice_counts_.clear();
  choice_names_.clear();
  std::ostringstream def;
  def << name_ << "|net " << network_.resolution << " " << network_.stem_filters << " "
      << network_.head_filters << " " << models::ActivationName(network_.activation) << " "
      << network_.se_coefficient << " " << network_.dropout << "|proxy " << proxy_.resolution << " "
      << proxy_.in_channels << " " << proxy_.num_classes << " " << proxy_.removed_downsamples << " "
      << proxy_.width;
  // Settings added later go in only when they differ from their default, so the fingerprints of
  // spaces (and of the accuracy data that carries them) written before stay valid.
  if (network_.stem_stride != 2) def << "|stem_stride " << network_.stem_stride;
  if (network_.num_classes != 1000) def << "|classes " << network_.num_classes;
  if (network_.projection_shortcut) def << "|projection";
  for (const auto& st : stages_) {
    def << "|stage " << st.stride << " " << st.filters << " " << st.repeats << " " << st.per_layer;
    if (st.own_first_layer) def << " own_first";
  }
  for (const auto& u : units_) {
    offsets_.push_back(choice_counts_.size());
    def << "|unit " << u.name << " fixed{" << u.fixed.Label() << "}";
    for (const auto& c : u.choices) {
      choice_counts_.push_back(static_cast<int>(c.values.size()));
      choice_names_.push_back(u.name + "." + c.key);
      def << " " << c.key << "[";
      for (const auto& v : c.values) def << v.Label() << ";";
      def << "]";
    }
  }
  char hex[17];
  std::snprintf(hex, sizeof(hex), "%016llx", static_cast<unsigned long long>(Fnv1a(def.str())));
  fingerprint_ = hex;
  base_.clear();
  for (const auto& u : units_) {
    LayerPatch base;
    base.repeats_delta = 0;
    base.filters_multiplier = 1.0;
    base.space_to_depth = false;
    u.fixed.ApplyTo(base);
    base_.push_back(base);
  }
  alias_.clear();
  for (const auto& u : units_) {
    const int64_t filters = stages_.at(static_cast<size_t>(u.stage)).filters;
    for (const auto& c : u.choices) {
      std::vector<int> alias(c.values.size());
      for (size_t v = 0; v < c.values.size(); ++v) {
        alias[v] = static_cast<int>(v);
        for (size_t w = 0; w < v; ++w) {
          if (SameNetwork(c.values[w], c.values[v], filters)) {
            alias[v] = static_cast<int>(w);
            break;
          }
        }
      }
      alias_.push_back(std::move(alias));
    }
  }
}

double Space::RawSize() const {
  double n = 1.0;
  for (int c : choice_counts_) n *= c;
  return n;
}

double Space::CanonicalSize() const {
  // Per unit: the distinct networks of its choice combinations that keep the layer, and whether
  // one skips it (a skipped layer is one network whatever its other choices).
  struct UnitCount {
    double kept = 0.0;
    bool skips = false;
  };
  auto count_unit = [&](size_t u) {
    UnitCount n;
    std::vector<int> idx(units_[u].choices.size(), 0);
    while (true) {
      Encoding e(choice_counts_.size(), 0);
      for (size_t c = 0; c < idx.size(); ++c) e[offsets_[u] + c] = idx[c];
      // No value aliases an earlier one and no choice is one the block ignores.
      bool first_of_its_network = true;
      for (size_t c = 0; c < idx.size(); ++c) {
        if (alias_[offsets_[u] + c][static_cast<size_t>(idx[c])] != idx[c]) {
          first_of_its_network = false;
        }
      }
      Encoding zeroed = e;
      ZeroIgnored(e, u, zeroed);
      if (UnitBlock(e, u) == BlockType::kSkip) {
        n.skips = true;
      } else if (first_of_its_network && zeroed == e) {
        n.kept += 1.0;
      }
      size_t c = 0;
      for (; c < idx.size(); ++c) {
        if (++idx[c] < static_cast<int>(units_[u].choices[c].values.size())) break;
        idx[c] = 0;
      }
      if (c == idx.size()) return n;
    }
  };
  // Per-layer stages: skipped layers move to the end, so L layers of one kind give the distinct
  // sequences of k kept layers, k from (skips ? 0 : L) to L.
  auto sequences = [](const UnitCount& n, size_t layers) {
    double count = 0.0;
    for (size_t k = n.skips ? 0 : layers; k <= layers; ++k) count += std::pow(n.kept, k);
    return count;
  };
  double total = 1.0;
  size_t u = 0;
  while (u < units_.size()) {
    const int stage = units_[u].stage;
    size_t end = u;
    while (end < units_.size() && units_[end].stage == stage) ++end;
    size_t rest = u;
    if (stages_[static_cast<size_t>(stage)].own_first_layer) {
      const UnitCount first = count_unit(u);
      total *= first.kept + (first.skips ? 1.0 : 0.0);
      rest = u + 1;
    }
    if (rest < end) total *= sequences(count_unit(rest), end - rest);
    u = end;
  }
  return total;
}

Space::ValidCount Space::ValidSize(double enumerate_limit, int samples) const {
  ValidCount n;
  if (RawSize() <= enumerate_limit) {
    std::set<Encoding> seen;
    size_t valid_raw = 0;
    Encoding e(choice_counts_.size(), 0);
    while (true) {
      const Encoding c = Canonical(e);
      const bool valid = IsValid(c);
      valid_raw += valid ? 1 : 0;
      if (valid) seen.insert(c);
      size_t i = 0;
      for (; i < e.size(); ++i) {
        if (++e[i] < choice_counts_[i]) break;
        e[i] = 0;
      }
      if (i == e.size()) break;
    }
    n.networks = static_cast<double>(seen.size());
    n.valid_fraction = static_cast<double>(valid_raw) / RawSize();
    n.exact = true;
    return n;
  }
  std::mt19937_64 rng(0);
  int valid = 0;
  for (int s = 0; s < samples; ++s) {
    Encoding e(choice_counts_.size());
    for (size_t i = 0; i < e.size(); ++i) {
      e[i] = static_cast<int>(rng() % static_cast<uint64_t>(choice_counts_[i]));
    }
    valid += IsValid(e) ? 1 : 0;
  }
  n.valid_fraction = samples > 0 ? static_cast<double>(valid) / samples : 1.0;
  n.networks = CanonicalSize() * n.valid_fraction;
  return n;
}

LayerPatch Space::Resolve(const Encoding& e, size_t unit) const {
  LayerPatch r = base_[unit];
  const Unit& u = units_[unit];
  for (size_t c = 0; c < u.choices.size(); ++c) {
    const int v = e[offsets_[unit] + c];
    u.choices[c].values[static_cast<size_t>(v)].ApplyTo(r);
  }
  return r;
}

BlockType Space::UnitBlock(const Encoding& e, size_t unit) const {
  const Unit& u = units_[unit];
  for (size_t c = u.choices.size(); c-- > 0;) {
    const LayerPatch& v = u.choices[c].values[static_cast<size_t>(e[offsets_[unit] + c])];
    if (v.block) return *v.block;
  }
  return *base_[unit].block;
}

Encoding Space::Canonical(const Encoding& e) const {
  if (e.size() != choice_counts_.size()) {
    throw InputError("encoding has " + std::to_string(e.size()) + " choices, space '" + name_ +
                     "' has " + std::to_string(choice_counts_.size()));
  }
  for (size_t i = 0; i < e.size(); ++i) {
    if (e[i] < 0 || e[i] >= choice_counts_[i]) {
      throw InputError("encoding: choice " + choice_names_[i] + " = " + std::to_string(e[i]) +
                       " out of range [0, " + std::to_string(choice_counts_[i] - 1) + "]");
    }
  }
  Encoding out = e;
  // Values that give the same network as an earlier value of their choice become that value.
  for (size_t i = 0; i < out.size(); ++i) out[i] = alias_[i][static_cast<size_t>(out[i])];
  // Zero the choices whose fields do not matter for the unit's block (a skipped layer, a conv).
  for (size_t u = 0; u < units_.size(); ++u) ZeroIgnored(e, u, out);
  // Per-layer stages: skipped layers move to the stage's end (after a first layer with choices of
  // its own, which stays).
  size_t u = 0;
  while (u < units_.size()) {
    size_t end = u;
    while (end < units_.size() && units_[end].stage == units_[u].stage) ++end;
    if (stages_[static_cast<size_t>(units_[u].stage)].own_first_layer) ++u;
    bool skipped_before_kept = false;
    for (size_t l = u, skipped = 0; l < end && units_[u].layer >= 0; ++l) {
      const bool skip = UnitBlock(out, l) == BlockType::kSkip;
      skipped_before_kept |= !skip && skipped > 0;
      skipped += skip ? 1 : 0;
    }
    if (skipped_before_kept) {
      // The kept layers' choices, then the skipped ones', each in order, into the stage's units.
      const size_t width = units_[u].choices.size();
      const std::vector<int> was = out;
      size_t to = u;
      for (const bool skips : {false, true}) {
        for (size_t l = u; l < end; ++l) {
          if ((UnitBlock(was, l) == BlockType::kSkip) != skips) continue;
          std::copy_n(was.begin() + static_cast<long>(offsets_[l]), width,
                      out.begin() + static_cast<long>(offsets_[to++]));
        }
      }
    }
    u = end;
  }
  return out;
}

void Space::ZeroIgnored(const Encoding& e, size_t u, Encoding& out) const {
  const BlockType block = UnitBlock(e, u);
  if (block != BlockType::kSkip && block != BlockType::kConv && block != BlockType::kBasic &&
      block != BlockType::kBottleneck) {
    return;
  }
  // A skipped layer ignores everything but its block; a plain conv its expansion, squeeze-excite,
  // activation and hidden width; a residual block its squeeze-excite.
  static const std::vector<std::string> kConvIgnores = {"expand", "se", "activation", "hidden"};
  static const std::vector<std::string> kResidualIgnores = {"se"};
  const std::vector<std::string>& ignores =
      block == BlockType::kConv ? kConvIgnores : kResidualIgnores;
  for (size_t c = 0; c < units_[u].choices.size(); ++c) {
    const auto& fields = units_[u].choices[c].fields;
    bool ignored = true;
    for (const std::string& f : fields) {
      ignored = ignored && (block == BlockType::kSkip
                                ? f != "block"
                                : std::find(ignores.begin(), ignores.end(), f) != ignores.end());
    }
    if (ignored) out[offsets_[u] + c] = 0;
  }
}

std::string Space::DecodeCanonical(const Encoding& e, std::vector<models::BlockArgs>& blocks,
                                   Decoded* text) const {
  blocks.clear();
  int64_t in_filters = network_.stem_filters;
  bool next_d2 = false;
  size_t u = 0;
  for (size_t s = 0; s < stages_.size(); ++s) {
    const StageSkeleton& sk = stages_[s];
    size_t end = u;
    while (end < units_.size() && units_[end].stage == static_cast<int>(s)) ++end;
    const bool d2 = next_d2;
    next_d2 = false;
    const size_t stage_start = blocks.size();
    std::string ops;
    int64_t out_filters = in_filters;
    for (size_t l = u; l < end; ++l) {
      const LayerPatch r = Resolve(e, l);
      const std::string& where = units_[l].name;
      const int64_t out =
          r.filters ? *r.filters : models::RoundFilters(sk.filters, *r.filters_multiplier);
      if (*r.block == BlockType::kSkip) {
        if (*r.space_to_depth) {
          return where + ".space_to_depth: a skipped stage cannot do space-to-depth";
        }
        continue;
      }
      models::BlockArgs a;
      a.num_repeat = sk.repeats + *r.repeats_delta;
      if (sk.per_layer) a.num_repeat = 1;
      if (a.num_repeat < 1) {
        return where + ".repeats_delta: " + std::to_string(sk.repeats) + " + (" +
               std::to_string(*r.repeats_delta) + ") leaves no layer in the stage";
      }
      const bool first = blocks.size() == stage_start;
      const bool conv = *r.block == BlockType::kConv;
      const bool residual = *r.block == BlockType::kBasic || *r.block == BlockType::kBottleneck;
      a.kernel = *r.kernel;
      a.stride = first ? sk.stride : 1;
      a.expand_ratio = conv ? 1.0 : r.expand.value_or(1.0);
      a.input_filters = out_filters;  // the previous layer's width (per-layer widths may differ)
      a.output_filters = out;
      if (!conv && !residual && r.se.value_or(0.0) > 0.0) a.se_ratio = *r.se;
      a.fused = *r.block == BlockType::kFused;
      if (conv) a.conv_type = 2;
      if (*r.block == BlockType::kBasic) a.conv_type = 3;
      if (*r.block == BlockType::kBottleneck) a.conv_type = 4;
      if (!conv) a.activation = r.activation;
      if (!conv && r.hidden) a.hidden_filters = *r.hidden;
      a.projection = network_.projection_shortcut && !conv;
      if (first && *r.space_to_depth) {
        a.space2depth = 1;
        next_d2 = true;
      } else if (first && d2) {
        a.space2depth = 2;
      }
      if (text == nullptr) {
        // no stage ops to describe
      } else if (first && ops.empty()) {
        std::ostringstream o;
        o << BlockTypeName(*r.block) << " k" << a.kernel;
        if (!conv) {
          o << " e" << FormatSignificant(a.expand_ratio) << " se"
            << FormatSignificant(r.se.value_or(0.0)) << " "
            << models::ActivationName(r.activation.value_or(network_.activation));
        }
        if (a.hidden_filters > 0) o << " h" << a.hidden_filters;
        o << " o" << out;
        if (!sk.per_layer) o << " x" << a.num_repeat;
        if (a.space2depth == 1) o << " s2d";
        ops = o.str();
      } else if (sk.per_layer) {
        ops += " | " + BlockTypeName(*r.block) + " k" + std::to_string(a.kernel);
        if (!conv) ops += " e" + FormatSignificant(a.expand_ratio);
        if (a.hidden_filters > 0) ops += " h" + std::to_string(a.hidden_filters);
        if (out != out_filters) ops += " o" + std::to_string(out);
      }
      blocks.push_back(a);
      out_filters = out;
    }
    if (blocks.size() == stage_start) {
      // The whole stage vanished: only possible when it changes neither size nor width.
      const LayerPatch& fixed = units_[u].fixed;
      const int64_t out =
          fixed.filters ? *fixed.filters
                        : models::RoundFilters(sk.filters, fixed.filters_multiplier.value_or(1.0));
      if (sk.stride != 1 || out != in_filters || d2) {
        return units_[u].name +
               ".block: skipping every layer of a stage that changes the stride or the filters (" +
               std::to_string(in_filters) + " -> " + std::to_string(out) + ", stride " +
               std::to_string(sk.stride) + ")";
      }
      if (text != nullptr) text->stage_ops.emplace_back("skip");
      u = end;
      continue;
    }
    // Spatial size after the stage: a space-to-depth pair moves the stage-2 downsampling into
    // stage 1, which leaves the total unchanged.
    if (text != nullptr) {
      for (size_t b = stage_start; b < blocks.size(); ++b) {
        text->block_stages.push_back(static_cast<int>(s));
        text->layers += blocks[b].num_repeat;
      }
      text->stage_ops.push_back(ops);
    }
    in_filters = out_filters;
    u = end;
  }
  return {};
}

Decoded Space::Decode(const Encoding& raw) const {
  Decoded d;
  const std::string error = DecodeCanonical(Canonical(raw), d.args, &d);
  if (!error.empty()) throw InputError(error);
  d.blocks = models::EncodeBlockStrings(d.args);
  return d;
}

std::vector<models::BlockArgs> Space::DecodeBlocks(const Encoding& raw) const {
  std::vector<models::BlockArgs> blocks;
  const std::string error = DecodeCanonical(Canonical(raw), blocks, nullptr);
  if (!error.empty()) throw InputError(error);
  return blocks;
}

bool Space::IsValid(const Encoding& e) const {
  try {
    std::vector<models::BlockArgs> blocks;
    return DecodeCanonical(Canonical(e), blocks, nullptr).empty();
  } catch (const InputError&) {
    return false;
  }
}

std::string Space::ToText(const Encoding& e) const {
  if (e.size() != choice_counts_.size()) {
    throw InputError("encoding has " + std::to_string(e.size()) + " choices, space '" + name_ +
                     "' has " + std::to_string(choice_counts_.size()));
  }
  std::string text;
  text.reserve(2 * e.size() + units_.size());
  for (size_t u = 0; u < units_.size(); ++u) {
    if (u > 0) text += '_';
    if (units_[u].choices.empty()) text += '-';
    for (size_t c = 0; c < units_[u].choices.size(); ++c) {
      if (c > 0) text += '.';
      text += Base36(e[offsets_[u] + c]);
    }
  }
  return text;
}

Encoding Space::FromText(const std::string& text) const {
  const std::vector<std::string> groups = Split(text, '_');
  if (groups.size() != units_.size()) {
    throw InputError("encoding '" + text + "': " + std::to_string(groups.size()) +
                     " groups, space '" + name_ + "' has " + std::to_string(units_.size()) +
                     " units (stages/layers)");
  }
  Encoding e;
  for (size_t u = 0; u < units_.size(); ++u) {
    const size_t n = units_[u].choices.size();
    if (n == 0) {
      if (groups[u] != "-") {
        throw InputError("encoding '" + text + "': unit " + units_[u].name +
                         " has no choices (expected '-')");
      }
      continue;
    }
    const std::vector<std::string> parts = Split(groups[u], '.');
    if (parts.size() != n) {
      throw InputError("encoding '" + text + "': unit " + units_[u].name + " has " +
                       std::to_string(n) + " choices, got " + std::to_string(parts.size()));
    }
    for (size_t c = 0; c < n; ++c) {
      int v = 0;
      if (parts[c].empty()) throw InputError("encoding '" + text + "': empty index");
      for (char ch : parts[c]) {
        int digit = -1;
        if (ch >= '0' && ch <= '9') digit = ch - '0';
        if (ch >= 'a' && ch <= 'z') digit = ch - 'a' + 10;
        if (digit < 0 || v > 10000) {
          throw InputError("encoding '" + text + "': bad index '" + parts[c] + "' for " +
                           units_[u].name + "." + units_[u].choices[c].key);
        }
        v = v * 36 + digit;
      }
      if (v >= static_cast<int>(units_[u].choices[c].values.size())) {
        throw InputError("encoding '" + text + "': " + units_[u].name + "." +
                         units_[u].choices[c].key + " = " + parts[c] + " out of range (" +
                         std::to_string(units_[u].choices[c].values.size()) + " values)");
      }
      e.push_back(v);
    }
  }
  return e;
}

models::BlockNetworkSpec Space::NetworkSpec(const Encoding& e, const Scaling& scaling) const {
  if (!(scaling.depth > 0.0) || !(scaling.width > 0.0) || !(scaling.resolution > 0.0) ||
      !std::isfinite(scaling.depth) || !std::isfinite(scaling.width) ||
      !std::isfinite(scaling.resolution)) {
    throw InputError("scaling coefficients must be positive and finite");
  }
  models::BlockNetworkSpec spec;
  spec.blocks = DecodeBlocks(e);
  spec.width = scaling.width;
  spec.depth = scaling.depth;
  spec.resolution = std::max(
      8, static_cast<int>(std::lround(network_.resolution * scaling.resolution / 8.0)) * 8);
  spec.dropout = network_.dropout;
  spec.se_coefficient = network_.se_coefficient;
  spec.default_activation = network_.activation;
  spec.stem_filters = network_.stem_filters;
  spec.stem_stride = network_.stem_stride;
  spec.head_filters = network_.head_filters;
  return spec;
}

models::BlockNetworkLayout Space::LayoutFull(const Encoding& e, const Scaling& scaling,
                                             const models::BuildOptions& options) const {
  const models::BlockNetworkSpec spec = NetworkSpec(e, scaling);
  models::BuildOptions o = options;
  o.resolution = spec.resolution;
  o.num_classes = network_.num_classes;
  return models::LayoutBlockNetwork(spec, o);
}

models::Graph Space::BuildFull(const Encoding& e, const Scaling& scaling,
                               const models::BuildOptions& options) const {
  return models::BuildBlockNetwork(name_ + ":" + ToText(Canonical(e)),
                                   LayoutFull(e, scaling, options));
}

int Space::ProxyResolution(int base, const Scaling& scaling) {
  return std::max(8, static_cast<int>(std::lround(base * scaling.resolution / 4.0)) * 4);
}

models::Graph Space::BuildProxy(const Encoding& e, const Scaling& scaling) const {
  return BuildProxy(e, scaling, proxy_);
}

models::Graph Space::BuildProxy(const Encoding& e, const Scaling& scaling,
                                const ProxySettings& proxy) const {
  const models::BlockNetworkSpec spec = NetworkSpec(e, scaling);
  models::BuildOptions o;
  o.resolution = ProxyResolution(proxy.resolution, scaling);
  o.in_channels = proxy.in_channels;
  o.num_classes = proxy.num_classes;
  o.proxy_removed_downsamples = proxy.removed_downsamples;
  o.width_scale = proxy.width;
  return models::BuildBlockNetwork(name_ + ":" + ToText(Canonical(e)), spec, o);
}

Encoding Space::Sample(std::mt19937_64& rng) const {
  for (int draw = 0; draw < kMaxDraws; ++draw) {
    Encoding e(choice_counts_.size());
    for (size_t i = 0; i < e.size(); ++i) {
      e[i] = static_cast<int>(rng() % static_cast<uint64_t>(choice_counts_[i]));
    }
    e = Canonical(e);
    if (IsValid(e)) return e;
  }
  throw InputError(file_ + ": no valid architecture in " + std::to_string(kMaxDraws) +
                   " random draws (check the space's constraints)");
}

Encoding Space::Mutate(const Encoding& base, int k, std::mt19937_64& rng) const {
  const Encoding start = Canonical(base);
  std::vector<size_t> mutable_pos;
  for (size_t i = 0; i < choice_counts_.size(); ++i) {
    if (choice_counts_[i] > 1) mutable_pos.push_back(i);
  }
  if (mutable_pos.empty() || k <= 0) return start;
  k = std::min<int>(k, static_cast<int>(mutable_pos.size()));
  for (int attempt = 0; attempt < kMaxRetries; ++attempt) {
    Encoding e = start;
    std::vector<size_t> pos = mutable_pos;
    for (int j = 0; j < k; ++j) {
      const size_t pick = j + rng() % (pos.size() - static_cast<size_t>(j));
      std::swap(pos[static_cast<size_t>(j)], pos[pick]);
      const size_t p = pos[static_cast<size_t>(j)];
      const int other = static_cast<int>(rng() % static_cast<uint64_t>(choice_counts_[p] - 1));
      e[p] = other >= e[p] ? other + 1 : other;
    }
    e = Canonical(e);
    if (e != start && IsValid(e)) return e;
  }
  return start;
}

Encoding Space::Crossover(const Encoding& a, const Encoding& b, std::mt19937_64& rng) const {
  const Encoding ca = Canonical(a);
  const Encoding cb = Canonical(b);
  for (int attempt = 0; attempt < kMaxRetries; ++attempt) {
    Encoding e(ca.size());
    for (size_t i = 0; i < e.size(); ++i) e[i] = (rng() & 1U) ? ca[i] : cb[i];
    e = Canonical(e);
    if (IsValid(e)) return e;
  }
  return ca;
}

std::vector<std::string> FeatureNames(const Space& space) {
  std::vector<std::string> names;
  size_t pos = 0;
  for (const auto& u : space.units()) {
    for (const auto& c : u.choices) {
      for (const auto& v : c.values) names.push_back(u.name + "." + c.key + "=" + v.Label());
      ++pos;
    }
  }
  for (const char* f : {"log10_params", "log10_flops", "layers", "resolution", "depth_coefficient",
                        "width_coefficient", "resolution_coefficient"}) {
    names.emplace_back(f);
  }
  return names;
}

void AppendFeatures(const Space& space, const Encoding& raw, const Scaling& scaling, double params,
                    double flops, FeatureSet& out) {
  if (out.names.empty()) out.names = FeatureNames(space);
  const Encoding e = space.Canonical(raw);
  const size_t start = out.values.size();
  out.values.resize(start + out.names.size(), 0.0F);
  size_t col = 0;
  for (size_t i = 0; i < e.size(); ++i) {
    out.values[start + col + static_cast<size_t>(e[i])] = 1.0F;
    col += static_cast<size_t>(space.choice_counts()[i]);
  }
  const models::BlockNetworkSpec spec = space.NetworkSpec(e, scaling);
  int layers = 0;
  for (const models::BlockArgs& b : spec.blocks) {
    layers += models::RoundRepeats(b.num_repeat, scaling.depth);
  }
  out.values[start + col++] = static_cast<float>(std::log10(std::max(params, 1.0)));
  out.values[start + col++] = static_cast<float>(std::log10(std::max(flops, 1.0)));
  out.values[start + col++] = static_cast<float>(layers);
  out.values[start + col++] = static_cast<float>(spec.resolution);
  out.values[start + col++] = static_cast<float>(scaling.depth);
  out.values[start + col++] = static_cast<float>(scaling.width);
  out.values[start + col++] = static_cast<float>(scaling.resolution);
  out.rows += 1;
}

namespace {

// Blocks with the activation made explicit (`fallback` where a block has none).
std::vector<models::BlockArgs> ExplicitBlocks(std::vector<models::BlockArgs> blocks,
                                              models::Activation fallback) {
  for (models::BlockArgs& a : blocks) {
    if (!a.activation) a.activation = fallback;
  }
  return blocks;
}

size_t MatchedPrefix(const std::vector<models::BlockArgs>& a,
                     const std::vector<models::BlockArgs>& b) {
  size_t n = 0;
  while (n < a.size() && n < b.size() && a[n] == b[n]) ++n;
  return n;
}

}  // namespace

std::optional<SpaceMatch> FindEncoding(const Space& space, const models::BlockNetworkSpec& target) {
  const std::vector<models::BlockArgs> want =
      ExplicitBlocks(target.blocks, target.default_activation);
  const models::Activation own = space.network().activation;
  const std::vector<Unit>& units = space.units();
  std::vector<size_t> offsets;
  for (size_t u = 0, o = 0; u < units.size(); o += units[u].choices.size(), ++u) {
    offsets.push_back(o);
  }
  // Calls f(e) for every combination of unit u's values (the rest of e unchanged); stops when f
  // returns true.
  auto for_each_combination = [&](Encoding& e, size_t u, const auto& f) {
    std::vector<int> idx(units[u].choices.size(), 0);
    while (true) {
      for (size_t c = 0; c < idx.size(); ++c) e[offsets[u] + c] = idx[c];
      if (f(e)) return;
      size_t c = 0;
      for (; c < idx.size(); ++c) {
        if (++idx[c] < static_cast<int>(units[u].choices[c].values.size())) break;
        idx[c] = 0;
      }
      if (c == idx.size()) return;
    }
  };
  auto is_skip = [&](const Encoding& e, size_t u) {
    return space.UnitFields(e, u).block == BlockType::kSkip;
  };
  // Start from a valid architecture, so the units not yet matched decode. Unit by unit, only the
  // blocks of its stage and the earlier ones count, and the later layers of its stage are skipped
  // where they can be, so no later unit's block stands in for this one's.
  std::mt19937_64 rng(0);
  Encoding e = space.Sample(rng);
  size_t matched = 0;
  for (size_t u = 0; u < units.size(); ++u) {
    const int stage = units[u].stage;
    for (size_t later = u + 1; later < units.size() && units[later].stage == stage; ++later) {
      const Encoding keep = e;
      bool found = false;
      for_each_combination(e, later, [&](const Encoding& x) { return found = is_skip(x, later); });
      if (!found) e = keep;
    }
    Encoding best = e;
    size_t best_matched = 0, best_blocks = 0;
    bool any = false;
    for_each_combination(e, u, [&](const Encoding& x) {
      try {
        const Decoded d = space.Decode(x);
        std::vector<models::BlockArgs> upto;
        for (size_t b = 0; b < d.args.size() && d.block_stages[b] <= stage; ++b) {
          upto.push_back(d.args[b]);
        }
        const auto blocks = ExplicitBlocks(upto, own);
        // A unit adds at most one block (string) to the match.
        const size_t m = std::min(MatchedPrefix(blocks, want), matched + 1);
        // Ties: where the unit's block matches, the unit that keeps its layer; where nothing
        // matches (a layer the target does not have), the unit that skips it.
        const bool better =
            m > best_matched || (m == best_matched && (m > matched ? blocks.size() > best_blocks
                                                                   : blocks.size() < best_blocks));
        if (!any || better) {
          best = x;
          best_matched = m;
          best_blocks = blocks.size();
          any = true;
        }
      } catch (const InputError&) {
        // an invalid combination: not the target
      }
      return false;
    });
    if (!any || best_matched < matched) return std::nullopt;
    e = best;
    matched = best_matched;
  }
  if (matched != want.size() || space.DecodeBlocks(e).size() != want.size()) {
    return std::nullopt;
  }
  SpaceMatch match{space.Canonical(e), true, {}};
  const NetworkSettings& n = space.network();
  auto differ = [&](bool same, const std::string& what) {
    if (!same) match.differences.push_back(what);
  };
  differ(n.activation == target.default_activation,
         "stem/head activation " + std::string(models::ActivationName(n.activation)) +
             " (the network's " + std::string(models::ActivationName(target.default_activation)) +
             ")");
  differ(n.se_coefficient == target.se_coefficient,
         "SE coefficient " + FormatSignificant(n.se_coefficient) + " (the network's " +
             FormatSignificant(target.se_coefficient) + ")");
  differ(n.stem_filters == target.stem_filters, "stem filters " + std::to_string(n.stem_filters) +
                                                    " (the network's " +
                                                    std::to_string(target.stem_filters) + ")");
  differ(n.head_filters == target.head_filters, "head filters " + std::to_string(n.head_filters) +
                                                    " (the network's " +
                                                    std::to_string(target.head_filters) + ")");
  differ(n.resolution == target.resolution, "resolution " + std::to_string(n.resolution) +
                                                " (the network's " +
                                                std::to_string(target.resolution) + ")");
  differ(target.width == 1.0 && target.depth == 1.0, "compound scaling w" +
                                                         FormatSignificant(target.width) + " d" +
                                                         FormatSignificant(target.depth));
  match.exact = match.differences.empty();
  return match;
}

namespace {

// Every field `patch` sets has the value `want` has.
bool Agrees(const LayerPatch& patch, const LayerPatch& want) {
  auto same = [](const auto& p, const auto& w) { return !p || p == w; };
  return same(patch.block, want.block) && same(patch.kernel, want.kernel) &&
         same(patch.expand, want.expand) && same(patch.se, want.se) &&
         same(patch.activation, want.activation) && same(patch.repeats_delta, want.repeats_delta) &&
         same(patch.filters_multiplier, want.filters_multiplier) &&
         same(patch.space_to_depth, want.space_to_depth) && same(patch.filters, want.filters) &&
         same(patch.hidden, want.hidden);
}

}  // namespace

std::optional<Encoding> ProjectEncoding(const Space& from, const Space& to, const Encoding& e) {
  const Encoding source = from.Canonical(e);
  if (from.units().size() != to.units().size()) return std::nullopt;
  Encoding out;
  out.reserve(to.vector_length());
  for (size_t u = 0; u < to.units().size(); ++u) {
    const Unit& unit = to.units()[u];
    if (unit.stage != from.units()[u].stage || unit.layer != from.units()[u].layer) {
      return std::nullopt;
    }
    const LayerPatch want = from.UnitFields(source, u);
    if (!Agrees(unit.fixed, want)) return std::nullopt;
    const bool skipped = want.block == BlockType::kSkip;
    for (const Choice& c : unit.choices) {
      const bool sets_block =
          std::find(c.fields.begin(), c.fields.end(), "block") != c.fields.end();
      if (skipped && !sets_block) {  // a skipped layer's other choices do not matter
        out.push_back(0);
        continue;
      }
      size_t v = 0;
      while (v < c.values.size() && !Agrees(c.values[v], want)) ++v;
      if (v == c.values.size()) return std::nullopt;
      out.push_back(static_cast<int>(v));
    }
  }
  if (!to.IsValid(out)) return std::nullopt;
  return to.Canonical(out);
}

}  // namespace dcnas::space
