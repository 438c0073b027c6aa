#include "models/onnx/onnx_import.h"

#include <onnx/onnx_pb.h>

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <algorithm>
#include <cctype>
#include <chrono>
#include <cmath>

#include <cstdio>
#include <cstring>
#include <filesystem>
#include <map>
#include <numeric>
#include <set>
#include <unordered_map>

#include "common/errors.h"
#include "common/file_io.h"
#include "common/text.h"
#include "models/builder.h"
#include "models/onnx/const_eval.h"

namespace dcnas::models::onnx_import {
namespace {

using Clock = std::chrono::steady_clock;
using Dims = std::vector<int64_t>;
using Order = std::vector<int>;  // physical position -> logical axis

constexpr uint64_t kMaxOnnxBytes = uint64_t{4} << 30;

std::string DimsText(const Dims& d) {
  std::string s = "[";
  for (size_t i = 0; i < d.size(); ++i) s += (i ? ", " : "") + std::to_string(d[i]);
  return s + "]";
}

Order Iota(size_t r) {
  Order o(r);
  std::iota(o.begin(), o.end(), 0);
  return o;
}

// Four-axis IR shape of a tensor's dims in storage order: [c], [n, c], [n, w, c], [n, h, w, c];
// leading axes fold into n when there are more than four. The first axis (the batch, for the
// tensors of a network) stays in n.
Shape Fold(const Dims& d) {
  Dims x = d;
  while (x.size() > 4) {
    x[1] *= x[0];
    x.erase(x.begin());
  }
  switch (x.size()) {
    case 0:
      return Shape{1, 1, 1, 1};
    case 1:
      return Shape{1, 1, 1, x[0]};
    case 2:
      return Shape{x[0], 1, 1, x[1]};
    case 3:
      return Shape{x[0], 1, x[1], x[2]};
    default:
      return Shape{x[0], x[1], x[2], x[3]};
  }
}

Shape Pad4(const Dims& d) {
  Dims x = d;
  while (x.size() < 4) x.insert(x.begin(), 1);
  return Shape{x[0], x[1], x[2], x[3]};
}

enum class VK : uint8_t { kConst, kParam, kRuntime };

struct Val {
  VK kind = VK::kRuntime;
  Dims dims;
  Array value;        // kConst
  std::string param;  // kParam: the parameter's name
  int ir = -1;        // kRuntime: the IR op holding the data
  Order phys;         // kRuntime: storage order of the logical axes
};

ElemKind KindOf(int32_t t) {
  switch (t) {
    case onnx::TensorProto::FLOAT:
    case onnx::TensorProto::FLOAT16:
    case onnx::TensorProto::DOUBLE:
    case onnx::TensorProto::BFLOAT16:
      return ElemKind::kFloat;
    case onnx::TensorProto::BOOL:
      return ElemKind::kBool;
    default:
      return ElemKind::kInt;
  }
}

// A node's block, from the module path exporters write into node names
// ("/layer1/layer1.0/conv1/Conv", "/encoder/layers/encoder_layer_3/mlp/mlp.0/MatMul"): the
// longest prefix of at most three modules that ends in a numbered one ("layer1/layer1.0",
// "encoder/layers/encoder_layer_3"), else the first module ("conv_proj", "classifier").
std::string BlockOf(const std::string& node_name) {
  std::vector<std::string> parts;
  for (const std::string& p : Split(node_name, '/')) {
    if (!p.empty()) parts.push_back(p);
  }
  if (parts.size() < 2) return "";
  parts.pop_back();  // the op
  std::string block = parts.front();
  std::string prefix;
  for (size_t i = 0; i < parts.size() && i < 3; ++i) {
    prefix += (i ? "/" : "") + parts[i];
    if (std::isdigit(static_cast<unsigned char>(parts[i].back()))) block = prefix;
  }
  return block;
}

class Importer {
 public:
  Importer(const onnx::ModelProto& model, std::string source, Options options, Report* report)
      : model_(model), source_(std::move(source)), options_(std::move(options)), report_(report) {}

  Graph Run();

 private:
  [[noreturn]] void Fail(const std::string& why) const {
    throw InputError(source_ + ": " + where_ + (where_.empty() ? "" : ": ") + why);
  }
  void Need(bool ok, const std::string& why) const {
    if (!ok) Fail(why);
  }

  // --- values --------------------------------------------------------------------------------
  const Val& Get(const std::string& name) const {
    const auto it = vals_.find(name);
    if (it == vals_.end()) Fail("input '" + name + "' is not produced by any node or initializer");
    return it->second;
  }
  const Val* Opt(const onnx::NodeProto& n, int i) const {
    if (i >= n.input_size() || n.input(i).empty()) return nullptr;
    return &Get(n.input(i));
  }
  const Val& In(const onnx::NodeProto& n, int i) const {
    const Val* v = Opt(n, i);
    if (v == nullptr) Fail("missing input " + std::to_string(i));
    return *v;
  }
  const Array& ConstIn(const onnx::NodeProto& n, int i, const char* what) const {
    const Val& v = In(n, i);
    if (v.kind != VK::kConst)
      Fail(std::string(what) + " (input " + std::to_string(i) +
           ") must be a constant once the batch is fixed");
    return v.value;
  }
  void Set(const onnx::NodeProto& n, int out, Val v) {
    if (out < n.output_size() && !n.output(out).empty()) vals_[n.output(out)] = std::move(v);
  }

  // --- attributes ----------------------------------------------------------------------------
  const onnx::AttributeProto* Attr(const onnx::NodeProto& n, const char* name) const {
    for (const auto& a : n.attribute()) {
      if (a.name() == name) return &a;
    }
    return nullptr;
  }
  int64_t AttrI(const onnx::NodeProto& n, const char* name, int64_t dflt) const {
    const auto* a = Attr(n, name);
    return a ? a->i() : dflt;
  }
  double AttrF(const onnx::NodeProto& n, const char* name, double dflt) const {
    const auto* a = Attr(n, name);
    return a ? a->f() : dflt;
  }
  Dims AttrInts(const onnx::NodeProto& n, const char* name) const {
    const auto* a = Attr(n, name);
    return a ? Dims(a->ints().begin(), a->ints().end()) : Dims{};
  }
  std::string AttrS(const onnx::NodeProto& n, const char* name, const std::string& dflt) const {
    const auto* a = Attr(n, name);
    return a ? a->s() : dflt;
  }

  Array TensorArray(const onnx::TensorProto& t) const;
  NodeAttrs AttrsOf(const onnx::NodeProto& n) const;
  // Output dims of a shape-only op (Unsqueeze, Squeeze, Flatten) on a tensor of dims `in`.
  Dims ShapeOpDims(const onnx::NodeProto& n, const Dims& in);
  // A value_info or graph output's declared shape against the computed dims.
  void CheckDeclared(const onnx::ValueInfoProto& declared, const Dims& dims);

  // --- IR emission ---------------------------------------------------------------------------
  int Emit(OpKind kind, std::vector<int> inputs, OpAttrs attrs, const std::string& suffix = "");
  int ViewAs(int ir, const Shape& s);
  Val Runtime(const Val& v, const std::string& name);
  Val Relayout(const Val& v, const Order& target);
  Val Contiguous(const Val& v) { return Relayout(v, Iota(v.dims.size())); }
  Val LastInner(const Val& v);
  int Image(const Val& v);
  Dims StoredDims(const Val& v) const;
  Val Reshaped(const Val& v, const Dims& dims);
  Val MakeRuntime(int ir, Dims dims, Order phys) const {
    Val v;
    v.kind = VK::kRuntime;
    v.ir = ir;
    v.dims = std::move(dims);
    v.phys = std::move(phys);
    return v;
  }
  struct Broadcast {
    std::vector<Shape> shapes;  // per operand
    Shape out;
  };
  Broadcast BroadcastViews(const Dims& out, const Order& phys, const std::vector<Dims>& operands);

  // --- node mapping --------------------------------------------------------------------------
  void MapNode(int index);
  bool TryPatterns(int index);
  int SoleConsumer(const std::string& value) const;
  bool IsScalarConst(const std::string& value, double want) const;
  void MapConv(const onnx::NodeProto& n);
  void MapPool(const onnx::NodeProto& n, bool global);
  void MapBinary(const onnx::NodeProto& n);
  void MapMatMul(const onnx::NodeProto& n);
  void MapGemm(const onnx::NodeProto& n);
  void MapSlice(const onnx::NodeProto& n, const std::vector<SliceAxis>& axes);
  void MapConcat(const onnx::NodeProto& n);
  void MapPad(const onnx::NodeProto& n);
  void MapExpand(const onnx::NodeProto& n);
  void MapGather(const onnx::NodeProto& n);
  Val ParamAlias(const onnx::NodeProto& n);

  const onnx::ModelProto& model_;
  std::string source_;
  Options options_;
  Report* report_;
  std::string where_;
  std::string block_;
  std::unordered_map<std::string, Val> vals_;
  std::unordered_map<std::string, std::vector<int>> consumers_;
  std::set<std::string> graph_outputs_;
  std::vector<bool> done_;
  std::map<std::string, int> constants_;  // materialised tensors, by name
  std::set<std::string> names_;
  Graph graph_;
  int transposes_ = 0;
};

Array Importer::TensorArray(const onnx::TensorProto& t) const {
  Array a;
  a.dims.assign(t.dims().begin(), t.dims().end());
  a.kind = KindOf(t.data_type());
  const int64_t n = a.size();
  if (t.data_location() == onnx::TensorProto::EXTERNAL) {
    Fail("tensor '" + t.name() + "' is used as a constant but its data is in an external file");
  }
  a.v.reserve(static_cast<size_t>(n));
  const std::string& raw = t.raw_data();
  auto need = [&](size_t have) {
    if (static_cast<int64_t>(have) != n) {
      Fail("tensor '" + t.name() + "' holds " + std::to_string(have) + " values for dims " +
           DimsText(a.dims));
    }
  };
  switch (t.data_type()) {
    case onnx::TensorProto::FLOAT:
      if (!raw.empty()) {
        need(raw.size() / 4);
        for (int64_t i = 0; i < n; ++i) {
          float f;
          std::memcpy(&f, raw.data() + i * 4, 4);
          a.v.push_back(f);
        }
      } else {
        need(static_cast<size_t>(t.float_data_size()));
        for (float f : t.float_data()) a.v.push_back(f);
      }
      break;
    case onnx::TensorProto::DOUBLE:
      if (!raw.empty()) {
        need(raw.size() / 8);
        for (int64_t i = 0; i < n; ++i) {
          double d;
          std::memcpy(&d, raw.data() + i * 8, 8);
          a.v.push_back(d);
        }
      } else {
        need(static_cast<size_t>(t.double_data_size()));
        for (double d : t.double_data()) a.v.push_back(d);
      }
      break;
    case onnx::TensorProto::INT64:
      if (!raw.empty()) {
        need(raw.size() / 8);
        for (int64_t i = 0; i < n; ++i) {
          int64_t x;
          std::memcpy(&x, raw.data() + i * 8, 8);
          a.v.push_back(static_cast<double>(x));
        }
      } else {
        need(static_cast<size_t>(t.int64_data_size()));
        for (int64_t x : t.int64_data()) a.v.push_back(static_cast<double>(x));
      }
      break;
    case onnx::TensorProto::INT32:
    case onnx::TensorProto::INT8:
    case onnx::TensorProto::UINT8:
    case onnx::TensorProto::BOOL:
      if (!raw.empty()) {
        const size_t width = t.data_type() == onnx::TensorProto::INT32 ? 4 : 1;
        need(raw.size() / width);
        for (int64_t i = 0; i < n; ++i) {
          if (width == 4) {
            int32_t x;
            std::memcpy(&x, raw.data() + i * 4, 4);
            a.v.push_back(x);
          } else if (t.data_type() == onnx::TensorProto::INT8) {
            a.v.push_back(static_cast<int8_t>(raw[static_cast<size_t>(i)]));
          } else {
            a.v.push_back(static_cast<uint8_t>(raw[static_cast<size_t>(i)]));
          }
        }
      } else {
        need(static_cast<size_t>(t.int32_data_size()));
        for (int32_t x : t.int32_data()) a.v.push_back(x);
      }
      break;
    default:
      Fail("tensor '" + t.name() + "' has data type " + std::to_string(t.data_type()) +
           ", which constant folding does not read");
  }
  return a;
}

NodeAttrs Importer::AttrsOf(const onnx::NodeProto& n) const {
  NodeAttrs at;
  at.has = [this, &n](const char* k) { return Attr(n, k) != nullptr; };
  at.i = [this, &n](const char* k, int64_t d) { return AttrI(n, k, d); };
  at.f = [this, &n](const char* k, double d) { return AttrF(n, k, d); };
  at.ints = [this, &n](const char* k) { return AttrInts(n, k); };
  return at;
}

Dims Importer::ShapeOpDims(const onnx::NodeProto& n, const Dims& in) {
  Array shape_only;
  shape_only.dims = in;
  shape_only.v.assign(static_cast<size_t>(Elements(in)), 0.0);
  std::vector<const Array*> ins = {&shape_only};
  if (n.input_size() > 1 && !n.input(1).empty()) ins.push_back(&ConstIn(n, 1, "the axes"));
  return Evaluate(n.op_type(), ins, AttrsOf(n), source_ + ": " + where_).dims;
}

void Importer::CheckDeclared(const onnx::ValueInfoProto& declared, const Dims& dims) {
  if (!declared.type().has_tensor_type() || !declared.type().tensor_type().has_shape()) return;
  const auto& shape = declared.type().tensor_type().shape();
  Need(shape.dim_size() == static_cast<int>(dims.size()),
       "is declared with rank " + std::to_string(shape.dim_size()) + " but computes " +
           DimsText(dims) + " (a shape contradiction)");
  for (int i = 1; i < shape.dim_size(); ++i) {  // axis 0 is the batch
    const auto& d = shape.dim(i);
    if (d.has_dim_value() && d.dim_value() > 0) {
      Need(d.dim_value() == dims[static_cast<size_t>(i)],
           "is declared " + std::to_string(d.dim_value()) + " on axis " + std::to_string(i) +
               " but computes " + DimsText(dims) + " (a shape contradiction)");
    }
  }
}

// --- IR emission -------------------------------------------------------------------------------

int Importer::Emit(OpKind kind, std::vector<int> inputs, OpAttrs attrs, const std::string& suffix) {
  Op op;
  op.kind = kind;
  op.inputs = std::move(inputs);
  op.attrs = std::move(attrs);
  std::string name = where_.empty() ? std::string(OpKindName(kind)) : where_;
  if (!suffix.empty()) name += "/" + suffix;
  std::string unique = name;
  for (int k = 2; !names_.insert(unique).second; ++k) unique = name + "#" + std::to_string(k);
  op.name = unique;
  op.block = block_;
  op.stage = -1;
  try {
    return graph_.AddOp(std::move(op));
  } catch (const InputError& e) {
    Fail(std::string("maps to an IR op that does not fit: ") + e.what());
  }
}

int Importer::ViewAs(int ir, const Shape& s) {
  if (graph_.op(ir).out.shape == s) return ir;
  OpAttrs a;
  a.reshape_n = s.n;
  a.reshape_h = s.h;
  a.reshape_w = s.w;
  a.reshape_c = s.c;
  return Emit(OpKind::kReshape, {ir}, a, "view");
}

Dims Importer::StoredDims(const Val& v) const {
  Dims d;
  for (int axis : v.phys) d.push_back(v.dims[static_cast<size_t>(axis)]);
  return d;
}

// A constant or parameter as an IR tensor (once per name), stored in logical order.
Val Importer::Runtime(const Val& v, const std::string& name) {
  if (v.kind == VK::kRuntime) return v;
  const std::string key = v.kind == VK::kParam ? "param:" + v.param : "const:" + name;
  auto it = constants_.find(key);
  int ir;
  if (it != constants_.end()) {
    ir = it->second;
  } else {
    OpAttrs a;
    a.input_type = TensorType{Fold(v.dims), options_.dtype};
    a.learned = v.kind == VK::kParam;
    ir = Emit(OpKind::kConstant, {}, a, v.kind == VK::kParam ? v.param : "constant");
    constants_[key] = ir;
  }
  return MakeRuntime(ir, v.dims, Iota(v.dims.size()));
}

// Reorders storage so that the logical axes are stored in `target` order. Size-1 axes and runs
// of axes that stay together are merged first; no copy when nothing real moves.
Val Importer::Relayout(const Val& v, const Order& target) {
  if (v.phys == target) return v;
  const size_t r = v.dims.size();
  Order pos(r);
  for (size_t j = 0; j < r; ++j) pos[static_cast<size_t>(v.phys[j])] = static_cast<int>(j);
  // Source positions of the target's non-trivial axes, in target order.
  std::vector<int> src;
  for (int axis : target) {
    if (v.dims[static_cast<size_t>(axis)] != 1) src.push_back(pos[static_cast<size_t>(axis)]);
  }
  // Rank the source positions, then merge runs that stay consecutive.
  std::vector<int> sorted = src;
  std::sort(sorted.begin(), sorted.end());
  std::vector<int> rank(src.size());
  for (size_t i = 0; i < src.size(); ++i) {
    rank[i] =
        static_cast<int>(std::lower_bound(sorted.begin(), sorted.end(), src[i]) - sorted.begin());
  }
  std::vector<std::vector<int>> groups;  // in target order; each a run of source ranks
  for (const int q : rank) {
    if (!groups.empty() && groups.back().back() + 1 == q) {
      groups.back().push_back(q);
    } else {
      groups.push_back({q});
    }
  }
  Val out = v;
  out.phys = target;
  bool moves = false;
  for (size_t g = 1; g < groups.size(); ++g)
    moves = moves || groups[g].front() < groups[g - 1].front();
  if (!moves) return out;  // only size-1 axes move: a view
  Need(groups.size() <= 4, "needs a transpose of " + std::to_string(groups.size()) +
                               " independent axes (the IR holds four)");
  const Dims stored = StoredDims(v);
  std::vector<int64_t> nontrivial;
  for (int64_t d : stored) {
    if (d != 1) nontrivial.push_back(d);
  }
  // Source shape: the groups in source order.
  std::vector<size_t> by_source(groups.size());
  std::iota(by_source.begin(), by_source.end(), 0);
  std::sort(by_source.begin(), by_source.end(),
            [&](size_t a, size_t b) { return groups[a].front() < groups[b].front(); });
  Dims src_dims;
  std::vector<int> source_index(groups.size());
  for (size_t k = 0; k < by_source.size(); ++k) {
    int64_t d = 1;
    for (int q : groups[by_source[k]]) d *= nontrivial[static_cast<size_t>(q)];
    src_dims.push_back(d);
    source_index[by_source[k]] = static_cast<int>(k);
  }
  const int pad = 4 - static_cast<int>(groups.size());
  OpAttrs a;
  for (int i = 0; i < pad; ++i) a.perm[static_cast<size_t>(i)] = i;
  for (size_t g = 0; g < groups.size(); ++g) {
    a.perm[static_cast<size_t>(pad) + g] = pad + source_index[g];
  }
  const int in = ViewAs(v.ir, Pad4(src_dims));
  out.ir = Emit(OpKind::kTranspose, {in}, a, "transpose");
  ++transposes_;
  return out;
}

Val Importer::LastInner(const Val& v) {
  const int last = static_cast<int>(v.dims.size()) - 1;
  if (last < 0 || v.phys.back() == last || v.dims.back() == 1) return v;
  Order target;
  for (int axis : v.phys) {
    if (axis != last) target.push_back(axis);
  }
  target.push_back(last);
  return Relayout(v, target);
}

// An [N, C, H, W] tensor as the IR's image [N, H, W, C].
int Importer::Image(const Val& v) {
  Need(v.dims.size() == 4, "expects a 4-d [N, C, H, W] tensor, got " + DimsText(v.dims));
  const Val x = Relayout(v, Order{0, 2, 3, 1});
  const Dims& d = x.dims;
  return ViewAs(x.ir, Shape{d[0], d[2], d[3], d[1]});
}

// A reshape of a runtime tensor: a view when the new axes split and merge runs that are stored
// together, else a copy to logical order first.
Val Importer::Reshaped(const Val& v, const Dims& dims) {
  const Dims& old = v.dims;
  // Groups of old and new axes with equal products (size-1 axes belong to none).
  std::vector<int> old_axes;
  std::vector<int> new_axes;
  for (size_t i = 0; i < old.size(); ++i) {
    if (old[i] != 1) old_axes.push_back(static_cast<int>(i));
  }
  for (size_t i = 0; i < dims.size(); ++i) {
    if (dims[i] != 1) new_axes.push_back(static_cast<int>(i));
  }
  struct Group {
    std::vector<int> from;
    std::vector<int> to;
  };
  std::vector<Group> groups;
  size_t i = 0;
  size_t j = 0;
  bool ok = true;
  while (i < old_axes.size() && j < new_axes.size()) {
    Group g;
    int64_t a = old[static_cast<size_t>(old_axes[i])];
    int64_t b = dims[static_cast<size_t>(new_axes[j])];
    g.from.push_back(old_axes[i++]);
    g.to.push_back(new_axes[j++]);
    while (a != b) {
      if (a < b) {
        if (i >= old_axes.size()) break;
        a *= old[static_cast<size_t>(old_axes[i])];
        g.from.push_back(old_axes[i++]);
      } else {
        if (j >= new_axes.size()) break;
        b *= dims[static_cast<size_t>(new_axes[j])];
        g.to.push_back(new_axes[j++]);
      }
    }
    if (a != b) ok = false;
    groups.push_back(g);
  }
  // Where each old axis is stored.
  std::vector<int> pos(old.size(), -1);
  for (size_t k = 0; k < v.phys.size(); ++k)
    pos[static_cast<size_t>(v.phys[k])] = static_cast<int>(k);
  // Each group's old axes must be stored consecutively, in order (size-1 axes skipped).
  std::vector<int> stored_nontrivial;  // storage order of the non-trivial old axes
  for (int axis : v.phys) {
    if (old[static_cast<size_t>(axis)] != 1) stored_nontrivial.push_back(axis);
  }
  Order phys;
  if (ok) {
    size_t k = 0;
    std::vector<bool> placed(dims.size(), false);
    while (k < stored_nontrivial.size()) {
      const Group* g = nullptr;
      for (const Group& c : groups) {
        if (c.from.front() == stored_nontrivial[k]) g = &c;
      }
      if (g == nullptr || k + g->from.size() > stored_nontrivial.size()) {
        ok = false;
        break;
      }
      for (size_t q = 0; q < g->from.size(); ++q) {
        if (stored_nontrivial[k + q] != g->from[q]) ok = false;
      }
      if (!ok) break;
      for (int t : g->to) {
        phys.push_back(t);
        placed[static_cast<size_t>(t)] = true;
      }
      k += g->from.size();
    }
    if (ok) {
      Order ones;
      for (size_t t = 0; t < dims.size(); ++t) {
        if (!placed[t]) ones.push_back(static_cast<int>(t));
      }
      phys.insert(phys.begin(), ones.begin(), ones.end());
    }
  }
  if (!ok) {
    const Val c = Contiguous(v);
    return MakeRuntime(c.ir, dims, Iota(dims.size()));
  }
  return MakeRuntime(v.ir, dims, phys);
}

// IR views of operands broadcast against `out` (all stored in `phys` order): adjacent stored axes
// merge while every operand is either full or broadcast on both.
Importer::Broadcast Importer::BroadcastViews(const Dims& out, const Order& phys,
                                             const std::vector<Dims>& operands) {
  const size_t r = out.size();
  std::vector<Dims> ext;
  for (const Dims& d : operands) {
    Dims e(r - d.size(), 1);
    e.insert(e.end(), d.begin(), d.end());
    ext.push_back(e);
  }
  std::vector<std::vector<bool>> full(operands.size());  // per stored axis
  std::vector<int> axes;
  for (int axis : phys) {
    if (out[static_cast<size_t>(axis)] != 1) axes.push_back(axis);
  }
  std::vector<std::vector<int>> groups;
  for (int axis : axes) {
    bool merge = !groups.empty();
    if (merge) {
      const int prev = groups.back().back();
      for (const Dims& e : ext) {
        const bool a = e[static_cast<size_t>(prev)] != 1;
        const bool b = e[static_cast<size_t>(axis)] != 1;
        if (a != b) merge = false;
      }
    }
    if (merge) {
      groups.back().push_back(axis);
    } else {
      groups.push_back({axis});
    }
  }
  Need(groups.size() <= 4, "broadcasts over " + std::to_string(groups.size()) +
                               " independent axes (the IR holds four)");
  Broadcast b;
  Dims o;
  for (const auto& g : groups) {
    int64_t d = 1;
    for (int axis : g) d *= out[static_cast<size_t>(axis)];
    o.push_back(d);
  }
  b.out = Pad4(o);
  for (const Dims& e : ext) {
    Dims s;
    for (const auto& g : groups) {
      int64_t d = 1;
      for (int axis : g) d *= e[static_cast<size_t>(axis)];
      s.push_back(d);
    }
    b.shapes.push_back(Pad4(s));
  }
  return b;
}

// v with size-1 axes in front up to `rank`, stored before the others (a view).
Val Extended(const Val& v, size_t rank) {
  const size_t k = rank - v.dims.size();
  Val e = v;
  e.dims.insert(e.dims.begin(), k, 1);
  e.phys = Iota(k);
  for (int axis : v.phys) e.phys.push_back(axis + static_cast<int>(k));
  return e;
}

// --- patterns ----------------------------------------------------------------------------------

int Importer::SoleConsumer(const std::string& value) const {
  if (graph_outputs_.count(value)) return -1;
  const auto it = consumers_.find(value);
  if (it == consumers_.end() || it->second.size() != 1) return -1;
  return it->second.front();
}

bool Importer::IsScalarConst(const std::string& value, double want) const {
  const auto it = vals_.find(value);
  if (it == vals_.end() || it->second.kind != VK::kConst || it->second.value.size() != 1) {
    return false;
  }
  return std::fabs(it->second.value.v[0] - want) <= 1e-4 * std::max(1.0, std::fabs(want));
}

bool Importer::TryPatterns(int index) {
  const auto& nodes = model_.graph().node();
  const onnx::NodeProto& n = nodes[index];
  auto node = [&](int k) -> const onnx::NodeProto& { return nodes[k]; };
  auto other = [&](const onnx::NodeProto& m, const std::string& one) -> std::string {
    if (m.input_size() != 2) return "";
    return m.input(0) == one ? m.input(1) : (m.input(1) == one ? m.input(0) : "");
  };
  auto runtime = [&](const std::string& name) {
    const auto it = vals_.find(name);
    return it != vals_.end() && it->second.kind == VK::kRuntime;
  };
  auto activation = [&](const std::string& x, Activation act, const onnx::NodeProto& last) {
    OpAttrs a;
    a.activation = act;
    const Val& v = Get(x);
    const int ir = Emit(OpKind::kActivation, {v.ir}, a);
    Set(last, 0, MakeRuntime(ir, v.dims, v.phys));
    ++report_->patterns;
  };
  // GELU: x / sqrt(2) -> Erf -> + 1 -> x * . -> * 0.5 (or * 0.5 then x * .).
  if (n.op_type() == "Div" && n.input_size() == 2 && runtime(n.input(0)) &&
      IsScalarConst(n.input(1), std::sqrt(2.0))) {
    const std::string x = n.input(0);
    const int e = SoleConsumer(n.output(0));
    if (e < 0 || node(e).op_type() != "Erf") return false;
    const int add = SoleConsumer(node(e).output(0));
    if (add < 0 || node(add).op_type() != "Add" ||
        !IsScalarConst(other(node(add), node(e).output(0)), 1.0)) {
      return false;
    }
    const int m1 = SoleConsumer(node(add).output(0));
    if (m1 < 0 || node(m1).op_type() != "Mul") return false;
    const std::string m1_other = other(node(m1), node(add).output(0));
    int last = -1;
    if (m1_other == x) {
      const int m2 = SoleConsumer(node(m1).output(0));
      if (m2 < 0 || node(m2).op_type() != "Mul" ||
          !IsScalarConst(other(node(m2), node(m1).output(0)), 0.5)) {
        return false;
      }
      last = m2;
    } else {
      return false;
    }
    for (int k : {index, e, add, m1, last}) done_[static_cast<size_t>(k)] = true;
    report_->mapped += 5;
    where_ = "node " + std::to_string(last) + " '" + node(last).name() + "' (GELU)";
    activation(x, Activation::kGelu, node(last));
    return true;
  }
  // Swish: x * sigmoid(x).
  if (n.op_type() == "Sigmoid" && runtime(n.input(0))) {
    const int m = SoleConsumer(n.output(0));
    if (m < 0 || node(m).op_type() != "Mul" || other(node(m), n.output(0)) != n.input(0)) {
      return false;
    }
    done_[static_cast<size_t>(index)] = done_[static_cast<size_t>(m)] = true;
    report_->mapped += 2;
    where_ = "node " + std::to_string(m) + " '" + node(m).name() + "' (swish)";
    activation(n.input(0), Activation::kSwish, node(m));
    return true;
  }
  // Layer norm written out (opset < 17): mean, x - mean, its square's mean, + eps, sqrt, divide,
  // then an optional scale and shift.
  if (n.op_type() == "ReduceMean" && runtime(n.input(0))) {
    const Val& x = Get(n.input(0));
    const int rank = static_cast<int>(x.dims.size());
    Dims axes = AttrInts(n, "axes");
    if (axes.empty() && n.input_size() > 1) {
      const auto it = vals_.find(n.input(1));
      if (it != vals_.end() && it->second.kind == VK::kConst)
        axes = it->second.value.Ints(n.name());
    }
    if (axes.size() != 1 || (axes[0] != -1 && axes[0] != rank - 1)) return false;
    const auto& mean_users = consumers_[n.output(0)];
    if (mean_users.size() != 1 || node(mean_users[0]).op_type() != "Sub") return false;
    const int sub = mean_users[0];
    if (node(sub).input(0) != n.input(0)) return false;
    const auto& d_users = consumers_[node(sub).output(0)];
    if (d_users.size() != 2) return false;
    int pow = -1;
    int div = -1;
    for (int u : d_users) {
      if (node(u).op_type() == "Pow") pow = u;
      if (node(u).op_type() == "Div") div = u;
    }
    if (pow < 0 || div < 0 || node(div).input(0) != node(sub).output(0)) return false;
    const int mean2 = SoleConsumer(node(pow).output(0));
    if (mean2 < 0 || node(mean2).op_type() != "ReduceMean") return false;
    const int eps = SoleConsumer(node(mean2).output(0));
    if (eps < 0 || node(eps).op_type() != "Add") return false;
    const int sqrt = SoleConsumer(node(eps).output(0));
    if (sqrt < 0 || node(sqrt).op_type() != "Sqrt" || node(div).input(1) != node(sqrt).output(0)) {
      return false;
    }
    std::vector<int> chain = {index, sub, pow, mean2, eps, sqrt, div};
    int last = div;
    bool shift = false;
    const int scale = SoleConsumer(node(div).output(0));
    if (scale >= 0 && node(scale).op_type() == "Mul") {
      const auto it = vals_.find(other(node(scale), node(div).output(0)));
      if (it != vals_.end() && it->second.kind == VK::kParam) {
        chain.push_back(scale);
        last = scale;
        const int bias = SoleConsumer(node(scale).output(0));
        if (bias >= 0 && node(bias).op_type() == "Add") {
          const auto jt = vals_.find(other(node(bias), node(scale).output(0)));
          if (jt != vals_.end() && jt->second.kind == VK::kParam) {
            chain.push_back(bias);
            last = bias;
            shift = true;
          }
        }
      }
    }
    for (int k : chain) done_[static_cast<size_t>(k)] = true;
    report_->mapped += static_cast<int>(chain.size());
    ++report_->patterns;
    where_ = "node " + std::to_string(last) + " '" + node(last).name() + "' (layer norm)";
    const Val v = LastInner(x);
    OpAttrs a;
    a.bias = shift;
    const int ir = Emit(OpKind::kLayerNorm, {ViewAs(v.ir, Fold(StoredDims(v)))}, a);
    Set(node(last), 0, MakeRuntime(ir, v.dims, v.phys));
    return true;
  }
  return false;
}

// --- node mapping ------------------------------------------------------------------------------

// Ops on a learned tensor alone (the exporter's weight transposes and aliases): still that
// parameter, with new dims.
Val Importer::ParamAlias(const onnx::NodeProto& n) {
  const Val& p = In(n, 0);
  Val out = p;
  const std::string& op = n.op_type();
  if (op == "Transpose") {
    Dims perm = AttrInts(n, "perm");
    if (perm.empty()) {
      for (int i = static_cast<int>(p.dims.size()) - 1; i >= 0; --i) perm.push_back(i);
    }
    Need(perm.size() == p.dims.size(), "perm does not match the tensor's rank");
    out.dims.clear();
    for (int64_t k : perm) out.dims.push_back(p.dims.at(static_cast<size_t>(k)));
  } else if (op == "Reshape") {
    out.dims = ReshapeDims(p.dims, ConstIn(n, 1, "the shape").Ints(where_),
                           AttrI(n, "allowzero", 0) != 0, source_ + ": " + where_);
  } else if (op == "Unsqueeze" || op == "Squeeze" || op == "Flatten") {
    out.dims = ShapeOpDims(n, p.dims);
  }
  // Identity and Cast keep the dims; Identity names a new parameter (an exporter's alias of a
  // shared initializer is a parameter of its own).
  if (op == "Identity") out.param = n.output(0);
  return out;
}

void Importer::MapConv(const onnx::NodeProto& n) {
  const Val& w = In(n, 1);
  Need(w.kind == VK::kParam && w.dims.size() == 4,
       "weights must be a learned [Cout, Cin/groups, kh, kw] tensor");
  const Val* b = Opt(n, 2);
  OpAttrs a;
  a.out_channels = w.dims[0];
  a.groups = static_cast<int>(AttrI(n, "group", 1));
  a.kernel_h = static_cast<int>(w.dims[2]);
  a.kernel_w = static_cast<int>(w.dims[3]);
  const Dims strides = AttrInts(n, "strides");
  const Dims dil = AttrInts(n, "dilations");
  const Dims pads = AttrInts(n, "pads");
  if (!strides.empty()) {
    Need(strides.size() == 2, "only 2-d convolutions are supported");
    a.stride_h = static_cast<int>(strides[0]);
    a.stride_w = static_cast<int>(strides[1]);
  }
  if (!dil.empty()) {
    a.dilation_h = static_cast<int>(dil[0]);
    a.dilation_w = static_cast<int>(dil[1]);
  }
  const std::string autopad = AttrS(n, "auto_pad", "NOTSET");
  if (autopad == "SAME_UPPER") {
    a.padding = Padding::Same();
  } else if (autopad == "NOTSET" && pads.size() == 4) {
    a.padding = Padding{false, static_cast<int>(pads[0]), static_cast<int>(pads[2]),
                        static_cast<int>(pads[1]), static_cast<int>(pads[3])};
  } else if (autopad != "NOTSET" && autopad != "VALID") {
    Fail("auto_pad " + autopad + " is not supported");
  }
  a.bias = b != nullptr;
  const Val& x = In(n, 0);
  const int in = Image(Runtime(x, n.input(0)));
  Need(graph_.op(in).out.shape.c == w.dims[1] * a.groups,
       "input has " + std::to_string(graph_.op(in).out.shape.c) + " channels; the weights " +
           DimsText(w.dims) + " with group " + std::to_string(a.groups) + " need " +
           std::to_string(w.dims[1] * a.groups));
  const int ir = Emit(OpKind::kConv2d, {in}, a);
  const Shape& s = graph_.op(ir).out.shape;
  Set(n, 0, MakeRuntime(ir, Dims{s.n, s.c, s.h, s.w}, Order{0, 2, 3, 1}));
}

void Importer::MapPool(const onnx::NodeProto& n, bool global) {
  const int in = Image(Runtime(In(n, 0), n.input(0)));
  OpAttrs a;
  a.pool = n.op_type().find("Max") != std::string::npos ? PoolMode::kMax : PoolMode::kAvg;
  if (global) {
    const int ir = Emit(OpKind::kGlobalPool, {in}, a);
    const Shape& s = graph_.op(ir).out.shape;
    Set(n, 0, MakeRuntime(ir, Dims{s.n, s.c, 1, 1}, Order{0, 2, 3, 1}));
    return;
  }
  const Dims k = AttrInts(n, "kernel_shape");
  Need(k.size() == 2, "only 2-d pooling is supported");
  a.kernel_h = static_cast<int>(k[0]);
  a.kernel_w = static_cast<int>(k[1]);
  const Dims strides = AttrInts(n, "strides");
  if (!strides.empty()) {
    a.stride_h = static_cast<int>(strides[0]);
    a.stride_w = static_cast<int>(strides[1]);
  }
  const Dims dil = AttrInts(n, "dilations");
  if (!dil.empty()) {
    a.dilation_h = static_cast<int>(dil[0]);
    a.dilation_w = static_cast<int>(dil[1]);
  }
  const Dims pads = AttrInts(n, "pads");
  const std::string autopad = AttrS(n, "auto_pad", "NOTSET");
  if (autopad == "SAME_UPPER") {
    a.padding = Padding::Same();
  } else if (pads.size() == 4) {
    a.padding = Padding{false, static_cast<int>(pads[0]), static_cast<int>(pads[2]),
                        static_cast<int>(pads[1]), static_cast<int>(pads[3])};
  }
  if (AttrI(n, "ceil_mode", 0) != 0 && !a.padding.same) {
    // Ceil mode: extra bottom/right padding gives the rounded-up output size.
    const Shape& s = graph_.op(in).out.shape;
    auto extra = [](int64_t size, int pa, int pb, int kk, int st, int dl) {
      const int64_t eff = static_cast<int64_t>(kk - 1) * dl + 1;
      const int64_t span = size + pa + pb - eff;
      return static_cast<int>(span % st == 0 ? 0 : st - span % st);
    };
    a.padding.bottom +=
        extra(s.h, a.padding.top, a.padding.bottom, a.kernel_h, a.stride_h, a.dilation_h);
    a.padding.right +=
        extra(s.w, a.padding.left, a.padding.right, a.kernel_w, a.stride_w, a.dilation_w);
  }
  const int ir = Emit(OpKind::kPool, {in}, a);
  const Shape& s = graph_.op(ir).out.shape;
  Set(n, 0, MakeRuntime(ir, Dims{s.n, s.c, s.h, s.w}, Order{0, 2, 3, 1}));
}

void Importer::MapBinary(const onnx::NodeProto& n) {
  const std::string& op = n.op_type();
  const Val& a = In(n, 0);
  const Val& b = In(n, 1);
  const Dims out = BroadcastDims(a.dims, b.dims, source_ + ": " + where_);
  // The main operand: a runtime tensor of the output's dims (else the first runtime one).
  const Val* main = nullptr;
  for (const Val* v : {&a, &b}) {
    if (v->kind == VK::kRuntime && v->dims == out && main == nullptr) main = v;
  }
  for (const Val* v : {&a, &b}) {
    if (v->kind == VK::kRuntime && main == nullptr) main = v;
  }
  Need(main != nullptr, "no runtime operand");
  const Val& side = main == &a ? b : a;
  const std::string& side_name = main == &a ? n.input(1) : n.input(0);
  // The main operand, and its storage order, over the output's rank.
  const Val mm = Extended(*main, out.size());
  const Order& phys = mm.phys;
  // A learned vector along the stored-innermost axis added: a bias.
  if (op == "Add" && side.kind == VK::kParam && main->dims == out) {
    const int inner = phys.back();
    const Dims ext = [&] {
      Dims e(out.size() - side.dims.size(), 1);
      e.insert(e.end(), side.dims.begin(), side.dims.end());
      return e;
    }();
    bool along_inner = ext[static_cast<size_t>(inner)] == out[static_cast<size_t>(inner)];
    for (size_t i = 0; i < ext.size(); ++i) {
      if (static_cast<int>(i) != inner && ext[i] != 1) along_inner = false;
    }
    if (along_inner) {
      const int ir = Emit(OpKind::kBiasAdd, {ViewAs(main->ir, Fold(StoredDims(*main)))}, {});
      Set(n, 0, MakeRuntime(ir, out, main->phys));
      return;
    }
  }
  // The other operand: a stored tensor (constant or parameter), or a runtime one in the same
  // storage order.
  Val s = side;
  if (s.kind != VK::kRuntime) {
    s = Runtime(s, side_name);
  }
  s = Relayout(Extended(s, out.size()), phys);
  // Up to rank 4 the folded shapes line up axis by axis; beyond, axes merge by pattern.
  Broadcast views;
  if (out.size() <= 4) {
    views.shapes = {Fold(StoredDims(mm)), Fold(StoredDims(s))};
  } else {
    views = BroadcastViews(out, phys, {mm.dims, s.dims});
  }
  const int ia = ViewAs(mm.ir, views.shapes[0]);
  const int ib = ViewAs(s.ir, views.shapes[1]);
  const OpKind kind = (op == "Add" || op == "Sub") ? OpKind::kAdd : OpKind::kMul;
  const int ir = Emit(kind, main == &a ? std::vector<int>{ia, ib} : std::vector<int>{ib, ia}, {});
  Set(n, 0, MakeRuntime(ir, out, phys));
}

void Importer::MapMatMul(const onnx::NodeProto& n) {
  const Val& a0 = In(n, 0);
  const Val& b0 = In(n, 1);
  Need(a0.kind == VK::kRuntime, "the first operand must be computed, not stored");
  Need(a0.dims.size() >= 2 && b0.dims.size() >= 2, "1-d matmul operands are not supported");
  if (b0.kind == VK::kParam && b0.dims.size() == 2) {
    // Activation x weight: a linear layer on the innermost axis.
    const Val x = LastInner(a0);
    Need(x.dims.back() == b0.dims[0],
         "inner sizes differ: " + DimsText(a0.dims) + " x " + DimsText(b0.dims));
    OpAttrs at;
    at.out_channels = b0.dims[1];
    at.bias = false;
    const int ir = Emit(OpKind::kFullyConnected, {ViewAs(x.ir, Fold(StoredDims(x)))}, at);
    Dims out = x.dims;
    out.back() = b0.dims[1];
    Set(n, 0, MakeRuntime(ir, out, x.phys));
    return;
  }
  // Activation x activation (attention).
  const Val a = Contiguous(a0);
  Val b = Runtime(b0, n.input(1));
  const size_t rb = b.dims.size();
  Order swapped = Iota(rb);
  std::swap(swapped[rb - 1], swapped[rb - 2]);
  bool transpose_b = false;
  if (b.phys == swapped && b.dims[rb - 1] != 1 && b.dims[rb - 2] != 1) {
    transpose_b = true;
  } else {
    b = Contiguous(b);
  }
  const int64_t m = a.dims[a.dims.size() - 2];
  const int64_t kk = a.dims.back();
  Need(b.dims[rb - 2] == kk, "inner sizes differ: " + DimsText(a.dims) + " x " + DimsText(b.dims));
  const int64_t nn = b.dims.back();
  const Dims ba(a.dims.begin(), a.dims.end() - 2);
  const Dims bb(b.dims.begin(), b.dims.end() - 2);
  const Dims batch = BroadcastDims(ba, bb, source_ + ": " + where_);
  Dims bext(batch.size() - bb.size(), 1);
  bext.insert(bext.end(), bb.begin(), bb.end());
  Dims aext(batch.size() - ba.size(), 1);
  aext.insert(aext.end(), ba.begin(), ba.end());
  // Batch axes as at most two (n, h), merged by broadcast pattern.
  std::vector<std::vector<size_t>> groups;
  for (size_t i = 0; i < batch.size(); ++i) {
    if (batch[i] == 1) continue;
    if (!groups.empty()) {
      const size_t p = groups.back().back();
      if ((aext[p] != 1) == (aext[i] != 1) && (bext[p] != 1) == (bext[i] != 1)) {
        groups.back().push_back(i);
        continue;
      }
    }
    groups.push_back({i});
  }
  Need(groups.size() <= 2, "matmul batch axes broadcast in more than two patterns");
  auto batch_of = [&](const Dims& e) {
    Dims d;
    for (const auto& g : groups) {
      int64_t x = 1;
      for (size_t i : g) x *= e[i];
      d.push_back(x);
    }
    while (d.size() < 2) d.push_back(1);
    return d;
  };
  const Dims abat = batch_of(aext);
  const Dims bbat = batch_of(bext);
  const int ia = ViewAs(a.ir, Shape{abat[0], abat[1], m, kk});
  const int ib =
      ViewAs(b.ir, transpose_b ? Shape{bbat[0], bbat[1], nn, kk} : Shape{bbat[0], bbat[1], kk, nn});
  OpAttrs at;
  at.transpose_b = transpose_b;
  const int ir = Emit(OpKind::kMatMul, {ia, ib}, at);
  Dims out = batch;
  out.push_back(m);
  out.push_back(nn);
  Set(n, 0, MakeRuntime(ir, out, Iota(out.size())));
}

void Importer::MapGemm(const onnx::NodeProto& n) {
  const Val& x0 = In(n, 0);
  const Val& w = In(n, 1);
  Need(x0.kind == VK::kRuntime && x0.dims.size() == 2,
       "the first operand must be a computed [M, K]");
  Need(AttrI(n, "transA", 0) == 0, "transA is not supported");
  Need(w.kind == VK::kParam && w.dims.size() == 2,
       "the second operand must be a learned 2-d tensor");
  const bool tb = AttrI(n, "transB", 0) != 0;
  const int64_t k = tb ? w.dims[1] : w.dims[0];
  const int64_t cout = tb ? w.dims[0] : w.dims[1];
  const Val x = LastInner(x0);
  Need(x.dims[1] == k, "inner sizes differ: " + DimsText(x0.dims) + " x " + DimsText(w.dims));
  const Val* c = Opt(n, 2);
  Need(c == nullptr || c->kind == VK::kParam, "the bias must be a learned tensor");
  OpAttrs at;
  at.out_channels = cout;
  at.bias = c != nullptr;
  const int ir = Emit(OpKind::kFullyConnected, {ViewAs(x.ir, Fold(StoredDims(x)))}, at);
  Set(n, 0, MakeRuntime(ir, Dims{x.dims[0], cout}, x.phys));
}

void Importer::MapSlice(const onnx::NodeProto& n, const std::vector<SliceAxis>& axes) {
  const Val& x = In(n, 0);
  Dims out = x.dims;
  std::vector<const SliceAxis*> by_axis(x.dims.size(), nullptr);
  for (const SliceAxis& s : axes) {
    Need(s.length > 0, "slice selects nothing");
    Need(s.step > 0, "a backwards slice of computed data is not supported");
    out[static_cast<size_t>(s.axis)] = s.length;
    if (s.length != x.dims[static_cast<size_t>(s.axis)]) by_axis[static_cast<size_t>(s.axis)] = &s;
  }
  if (out == x.dims) {
    Set(n, 0, x);
    return;
  }
  const Val v = Runtime(x, n.input(0));
  // Stored axes: each sliced axis alone, unsliced neighbours merged.
  struct G {
    int64_t in = 1;
    int64_t out = 1;
    int64_t start = 0;
    int64_t step = 1;
    bool sliced = false;
  };
  std::vector<G> groups;
  for (int axis : v.phys) {
    const int64_t d = v.dims[static_cast<size_t>(axis)];
    if (d == 1) continue;
    const SliceAxis* s = by_axis[static_cast<size_t>(axis)];
    if (s == nullptr && !groups.empty() && !groups.back().sliced) {
      groups.back().in *= d;
      groups.back().out *= d;
      continue;
    }
    G g;
    g.in = d;
    g.out = s ? s->length : d;
    g.start = s ? s->start : 0;
    g.step = s ? s->step : 1;
    g.sliced = s != nullptr;
    groups.push_back(g);
  }
  Need(groups.size() <= 4, "slices a tensor into more than four independent axes");
  while (groups.size() < 4) groups.insert(groups.begin(), G{});
  OpAttrs at;
  at.reshape_n = groups[0].out;
  at.reshape_h = groups[1].out;
  at.reshape_w = groups[2].out;
  at.reshape_c = groups[3].out;
  for (size_t i = 0; i < 4; ++i) {
    at.start[i] = groups[i].start;
    at.step[i] = groups[i].step;
  }
  const int in = ViewAs(v.ir, Shape{groups[0].in, groups[1].in, groups[2].in, groups[3].in});
  const int ir = Emit(OpKind::kSlice, {in}, at);
  Set(n, 0, MakeRuntime(ir, out, v.phys));
}

void Importer::MapConcat(const onnx::NodeProto& n) {
  // The storage order of the first computed input; stored inputs are laid out to match.
  const Val* first = nullptr;
  for (int i = 0; i < n.input_size(); ++i) {
    const Val& v = In(n, i);
    if (v.kind == VK::kRuntime && first == nullptr) first = &v;
  }
  Need(first != nullptr, "no computed input");
  const int rank = static_cast<int>(first->dims.size());
  const int axis = NormAxis(AttrI(n, "axis", 0), rank, source_ + ": " + where_);
  const Order phys = first->phys;
  int pos = 0;
  for (int j = 0; j < rank; ++j) {
    if (phys[static_cast<size_t>(j)] == axis) pos = j;
  }
  std::vector<int> ins;
  Dims out = first->dims;
  out[static_cast<size_t>(axis)] = 0;
  for (int i = 0; i < n.input_size(); ++i) {
    const Val& v0 = In(n, i);
    Need(static_cast<int>(v0.dims.size()) == rank, "inputs of different ranks");
    const Val v = Relayout(Runtime(v0, n.input(i)), phys);
    const Dims st = StoredDims(v);
    int64_t pre = 1;
    int64_t post = 1;
    for (int j = 0; j < rank; ++j) {
      if (j < pos) pre *= st[static_cast<size_t>(j)];
      if (j > pos) post *= st[static_cast<size_t>(j)];
    }
    ins.push_back(ViewAs(v.ir, Shape{1, pre, st[static_cast<size_t>(pos)], post}));
    out[static_cast<size_t>(axis)] += v.dims[static_cast<size_t>(axis)];
  }
  OpAttrs at;
  at.axis = 2;
  const int ir = Emit(OpKind::kConcat, ins, at);
  Set(n, 0, MakeRuntime(ir, out, phys));
}

void Importer::MapPad(const onnx::NodeProto& n) {
  const Val& x = In(n, 0);
  Need(AttrS(n, "mode", "constant") == "constant", "only constant padding is supported");
  Dims pads = AttrInts(n, "pads");
  if (n.input_size() > 1 && !n.input(1).empty()) pads = ConstIn(n, 1, "the pads").Ints(where_);
  const size_t r = x.dims.size();
  Need(pads.size() == 2 * r,
       "pads has " + std::to_string(pads.size()) + " values for rank " + std::to_string(r));
  std::vector<int> padded;
  for (size_t i = 0; i < r; ++i) {
    Need(pads[i] >= 0 && pads[i + r] >= 0, "negative padding is not supported");
    if (pads[i] != 0 || pads[i + r] != 0) padded.push_back(static_cast<int>(i));
  }
  if (padded.empty()) {
    Set(n, 0, x);
    return;
  }
  Need(padded.size() <= 2, "pads more than two axes");
  const Val v = Runtime(x, n.input(0));
  // View: [before, a1, a2, after] with the padded axes adjacent in storage.
  std::vector<int> pos;
  for (size_t j = 0; j < v.phys.size(); ++j) {
    if (std::find(padded.begin(), padded.end(), v.phys[j]) != padded.end())
      pos.push_back(static_cast<int>(j));
  }
  Need(pos.size() == 1 || pos[1] == pos[0] + 1, "pads axes that are not stored together");
  const Dims st = StoredDims(v);
  int64_t pre = 1;
  int64_t post = 1;
  for (size_t j = 0; j < st.size(); ++j) {
    if (static_cast<int>(j) < pos.front()) pre *= st[j];
    if (static_cast<int>(j) > pos.back()) post *= st[j];
  }
  const auto ax = [&](int p) { return static_cast<size_t>(v.phys[static_cast<size_t>(p)]); };
  const int64_t h = pos.size() == 2 ? st[static_cast<size_t>(pos[0])] : 1;
  const int64_t w = st[static_cast<size_t>(pos.back())];
  OpAttrs at;
  at.padding = Padding{false, 0, 0, 0, 0};
  if (pos.size() == 2) {
    at.padding.top = static_cast<int>(pads[ax(pos[0])]);
    at.padding.bottom = static_cast<int>(pads[ax(pos[0]) + r]);
  }
  at.padding.left = static_cast<int>(pads[ax(pos.back())]);
  at.padding.right = static_cast<int>(pads[ax(pos.back()) + r]);
  const int ir = Emit(OpKind::kPad, {ViewAs(v.ir, Shape{pre, h, w, post})}, at);
  Dims out = x.dims;
  for (int axis : padded)
    out[static_cast<size_t>(axis)] +=
        pads[static_cast<size_t>(axis)] + pads[static_cast<size_t>(axis) + r];
  Set(n, 0, MakeRuntime(ir, out, v.phys));
}

void Importer::MapExpand(const onnx::NodeProto& n) {
  const Val& x = In(n, 0);
  const Dims out =
      BroadcastDims(x.dims, ConstIn(n, 1, "the shape").Ints(where_), source_ + ": " + where_);
  if (out == x.dims) {
    Set(n, 0, x);
    return;
  }
  const Val v = Extended(Runtime(x, n.input(0)), out.size());
  const Order& phys = v.phys;
  Broadcast views;
  if (out.size() <= 4) {
    Val o = v;
    o.dims = out;
    views.shapes = {Fold(StoredDims(v))};
    views.out = Fold(StoredDims(o));
  } else {
    views = BroadcastViews(out, phys, {v.dims});
  }
  OpAttrs at;
  at.reshape_n = views.out.n;
  at.reshape_h = views.out.h;
  at.reshape_w = views.out.w;
  at.reshape_c = views.out.c;
  const int ir = Emit(OpKind::kExpand, {ViewAs(v.ir, views.shapes[0])}, at);
  Set(n, 0, MakeRuntime(ir, out, phys));
}

void Importer::MapGather(const onnx::NodeProto& n) {
  const Val& data = In(n, 0);
  const Array& idx = ConstIn(n, 1, "the indices");
  const int axis =
      NormAxis(AttrI(n, "axis", 0), static_cast<int>(data.dims.size()), source_ + ": " + where_);
  const auto ids = idx.Ints(where_);
  if (data.kind == VK::kParam && axis == 0) {
    // Rows of a learned table (an embedding, a relative-position bias table).
    const Val t = Runtime(data, n.input(0));
    const int64_t rows = data.dims[0];
    const int64_t inner = Elements(data.dims) / std::max<int64_t>(rows, 1);
    OpAttrs at;
    at.reshape_n = 1;
    at.reshape_h = 1;
    at.reshape_w = std::max<int64_t>(Elements(idx.dims), 1);
    at.reshape_c = inner;
    const int ir = Emit(OpKind::kGather, {ViewAs(t.ir, Shape{1, 1, rows, inner})}, at);
    Dims out = idx.dims;
    out.insert(out.end(), data.dims.begin() + 1, data.dims.end());
    Set(n, 0, MakeRuntime(ir, out, Iota(out.size())));
    return;
  }
  Need(data.kind == VK::kRuntime, "gathers from a stored tensor on an axis other than 0");
  // A contiguous run of indices is a slice (a scalar index drops the axis).
  const int64_t d = data.dims[static_cast<size_t>(axis)];
  Need(!ids.empty(), "gathers nothing");
  int64_t first = ids[0] < 0 ? ids[0] + d : ids[0];
  for (size_t i = 1; i < ids.size(); ++i) {
    const int64_t x = ids[i] < 0 ? ids[i] + d : ids[i];
    Need(x == first + static_cast<int64_t>(i),
         "gathers computed data at scattered indices (only runs of consecutive indices map)");
  }
  SliceAxis s;
  s.axis = axis;
  s.start = first;
  s.step = 1;
  s.length = static_cast<int64_t>(ids.size());
  Need(first >= 0 && first + s.length <= d, "index out of range");
  MapSlice(n, {s});
  Val sliced = vals_[n.output(0)];
  Dims out(data.dims.begin(), data.dims.begin() + axis);
  out.insert(out.end(), idx.dims.begin(), idx.dims.end());
  out.insert(out.end(), data.dims.begin() + axis + 1, data.dims.end());
  if (sliced.kind == VK::kRuntime) Set(n, 0, Reshaped(sliced, out));
}

void Importer::MapNode(int index) {
  const onnx::NodeProto& n = model_.graph().node(index);
  const std::string& op = n.op_type();
  where_ = "node " + std::to_string(index) + " '" + n.name() + "' (" + op + ")";
  block_ = BlockOf(n.name());
  NodeAttrs at = AttrsOf(n);
  const std::string where = source_ + ": " + where_;

  if (op == "Constant") {
    Val v;
    v.kind = VK::kConst;
    const auto* t = Attr(n, "value");
    if (t != nullptr) {
      v.value = TensorArray(t->t());
    } else if (const auto* f = Attr(n, "value_float")) {
      v.value.v = {f->f()};
    } else if (const auto* i = Attr(n, "value_int")) {
      v.value.v = {static_cast<double>(i->i())};
      v.value.kind = ElemKind::kInt;
    } else if (const auto* is = Attr(n, "value_ints")) {
      for (int64_t x : is->ints()) v.value.v.push_back(static_cast<double>(x));
      v.value.dims = {static_cast<int64_t>(v.value.v.size())};
      v.value.kind = ElemKind::kInt;
    } else if (const auto* fs = Attr(n, "value_floats")) {
      for (float x : fs->floats()) v.value.v.push_back(x);
      v.value.dims = {static_cast<int64_t>(v.value.v.size())};
    } else {
      Fail("Constant without a value");
    }
    v.dims = v.value.dims;
    Set(n, 0, v);
    ++report_->folded;
    return;
  }
  if (op == "Shape" || op == "Size") {
    const Val& x = In(n, 0);
    Val v;
    v.kind = VK::kConst;
    v.value.kind = ElemKind::kInt;
    if (op == "Size") {
      v.value.v = {static_cast<double>(Elements(x.dims))};
    } else {
      const int r = static_cast<int>(x.dims.size());
      int64_t start = AttrI(n, "start", 0);
      int64_t end = AttrI(n, "end", r);
      if (start < 0) start += r;
      if (end < 0) end += r;
      start = std::clamp<int64_t>(start, 0, r);
      end = std::clamp<int64_t>(end, 0, r);
      for (int64_t i = start; i < end; ++i)
        v.value.v.push_back(static_cast<double>(x.dims[static_cast<size_t>(i)]));
      v.value.dims = {static_cast<int64_t>(v.value.v.size())};
    }
    v.dims = v.value.dims;
    Set(n, 0, v);
    ++report_->folded;
    return;
  }
  // Fold: every input a known constant.
  bool all_const = n.input_size() > 0 || op == "ConstantOfShape";
  bool any_param = false;
  for (int i = 0; i < n.input_size(); ++i) {
    if (n.input(i).empty()) continue;
    const Val& v = Get(n.input(i));
    if (v.kind != VK::kConst) all_const = false;
    if (v.kind == VK::kParam) any_param = true;
  }
  if (all_const && Foldable(op)) {
    std::vector<const Array*> ins;
    for (int i = 0; i < n.input_size(); ++i) {
      ins.push_back(n.input(i).empty() ? nullptr : &Get(n.input(i)).value);
    }
    if (op == "ConstantOfShape") {
      const auto* t = Attr(n, "value");
      const Array value = t ? TensorArray(t->t()) : Array{{1}, {0.0}, ElemKind::kFloat};
      at.f = [value](const char*, double) { return value.v.empty() ? 0.0 : value.v[0]; };
      const int32_t type = t ? t->t().data_type() : onnx::TensorProto::FLOAT;
      at.i = [type](const char*, int64_t) { return static_cast<int64_t>(type); };
    }
    Val v;
    v.kind = VK::kConst;
    v.value = Evaluate(op, ins, at, where);
    v.dims = v.value.dims;
    Set(n, 0, v);
    ++report_->folded;
    return;
  }
  // Ops on a learned tensor alone: the same parameter.
  if (any_param && In(n, 0).kind == VK::kParam &&
      (op == "Identity" || op == "Transpose" || op == "Reshape" || op == "Unsqueeze" ||
       op == "Squeeze" || op == "Cast" || op == "Flatten")) {
    bool rest_const = true;
    for (int i = 1; i < n.input_size(); ++i) {
      if (!n.input(i).empty() && Get(n.input(i)).kind != VK::kConst) rest_const = false;
    }
    if (rest_const) {
      Set(n, 0, ParamAlias(n));
      return;
    }
  }
  ++report_->mapped;
  if (op == "Conv") return MapConv(n);
  if (op == "BatchNormalization") {
    const Val& x = In(n, 0);
    Need(x.dims.size() >= 2, "batch norm of a tensor of rank < 2");
    Order target;
    for (size_t i = 0; i < x.dims.size(); ++i) {
      if (i != 1) target.push_back(static_cast<int>(i));
    }
    target.push_back(1);
    const Val v = Relayout(Runtime(x, n.input(0)), target);
    const int ir = Emit(OpKind::kBatchNorm, {ViewAs(v.ir, Fold(StoredDims(v)))}, {});
    Set(n, 0, MakeRuntime(ir, v.dims, v.phys));
    return;
  }
  if (op == "Relu" || op == "Sigmoid" || op == "HardSigmoid" || op == "HardSwish" || op == "Clip" ||
      op == "Gelu") {
    const Val x = Runtime(In(n, 0), n.input(0));
    OpAttrs a;
    if (op == "Relu") {
      a.activation = Activation::kRelu;
    } else if (op == "Sigmoid") {
      a.activation = Activation::kSigmoid;
    } else if (op == "HardSigmoid") {
      a.activation = Activation::kHardSigmoid;
    } else if (op == "HardSwish") {
      a.activation = Activation::kHardSwish;
    } else if (op == "Gelu") {
      a.activation = Activation::kGelu;
    } else {
      const Val* lo = Opt(n, 1);
      const Val* hi = Opt(n, 2);
      const double l = lo && lo->kind == VK::kConst ? lo->value.v.at(0) : AttrF(n, "min", -1e30);
      const double h = hi && hi->kind == VK::kConst ? hi->value.v.at(0) : AttrF(n, "max", 1e30);
      if (l == 0 && h == 6) {
        a.activation = Activation::kRelu6;
      } else if (l == 0 && h >= 1e30) {
        a.activation = Activation::kRelu;
      } else {
        Fail("Clip to [" + std::to_string(l) + ", " + std::to_string(h) +
             "] maps to no activation (relu6 and relu do)");
      }
    }
    const int ir = Emit(OpKind::kActivation, {x.ir}, a);
    Set(n, 0, MakeRuntime(ir, x.dims, x.phys));
    return;
  }
  if (op == "Add" || op == "Sub" || op == "Mul" || op == "Div") return MapBinary(n);
  if (op == "MatMul") return MapMatMul(n);
  if (op == "Gemm") return MapGemm(n);
  if (op == "Softmax") {
    const Val& x = In(n, 0);
    const int axis = NormAxis(AttrI(n, "axis", -1), static_cast<int>(x.dims.size()), where);
    Order target;
    for (int a : x.phys) {
      if (a != axis) target.push_back(a);
    }
    target.push_back(axis);
    const Val v = Relayout(Runtime(x, n.input(0)), target);
    const int ir = Emit(OpKind::kSoftmax, {ViewAs(v.ir, Fold(StoredDims(v)))}, {});
    Set(n, 0, MakeRuntime(ir, v.dims, v.phys));
    return;
  }
  if (op == "LayerNormalization") {
    const Val& x = In(n, 0);
    const int rank = static_cast<int>(x.dims.size());
    const int axis = NormAxis(AttrI(n, "axis", -1), rank, where);
    Need(axis == rank - 1, "normalises over axes from " + std::to_string(axis) +
                               " (only the last axis is supported)");
    const Val* scale = Opt(n, 1);
    const Val* bias = Opt(n, 2);
    Need(scale != nullptr && scale->kind == VK::kParam, "the scale must be a learned tensor");
    const Val v = LastInner(Runtime(x, n.input(0)));
    OpAttrs a;
    a.bias = bias != nullptr;
    const int ir = Emit(OpKind::kLayerNorm, {ViewAs(v.ir, Fold(StoredDims(v)))}, a);
    Set(n, 0, MakeRuntime(ir, v.dims, v.phys));
    return;
  }
  if (op == "GlobalAveragePool" || op == "GlobalMaxPool") return MapPool(n, true);
  if (op == "MaxPool" || op == "AveragePool") return MapPool(n, false);
  if (op == "ReduceMean") {
    const Val& x = In(n, 0);
    Dims axes = AttrInts(n, "axes");
    if (axes.empty() && n.input_size() > 1) axes = ConstIn(n, 1, "the axes").Ints(where);
    std::set<int> red;
    for (int64_t a : axes) red.insert(NormAxis(a, static_cast<int>(x.dims.size()), where));
    Need(x.dims.size() == 4 && red == std::set<int>{2, 3},
         "a mean over axes other than H and W of an [N, C, H, W] tensor maps to no IR op");
    const OpAttrs a;
    const int ir = Emit(OpKind::kGlobalPool, {Image(Runtime(x, n.input(0)))}, a);
    const Shape& s = graph_.op(ir).out.shape;
    if (AttrI(n, "keepdims", 1) != 0) {
      Set(n, 0, MakeRuntime(ir, Dims{s.n, s.c, 1, 1}, Order{0, 2, 3, 1}));
    } else {
      Set(n, 0, MakeRuntime(ir, Dims{s.n, s.c}, Order{0, 1}));
    }
    return;
  }
  if (op == "Identity" || op == "Dropout" || op == "Cast") {
    Set(n, 0, In(n, 0));
    return;
  }
  if (op == "Transpose") {
    const Val& x = In(n, 0);
    Need(x.kind == VK::kRuntime, "transposes a stored tensor");
    Dims perm = AttrInts(n, "perm");
    const size_t r = x.dims.size();
    if (perm.empty()) {
      for (int i = static_cast<int>(r) - 1; i >= 0; --i) perm.push_back(i);
    }
    Need(perm.size() == r, "perm does not match the rank");
    Order inv(r);
    Dims dims;
    for (size_t i = 0; i < r; ++i) {
      inv[static_cast<size_t>(perm[i])] = static_cast<int>(i);
      dims.push_back(x.dims[static_cast<size_t>(perm[i])]);
    }
    Order phys;
    for (int axis : x.phys) phys.push_back(inv[static_cast<size_t>(axis)]);
    Set(n, 0, MakeRuntime(x.ir, dims, phys));  // no data moves until a consumer needs it
    return;
  }
  if (op == "Reshape" || op == "Flatten" || op == "Squeeze" || op == "Unsqueeze") {
    const Val& x = In(n, 0);
    Need(x.kind != VK::kConst, "internal: a constant reached mapping");
    Dims dims;
    if (op == "Reshape") {
      dims = ReshapeDims(x.dims, ConstIn(n, 1, "the shape").Ints(where),
                         AttrI(n, "allowzero", 0) != 0, where);
    } else {
      dims = ShapeOpDims(n, x.dims);
    }
    Set(n, 0, Reshaped(Runtime(x, n.input(0)), dims));
    return;
  }
  if (op == "Concat") return MapConcat(n);
  if (op == "Slice") {
    const Val& x = In(n, 0);
    const auto starts = ConstIn(n, 1, "starts").Ints(where);
    const auto ends = ConstIn(n, 2, "ends").Ints(where);
    const auto axes = Opt(n, 3) ? ConstIn(n, 3, "axes").Ints(where) : Dims{};
    const auto steps = Opt(n, 4) ? ConstIn(n, 4, "steps").Ints(where) : Dims{};
    return MapSlice(n, ResolveSlice(x.dims, starts, ends, axes, steps, where));
  }
  if (op == "Pad") return MapPad(n);
  if (op == "Expand") return MapExpand(n);
  if (op == "Gather") return MapGather(n);
  Fail("this configuration maps to no IR op (its inputs are computed at run time)");
}

Graph Importer::Run() {
  const auto start = Clock::now();
  const onnx::GraphProto& g = model_.graph();
  const int n_nodes = g.node_size();
  report_->nodes = n_nodes;
  // Every op type known? List all nodes that are not, at once.
  static const std::set<std::string> kMapped = {"Constant",
                                                "Shape",
                                                "Size",
                                                "Conv",
                                                "BatchNormalization",
                                                "Relu",
                                                "Sigmoid",
                                                "HardSigmoid",
                                                "HardSwish",
                                                "Clip",
                                                "Gelu",
                                                "Add",
                                                "Sub",
                                                "Mul",
                                                "Div",
                                                "MatMul",
                                                "Gemm",
                                                "Softmax",
                                                "LayerNormalization",
                                                "GlobalAveragePool",
                                                "GlobalMaxPool",
                                                "MaxPool",
                                                "AveragePool",
                                                "ReduceMean",
                                                "Identity",
                                                "Dropout",
                                                "Cast",
                                                "Transpose",
                                                "Reshape",
                                                "Flatten",
                                                "Squeeze",
                                                "Unsqueeze",
                                                "Concat",
                                                "Slice",
                                                "Pad",
                                                "Expand",
                                                "Gather"};
  std::map<std::string, std::vector<std::string>> unknown;
  int unknown_count = 0;
  for (int i = 0; i < n_nodes; ++i) {
    const auto& n = g.node(i);
    if (!n.domain().empty() && n.domain() != "ai.onnx") {
      unknown[n.domain() + "." + n.op_type()].push_back(std::to_string(i) + " '" + n.name() + "'");
      ++unknown_count;
    } else if (kMapped.count(n.op_type()) == 0 && !Foldable(n.op_type())) {
      unknown[n.op_type()].push_back(std::to_string(i) + " '" + n.name() + "'");
      ++unknown_count;
    }
  }
  if (!unknown.empty()) {
    std::string message = std::to_string(unknown_count) + " node" +
                          (unknown_count == 1 ? "" : "s") + " of unsupported op types:";
    for (const auto& [type, nodes] : unknown) {
      message += "\n  " + type + " (" + std::to_string(nodes.size()) + "): nodes ";
      for (size_t k = 0; k < nodes.size() && k < 20; ++k) message += (k ? ", " : "") + nodes[k];
      if (nodes.size() > 20) message += ", ... (" + std::to_string(nodes.size() - 20) + " more)";
    }
    throw InputError(source_ + ": " + message);
  }
  // Initializers: learned tensors (float, more than one element) are parameters and never read;
  // the rest are constants.
  std::set<std::string> initialized;
  for (const auto& t : g.initializer()) {
    where_ = "initializer '" + t.name() + "'";
    initialized.insert(t.name());
    Val v;
    v.dims.assign(t.dims().begin(), t.dims().end());
    for (int64_t d : v.dims) Need(d >= 0, "negative dimension");
    const bool learned_type = KindOf(t.data_type()) == ElemKind::kFloat;
    if (t.data_location() == onnx::TensorProto::EXTERNAL) report_->external_data = true;
    if (learned_type && Elements(v.dims) > 1) {
      v.kind = VK::kParam;
      v.param = t.name();
    } else {
      v.kind = VK::kConst;
      v.value = TensorArray(t);
    }
    vals_[t.name()] = std::move(v);
  }
  // The image input: the one graph input without an initializer.
  where_.clear();
  graph_ = Graph(GraphInfo{});
  int inputs = 0;
  for (const auto& in : g.input()) {
    if (initialized.count(in.name())) continue;
    ++inputs;
    where_ = "graph input '" + in.name() + "'";
    Need(in.type().has_tensor_type() && in.type().tensor_type().has_shape(), "has no tensor shape");
    const auto& shape = in.type().tensor_type().shape();
    Dims dims;
    for (int i = 0; i < shape.dim_size(); ++i) {
      const auto& d = shape.dim(i);
      const bool fixed = d.has_dim_value() && d.dim_value() > 0;
      if (i == 0) {
        if (fixed && d.dim_value() != options_.batch) {
          Fail("the batch is fixed at " + std::to_string(d.dim_value()) + " in the file; --batch " +
               std::to_string(options_.batch) +
               " needs an export with a dynamic batch axis (torch.onnx.export dynamic_axes)");
        }
        dims.push_back(options_.batch);
      } else {
        Need(fixed, "dimension " + std::to_string(i) + " is not fixed (only the batch may vary)");
        dims.push_back(d.dim_value());
      }
    }
    Need(dims.size() == 4,
         "expects an [N, C, H, W] image input, got rank " + std::to_string(dims.size()));
    const int elem = in.type().tensor_type().elem_type();
    Need(KindOf(elem) == ElemKind::kFloat, "expects a floating-point image input");
    GraphInfo info;
    info.model = options_.model;
    info.batch = options_.batch;
    info.dtype = options_.dtype;
    info.resolution = static_cast<int>(dims[2]);
    graph_ = Graph(info);
    OpAttrs a;
    a.input_type = TensorType{Shape{dims[0], dims[2], dims[3], dims[1]}, options_.dtype};
    block_ = "input";
    const int ir = Emit(OpKind::kInput, {}, a, in.name());
    vals_[in.name()] = MakeRuntime(ir, dims, Order{0, 2, 3, 1});
  }
  where_.clear();
  Need(inputs == 1, "has " + std::to_string(inputs) +
                        " graph inputs besides initializers (one image input is supported)");
  for (int i = 0; i < n_nodes; ++i) {
    for (const auto& x : g.node(i).input()) {
      if (!x.empty()) consumers_[x].push_back(i);
    }
  }
  for (const auto& o : g.output()) graph_outputs_.insert(o.name());
  done_.assign(static_cast<size_t>(n_nodes), false);
  // Constants first: patterns look ahead at the scalars later nodes use.
  for (int i = 0; i < n_nodes; ++i) {
    if (g.node(i).op_type() == "Constant") {
      MapNode(i);
      done_[static_cast<size_t>(i)] = true;
    }
  }
  for (int i = 0; i < n_nodes; ++i) {
    if (done_[static_cast<size_t>(i)]) continue;
    const auto& n = g.node(i);
    for (const auto& x : n.input()) {
      if (!x.empty() && vals_.find(x) == vals_.end()) {
        where_ = "node " + std::to_string(i) + " '" + n.name() + "' (" + n.op_type() + ")";
        Fail("input '" + x +
             "' is not produced by an earlier node, an initializer or a graph "
             "input (a missing initializer, or nodes out of order)");
      }
    }
    if (TryPatterns(i)) continue;
    MapNode(i);
  }
  where_.clear();
  // Declared output shapes must agree with what import computed.
  int outputs = 0;
  for (const auto& o : g.output()) {
    where_ = "graph output '" + o.name() + "'";
    const auto it = vals_.find(o.name());
    Need(it != vals_.end(), "is produced by no node");
    Need(it->second.kind == VK::kRuntime,
         "is a constant (the graph computes nothing from its input)");
    CheckDeclared(o, it->second.dims);
    ++outputs;
    if (outputs == 1 && it->second.dims.size() == 2) {
      graph_.mutable_info().num_classes = static_cast<int>(it->second.dims[1]);
    }
  }
  where_.clear();
  Need(outputs >= 1, "has no graph outputs");
  // Values declared in value_info must agree too (a shape contradiction names the value).
  for (const auto& vi : g.value_info()) {
    const auto it = vals_.find(vi.name());
    if (it == vals_.end()) continue;
    where_ = "value '" + vi.name() + "'";
    CheckDeclared(vi, it->second.dims);
  }
  where_.clear();
  report_->transposes = transposes_;
  report_->ir_ops = graph_.size();
  report_->import_s = std::chrono::duration<double>(Clock::now() - start).count();
  return std::move(graph_);
}

std::string Stem(const std::string& path) { return std::filesystem::path(path).stem().string(); }

// --- weight stripping ----------------------------------------------------------------------------
// The importer reads no weights, so before protobuf parses the file the bytes of learned tensors
// (floating-point initializers of more than 64 bytes) are dropped from the wire format: a
// 346 MB ViT-B/16 parses like a 1 MB file. Anything the scan does not understand is copied as is.

bool ReadVarint(std::string_view b, size_t& at, uint64_t& v) {
  v = 0;
  for (int shift = 0; shift < 64; shift += 7) {
    if (at >= b.size()) return false;
    const auto byte = static_cast<uint8_t>(b[at++]);
    v |= static_cast<uint64_t>(byte & 0x7f) << shift;
    if ((byte & 0x80) == 0) return true;
  }
  return false;
}

void WriteVarint(std::string& out, uint64_t v) {
  while (v >= 0x80) {
    out.push_back(static_cast<char>((v & 0x7f) | 0x80));
    v >>= 7;
  }
  out.push_back(static_cast<char>(v));
}

struct Field {
  uint32_t number = 0;
  uint32_t wire = 0;
  size_t begin = 0;  // the whole field, tag included
  size_t end = 0;
  std::string_view data;  // length-delimited payload
  uint64_t value = 0;     // varint payload
};

// Splits a message into its fields; false when the bytes are not a well-formed message.
bool Fields(std::string_view b, std::vector<Field>& out) {
  size_t at = 0;
  while (at < b.size()) {
    Field f;
    f.begin = at;
    uint64_t tag = 0;
    if (!ReadVarint(b, at, tag)) return false;
    f.number = static_cast<uint32_t>(tag >> 3);
    f.wire = static_cast<uint32_t>(tag & 7);
    switch (f.wire) {
      case 0:
        if (!ReadVarint(b, at, f.value)) return false;
        break;
      case 1:
        at += 8;
        break;
      case 5:
        at += 4;
        break;
      case 2: {
        uint64_t len = 0;
        if (!ReadVarint(b, at, len) || len > b.size() - at) return false;
        f.data = b.substr(at, len);
        at += len;
        break;
      }
      default:
        return false;
    }
    if (at > b.size()) return false;
    f.end = at;
    out.push_back(f);
  }
  return true;
}

void WriteLengthField(std::string& out, uint32_t number, std::string_view payload) {
  WriteVarint(out, (uint64_t{number} << 3) | 2);
  WriteVarint(out, payload.size());
  out.append(payload);
}

// TensorProto: dims 1, data_type 2, float_data 4, raw_data 9, double_data 10.
std::string StripTensor(std::string_view b, bool& stripped) {
  std::vector<Field> fields;
  if (!Fields(b, fields)) return std::string(b);
  uint64_t type = 0;
  for (const Field& f : fields) {
    if (f.number == 2 && f.wire == 0) type = f.value;
  }
  const bool floating = type == 1 || type == 10 || type == 11 || type == 16;
  std::string out;
  for (const Field& f : fields) {
    const bool data = f.wire == 2 && (f.number == 9 || f.number == 4 || f.number == 10);
    if (floating && data && f.data.size() > 64) {
      stripped = true;
      continue;
    }
    out.append(b.substr(f.begin, f.end - f.begin));
  }
  return out;
}

// GraphProto: initializer 5.
std::string StripGraph(std::string_view b) {
  std::vector<Field> fields;
  if (!Fields(b, fields)) return std::string(b);
  std::string out;
  for (const Field& f : fields) {
    if (f.number == 5 && f.wire == 2) {
      bool stripped = false;
      const std::string t = StripTensor(f.data, stripped);
      if (stripped) {
        WriteLengthField(out, 5, t);
        continue;
      }
    }
    out.append(b.substr(f.begin, f.end - f.begin));
  }
  return out;
}

// ModelProto: graph 7. Returns the input unchanged when it is not a well-formed message (the
// protobuf parser then says so).
std::string StripWeights(std::string_view b) {
  std::vector<Field> fields;
  if (!Fields(b, fields)) return std::string(b);
  std::string out;
  out.reserve(std::min<size_t>(b.size(), size_t{1} << 24));
  for (const Field& f : fields) {
    if (f.number == 7 && f.wire == 2) {
      WriteLengthField(out, 7, StripGraph(f.data));
    } else {
      out.append(b.substr(f.begin, f.end - f.begin));
    }
  }
  return out;
}

}  // namespace

Graph ImportBytes(std::string_view bytes, const std::string& source, const Options& options,
                  Report* report) {
  Report local;
  Report* r = report ? report : &local;
  const auto start = Clock::now();
  onnx::ModelProto model;
  if (bytes.empty()) throw InputError(source + ": empty file (not an ONNX model)");
  if (!model.ParseFromString(StripWeights(bytes))) {
    throw InputError(source + ": not an ONNX model: the protobuf does not parse (" +
                     std::to_string(bytes.size()) + " bytes; truncated, or another format)");
  }
  if (!model.has_graph() || model.graph().node_size() == 0) {
    throw InputError(source + ": not an ONNX model: no graph (or a graph with no nodes)");
  }
  if (model.ir_version() <= 0) {
    throw InputError(source + ": not an ONNX model: ir_version missing");
  }
  r->parse_s += std::chrono::duration<double>(Clock::now() - start).count();
  Options o = options;
  if (o.batch <= 0) throw InputError(source + ": batch must be positive");
  if (o.model.empty()) o.model = Stem(source);
  Importer importer(model, source, o, r);
  return importer.Run();
}

Graph ImportFile(const std::string& path, const Options& options, Report* report) {
  Report local;
  Report* r = report ? report : &local;
  const auto start = Clock::now();
  // The file mapped, not copied (model files run to gigabytes).
  const int fd = ::open(path.c_str(), O_RDONLY);
  if (fd < 0) throw InputError(path + ": cannot open file: " + std::strerror(errno));
  struct stat st {};
  if (::fstat(fd, &st) != 0 || S_ISDIR(st.st_mode)) {
    ::close(fd);
    throw InputError(path +
                     (S_ISDIR(st.st_mode) ? ": is a directory, not a file" : ": cannot stat"));
  }
  const auto size = static_cast<size_t>(st.st_size);
  if (size > kMaxOnnxBytes) {
    ::close(fd);
    throw InputError(path + ": larger than " + std::to_string(kMaxOnnxBytes >> 20) +
                     " MiB, the most dcnas reads from an ONNX file");
  }
  void* map = size > 0 ? ::mmap(nullptr, size, PROT_READ, MAP_PRIVATE, fd, 0) : nullptr;
  ::close(fd);
  if (size > 0 && map == MAP_FAILED)
    throw InputError(path + ": cannot map file: " + std::strerror(errno));
  struct Unmap {
    void* p;
    size_t n;
    ~Unmap() {
      if (p != nullptr) ::munmap(p, n);
    }
  } unmap{size > 0 ? map : nullptr, size};
  const std::string_view bytes(static_cast<const char*>(map), size);
  r->parse_s = std::chrono::duration<double>(Clock::now() - start).count();
  return ImportBytes(bytes, path, options, r);
}

}  // namespace dcnas::models::onnx_import
