#include "models/graph_json.h"

#include <cmath>
#include <nlohmann/json.hpp>
#include <set>

#include "common/errors.h"
#include "common/file_io.h"
#include "common/strict_json.h"
#include "common/text.h"
#include "models/op_kinds.h"

namespace dcnas::models {
namespace {

using nlohmann::json;

constexpr const char* kFormat = "dcnas-graph";
constexpr int kVersion = 1;

json ShapeJson(const Shape& s) { return json::array({s.n, s.h, s.w, s.c}); }

void WriteAttr(json& j, std::string_view key, const Op& op) {
  const OpAttrs& a = op.attrs;
  const std::string k(key);
  if (key == "kernel") {
    j[k] = {a.kernel_h, a.kernel_w};
  } else if (key == "stride") {
    j[k] = {a.stride_h, a.stride_w};
  } else if (key == "dilation") {
    j[k] = {a.dilation_h, a.dilation_w};
  } else if (key == "padding") {
    if (a.padding.same) {
      j[k] = "same";
    } else {
      j[k] = {a.padding.top, a.padding.bottom, a.padding.left, a.padding.right};
    }
  } else if (key == "groups") {
    j[k] = a.groups;
  } else if (key == "out_channels") {
    j[k] = a.out_channels;
  } else if (key == "bias") {
    j[k] = a.bias;
  } else if (key == "activation") {
    j[k] = std::string(ActivationName(a.activation));
  } else if (key == "pool") {
    j[k] = std::string(PoolModeName(a.pool));
  } else if (key == "block_size") {
    j[k] = a.block_size;
  } else if (key == "reshape") {
    if (op.kind == OpKind::kReshape && a.reshape_n == 0) {
      j[k] = {a.reshape_h, a.reshape_w, a.reshape_c};
    } else {
      j[k] = {a.reshape_n, a.reshape_h, a.reshape_w, a.reshape_c};
    }
  } else if (key == "axis") {
    if (a.axis != 3) j[k] = a.axis;  // c, the default, is left out
  } else if (key == "perm") {
    j[k] = a.perm;
  } else if (key == "start") {
    j[k] = a.start;
  } else if (key == "step") {
    j[k] = a.step;
  } else if (key == "learned") {
    j[k] = a.learned;
  } else if (key == "transpose_b") {
    j[k] = a.transpose_b;
  } else if (key == "rate") {
    j[k] = a.rate;
  } else if (key == "shape") {
    j[k] = ShapeJson(a.input_type.shape);
  } else if (key == "dtype") {
    j[k] = std::string(DTypeName(a.input_type.dtype));
  } else {
    throw InternalError("no JSON encoding for attribute " + k);
  }
}

// A bad value as an error message quotes it: scalars in full (strings cut to 40 characters),
// arrays and objects by size only, so a huge or deeply nested value never makes a huge message.
std::string Quote(const json& v) {
  if (v.is_array()) return "an array of " + std::to_string(v.size()) + " values";
  if (v.is_object()) return "an object of " + std::to_string(v.size()) + " keys";
  if (v.is_string()) {
    const auto& t = v.get_ref<const std::string&>();
    return t.size() <= 40
               ? v.dump()
               : json(t.substr(0, 40)).dump() + "... (" + std::to_string(t.size()) + " characters)";
  }
  return v.dump();
}

// Reader with the JSON path of the value at hand, for error messages.
class Reader {
 public:
  explicit Reader(std::string source) : source_(std::move(source)) {}

  [[noreturn]] void Fail(const std::string& path, const std::string& why) const {
    throw InputError(source_ + ": " + path + ": " + why);
  }

  const json& Field(const json& obj, const std::string& path, const char* key) const {
    const auto it = obj.find(key);
    if (it == obj.end()) Fail(path, std::string("missing required key '") + key + "'");
    return *it;
  }

  int64_t Int(const json& v, const std::string& path, int64_t lo, int64_t hi) const {
    if (!v.is_number_integer()) Fail(path, "expected an integer, got " + Quote(v));
    const int64_t x = v.get<int64_t>();
    if (x < lo || x > hi) {
      Fail(path, "value " + std::to_string(x) + " out of range [" + std::to_string(lo) + ", " +
                     std::to_string(hi) + "]");
    }
    return x;
  }

  std::string String(const json& v, const std::string& path) const {
    if (!v.is_string()) Fail(path, "expected a string, got " + Quote(v));
    return v.get<std::string>();
  }

  std::vector<int64_t> Ints(const json& v, const std::string& path, size_t n, int64_t lo,
                            int64_t hi) const {
    if (!v.is_array() || v.size() != n) {
      Fail(path, "expected an array of " + std::to_string(n) + " integers, got " + Quote(v));
    }
    std::vector<int64_t> out;
    for (size_t i = 0; i < n; ++i)
      out.push_back(Int(v[i], path + "[" + std::to_string(i) + "]", lo, hi));
    return out;
  }

  template <typename F>
  auto Parse(const std::string& path, F&& parse) const {
    try {
      return parse();
    } catch (const InputError& e) {
      Fail(path, e.what());
    }
  }

  void ReadAttr(const json& v, const std::string& key, const std::string& path, OpKind kind,
                OpAttrs& a) const {
    constexpr int64_t kBig = int64_t{1} << 40;
    if (key == "kernel") {
      const auto x = Ints(v, path, 2, 1, 1 << 16);
      a.kernel_h = static_cast<int>(x[0]);
      a.kernel_w = static_cast<int>(x[1]);
    } else if (key == "stride") {
      const auto x = Ints(v, path, 2, 1, 1 << 16);
      a.stride_h = static_cast<int>(x[0]);
      a.stride_w = static_cast<int>(x[1]);
    } else if (key == "dilation") {
      const auto x = Ints(v, path, 2, 1, 1 << 16);
      a.dilation_h = static_cast<int>(x[0]);
      a.dilation_w = static_cast<int>(x[1]);
    } else if (key == "padding") {
      if (v.is_string()) {
        if (v.get<std::string>() != "same")
          Fail(path, "expected \"same\" or [top, bottom, left, right]");
        a.padding = Padding::Same();
      } else {
        const auto x = Ints(v, path, 4, 0, 1 << 16);
        a.padding = Padding{false, static_cast<int>(x[0]), static_cast<int>(x[1]),
                            static_cast<int>(x[2]), static_cast<int>(x[3])};
      }
    } else if (key == "groups") {
      a.groups = static_cast<int>(Int(v, path, 1, 1 << 24));
    } else if (key == "out_channels") {
      a.out_channels = Int(v, path, 1, kBig);
    } else if (key == "bias") {
      if (!v.is_boolean()) Fail(path, "expected true or false, got " + Quote(v));
      a.bias = v.get<bool>();
    } else if (key == "activation") {
      a.activation = Parse(path, [&] { return ParseActivation(String(v, path)); });
    } else if (key == "pool") {
      a.pool = Parse(path, [&] { return ParsePoolMode(String(v, path)); });
    } else if (key == "block_size") {
      a.block_size = static_cast<int>(Int(v, path, 1, 1 << 16));
    } else if (key == "reshape") {
      // [h, w, c] (reshape only: the batch kept) or [n, h, w, c].
      const bool three = v.is_array() && v.size() == 3;
      if (three && kind != OpKind::kReshape) Fail(path, "expected [n, h, w, c]");
      const auto x = Ints(v, path, three ? 3 : 4, 1, kBig);
      const size_t o = three ? 0 : 1;
      a.reshape_n = three ? 0 : x[0];
      a.reshape_h = x[o];
      a.reshape_w = x[o + 1];
      a.reshape_c = x[o + 2];
    } else if (key == "axis") {
      a.axis = static_cast<int>(Int(v, path, 0, 3));
    } else if (key == "perm") {
      const auto x = Ints(v, path, 4, 0, 3);
      for (size_t i = 0; i < 4; ++i) a.perm[i] = static_cast<int>(x[i]);
    } else if (key == "start") {
      const auto x = Ints(v, path, 4, 0, kBig);
      for (size_t i = 0; i < 4; ++i) a.start[i] = x[i];
    } else if (key == "step") {
      const auto x = Ints(v, path, 4, 1, kBig);
      for (size_t i = 0; i < 4; ++i) a.step[i] = x[i];
    } else if (key == "learned") {
      if (!v.is_boolean()) Fail(path, "expected true or false, got " + Quote(v));
      a.learned = v.get<bool>();
    } else if (key == "transpose_b") {
      if (!v.is_boolean()) Fail(path, "expected true or false, got " + Quote(v));
      a.transpose_b = v.get<bool>();
    } else if (key == "rate") {
      if (!v.is_number() || !std::isfinite(v.get<double>()) || v.get<double>() < 0 ||
          v.get<double>() >= 1) {
        Fail(path, "expected a number in [0, 1), got " + Quote(v));
      }
      a.rate = v.get<double>();
    } else if (key == "shape") {
      const auto x = Ints(v, path, 4, 1, kBig);
      a.input_type.shape = Shape{x[0], x[1], x[2], x[3]};
    } else if (key == "dtype") {
      a.input_type.dtype = Parse(path, [&] { return ParseDType(String(v, path)); });
    }
  }

  const std::string& source() const { return source_; }

 private:
  std::string source_;
};

bool RequiredAttr(OpKind kind, std::string_view key) {
  switch (kind) {
    case OpKind::kInput:
      return key == "shape";
    case OpKind::kConv2d:
      return key == "kernel" || key == "out_channels";
    case OpKind::kPool:
      return key == "kernel";
    case OpKind::kFullyConnected:
      return key == "out_channels";
    case OpKind::kActivation:
      return key == "activation";
    case OpKind::kReshape:
    case OpKind::kSlice:
    case OpKind::kExpand:
    case OpKind::kGather:
      return key == "reshape";
    case OpKind::kTranspose:
      return key == "perm";
    case OpKind::kConstant:
      return key == "shape";
    case OpKind::kPad:
      return key == "padding";
    case OpKind::kSpaceToDepth:
    case OpKind::kSpaceToBatch:
    case OpKind::kBatchToSpace:
      return key == "block_size";
    default:
      return false;
  }
}

}  // namespace

json GraphToJson(const Graph& graph) {
  json j;
  j["format"] = kFormat;
  j["version"] = kVersion;
  const GraphInfo& info = graph.info();
  j["info"] = {{"model", info.model},
               {"resolution", info.resolution},
               {"batch", info.batch},
               {"dtype", std::string(DTypeName(info.dtype))},
               {"num_classes", info.num_classes}};
  json ops = json::array();
  for (const Op& op : graph.ops()) {
    json o;
    o["id"] = op.id;
    o["name"] = op.name;
    o["kind"] = std::string(OpKindName(op.kind));
    o["inputs"] = op.inputs;
    o["block"] = op.block;
    o["stage"] = op.stage;
    for (std::string_view key : KindInfo(op.kind).attrs) WriteAttr(o, key, op);
    o["output_shape"] = ShapeJson(op.out.shape);
    ops.push_back(std::move(o));
  }
  j["ops"] = std::move(ops);
  return j;
}

std::string GraphToJsonString(const Graph& graph) { return GraphToJson(graph).dump(1) + "\n"; }

namespace {

// info.dtype, info.resolution and info.num_classes, where given, against what the ops say: the
// input op's own dtype, its height and width, the classes of the one output [N, 1, 1, C].
void CheckInfoAgainstOps(const json& j, const json& jops, const Graph& graph, const Reader& r) {
  if (!j.contains("info")) return;
  const json& ji = j["info"];
  const GraphInfo& info = graph.info();
  for (const Op& op : graph.ops()) {
    if (op.kind != OpKind::kInput) continue;
    const Shape& s = op.out.shape;
    if (ji.contains("dtype") && jops[static_cast<size_t>(op.id)].contains("dtype") &&
        op.attrs.input_type.dtype != info.dtype) {
      r.Fail("info.dtype", "says " + std::string(DTypeName(info.dtype)) + " but the input op '" +
                               op.name + "' is " +
                               std::string(DTypeName(op.attrs.input_type.dtype)));
    }
    if (ji.contains("resolution") && info.resolution != 0 && info.resolution != s.h &&
        info.resolution != s.w) {
      r.Fail("info.resolution", "says " + std::to_string(info.resolution) + " but the input op '" +
                                    op.name + "' is " + std::to_string(s.h) + " x " +
                                    std::to_string(s.w));
    }
    break;
  }
  const std::vector<int> outputs = graph.Outputs();
  if (ji.contains("num_classes") && info.num_classes != 0 && outputs.size() == 1) {
    const Op& out = graph.op(outputs.front());
    const Shape& s = out.out.shape;
    if (s.h != 1 || s.w != 1 || s.c != info.num_classes) {
      r.Fail("info.num_classes", "says " + std::to_string(info.num_classes) +
                                     " but the graph's output op '" + out.name + "' is " +
                                     ShapeString(s) + " (classes: [N, 1, 1, num_classes])");
    }
  }
}

}  // namespace

Graph GraphFromJson(const json& j, const std::string& source) {
  const Reader r(source);
  if (!j.is_object()) r.Fail("(top level)", "expected a JSON object");
  for (const auto& [key, value] : j.items()) {
    if (key != "format" && key != "version" && key != "info" && key != "ops") {
      r.Fail(key, "unknown key (valid: format, version, info, ops)");
    }
  }
  if (r.String(r.Field(j, "format", "format"), "format") != kFormat) {
    r.Fail("format", std::string("expected \"") + kFormat + "\"");
  }
  if (r.Int(r.Field(j, "version", "version"), "version", 1, 1000) != kVersion) {
    r.Fail("version",
           "unsupported version (this dcnas reads version " + std::to_string(kVersion) + ")");
  }
  GraphInfo info;
  if (j.contains("info")) {
    const json& ji = j["info"];
    if (!ji.is_object()) r.Fail("info", "expected an object");
    for (const auto& item : ji.items()) {
      const std::string& key = item.key();
      const json& value = item.value();
      const std::string path = "info." + key;
      if (key == "model") {
        info.model = r.String(value, path);
      } else if (key == "resolution") {
        info.resolution = static_cast<int>(r.Int(value, path, 0, 1 << 20));
      } else if (key == "batch") {
        info.batch = static_cast<int>(r.Int(value, path, 1, 1 << 24));
      } else if (key == "dtype") {
        info.dtype = r.Parse(path, [&] { return ParseDType(r.String(value, path)); });
      } else if (key == "num_classes") {
        info.num_classes = static_cast<int>(r.Int(value, path, 0, 1 << 24));
      } else {
        r.Fail(path, "unknown key (valid: model, resolution, batch, dtype, num_classes)");
      }
    }
  }
  const json& jops = r.Field(j, "ops", "ops");
  if (!jops.is_array() || jops.empty()) r.Fail("ops", "expected a non-empty array of ops");
  if (jops.size() > kMaxGraphOps) {
    r.Fail("ops", std::to_string(jops.size()) + " ops, more than the " +
                      std::to_string(kMaxGraphOps) + " a graph may have");
  }
  Graph graph(info);
  std::set<std::string> names;
  for (size_t i = 0; i < jops.size(); ++i) {
    const std::string base = "ops[" + std::to_string(i) + "]";
    const json& jo = jops[i];
    if (!jo.is_object()) r.Fail(base, "expected an object");
    Op op;
    op.id = static_cast<int>(r.Int(r.Field(jo, base, "id"), base + ".id", 0, 1 << 30));
    if (op.id != static_cast<int>(i)) {
      r.Fail(base + ".id", "ids must be 0..N-1 in listed order; expected " + std::to_string(i));
    }
    op.kind = r.Parse(base + ".kind", [&] {
      return ParseOpKind(r.String(r.Field(jo, base, "kind"), base + ".kind"));
    });
    const OpKindInfo& kind = KindInfo(op.kind);
    // The kinds with a dtype attribute (input, constant) take the graph's unless they name one;
    // the others keep the default, as the builder leaves it (so read(write(g)) == g).
    if (std::find(kind.attrs.begin(), kind.attrs.end(), std::string_view("dtype")) !=
        kind.attrs.end()) {
      op.attrs.input_type.dtype = info.dtype;
    }
    op.name = jo.contains("name") ? r.String(jo["name"], base + ".name")
                                  : std::string(kind.name) + std::to_string(op.id);
    if (!names.insert(op.name).second)
      r.Fail(base + ".name", "duplicate op name '" + op.name + "'");
    for (const auto& [key, value] : jo.items()) {
      const std::string path = base + "." + key;
      if (key == "id" || key == "kind" || key == "name" || key == "output_shape") continue;
      if (key == "inputs") {
        if (!value.is_array()) r.Fail(path, "expected an array of op ids");
        for (size_t k = 0; k < value.size(); ++k) {
          op.inputs.push_back(static_cast<int>(r.Int(value[k], path + "[" + std::to_string(k) + "]",
                                                     0, static_cast<int64_t>(jops.size()) - 1)));
        }
      } else if (key == "block") {
        op.block = r.String(value, path);
      } else if (key == "stage") {
        op.stage = static_cast<int>(r.Int(value, path, -1, 1 << 20));
      } else if (std::find(kind.attrs.begin(), kind.attrs.end(), key) != kind.attrs.end()) {
        r.ReadAttr(value, key, path, op.kind, op.attrs);
      } else {
        std::vector<std::string> valid = {"id",    "name",  "kind",        "inputs",
                                          "block", "stage", "output_shape"};
        for (auto a : kind.attrs) valid.emplace_back(a);
        r.Fail(path, "unknown key for a " + std::string(kind.name) +
                         " op (valid: " + Join(valid, ", ") + ")");
      }
    }
    for (std::string_view key : kind.attrs) {
      if (RequiredAttr(op.kind, key) && !jo.contains(std::string(key))) {
        r.Fail(base, "missing required key '" + std::string(key) + "' for a " +
                         std::string(kind.name) + " op");
      }
    }
    graph.AddUncheckedOp(std::move(op));
  }
  try {
    graph.Finalize();
  } catch (const InputError& e) {
    throw InputError(source + ": " + e.what());
  }
  // The batch is the input op's, never the info block's word for it.
  for (const Op& op : graph.ops()) {
    if (op.kind != OpKind::kInput) continue;
    const int64_t n = op.out.shape.n;
    if (j.contains("info") && j["info"].contains("batch") && graph.info().batch != n) {
      r.Fail("info.batch", "says " + std::to_string(graph.info().batch) + " but the input op '" +
                               op.name + "' has batch " + std::to_string(n));
    }
    graph.mutable_info().batch = static_cast<int>(n);
    break;
  }
  // The ops are the truth: an info field that contradicts them is an error naming it.
  CheckInfoAgainstOps(j, jops, graph, r);
  for (size_t i = 0; i < jops.size(); ++i) {
    if (!jops[i].contains("output_shape")) continue;
    const std::string path = "ops[" + std::to_string(i) + "].output_shape";
    const auto x = r.Ints(jops[i]["output_shape"], path, 4, 0, int64_t{1} << 40);
    const Shape stated{x[0], x[1], x[2], x[3]};
    const Shape& inferred = graph.op(static_cast<int>(i)).out.shape;
    if (!(stated == inferred)) {
      r.Fail(path, "stated " + ShapeString(stated) + " but shape inference gives " +
                       ShapeString(inferred));
    }
  }
  return graph;
}

Graph GraphFromJsonString(const std::string& text, const std::string& source) {
  json j;
  std::optional<DuplicateJsonKey> twice;
  try {
    // Bounded nesting (a layer graph needs 4 levels), checked while parsing.
    j = ParseJsonKeysOnce(text, twice, kMaxGraphJsonDepth,
                          source + ": nested deeper than " + std::to_string(kMaxGraphJsonDepth) +
                              " levels (a layer graph needs 4)");
  } catch (const json::exception& e) {  // parse_error, and out_of_range for 1e400
    throw InputError(source + ": malformed JSON: " + e.what());
  }
  if (twice) throw InputError(source + ": key '" + twice->Text() + "' given twice");
  return GraphFromJson(j, source);
}

Graph ReadGraphFile(const std::string& path) {
  return GraphFromJsonString(ReadFile(path, kMaxGraphFileBytes), path);
}

void WriteGraphFile(const Graph& graph, const std::string& path) {
  WriteFileAtomic(path, GraphToJsonString(graph));
}

}  // namespace dcnas::models
