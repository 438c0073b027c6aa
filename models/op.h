// Primitive operations of the layer graph.
//
// Every op produces exactly one tensor, so an op's id is also its output tensor's id. Attributes
// live in one flat struct; the kinds table (models/op_kinds.h) says which attributes each kind
// uses, how its output shape is inferred and how it is counted.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "models/tensor.h"

namespace dcnas::models {

enum class OpKind : uint8_t {
  kInput,           // graph input (image batch)
  kConv2d,          // dense, grouped or depthwise 2-D convolution, optional bias
  kBatchNorm,       // inference batch norm: per-channel scale and shift (gamma, beta trained)
  kBiasAdd,         // per-channel bias
  kActivation,      // elementwise activation (see Activation)
  kAdd,             // elementwise add of two same-shape tensors (residual)
  kMul,             // broadcast multiply: [N,H,W,C] * [N,1,1,C] or same shape (squeeze-excite)
  kConcat,          // channel concatenation
  kPool,            // avg or max pooling window
  kGlobalPool,      // global average (or max) pool to [N,1,1,C]
  kFullyConnected,  // dense layer on [N,1,1,C], optional bias
  kSpaceToDepth,    // [N,H,W,C] -> [N,H/b,W/b,C*b*b]
  kSpaceToBatch,    // [N,H,W,C] -> [N*b*b,H/b,W/b,C]
  kBatchToSpace,    // [N*b*b,H,W,C] -> [N,H*b,W*b,C]
  kReshape,         // reshape per image; flatten is reshape to {1,1,H*W*C}
  kSoftmax,         // softmax over channels
  kDropout,         // identity at inference; dropout at training time
  // Tensor ops for transformers and imported graphs. A tensor of any rank is held as
  // [n, h, w, c] with its innermost (fastest-varying) axis as c; "batch" dims are n and h.
  kMatMul,     // batched activation x activation product: [n,h,M,K] x [n',h',K,N] -> [n,h,M,N]
  kLayerNorm,  // normalisation over c per position, learned scale (and shift when bias)
  kTranspose,  // permutation of the four axes (a copy: memory traffic)
  kConstant,   // a stored tensor: learned (parameters) or a folded constant (a mask)
  kSlice,      // strided window of the input (start, step per axis; output shape given)
  kPad,        // zero padding of h and w
  kExpand,     // broadcast of size-1 axes to the given shape
  kGather,     // rows of a table (a constant) picked by fixed indices; output shape given
};
inline constexpr int kNumOpKinds = static_cast<int>(OpKind::kGather) + 1;

enum class Activation : uint8_t {
  kRelu,
  kRelu6,
  kSwish,  // x * sigmoid(x), a.k.a. SiLU
  kSigmoid,
  kHardSwish,
  kHardSigmoid,
  kGelu,
};

enum class PoolMode : uint8_t { kAvg, kMax };

// Explicit padding (top, bottom, left, right), or TensorFlow "SAME": total padding
// max((ceil(in/s) - 1) * s + (k - 1) * d + 1 - in, 0), the extra row/column at the bottom/right.
struct Padding {
  bool same = false;
  int top = 0;
  int bottom = 0;
  int left = 0;
  int right = 0;

  static Padding Same() { return Padding{true, 0, 0, 0, 0}; }
  static Padding Symmetric(int p) { return Padding{false, p, p, p, p}; }
  bool operator==(const Padding&) const = default;
};

// Padding resolved against an input size (always explicit).
struct ResolvedPadding {
  int top = 0;
  int bottom = 0;
  int left = 0;
  int right = 0;
};

// Attributes of every op kind; each kind reads only the fields the kinds table lists for it.
struct OpAttrs {
  // conv2d, pool: window, stride, dilation, padding.
  int kernel_h = 1;
  int kernel_w = 1;
  int stride_h = 1;
  int stride_w = 1;
  int dilation_h = 1;
  int dilation_w = 1;
  Padding padding;
  // conv2d: groups (1 dense, Cin depthwise); conv2d and fully_connected: output channels, bias.
  int groups = 1;
  int64_t out_channels = 0;
  bool bias = false;
  // activation.
  Activation activation = Activation::kRelu;
  // pool, global_pool.
  PoolMode pool = PoolMode::kAvg;
  // space_to_depth, space_to_batch, batch_to_space.
  int block_size = 2;
  // reshape: per-image target shape {h, w, c}, and the batch axis when reshape_n > 0 (0: keep).
  // slice, expand, gather: the output shape (all four).
  int64_t reshape_n = 0;
  int64_t reshape_h = 1;
  int64_t reshape_w = 1;
  int64_t reshape_c = 1;
  // concat: the axis (0 n, 1 h, 2 w, 3 c).
  int axis = 3;
  // transpose: output axis i is input axis perm[i].
  std::array<int, 4> perm = {0, 1, 2, 3};
  // slice: first element and step per axis.
  std::array<int64_t, 4> start = {0, 0, 0, 0};
  std::array<int64_t, 4> step = {1, 1, 1, 1};
  // constant: learned (counted as parameters) or not (a mask folded from constants).
  bool learned = true;
  // matmul: the second operand is stored [.., N, K] (read transposed, as GEMM kernels can).
  bool transpose_b = false;
  // dropout rate (training only).
  double rate = 0.0;
  // input, constant: the tensor type.
  TensorType input_type;

  bool operator==(const OpAttrs&) const = default;
};

struct Op {
  int id = -1;
  OpKind kind = OpKind::kInput;
  std::string name;
  std::vector<int> inputs;  // producer op ids
  OpAttrs attrs;
  // Where the op belongs, for per-block reports: block name ("stem", "blocks.3", "head") and
  // stage index (0 for the stem, 1.. for the network's stages, -1 if none).
  std::string block;
  int stage = -1;
  // Output type, filled by shape inference.
  TensorType out;
};

std::string_view OpKindName(OpKind kind);
OpKind ParseOpKind(std::string_view name);  // throws InputError listing valid names
std::string_view ActivationName(Activation activation);
Activation ParseActivation(std::string_view name);
std::string_view PoolModeName(PoolMode mode);
PoolMode ParsePoolMode(std::string_view name);

// A short human-readable description: "conv 3x3/2", "dwconv 5x5", "swish", "avgpool 3x3/2".
std::string OpDetail(const Op& op);

// Resolves padding for one spatial axis pair given the input size.
ResolvedPadding ResolvePadding(const OpAttrs& attrs, int64_t in_h, int64_t in_w);

}  // namespace dcnas::models
