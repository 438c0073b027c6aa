#include "surrogate/arch_features.h"

#include <algorithm>
#include <cmath>
#include <set>

#include "common/errors.h"
#include "common/file_io.h"
#include "common/text.h"
#include "proxy/zero_cost_table.h"

namespace dcnas::surrogate {
namespace {

const std::vector<std::string> kSets = {"onehot", "counts", "graph", "zero-cost"};
constexpr int kLevels = 6;  // outputs at 1/1 .. 1/32 of the input resolution

double Log10(double v) { return std::log10(std::max(v, 0.0) + 1.0); }

// The zero-cost features: log10 of the scores that span decades, NASWOT (already a log) as is.
std::array<double, 4> ZeroCostValues(const std::array<double, 4>& s) {
  return {std::log10(std::max(s[0], 1e-30)), s[1], std::log10(std::max(s[2], 1e-30)),
          std::log10(std::max(s[3], 1e-30))};
}

}  // namespace

const std::vector<std::string>& FeatureSetNames() { return kSets; }

FeatureSpec FeatureSpec::Parse(const std::string& text) {
  FeatureSpec spec;
  spec.sets.clear();
  for (const std::string& raw : Split(text, ',')) {
    const std::string name = raw;
    if (std::find(kSets.begin(), kSets.end(), name) == kSets.end()) {
      throw InputError("--features: unknown feature set '" + name + "' (" + Join(kSets, ", ") +
                       ")");
    }
    if (spec.Has(name)) throw InputError("--features: '" + name + "' given twice");
    spec.sets.push_back(name);
  }
  if (spec.sets.empty()) throw InputError("--features: no feature set (" + Join(kSets, ", ") + ")");
  return spec;
}

std::string FeatureSpec::Text() const { return Join(sets, ","); }

bool FeatureSpec::Has(const std::string& set) const {
  return std::find(sets.begin(), sets.end(), set) != sets.end();
}

void ReadZeroCostTable(const std::string& path, const space::Space& space, FeatureSpec& spec) {
  spec.zero_cost.clear();
  for (const auto& [encoding, entry] : proxy::ReadZeroCostTable(path, space)) {
    spec.zero_cost.emplace(encoding, entry.scores);
  }
  spec.zero_cost_file = path;
}

std::vector<std::string> GraphFeatureNames() {
  std::vector<std::string> names = {
      "graph.convs",          "graph.pointwise_convs", "graph.depthwise_convs",
      "graph.dense_layers",   "graph.residual_adds",   "graph.se_multiplies",
      "graph.pools",          "graph.weight_depth",    "graph.max_width",
      "graph.mean_width",     "graph.mean_kernel",     "graph.max_kernel",
      "graph.log10_act_bytes"};
  for (int l = 0; l < kLevels; ++l) {
    const std::string p = "graph.level" + std::to_string(l) + ".";
    for (const char* f : {"log10_params", "log10_flops", "log10_act_bytes", "convs", "max_width"}) {
      names.push_back(p + f);
    }
  }
  return names;
}

std::vector<double> GraphFeatures(const models::Graph& graph) {
  using models::OpKind;
  double convs = 0, pointwise = 0, depthwise = 0, dense = 0, adds = 0, muls = 0, pools = 0;
  double max_width = 0, width_sum = 0, kernel_sum = 0, kernel_n = 0, max_kernel = 0, act = 0;
  std::array<std::array<double, 5>, kLevels> level{};
  std::vector<double> depth(static_cast<size_t>(graph.size()), 0.0);
  double longest = 0;
  int64_t input_h = 0;
  for (const models::Op& op : graph.ops()) {
    if (op.kind == OpKind::kInput) input_h = std::max<int64_t>(input_h, op.out.shape.h);
  }
  for (const models::Op& op : graph.ops()) {
    const bool weighted = op.kind == OpKind::kConv2d || op.kind == OpKind::kFullyConnected;
    double d = 0;
    for (const int in : op.inputs) d = std::max(d, depth[static_cast<size_t>(in)]);
    depth[static_cast<size_t>(op.id)] = d + (weighted ? 1 : 0);
    longest = std::max(longest, depth[static_cast<size_t>(op.id)]);
    const models::OpCounts c = models::CountOp(graph, op);
    const int64_t h = op.out.shape.h;
    int l = 0;
    while (l + 1 < kLevels && h > 0 && input_h > 0 && (input_h >> (l + 1)) >= h) ++l;
    auto& lv = level[static_cast<size_t>(l)];
    lv[0] += static_cast<double>(c.params);
    lv[1] += static_cast<double>(c.flops);
    lv[2] += static_cast<double>(op.out.bytes());
    act += static_cast<double>(op.out.bytes());
    switch (op.kind) {
      case OpKind::kConv2d: {
        const auto out_c = static_cast<double>(op.attrs.out_channels);
        const bool dw = op.attrs.groups > 1 && op.attrs.groups == op.attrs.out_channels;
        const double k = std::max(op.attrs.kernel_h, op.attrs.kernel_w);
        if (dw) {
          depthwise += 1;
        } else if (k == 1) {
          pointwise += 1;
        } else {
          convs += 1;
        }
        if (k > 1) {
          kernel_sum += k;
          kernel_n += 1;
          max_kernel = std::max(max_kernel, k);
        }
        max_width = std::max(max_width, out_c);
        width_sum += out_c;
        lv[3] += 1;
        lv[4] = std::max(lv[4], out_c);
        break;
      }
      case OpKind::kFullyConnected:
        dense += 1;
        break;
      case OpKind::kAdd:
        adds += 1;
        break;
      case OpKind::kMul:
        muls += 1;
        break;
      case OpKind::kPool:
      case OpKind::kGlobalPool:
        pools += 1;
        break;
      default:
        break;
    }
  }
  const double all_convs = convs + pointwise + depthwise;
  std::vector<double> v = {convs,
                           pointwise,
                           depthwise,
                           dense,
                           adds,
                           muls,
                           pools,
                           longest,
                           max_width,
                           all_convs > 0 ? width_sum / all_convs : 0.0,
                           kernel_n > 0 ? kernel_sum / kernel_n : 1.0,
                           max_kernel,
                           Log10(act)};
  for (const auto& lv : level) {
    v.insert(v.end(), {Log10(lv[0]), Log10(lv[1]), Log10(lv[2]), lv[3], lv[4]});
  }
  return v;
}

std::vector<std::string> SurrogateFeatureNames(const space::Space& space, const FeatureSpec& spec) {
  const std::vector<std::string> base = space::FeatureNames(space);
  // space::FeatureNames is the one-hot columns followed by the 7 count columns.
  const size_t onehot = base.size() - 7;
  std::vector<std::string> names;
  for (const std::string& set : spec.sets) {
    if (set == "onehot") names.insert(names.end(), base.begin(), base.begin() + onehot);
    if (set == "counts") names.insert(names.end(), base.begin() + onehot, base.end());
    if (set == "graph") {
      const auto g = GraphFeatureNames();
      names.insert(names.end(), g.begin(), g.end());
    }
    if (set == "zero-cost") {
      for (const char* z : proxy::kZeroCostScores) names.push_back(std::string("zero_cost.") + z);
    }
  }
  return names;
}

space::FeatureSet SurrogateFeatures(const space::Space& space,
                                    const std::vector<space::Encoding>& encodings,
                                    const std::vector<space::Scaling>& scalings,
                                    std::vector<models::OpCounts>* counts,
                                    const FeatureSpec& spec) {
  if (encodings.size() != scalings.size()) {
    throw InternalError("SurrogateFeatures: encodings and scalings differ in length");
  }
  space::FeatureSet f;
  f.names = SurrogateFeatureNames(space, spec);
  // One row of the one-hot and count columns at a time, their names computed once.
  space::FeatureSet base;
  base.names = space::FeatureNames(space);
  const size_t onehot = base.names.size() - 7;
  if (counts != nullptr) counts->clear();
  for (size_t i = 0; i < encodings.size(); ++i) {
    const models::Graph graph = space.BuildFull(encodings[i], scalings[i], models::BuildOptions{});
    const models::OpCounts c = models::CountGraph(graph);
    base.values.clear();
    base.rows = 0;
    space::AppendFeatures(space, encodings[i], scalings[i], static_cast<double>(c.params),
                          static_cast<double>(c.flops), base);
    for (const std::string& set : spec.sets) {
      if (set == "onehot") {
        f.values.insert(f.values.end(), base.values.begin(), base.values.begin() + onehot);
      } else if (set == "counts") {
        f.values.insert(f.values.end(), base.values.begin() + onehot, base.values.end());
      } else if (set == "graph") {
        for (const double v : GraphFeatures(graph)) f.values.push_back(static_cast<float>(v));
      } else if (set == "zero-cost") {
        const std::string key = space.ToText(space.Canonical(encodings[i]));
        const auto it = spec.zero_cost.find(key);
        if (it == spec.zero_cost.end()) {
          throw InputError("network " + key + " has no zero-cost scores" +
                           (spec.zero_cost_file.empty() ? std::string(" (no zero-cost table given)")
                                                        : " in " + spec.zero_cost_file) +
                           "; `dcnas accuracy-data zero-cost` scores a data file's networks");
        }
        for (const double v : ZeroCostValues(it->second)) f.values.push_back(static_cast<float>(v));
      }
    }
    f.rows += 1;
    if (counts != nullptr) counts->push_back(c);
  }
  return f;
}

}  // namespace dcnas::surrogate
