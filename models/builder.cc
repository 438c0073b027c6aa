#include "models/builder.h"

#include <algorithm>
#include <cmath>
#include <string>

#include <utility>
#include "common/errors.h"

namespace dcnas::models {

void ValidateBuildOptions(const BuildOptions& options) {
  if (options.resolution < 0 || options.resolution > 8192) {
    throw InputError("resolution " + std::to_string(options.resolution) +
                     " out of range (1..8192, or 0 for the model's native one)");
  }
  if (options.batch <= 0 || options.batch > (1 << 20)) {
    throw InputError("batch " + std::to_string(options.batch) + " out of range (1..1048576)");
  }
  if (options.num_classes <= 0) {
    throw InputError("num_classes must be positive, got " + std::to_string(options.num_classes));
  }
  if (options.in_channels <= 0) {
    throw InputError("in_channels must be positive, got " + std::to_string(options.in_channels));
  }
  if (!(options.width_scale > 0.0) || !std::isfinite(options.width_scale)) {
    throw InputError("width_scale must be a positive number");
  }
  if (options.proxy_removed_downsamples < 0 || options.proxy_removed_downsamples > 8) {
    throw InputError("proxy_removed_downsamples must be in 0..8");
  }
}

GraphBuilder::GraphBuilder(GraphInfo info, int proxy_removed_downsamples)
    : graph_(std::move(info)), removed_downsamples_(proxy_removed_downsamples) {}

GraphBuilder::GraphBuilder(const std::string& model, const BuildOptions& options)
    : GraphBuilder(
          GraphInfo{model, options.resolution, options.batch, options.dtype, options.num_classes},
          options.proxy_removed_downsamples) {}

void GraphBuilder::SetScope(std::string block, int stage) {
  block_ = std::move(block);
  stage_ = stage;
}

int GraphBuilder::Append(OpKind kind, std::vector<int> inputs, const OpAttrs& attrs) {
  int64_t nominal = 1;
  for (int input : inputs) {
    if (input >= 0 && input < static_cast<int>(nominal_stride_.size())) {
      nominal = std::max(nominal, nominal_stride_[static_cast<size_t>(input)]);
    }
  }
  Op op;
  op.kind = kind;
  op.inputs = std::move(inputs);
  op.attrs = attrs;
  if (kind == OpKind::kConv2d || kind == OpKind::kPool) {
    const int64_t stride = std::max(attrs.stride_h, attrs.stride_w);
    if (stride > 1 && nominal < (int64_t{1} << removed_downsamples_)) {
      op.attrs.stride_h = 1;  // proxy scaling: this downsampling is removed
      op.attrs.stride_w = 1;
    }
    nominal *= stride;
  } else if (kind == OpKind::kSpaceToDepth || kind == OpKind::kSpaceToBatch) {
    nominal *= attrs.block_size;
  }
  op.block = block_;
  op.stage = stage_;
  op.name = block_;
  op.name += '/';
  op.name += OpKindName(kind);
  op.name += std::to_string(graph_.size());
  const int id = graph_.AddOp(std::move(op));
  nominal_stride_.push_back(nominal);
  return id;
}

int GraphBuilder::Input(int64_t height, int64_t width, int64_t channels) {
  OpAttrs a;
  a.input_type =
      TensorType{Shape{graph_.info().batch, height, width, channels}, graph_.info().dtype};
  return Append(OpKind::kInput, {}, a);
}

int GraphBuilder::Conv(int x, int64_t out_channels, int kernel, const ConvOptions& options) {
  OpAttrs a;
  a.kernel_h = a.kernel_w = kernel;
  a.stride_h = a.stride_w = options.stride;
  a.dilation_h = a.dilation_w = options.dilation;
  a.groups = options.groups;
  a.out_channels = out_channels;
  a.bias = options.bias;
  a.padding = options.padding;
  return Append(OpKind::kConv2d, {x}, a);
}

int GraphBuilder::Conv(int x, int64_t out_channels, int kernel, int stride) {
  ConvOptions options;
  options.stride = stride;
  return Conv(x, out_channels, kernel, options);
}

int GraphBuilder::DepthwiseConv(int x, int kernel, int stride, Padding padding) {
  ConvOptions options;
  options.stride = stride;
  options.groups = static_cast<int>(channels(x));
  options.padding = padding;
  return Conv(x, channels(x), kernel, options);
}

int GraphBuilder::BatchNorm(int x) { return Append(OpKind::kBatchNorm, {x}, {}); }
int GraphBuilder::BiasAdd(int x) { return Append(OpKind::kBiasAdd, {x}, {}); }

int GraphBuilder::Act(int x, Activation activation) {
  OpAttrs a;
  a.activation = activation;
  return Append(OpKind::kActivation, {x}, a);
}

int GraphBuilder::Add(int a, int b) { return Append(OpKind::kAdd, {a, b}, {}); }
int GraphBuilder::Mul(int a, int b) { return Append(OpKind::kMul, {a, b}, {}); }
int GraphBuilder::Concat(const std::vector<int>& xs) { return Append(OpKind::kConcat, xs, {}); }

int GraphBuilder::Pool(int x, PoolMode mode, int kernel, int stride, Padding padding) {
  OpAttrs a;
  a.pool = mode;
  a.kernel_h = a.kernel_w = kernel;
  a.stride_h = a.stride_w = stride;
  a.padding = padding;
  return Append(OpKind::kPool, {x}, a);
}

int GraphBuilder::GlobalPool(int x, PoolMode mode) {
  OpAttrs a;
  a.pool = mode;
  return Append(OpKind::kGlobalPool, {x}, a);
}

int GraphBuilder::FullyConnected(int x, int64_t out_channels, bool bias) {
  OpAttrs a;
  a.out_channels = out_channels;
  a.bias = bias;
  return Append(OpKind::kFullyConnected, {x}, a);
}

int GraphBuilder::SpaceToDepth(int x, int block_size) {
  OpAttrs a;
  a.block_size = block_size;
  return Append(OpKind::kSpaceToDepth, {x}, a);
}

int GraphBuilder::SpaceToBatch(int x, int block_size) {
  OpAttrs a;
  a.block_size = block_size;
  return Append(OpKind::kSpaceToBatch, {x}, a);
}

int GraphBuilder::BatchToSpace(int x, int block_size) {
  OpAttrs a;
  a.block_size = block_size;
  return Append(OpKind::kBatchToSpace, {x}, a);
}

int GraphBuilder::Reshape(int x, int64_t h, int64_t w, int64_t c) {
  OpAttrs a;
  a.reshape_h = h;
  a.reshape_w = w;
  a.reshape_c = c;
  return Append(OpKind::kReshape, {x}, a);
}

int GraphBuilder::Flatten(int x) { return Reshape(x, 1, 1, type(x).shape.per_image()); }
int GraphBuilder::Softmax(int x) { return Append(OpKind::kSoftmax, {x}, {}); }

int GraphBuilder::Dropout(int x, double rate) {
  OpAttrs a;
  a.rate = rate;
  return Append(OpKind::kDropout, {x}, a);
}

namespace {
OpAttrs TargetAttrs(const Shape& s) {
  OpAttrs a;
  a.reshape_n = s.n;
  a.reshape_h = s.h;
  a.reshape_w = s.w;
  a.reshape_c = s.c;
  return a;
}
}  // namespace

int GraphBuilder::ConcatAxis(const std::vector<int>& xs, int axis) {
  OpAttrs a;
  a.axis = axis;
  return Append(OpKind::kConcat, xs, a);
}
int GraphBuilder::Reshape4(int x, const Shape& shape) {
  return Append(OpKind::kReshape, {x}, TargetAttrs(shape));
}
int GraphBuilder::MatMul(int a, int b, bool transpose_b) {
  OpAttrs attrs;
  attrs.transpose_b = transpose_b;
  return Append(OpKind::kMatMul, {a, b}, attrs);
}
int GraphBuilder::LayerNorm(int x, bool bias) {
  OpAttrs a;
  a.bias = bias;
  return Append(OpKind::kLayerNorm, {x}, a);
}
int GraphBuilder::Transpose(int x, const std::array<int, 4>& perm) {
  OpAttrs a;
  a.perm = perm;
  return Append(OpKind::kTranspose, {x}, a);
}
int GraphBuilder::Constant(const Shape& shape, bool learned) {
  OpAttrs a;
  a.input_type = TensorType{shape, graph_.info().dtype};
  a.learned = learned;
  return Append(OpKind::kConstant, {}, a);
}
int GraphBuilder::Slice(int x, const Shape& out, const std::array<int64_t, 4>& start,
                        const std::array<int64_t, 4>& step) {
  OpAttrs a = TargetAttrs(out);
  a.start = start;
  a.step = step;
  return Append(OpKind::kSlice, {x}, a);
}
int GraphBuilder::Pad(int x, Padding padding) {
  OpAttrs a;
  a.padding = padding;
  return Append(OpKind::kPad, {x}, a);
}
int GraphBuilder::Expand(int x, const Shape& shape) {
  return Append(OpKind::kExpand, {x}, TargetAttrs(shape));
}
int GraphBuilder::Gather(int table, const Shape& out) {
  return Append(OpKind::kGather, {table}, TargetAttrs(out));
}

int GraphBuilder::ConvBn(int x, int64_t out_channels, int kernel, const ConvOptions& options) {
  return BatchNorm(Conv(x, out_channels, kernel, options));
}

int GraphBuilder::ConvBnAct(int x, int64_t out_channels, int kernel, const ConvOptions& options,
                            Activation activation) {
  return Act(ConvBn(x, out_channels, kernel, options), activation);
}

GraphBuilder::ConvOptions TorchConv(int kernel, int stride, int groups, bool bias) {
  GraphBuilder::ConvOptions options;
  options.stride = stride;
  options.groups = groups;
  options.bias = bias;
  options.padding = Padding::Symmetric((kernel - 1) / 2);
  return options;
}

}  // namespace dcnas::models
