#include "models/onnx/const_eval.h"

#include <algorithm>
#include <cmath>
#include <set>

#include "common/errors.h"

namespace dcnas::models::onnx_import {
namespace {

std::string DimsText(const std::vector<int64_t>& d) {
  std::string s = "[";
  for (size_t i = 0; i < d.size(); ++i) s += (i ? ", " : "") + std::to_string(d[i]);
  return s + "]";
}

std::vector<int64_t> Strides(const std::vector<int64_t>& dims) {
  std::vector<int64_t> s(dims.size(), 1);
  for (int i = static_cast<int>(dims.size()) - 2; i >= 0; --i) {
    s[static_cast<size_t>(i)] = s[static_cast<size_t>(i) + 1] * dims[static_cast<size_t>(i) + 1];
  }
  return s;
}

// Index into `in` (broadcast to `out` dims) of flat output index `flat`.
int64_t BroadcastIndex(int64_t flat, const std::vector<int64_t>& out,
                       const std::vector<int64_t>& in_dims,
                       const std::vector<int64_t>& in_strides) {
  int64_t index = 0;
  const size_t offset = out.size() - in_dims.size();
  for (int i = static_cast<int>(out.size()) - 1; i >= 0; --i) {
    const int64_t d = out[static_cast<size_t>(i)];
    const int64_t coord = flat % d;
    flat /= d;
    if (static_cast<size_t>(i) >= offset) {
      const size_t j = static_cast<size_t>(i) - offset;
      if (in_dims[j] != 1) index += coord * in_strides[j];
    }
  }
  return index;
}

void Need(bool ok, const std::string& where, const std::string& why) {
  if (!ok) throw InputError(where + ": " + why);
}

const Array& In(const std::vector<const Array*>& in, size_t i, const std::string& where) {
  Need(i < in.size() && in[i] != nullptr, where, "missing input " + std::to_string(i));
  return *in[i];
}

ElemKind KindOfOnnxType(int64_t type) {
  switch (type) {
    case 1:   // FLOAT
    case 10:  // FLOAT16
    case 11:  // DOUBLE
    case 16:  // BFLOAT16
      return ElemKind::kFloat;
    case 9:  // BOOL
      return ElemKind::kBool;
    default:
      return ElemKind::kInt;
  }
}

Array Binary(const std::string& op, const Array& a, const Array& b, const std::string& where) {
  Array out;
  out.dims = BroadcastDims(a.dims, b.dims, where);
  const bool compare = op == "Equal" || op == "Less" || op == "Greater" || op == "LessOrEqual" ||
                       op == "GreaterOrEqual" || op == "And" || op == "Or";
  out.kind = compare ? ElemKind::kBool : a.kind;
  const int64_t n = Elements(out.dims);
  out.v.resize(static_cast<size_t>(n));
  const auto sa = Strides(a.dims);
  const auto sb = Strides(b.dims);
  const bool integral = a.kind != ElemKind::kFloat;
  for (int64_t k = 0; k < n; ++k) {
    const double x = a.v[static_cast<size_t>(BroadcastIndex(k, out.dims, a.dims, sa))];
    const double y = b.v[static_cast<size_t>(BroadcastIndex(k, out.dims, b.dims, sb))];
    double r = 0;
    if (op == "Add") {
      r = x + y;
    } else if (op == "Sub") {
      r = x - y;
    } else if (op == "Mul") {
      r = x * y;
    } else if (op == "Div") {
      if (integral) {
        Need(y != 0, where, "integer division by zero");
        r = std::trunc(x / y);
      } else {
        r = x / y;
      }
    } else if (op == "Mod") {
      Need(y != 0, where, "modulo by zero");
      r = std::fmod(x, y);
      if (r != 0 && ((r < 0) != (y < 0))) r += y;  // sign of the divisor (fmod = 0)
    } else if (op == "Pow") {
      r = std::pow(x, y);
    } else if (op == "Min") {
      r = std::min(x, y);
    } else if (op == "Max") {
      r = std::max(x, y);
    } else if (op == "Equal") {
      r = x == y;
    } else if (op == "Less") {
      r = x < y;
    } else if (op == "Greater") {
      r = x > y;
    } else if (op == "LessOrEqual") {
      r = x <= y;
    } else if (op == "GreaterOrEqual") {
      r = x >= y;
    } else if (op == "And") {
      r = (x != 0) && (y != 0);
    } else if (op == "Or") {
      r = (x != 0) || (y != 0);
    }
    out.v[static_cast<size_t>(k)] = r;
  }
  return out;
}

Array Unary(const std::string& op, const Array& a) {
  Array out = a;
  for (double& x : out.v) {
    if (op == "Sqrt") {
      x = std::sqrt(x);
    } else if (op == "Neg") {
      x = -x;
    } else if (op == "Abs") {
      x = std::fabs(x);
    } else if (op == "Floor") {
      x = std::floor(x);
    } else if (op == "Ceil") {
      x = std::ceil(x);
    } else if (op == "Not") {
      x = x == 0 ? 1 : 0;
    } else if (op == "Erf") {
      x = std::erf(x);
    } else if (op == "Sigmoid") {
      x = 1.0 / (1.0 + std::exp(-x));
    } else if (op == "Relu") {
      x = std::max(x, 0.0);
    }
  }
  if (op == "Not") out.kind = ElemKind::kBool;
  return out;
}

Array Transpose(const Array& a, std::vector<int64_t> perm, const std::string& where) {
  const int r = a.rank();
  if (perm.empty()) {
    for (int i = r - 1; i >= 0; --i) perm.push_back(i);
  }
  Need(static_cast<int>(perm.size()) == r, where,
       "perm has " + std::to_string(perm.size()) + " axes for a rank-" + std::to_string(r) +
           " tensor");
  Array out;
  out.kind = a.kind;
  for (int64_t p : perm) {
    Need(p >= 0 && p < r, where, "perm axis " + std::to_string(p) + " out of range");
    out.dims.push_back(a.dims[static_cast<size_t>(p)]);
  }
  const auto sa = Strides(a.dims);
  const int64_t n = a.size();
  out.v.resize(static_cast<size_t>(n));
  for (int64_t k = 0; k < n; ++k) {
    int64_t flat = k;
    int64_t src = 0;
    for (int i = r - 1; i >= 0; --i) {
      const int64_t d = out.dims[static_cast<size_t>(i)];
      src += (flat % d) * sa[static_cast<size_t>(perm[static_cast<size_t>(i)])];
      flat /= d;
    }
    out.v[static_cast<size_t>(k)] = a.v[static_cast<size_t>(src)];
  }
  return out;
}

Array Gather(const Array& data, const Array& idx, int64_t axis_attr, const std::string& where) {
  Need(data.rank() >= 1, where, "gather from a scalar");
  const int axis = NormAxis(axis_attr, data.rank(), where);
  const auto a = static_cast<size_t>(axis);
  Array out;
  out.kind = data.kind;
  out.dims.assign(data.dims.begin(), data.dims.begin() + axis);
  out.dims.insert(out.dims.end(), idx.dims.begin(), idx.dims.end());
  out.dims.insert(out.dims.end(), data.dims.begin() + axis + 1, data.dims.end());
  int64_t outer = 1;
  for (size_t i = 0; i < a; ++i) outer *= data.dims[i];
  int64_t inner = 1;
  for (size_t i = a + 1; i < data.dims.size(); ++i) inner *= data.dims[i];
  const int64_t extent = data.dims[a];
  for (int64_t o = 0; o < outer; ++o) {
    for (double dv : idx.v) {
      auto j = static_cast<int64_t>(dv);
      if (j < 0) j += extent;
      Need(j >= 0 && j < extent, where,
           "index " + std::to_string(static_cast<int64_t>(dv)) + " out of range for axis size " +
               std::to_string(extent));
      const int64_t base = (o * extent + j) * inner;
      for (int64_t k = 0; k < inner; ++k) out.v.push_back(data.v[static_cast<size_t>(base + k)]);
    }
  }
  return out;
}

Array Concat(const std::vector<const Array*>& in, int64_t axis_attr, const std::string& where) {
  Need(!in.empty(), where, "concat of nothing");
  const Array& first = *in[0];
  const int r = first.rank();
  const int axis = NormAxis(axis_attr, r, where);
  Array out;
  out.kind = first.kind;
  out.dims = first.dims;
  out.dims[static_cast<size_t>(axis)] = 0;
  for (const Array* x : in) {
    Need(x != nullptr && x->rank() == r, where, "concat inputs of different ranks");
    for (int i = 0; i < r; ++i) {
      if (i != axis) {
        Need(x->dims[static_cast<size_t>(i)] == first.dims[static_cast<size_t>(i)], where,
             "concat inputs " + DimsText(first.dims) + " and " + DimsText(x->dims) +
                 " differ off the axis");
      }
    }
    out.dims[static_cast<size_t>(axis)] += x->dims[static_cast<size_t>(axis)];
  }
  int64_t outer = 1;
  for (int i = 0; i < axis; ++i) outer *= first.dims[static_cast<size_t>(i)];
  for (int64_t o = 0; o < outer; ++o) {
    for (const Array* x : in) {
      int64_t chunk = 1;
      for (int i = axis; i < r; ++i) chunk *= x->dims[static_cast<size_t>(i)];
      const auto begin = x->v.begin() + o * chunk;
      out.v.insert(out.v.end(), begin, begin + chunk);
    }
  }
  return out;
}

Array SliceArray(const Array& a, const std::vector<SliceAxis>& axes) {
  Array out;
  out.kind = a.kind;
  out.dims = a.dims;
  std::vector<int64_t> start(a.dims.size(), 0);
  std::vector<int64_t> step(a.dims.size(), 1);
  for (const SliceAxis& s : axes) {
    out.dims[static_cast<size_t>(s.axis)] = s.length;
    start[static_cast<size_t>(s.axis)] = s.start;
    step[static_cast<size_t>(s.axis)] = s.step;
  }
  const auto sa = Strides(a.dims);
  const int64_t n = Elements(out.dims);
  out.v.resize(static_cast<size_t>(n));
  const int r = a.rank();
  for (int64_t k = 0; k < n; ++k) {
    int64_t flat = k;
    int64_t src = 0;
    for (int i = r - 1; i >= 0; --i) {
      const auto u = static_cast<size_t>(i);
      const int64_t c = flat % out.dims[u];
      flat /= out.dims[u];
      src += (start[u] + c * step[u]) * sa[u];
    }
    out.v[static_cast<size_t>(k)] = a.v[static_cast<size_t>(src)];
  }
  return out;
}

Array ExpandTo(const Array& a, const std::vector<int64_t>& dims, const std::string& where) {
  Array out;
  out.kind = a.kind;
  out.dims = BroadcastDims(a.dims, dims, where);
  const auto sa = Strides(a.dims);
  const int64_t n = Elements(out.dims);
  out.v.resize(static_cast<size_t>(n));
  for (int64_t k = 0; k < n; ++k) {
    out.v[static_cast<size_t>(k)] =
        a.v[static_cast<size_t>(BroadcastIndex(k, out.dims, a.dims, sa))];
  }
  return out;
}

constexpr int64_t kMaxFoldElements = int64_t{1} << 24;

}  // namespace

int64_t Elements(const std::vector<int64_t>& dims) {
  int64_t n = 1;
  for (int64_t d : dims) n *= d;
  return n;
}

int64_t Array::size() const { return Elements(dims); }

std::vector<int64_t> Array::Ints(const std::string& what) const {
  std::vector<int64_t> out;
  out.reserve(v.size());
  constexpr double kHuge = 4.6e18;  // INT64_MAX / INT64_MIN as slice ends ("to the end")
  for (double x : v) {
    if (x != std::floor(x))
      throw InputError(what + ": expected integers, got " + std::to_string(x));
    if (std::fabs(x) > kHuge) {
      out.push_back(x > 0 ? int64_t{1} << 62 : -(int64_t{1} << 62));
    } else {
      out.push_back(static_cast<int64_t>(x));
    }
  }
  return out;
}

std::vector<int64_t> BroadcastDims(const std::vector<int64_t>& a, const std::vector<int64_t>& b,
                                   const std::string& what) {
  const size_t r = std::max(a.size(), b.size());
  std::vector<int64_t> out(r, 1);
  for (size_t i = 0; i < r; ++i) {
    const int64_t x = i < r - a.size() ? 1 : a[i - (r - a.size())];
    const int64_t y = i < r - b.size() ? 1 : b[i - (r - b.size())];
    if (x != y && x != 1 && y != 1) {
      throw InputError(what + ": shapes " + DimsText(a) + " and " + DimsText(b) +
                       " do not broadcast");
    }
    out[i] = x == 1 ? y : x;
  }
  return out;
}

int NormAxis(int64_t axis, int rank, const std::string& what) {
  const int64_t a = axis < 0 ? axis + rank : axis;
  if (a < 0 || a >= std::max(rank, 1)) {
    throw InputError(what + ": axis " + std::to_string(axis) + " out of range for rank " +
                     std::to_string(rank));
  }
  return static_cast<int>(a);
}

bool Foldable(const std::string& op) {
  static const std::set<std::string> kOps = {"Identity",
                                             "Gather",
                                             "Unsqueeze",
                                             "Squeeze",
                                             "Concat",
                                             "Slice",
                                             "Cast",
                                             "Add",
                                             "Sub",
                                             "Mul",
                                             "Div",
                                             "Pow",
                                             "Sqrt",
                                             "Neg",
                                             "Abs",
                                             "Mod",
                                             "Floor",
                                             "Ceil",
                                             "Equal",
                                             "Less",
                                             "Greater",
                                             "LessOrEqual",
                                             "GreaterOrEqual",
                                             "Not",
                                             "And",
                                             "Or",
                                             "Where",
                                             "Min",
                                             "Max",
                                             "ConstantOfShape",
                                             "Range",
                                             "Reshape",
                                             "Expand",
                                             "Transpose",
                                             "ScatterND",
                                             "Tile",
                                             "Flatten",
                                             "Erf",
                                             "Sigmoid",
                                             "Relu",
                                             "ReduceProd",
                                             "ReduceSum",
                                             "Dropout"};
  return kOps.count(op) > 0;
}

std::vector<int64_t> ReshapeDims(const std::vector<int64_t>& in, const std::vector<int64_t>& shape,
                                 bool allow_zero, const std::string& where) {
  std::vector<int64_t> out = shape;
  int infer = -1;
  int64_t known = 1;
  for (size_t i = 0; i < out.size(); ++i) {
    if (out[i] == 0 && !allow_zero) {
      Need(i < in.size(), where, "reshape copies axis " + std::to_string(i) + " the input lacks");
      out[i] = in[i];
    }
    if (out[i] == -1) {
      Need(infer < 0, where, "reshape with two -1 axes");
      infer = static_cast<int>(i);
    } else {
      Need(out[i] >= 0, where, "reshape to a negative size " + std::to_string(out[i]));
      known *= out[i];
    }
  }
  const int64_t total = Elements(in);
  if (infer >= 0) {
    Need(known > 0 && total % known == 0, where,
         "reshape of " + DimsText(in) + " to " + DimsText(shape) + " leaves no whole -1 axis");
    out[static_cast<size_t>(infer)] = total / known;
  }
  Need(Elements(out) == total, where,
       "reshape of " + DimsText(in) + " to " + DimsText(out) + " changes the element count");
  return out;
}

std::vector<SliceAxis> ResolveSlice(const std::vector<int64_t>& dims,
                                    const std::vector<int64_t>& starts,
                                    const std::vector<int64_t>& ends,
                                    const std::vector<int64_t>& axes_in,
                                    const std::vector<int64_t>& steps, const std::string& where) {
  Need(starts.size() == ends.size(), where, "slice starts and ends differ in length");
  std::vector<int64_t> axes = axes_in;
  if (axes.empty()) {
    for (size_t i = 0; i < starts.size(); ++i) axes.push_back(static_cast<int64_t>(i));
  }
  Need(axes.size() == starts.size(), where, "slice axes and starts differ in length");
  Need(steps.empty() || steps.size() == starts.size(), where, "slice steps of the wrong length");
  std::vector<SliceAxis> out;
  for (size_t i = 0; i < axes.size(); ++i) {
    SliceAxis s;
    s.axis = NormAxis(axes[i], static_cast<int>(dims.size()), where);
    const int64_t d = dims[static_cast<size_t>(s.axis)];
    s.step = steps.empty() ? 1 : steps[i];
    Need(s.step != 0, where, "slice step 0");
    int64_t b = starts[i] < 0 ? starts[i] + d : starts[i];
    int64_t e = ends[i] < 0 ? ends[i] + d : ends[i];
    if (s.step > 0) {
      b = std::clamp<int64_t>(b, 0, d);
      e = std::clamp<int64_t>(e, 0, d);
      s.length = e > b ? (e - b + s.step - 1) / s.step : 0;
    } else {
      // Backwards: from start down to (not including) end.
      b = std::clamp<int64_t>(b, 0, d - 1);
      e = std::clamp<int64_t>(e, -1, d - 1);
      s.length = b > e ? (b - e + (-s.step) - 1) / (-s.step) : 0;
    }
    s.start = b;
    out.push_back(s);
  }
  return out;
}

Array Evaluate(const std::string& op, const std::vector<const Array*>& in, const NodeAttrs& at,
               const std::string& where) {
  if (op == "Identity" || op == "Dropout") return In(in, 0, where);
  if (op == "Add" || op == "Sub" || op == "Mul" || op == "Div" || op == "Mod" || op == "Pow" ||
      op == "Equal" || op == "Less" || op == "Greater" || op == "LessOrEqual" ||
      op == "GreaterOrEqual" || op == "And" || op == "Or") {
    return Binary(op, In(in, 0, where), In(in, 1, where), where);
  }
  if (op == "Min" || op == "Max") {
    Array acc = In(in, 0, where);
    for (size_t i = 1; i < in.size(); ++i) acc = Binary(op, acc, In(in, i, where), where);
    return acc;
  }
  if (op == "Sqrt" || op == "Neg" || op == "Abs" || op == "Floor" || op == "Ceil" || op == "Not" ||
      op == "Erf" || op == "Sigmoid" || op == "Relu") {
    return Unary(op, In(in, 0, where));
  }
  if (op == "Cast") {
    Array out = In(in, 0, where);
    out.kind = KindOfOnnxType(at.i("to", 1));
    for (double& x : out.v) {
      if (out.kind == ElemKind::kInt) x = std::trunc(x);
      if (out.kind == ElemKind::kBool) x = x != 0 ? 1 : 0;
    }
    return out;
  }
  if (op == "Where") {
    const Array& c = In(in, 0, where);
    const Array& x = In(in, 1, where);
    const Array& y = In(in, 2, where);
    Array out;
    out.kind = x.kind;
    out.dims = BroadcastDims(BroadcastDims(c.dims, x.dims, where), y.dims, where);
    const auto sc = Strides(c.dims);
    const auto sx = Strides(x.dims);
    const auto sy = Strides(y.dims);
    const int64_t n = Elements(out.dims);
    for (int64_t k = 0; k < n; ++k) {
      const bool pick = c.v[static_cast<size_t>(BroadcastIndex(k, out.dims, c.dims, sc))] != 0;
      out.v.push_back(pick ? x.v[static_cast<size_t>(BroadcastIndex(k, out.dims, x.dims, sx))]
                           : y.v[static_cast<size_t>(BroadcastIndex(k, out.dims, y.dims, sy))]);
    }
    return out;
  }
  if (op == "Gather") return Gather(In(in, 0, where), In(in, 1, where), at.i("axis", 0), where);
  if (op == "Concat") return Concat(in, at.i("axis", 0), where);
  if (op == "Transpose") return Transpose(In(in, 0, where), at.ints("perm"), where);
  if (op == "Unsqueeze" || op == "Squeeze") {
    Array out = In(in, 0, where);
    std::vector<int64_t> axes =
        in.size() > 1 && in[1] != nullptr ? in[1]->Ints(where) : at.ints("axes");
    if (op == "Unsqueeze") {
      const int r = out.rank() + static_cast<int>(axes.size());
      std::vector<int> norm;
      for (int64_t a : axes) norm.push_back(NormAxis(a, r, where));
      std::sort(norm.begin(), norm.end());
      for (int a : norm) out.dims.insert(out.dims.begin() + a, 1);
    } else {
      std::vector<int64_t> dims;
      std::set<int> drop;
      for (int64_t a : axes) drop.insert(NormAxis(a, out.rank(), where));
      for (int i = 0; i < out.rank(); ++i) {
        const int64_t d = out.dims[static_cast<size_t>(i)];
        const bool squeeze = axes.empty() ? d == 1 : drop.count(i) > 0;
        if (squeeze) {
          Need(d == 1, where, "squeeze of an axis of size " + std::to_string(d));
        } else {
          dims.push_back(d);
        }
      }
      out.dims = dims;
    }
    return out;
  }
  if (op == "Reshape") {
    Array out = In(in, 0, where);
    out.dims =
        ReshapeDims(out.dims, In(in, 1, where).Ints(where), at.i("allowzero", 0) != 0, where);
    return out;
  }
  if (op == "Flatten") {
    Array out = In(in, 0, where);
    const int axis =
        static_cast<int>(at.i("axis", 1) < 0 ? at.i("axis", 1) + out.rank() : at.i("axis", 1));
    Need(axis >= 0 && axis <= out.rank(), where, "flatten axis out of range");
    int64_t a = 1;
    for (int i = 0; i < axis; ++i) a *= out.dims[static_cast<size_t>(i)];
    out.dims = {a, out.size() / std::max<int64_t>(a, 1)};
    return out;
  }
  if (op == "Expand") return ExpandTo(In(in, 0, where), In(in, 1, where).Ints(where), where);
  if (op == "Tile") {
    const Array& a = In(in, 0, where);
    const auto reps = In(in, 1, where).Ints(where);
    Need(static_cast<int>(reps.size()) == a.rank(), where, "tile repeats of the wrong length");
    Array out = a;
    for (int axis = 0; axis < a.rank(); ++axis) {
      std::vector<const Array*> copies(static_cast<size_t>(reps[static_cast<size_t>(axis)]), &out);
      Need(!copies.empty(), where, "tile by 0");
      out = Concat(copies, axis, where);
    }
    return out;
  }
  if (op == "Slice") {
    const Array& a = In(in, 0, where);
    const auto starts = In(in, 1, where).Ints(where);
    const auto ends = In(in, 2, where).Ints(where);
    const auto axes = in.size() > 3 && in[3] ? in[3]->Ints(where) : std::vector<int64_t>{};
    const auto steps = in.size() > 4 && in[4] ? in[4]->Ints(where) : std::vector<int64_t>{};
    return SliceArray(a, ResolveSlice(a.dims, starts, ends, axes, steps, where));
  }
  if (op == "ConstantOfShape") {
    Array out;
    out.dims = In(in, 0, where).Ints(where);
    for (int64_t d : out.dims) Need(d >= 0, where, "negative size in ConstantOfShape");
    Need(Elements(out.dims) <= kMaxFoldElements, where, "constant too large to fold");
    out.kind = KindOfOnnxType(at.i("value_type", 1));
    out.v.assign(static_cast<size_t>(Elements(out.dims)), at.f("value", 0.0));
    return out;
  }
  if (op == "Range") {
    const double start = In(in, 0, where).v.at(0);
    const double limit = In(in, 1, where).v.at(0);
    const double delta = In(in, 2, where).v.at(0);
    Need(delta != 0, where, "range with delta 0");
    const auto n = static_cast<int64_t>(std::max(std::ceil((limit - start) / delta), 0.0));
    Need(n <= kMaxFoldElements, where, "range too large to fold");
    Array out;
    out.kind = In(in, 0, where).kind;
    out.dims = {n};
    for (int64_t k = 0; k < n; ++k) out.v.push_back(start + static_cast<double>(k) * delta);
    return out;
  }
  if (op == "ScatterND") {
    Array out = In(in, 0, where);
    const Array& idx = In(in, 1, where);
    const Array& upd = In(in, 2, where);
    Need(idx.rank() >= 1, where, "ScatterND indices need rank >= 1");
    const auto depth = static_cast<size_t>(idx.dims.back());
    Need(depth >= 1 && depth <= out.dims.size(), where, "ScatterND index depth out of range");
    const auto strides = Strides(out.dims);
    int64_t slice = 1;
    for (size_t i = depth; i < out.dims.size(); ++i) slice *= out.dims[i];
    const int64_t count = idx.size() / static_cast<int64_t>(depth);
    Need(upd.size() == count * slice, where, "ScatterND updates of the wrong size");
    const auto ids = idx.Ints(where);
    for (int64_t q = 0; q < count; ++q) {
      int64_t base = 0;
      for (size_t j = 0; j < depth; ++j) {
        int64_t c = ids[static_cast<size_t>(q) * depth + j];
        if (c < 0) c += out.dims[j];
        Need(c >= 0 && c < out.dims[j], where, "ScatterND index out of range");
        base += c * strides[j];
      }
      for (int64_t k = 0; k < slice; ++k) {
        out.v[static_cast<size_t>(base + k)] = upd.v[static_cast<size_t>(q * slice + k)];
      }
    }
    return out;
  }
  if (op == "ReduceProd" || op == "ReduceSum") {
    const Array& a = In(in, 0, where);
    std::vector<int64_t> axes =
        in.size() > 1 && in[1] != nullptr ? in[1]->Ints(where) : at.ints("axes");
    const bool keep = at.i("keepdims", 1) != 0;
    std::set<int> red;
    if (axes.empty()) {
      for (int i = 0; i < a.rank(); ++i) red.insert(i);
    }
    for (int64_t x : axes) red.insert(NormAxis(x, a.rank(), where));
    Array out;
    out.kind = a.kind;
    for (int i = 0; i < a.rank(); ++i) {
      if (red.count(i) == 0) {
        out.dims.push_back(a.dims[static_cast<size_t>(i)]);
      } else if (keep) {
        out.dims.push_back(1);
      }
    }
    out.v.assign(static_cast<size_t>(Elements(out.dims)), op == "ReduceProd" ? 1.0 : 0.0);
    std::vector<int64_t> kept_dims;
    for (int i = 0; i < a.rank(); ++i) {
      kept_dims.push_back(red.count(i) ? 1 : a.dims[static_cast<size_t>(i)]);
    }
    const auto sk = Strides(kept_dims);
    for (int64_t k = 0; k < a.size(); ++k) {
      int64_t flat = k;
      int64_t dst = 0;
      for (int i = a.rank() - 1; i >= 0; --i) {
        const auto u = static_cast<size_t>(i);
        const int64_t c = flat % a.dims[u];
        flat /= a.dims[u];
        if (red.count(i) == 0) dst += c * sk[u];
      }
      double& r = out.v[static_cast<size_t>(dst)];
      r = op == "ReduceProd" ? r * a.v[static_cast<size_t>(k)] : r + a.v[static_cast<size_t>(k)];
    }
    return out;
  }
  throw InputError(where + ": " + op + " cannot be folded");
}

}  // namespace dcnas::models::onnx_import
