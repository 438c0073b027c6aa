#include "models/op_kinds.h"

#include <array>
#include <string>

#include "common/errors.h"

namespace dcnas::models {
namespace {

using Inputs = std::span<const TensorType* const>;

[[noreturn]] void Fail(const Op& op, Inputs inputs, const std::string& rule) {
  std::string message = "op '" + op.name + "' (" + std::string(OpKindName(op.kind)) + ", id " +
                        std::to_string(op.id) + ") inputs [";
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (i > 0) message += ", ";
    message += ShapeString(inputs[i]->shape);
  }
  message += "]: " + rule;
  throw InputError(message);
}

void CheckPositive(const Op& op, Inputs inputs, int64_t value, const char* what) {
  if (value <= 0)
    Fail(op, inputs, std::string(what) + " must be positive, got " + std::to_string(value));
}

int64_t WeightBytes(int64_t params, DType dtype) { return params * DTypeBytes(dtype); }

OpCounts Elementwise(const Op& op, Inputs inputs, int64_t flops_per_element, int64_t params) {
  OpCounts c;
  c.flops = op.out.shape.elements() * flops_per_element;
  c.params = params;
  for (const TensorType* t : inputs) c.bytes_read_input += t->bytes();
  c.bytes_read_weights = WeightBytes(params, op.out.dtype);
  c.bytes_written = op.out.bytes();
  return c;
}

// --- input -------------------------------------------------------------------------------
TensorType InferInput(const Op& op, Inputs inputs) {
  const Shape& s = op.attrs.input_type.shape;
  if (s.n <= 0 || s.h <= 0 || s.w <= 0 || s.c <= 0) {
    Fail(op, inputs, "input shape " + ShapeString(s) + " must have positive dimensions");
  }
  return op.attrs.input_type;
}
OpCounts CountNothing(const Op&, Inputs) { return {}; }

// --- conv2d ------------------------------------------------------------------------------
int64_t OutSize(int64_t in, int kernel, int stride, int dilation, int pad_a, int pad_b) {
  const int64_t effective = static_cast<int64_t>(kernel - 1) * dilation + 1;
  const int64_t span = in + pad_a + pad_b - effective;
  if (span < 0) return 0;
  return span / stride + 1;
}

void CheckWindow(const Op& op, Inputs inputs) {
  const OpAttrs& a = op.attrs;
  CheckPositive(op, inputs, a.kernel_h, "kernel_h");
  CheckPositive(op, inputs, a.kernel_w, "kernel_w");
  CheckPositive(op, inputs, a.stride_h, "stride_h");
  CheckPositive(op, inputs, a.stride_w, "stride_w");
  CheckPositive(op, inputs, a.dilation_h, "dilation_h");
  CheckPositive(op, inputs, a.dilation_w, "dilation_w");
  const Padding& p = a.padding;
  if (p.top < 0 || p.bottom < 0 || p.left < 0 || p.right < 0) {
    Fail(op, inputs, "padding must not be negative");
  }
}

Shape WindowOutput(const Op& op, Inputs inputs, const Shape& in) {
  const OpAttrs& a = op.attrs;
  const ResolvedPadding p = ResolvePadding(a, in.h, in.w);
  Shape out = in;
  out.h = OutSize(in.h, a.kernel_h, a.stride_h, a.dilation_h, p.top, p.bottom);
  out.w = OutSize(in.w, a.kernel_w, a.stride_w, a.dilation_w, p.left, p.right);
  if (out.h <= 0 || out.w <= 0) {
    Fail(op, inputs,
         "window " + std::to_string(a.kernel_h) + "x" + std::to_string(a.kernel_w) +
             " does not fit the padded input (output would be " + std::to_string(out.h) + "x" +
             std::to_string(out.w) + ")");
  }
  return out;
}

TensorType InferConv(const Op& op, Inputs inputs) {
  const OpAttrs& a = op.attrs;
  const Shape& in = inputs[0]->shape;
  CheckWindow(op, inputs);
  CheckPositive(op, inputs, a.groups, "groups");
  CheckPositive(op, inputs, a.out_channels, "out_channels");
  if (in.c % a.groups != 0) {
    Fail(op, inputs,
         "input channels " + std::to_string(in.c) + " not divisible by groups " +
             std::to_string(a.groups));
  }
  if (a.out_channels % a.groups != 0) {
    Fail(op, inputs,
         "out_channels " + std::to_string(a.out_channels) + " not divisible by groups " +
             std::to_string(a.groups));
  }
  Shape out = WindowOutput(op, inputs, in);
  out.c = a.out_channels;
  return TensorType{out, inputs[0]->dtype};
}

OpCounts CountConv(const Op& op, Inputs inputs) {
  const OpAttrs& a = op.attrs;
  const Shape& in = inputs[0]->shape;
  const Shape& out = op.out.shape;
  const int64_t k = static_cast<int64_t>(a.kernel_h) * a.kernel_w * (in.c / a.groups);
  OpCounts c;
  c.macs = out.elements() * k;
  c.params = k * a.out_channels + (a.bias ? a.out_channels : 0);
  c.flops = 2 * c.macs + (a.bias ? out.elements() : 0);
  c.bytes_read_input = inputs[0]->bytes();
  c.bytes_read_weights = WeightBytes(c.params, op.out.dtype);
  c.bytes_written = op.out.bytes();
  return c;
}

// --- per-channel ops ---------------------------------------------------------------------
TensorType InferSame(const Op&, Inputs inputs) { return *inputs[0]; }
OpCounts CountBatchNorm(const Op& op, Inputs inputs) {
  return Elementwise(op, inputs, 2, 2 * op.out.shape.c);
}
OpCounts CountBiasAdd(const Op& op, Inputs inputs) {
  return Elementwise(op, inputs, 1, op.out.shape.c);
}
OpCounts CountActivation(const Op& op, Inputs inputs) {
  return Elementwise(op, inputs, ActivationFlopsPerElement(op.attrs.activation), 0);
}

// --- binary elementwise ------------------------------------------------------------------
// Numpy broadcasting over the four axes: each axis equal, or 1 in one operand.
TensorType InferBroadcast(const Op& op, Inputs inputs, const char* what) {
  const Shape& a = inputs[0]->shape;
  const Shape& b = inputs[1]->shape;
  if (inputs[0]->dtype != inputs[1]->dtype)
    Fail(op, inputs, std::string(what) + " needs equal dtypes");
  auto dim = [&](int64_t x, int64_t y) {
    if (x == y || y == 1) return x;
    if (x == 1) return y;
    Fail(op, inputs,
         std::string(what) + " needs equal shapes or size-1 axes that broadcast (numpy rules)");
  };
  return TensorType{Shape{dim(a.n, b.n), dim(a.h, b.h), dim(a.w, b.w), dim(a.c, b.c)},
                    inputs[0]->dtype};
}
TensorType InferAdd(const Op& op, Inputs inputs) { return InferBroadcast(op, inputs, "add"); }
TensorType InferMul(const Op& op, Inputs inputs) { return InferBroadcast(op, inputs, "multiply"); }
OpCounts CountBinary(const Op& op, Inputs inputs) { return Elementwise(op, inputs, 1, 0); }

// --- concat ------------------------------------------------------------------------------
int64_t& Axis(Shape& s, int axis) {
  switch (axis) {
    case 0:
      return s.n;
    case 1:
      return s.h;
    case 2:
      return s.w;
    default:
      return s.c;
  }
}
int64_t AxisOf(const Shape& s, int axis) { return Axis(const_cast<Shape&>(s), axis); }

TensorType InferConcat(const Op& op, Inputs inputs) {
  const int axis = op.attrs.axis;
  if (axis < 0 || axis > 3) Fail(op, inputs, "concat axis must be 0..3 (n, h, w, c)");
  Shape out = inputs[0]->shape;
  Axis(out, axis) = 0;
  for (const TensorType* t : inputs) {
    Shape s = t->shape;
    Shape other = out;
    Axis(s, axis) = 0;
    Axis(other, axis) = 0;
    if (!(s == other)) {
      Fail(op, inputs, "concat needs equal sizes on every axis but axis " + std::to_string(axis));
    }
    if (t->dtype != inputs[0]->dtype) Fail(op, inputs, "concat needs equal dtypes");
    Axis(out, axis) += AxisOf(t->shape, axis);
  }
  return TensorType{out, inputs[0]->dtype};
}
OpCounts CountMove(const Op& op, Inputs inputs) { return Elementwise(op, inputs, 0, 0); }

// --- pooling -----------------------------------------------------------------------------
TensorType InferPool(const Op& op, Inputs inputs) {
  CheckWindow(op, inputs);
  return TensorType{WindowOutput(op, inputs, inputs[0]->shape), inputs[0]->dtype};
}
OpCounts CountPool(const Op& op, Inputs inputs) {
  return Elementwise(op, inputs, static_cast<int64_t>(op.attrs.kernel_h) * op.attrs.kernel_w, 0);
}
TensorType InferGlobalPool(const Op&, Inputs inputs) {
  Shape out = inputs[0]->shape;
  out.h = 1;
  out.w = 1;
  return TensorType{out, inputs[0]->dtype};
}
OpCounts CountGlobalPool(const Op& op, Inputs inputs) {
  OpCounts c = Elementwise(op, inputs, 0, 0);
  c.flops = inputs[0]->shape.elements();
  return c;
}

// --- fully connected ---------------------------------------------------------------------
TensorType InferFullyConnected(const Op& op, Inputs inputs) {
  const Shape& in = inputs[0]->shape;
  CheckPositive(op, inputs, op.attrs.out_channels, "out_channels");
  // Applied to c at every position (a linear layer on tokens when h or w > 1).
  return TensorType{Shape{in.n, in.h, in.w, op.attrs.out_channels}, inputs[0]->dtype};
}
OpCounts CountFullyConnected(const Op& op, Inputs inputs) {
  const int64_t cin = inputs[0]->shape.c;
  const int64_t cout = op.attrs.out_channels;
  OpCounts c;
  c.macs = inputs[0]->shape.elements() * cout;
  c.params = cin * cout + (op.attrs.bias ? cout : 0);
  c.flops = 2 * c.macs + (op.attrs.bias ? op.out.shape.elements() : 0);
  c.bytes_read_input = inputs[0]->bytes();
  c.bytes_read_weights = WeightBytes(c.params, op.out.dtype);
  c.bytes_written = op.out.bytes();
  return c;
}

// --- layout ops --------------------------------------------------------------------------
void CheckBlock(const Op& op, Inputs inputs, int64_t h, int64_t w) {
  const int b = op.attrs.block_size;
  CheckPositive(op, inputs, b, "block_size");
  if (h % b != 0 || w % b != 0) {
    Fail(op, inputs,
         "spatial size " + std::to_string(h) + "x" + std::to_string(w) +
             " not divisible by block_size " + std::to_string(b));
  }
}
TensorType InferSpaceToDepth(const Op& op, Inputs inputs) {
  Shape s = inputs[0]->shape;
  CheckBlock(op, inputs, s.h, s.w);
  const int b = op.attrs.block_size;
  s.h /= b;
  s.w /= b;
  s.c *= static_cast<int64_t>(b) * b;
  return TensorType{s, inputs[0]->dtype};
}
TensorType InferSpaceToBatch(const Op& op, Inputs inputs) {
  Shape s = inputs[0]->shape;
  CheckBlock(op, inputs, s.h, s.w);
  const int b = op.attrs.block_size;
  s.h /= b;
  s.w /= b;
  s.n *= static_cast<int64_t>(b) * b;
  return TensorType{s, inputs[0]->dtype};
}
TensorType InferBatchToSpace(const Op& op, Inputs inputs) {
  Shape s = inputs[0]->shape;
  const int64_t b = op.attrs.block_size;
  CheckPositive(op, inputs, b, "block_size");
  if (s.n % (b * b) != 0) {
    Fail(
        op, inputs,
        "batch " + std::to_string(s.n) + " not divisible by block_size^2 " + std::to_string(b * b));
  }
  s.n /= b * b;
  s.h *= b;
  s.w *= b;
  return TensorType{s, inputs[0]->dtype};
}
TensorType InferReshape(const Op& op, Inputs inputs) {
  const OpAttrs& a = op.attrs;
  const Shape& in = inputs[0]->shape;
  CheckPositive(op, inputs, a.reshape_h, "reshape_h");
  CheckPositive(op, inputs, a.reshape_w, "reshape_w");
  CheckPositive(op, inputs, a.reshape_c, "reshape_c");
  if (a.reshape_n < 0) Fail(op, inputs, "reshape_n must not be negative");
  const Shape out{a.reshape_n > 0 ? a.reshape_n : in.n, a.reshape_h, a.reshape_w, a.reshape_c};
  if (out.elements() != in.elements()) {
    Fail(op, inputs,
         "reshape to " + ShapeString(out) + " changes the element count " +
             std::to_string(in.elements()));
  }
  return TensorType{out, inputs[0]->dtype};
}

// --- tensor ops (transformers, imported graphs) ---------------------------------------------
Shape TargetShape(const Op& op, Inputs inputs) {
  const OpAttrs& a = op.attrs;
  const Shape s{a.reshape_n, a.reshape_h, a.reshape_w, a.reshape_c};
  if (s.n <= 0 || s.h <= 0 || s.w <= 0 || s.c <= 0) {
    Fail(op, inputs, "output shape " + ShapeString(s) + " must have positive dimensions");
  }
  return s;
}

TensorType InferMatMul(const Op& op, Inputs inputs) {
  const Shape& a = inputs[0]->shape;
  const Shape& b = inputs[1]->shape;
  if (inputs[0]->dtype != inputs[1]->dtype) Fail(op, inputs, "matmul needs equal dtypes");
  const bool t = op.attrs.transpose_b;
  const int64_t k = t ? b.c : b.w;
  const int64_t n = t ? b.w : b.c;
  if (a.c != k) {
    Fail(op, inputs,
         "matmul needs the first operand's c (" + std::to_string(a.c) + ") equal to the second's " +
             (t ? "c" : "w") + " (" + std::to_string(k) + ")");
  }
  auto dim = [&](int64_t x, int64_t y) {
    if (x == y || y == 1) return x;
    if (x == 1) return y;
    Fail(op, inputs, "matmul batch axes (n, h) must be equal or 1");
  };
  return TensorType{Shape{dim(a.n, b.n), dim(a.h, b.h), a.w, n}, inputs[0]->dtype};
}
OpCounts CountMatMul(const Op& op, Inputs inputs) {
  OpCounts c;
  c.macs = op.out.shape.elements() * inputs[0]->shape.c;
  c.flops = 2 * c.macs;
  c.bytes_read_input = inputs[0]->bytes() + inputs[1]->bytes();
  c.bytes_written = op.out.bytes();
  return c;
}

// Mean and variance over c, normalise, scale (and shift): 8 FLOPs per element.
OpCounts CountLayerNorm(const Op& op, Inputs inputs) {
  return Elementwise(op, inputs, 8, (op.attrs.bias ? 2 : 1) * op.out.shape.c);
}

TensorType InferTranspose(const Op& op, Inputs inputs) {
  const auto& p = op.attrs.perm;
  std::array<bool, 4> seen{};
  for (int v : p) {
    if (v < 0 || v > 3 || seen[static_cast<size_t>(v)]) {
      Fail(op, inputs, "perm must be a permutation of 0, 1, 2, 3");
    }
    seen[static_cast<size_t>(v)] = true;
  }
  const Shape& in = inputs[0]->shape;
  Shape out;
  for (int i = 0; i < 4; ++i) Axis(out, i) = AxisOf(in, p[static_cast<size_t>(i)]);
  return TensorType{out, inputs[0]->dtype};
}

TensorType InferConstant(const Op& op, Inputs inputs) { return InferInput(op, inputs); }
OpCounts CountConstant(const Op& op, Inputs) {
  OpCounts c;
  c.params = op.attrs.learned ? op.out.shape.elements() : 0;
  c.bytes_read_weights = op.out.bytes();
  return c;
}

TensorType InferSlice(const Op& op, Inputs inputs) {
  const Shape out = TargetShape(op, inputs);
  const Shape& in = inputs[0]->shape;
  for (int i = 0; i < 4; ++i) {
    const int64_t start = op.attrs.start[static_cast<size_t>(i)];
    const int64_t step = op.attrs.step[static_cast<size_t>(i)];
    if (step <= 0) Fail(op, inputs, "slice steps must be positive");
    if (start < 0 || start + (AxisOf(out, i) - 1) * step >= AxisOf(in, i)) {
      Fail(op, inputs,
           "slice of " + std::to_string(AxisOf(out, i)) + " elements from " +
               std::to_string(start) + " step " + std::to_string(step) + " leaves axis " +
               std::to_string(i) + " of the input");
    }
  }
  return TensorType{out, inputs[0]->dtype};
}
// A copy of what the op outputs: reads as many bytes as it writes.
OpCounts CountCopyOut(const Op& op, Inputs) {
  OpCounts c;
  c.bytes_read_input = op.out.bytes();
  c.bytes_written = op.out.bytes();
  return c;
}

TensorType InferPad(const Op& op, Inputs inputs) {
  const Padding& p = op.attrs.padding;
  if (p.same) Fail(op, inputs, "pad needs explicit padding");
  if (p.top < 0 || p.bottom < 0 || p.left < 0 || p.right < 0) {
    Fail(op, inputs, "padding must not be negative");
  }
  Shape out = inputs[0]->shape;
  out.h += p.top + p.bottom;
  out.w += p.left + p.right;
  return TensorType{out, inputs[0]->dtype};
}

TensorType InferExpand(const Op& op, Inputs inputs) {
  const Shape out = TargetShape(op, inputs);
  const Shape& in = inputs[0]->shape;
  for (int i = 0; i < 4; ++i) {
    if (AxisOf(in, i) != AxisOf(out, i) && AxisOf(in, i) != 1) {
      Fail(op, inputs,
           "expand to " + ShapeString(out) + " needs axis " + std::to_string(i) +
               " of size 1 or equal");
    }
  }
  return TensorType{out, inputs[0]->dtype};
}

TensorType InferGather(const Op& op, Inputs inputs) {
  const Shape out = TargetShape(op, inputs);
  if (out.c != inputs[0]->shape.c) {
    Fail(op, inputs, "gather picks whole rows: the output's c must equal the table's");
  }
  return TensorType{out, inputs[0]->dtype};
}

OpCounts CountSoftmax(const Op& op, Inputs inputs) { return Elementwise(op, inputs, 5, 0); }

const std::vector<OpKindInfo>& Table() {
  static const std::vector<OpKindInfo> kTable = {
      {OpKind::kInput, "input", 0, 0, {"shape", "dtype"}, InferInput, CountNothing},
      {OpKind::kConv2d,
       "conv2d",
       1,
       1,
       {"kernel", "stride", "dilation", "padding", "groups", "out_channels", "bias"},
       InferConv,
       CountConv},
      {OpKind::kBatchNorm, "batch_norm", 1, 1, {}, InferSame, CountBatchNorm},
      {OpKind::kBiasAdd, "bias_add", 1, 1, {}, InferSame, CountBiasAdd},
      {OpKind::kActivation, "activation", 1, 1, {"activation"}, InferSame, CountActivation},
      {OpKind::kAdd, "add", 2, 2, {}, InferAdd, CountBinary},
      {OpKind::kMul, "mul", 2, 2, {}, InferMul, CountBinary},
      {OpKind::kConcat, "concat", 1, -1, {"axis"}, InferConcat, CountMove},
      {OpKind::kPool, "pool", 1, 1, {"pool", "kernel", "stride", "padding"}, InferPool, CountPool},
      {OpKind::kGlobalPool, "global_pool", 1, 1, {"pool"}, InferGlobalPool, CountGlobalPool},
      {OpKind::kFullyConnected,
       "fully_connected",
       1,
       1,
       {"out_channels", "bias"},
       InferFullyConnected,
       CountFullyConnected},
      {OpKind::kSpaceToDepth, "space_to_depth", 1, 1, {"block_size"}, InferSpaceToDepth, CountMove},
      {OpKind::kSpaceToBatch, "space_to_batch", 1, 1, {"block_size"}, InferSpaceToBatch, CountMove},
      {OpKind::kBatchToSpace, "batch_to_space", 1, 1, {"block_size"}, InferBatchToSpace, CountMove},
      {OpKind::kReshape, "reshape", 1, 1, {"reshape"}, InferReshape, CountNothing},
      {OpKind::kSoftmax, "softmax", 1, 1, {}, InferSame, CountSoftmax},
      {OpKind::kDropout, "dropout", 1, 1, {"rate"}, InferSame, CountNothing},
      {OpKind::kMatMul, "matmul", 2, 2, {"transpose_b"}, InferMatMul, CountMatMul},
      {OpKind::kLayerNorm, "layer_norm", 1, 1, {"bias"}, InferSame, CountLayerNorm},
      {OpKind::kTranspose, "transpose", 1, 1, {"perm"}, InferTranspose, CountMove},
      {OpKind::kConstant,
       "constant",
       0,
       0,
       {"shape", "dtype", "learned"},
       InferConstant,
       CountConstant},
      {OpKind::kSlice, "slice", 1, 1, {"reshape", "start", "step"}, InferSlice, CountCopyOut},
      {OpKind::kPad, "pad", 1, 1, {"padding"}, InferPad, CountMove},
      {OpKind::kExpand, "expand", 1, 1, {"reshape"}, InferExpand, CountMove},
      {OpKind::kGather, "gather", 1, 1, {"reshape"}, InferGather, CountCopyOut},
  };
  return kTable;
}

}  // namespace

const std::vector<OpKindInfo>& AllKinds() { return Table(); }

const OpKindInfo& KindInfo(OpKind kind) {
  const auto& table = Table();
  const auto index = static_cast<size_t>(kind);
  if (index >= table.size() || table[index].kind != kind) {
    throw InternalError("op kind table out of order at " + std::to_string(index));
  }
  return table[index];
}

int ActivationFlopsPerElement(Activation activation) {
  switch (activation) {
    case Activation::kRelu:
      return 1;
    case Activation::kRelu6:
      return 2;
    case Activation::kSigmoid:
      return 4;
    case Activation::kSwish:
      return 5;
    case Activation::kHardSigmoid:
      return 3;
    case Activation::kHardSwish:
      return 4;
    case Activation::kGelu:
      return 8;
  }
  throw InternalError("unknown activation");
}

}  // namespace dcnas::models
