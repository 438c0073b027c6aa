#include "models/torch/lower.h"

#include <cmath>
#include <limits>
#include <string>

#include "common/errors.h"
#include "models/op_kinds.h"
#include "models/torch/measure.h"

namespace dcnas::models::libtorch {
namespace {

namespace F = ::torch::nn::functional;
using ::torch::Tensor;

// Values are NCHW tensors; the IR's [n, h, w, c] view of one, and back.
Tensor ToNhwc(const Tensor& x) { return x.permute({0, 2, 3, 1}); }
Tensor FromNhwc(const Tensor& x) { return x.permute({0, 3, 1, 2}); }

std::string Describe(const Op& op) {
  return "op '" + op.name + "' (" + std::string(OpKindName(op.kind)) + ", id " +
         std::to_string(op.id) + ")";
}

bool Symmetric(const ResolvedPadding& p) { return p.top == p.bottom && p.left == p.right; }

bool Zero(const ResolvedPadding& p) {
  return p.top == 0 && p.bottom == 0 && p.left == 0 && p.right == 0;
}

// Explicit pad of the last two (H, W) dimensions.
Tensor Pad(const Tensor& x, const ResolvedPadding& p, double value) {
  return F::pad(
      x,
      F::PadFuncOptions({p.left, p.right, p.top, p.bottom}).mode(::torch::kConstant).value(value));
}

Tensor Activate(const Tensor& x, Activation activation) {
  switch (activation) {
    case Activation::kRelu:
      return ::torch::relu(x);
    case Activation::kRelu6:
      return ::torch::hardtanh(x, 0.0, 6.0);
    case Activation::kSwish:
      return ::torch::silu(x);
    case Activation::kSigmoid:
      return ::torch::sigmoid(x);
    case Activation::kHardSwish:
      return ::torch::hardswish(x);
    case Activation::kHardSigmoid:
      return ::torch::hardsigmoid(x);
    case Activation::kGelu:
      return ::torch::gelu(x);
  }
  throw InternalError("unknown activation");
}

// TF space_to_depth: out[n, (bh*b + bw)*C + c, h, w] = in[n, c, h*b + bh, w*b + bw].
Tensor SpaceToDepth(const Tensor& x, int64_t b) {
  const int64_t n = x.size(0), c = x.size(1), h = x.size(2), w = x.size(3);
  return x.reshape({n, c, h / b, b, w / b, b})
      .permute({0, 3, 5, 1, 2, 4})
      .reshape({n, b * b * c, h / b, w / b});
}

// TF space_to_batch (no padding): out[(bh*b + bw)*N + n, c, h, w] = in[n, c, h*b + bh, w*b + bw].
Tensor SpaceToBatch(const Tensor& x, int64_t b) {
  const int64_t n = x.size(0), c = x.size(1), h = x.size(2), w = x.size(3);
  return x.reshape({n, c, h / b, b, w / b, b})
      .permute({3, 5, 0, 1, 2, 4})
      .reshape({b * b * n, c, h / b, w / b});
}

// Inverse of SpaceToBatch.
Tensor BatchToSpace(const Tensor& x, int64_t b) {
  const int64_t n = x.size(0) / (b * b), c = x.size(1), h = x.size(2), w = x.size(3);
  return x.reshape({b, b, n, c, h, w}).permute({2, 3, 4, 0, 5, 1}).reshape({n, c, h * b, w * b});
}

}  // namespace

std::vector<int64_t> NchwSizes(const Shape& shape) { return {shape.n, shape.c, shape.h, shape.w}; }

GraphModuleImpl::GraphModuleImpl(const Graph& graph) : graph_(graph) {
  const int n = graph_.size();
  const std::vector<int> inputs = graph_.Inputs();
  if (inputs.size() != 1) {
    throw InputError("LibTorch lowering of '" + graph_.info().model +
                     "' needs exactly one input op, found " + std::to_string(inputs.size()));
  }
  input_id_ = inputs[0];
  const std::vector<int> outputs = graph_.Outputs();
  if (outputs.empty() || graph_.size() == 1) {
    throw InputError("graph" +
                     (graph_.info().model.empty() ? "" : " '" + graph_.info().model + "'") +
                     " has no op past its input: nothing to run");
  }
  output_id_ = outputs.back();
  logits_id_ = output_id_;
  if (graph_.op(output_id_).kind == OpKind::kSoftmax) logits_id_ = graph_.op(output_id_).inputs[0];

  order_ = graph_.TopologicalOrder();
  std::vector<int> position(static_cast<size_t>(n), 0);
  for (int p = 0; p < n; ++p) position[static_cast<size_t>(order_[static_cast<size_t>(p)])] = p;
  last_use_.assign(static_cast<size_t>(n), -1);
  for (const Op& op : graph_.ops()) {
    for (int in : op.inputs) {
      int& last = last_use_[static_cast<size_t>(in)];
      last = std::max(last, position[static_cast<size_t>(op.id)]);
    }
  }

  convs_.resize(static_cast<size_t>(n), nullptr);
  norms_.resize(static_cast<size_t>(n), nullptr);
  linears_.resize(static_cast<size_t>(n), nullptr);
  biases_.resize(static_cast<size_t>(n));
  weights_.resize(static_cast<size_t>(n));
  ::torch::NoGradGuard no_grad;
  for (const Op& op : graph_.ops()) {
    const auto id = static_cast<size_t>(op.id);
    const OpAttrs& a = op.attrs;
    const std::string name = "op" + std::to_string(op.id);
    const int64_t in_c = op.inputs.empty() ? 0 : graph_.op(op.inputs[0]).out.shape.c;
    switch (op.kind) {
      case OpKind::kConv2d: {
        auto options = ::torch::nn::Conv2dOptions(in_c, a.out_channels, {a.kernel_h, a.kernel_w})
                           .stride({a.stride_h, a.stride_w})
                           .dilation({a.dilation_h, a.dilation_w})
                           .groups(a.groups)
                           .bias(a.bias);
        convs_[id] = register_module(name, ::torch::nn::Conv2d(options));
        ::torch::nn::init::kaiming_normal_(convs_[id]->weight, 0.0, ::torch::kFanOut,
                                           ::torch::kReLU);
        if (a.bias) convs_[id]->bias.zero_();
        break;
      }
      case OpKind::kBatchNorm:
        // Epsilon of the EfficientNet reference; LibTorch's default momentum (0.1) so that the
        // running statistics settle within the short runs of proxy training.
        norms_[id] = register_module(
            name, ::torch::nn::BatchNorm2d(
                      ::torch::nn::BatchNorm2dOptions(op.out.shape.c).momentum(0.1).eps(1e-3)));
        break;
      case OpKind::kBiasAdd:
        biases_[id] = register_parameter(name, ::torch::zeros({op.out.shape.c}));
        break;
      case OpKind::kFullyConnected: {
        linears_[id] = register_module(
            name,
            ::torch::nn::Linear(::torch::nn::LinearOptions(in_c, a.out_channels).bias(a.bias)));
        const double range = 1.0 / std::sqrt(static_cast<double>(a.out_channels));
        linears_[id]->weight.uniform_(-range, range);
        if (a.bias) linears_[id]->bias.zero_();
        break;
      }
      case OpKind::kLayerNorm:
        weights_[id] = register_parameter(name, ::torch::ones({op.out.shape.c}));
        if (a.bias)
          biases_[id] = register_parameter(name + "_shift", ::torch::zeros({op.out.shape.c}));
        break;
      case OpKind::kConstant: {
        // Stored NCHW like every value; learned tensors start as ViT's embeddings do
        // (normal, std 0.02), folded constants (masks) as zeros.
        const Shape& s = a.input_type.shape;
        if (a.learned) {
          weights_[id] = register_parameter(name, ::torch::randn({s.n, s.c, s.h, s.w}) * 0.02);
        } else {
          weights_[id] = register_buffer(name, ::torch::zeros({s.n, s.c, s.h, s.w}));
        }
        break;
      }
      default:
        break;
    }
  }
}

Tensor GraphModuleImpl::RunOp(const Op& op, const std::vector<Tensor>& values) {
  const auto id = static_cast<size_t>(op.id);
  const OpAttrs& a = op.attrs;
  auto in = [&](size_t i) -> const Tensor& { return values[static_cast<size_t>(op.inputs[i])]; };
  switch (op.kind) {
    case OpKind::kInput:
      throw InternalError("input op evaluated as an ordinary op");
    case OpKind::kConv2d: {
      const Tensor& x = in(0);
      const ResolvedPadding p = ResolvePadding(a, x.size(2), x.size(3));
      auto& conv = convs_[id];
      if (Zero(p)) return conv->forward(x);
      if (Symmetric(p)) {
        return F::conv2d(x, conv->weight,
                         F::Conv2dFuncOptions()
                             .bias(a.bias ? conv->bias : Tensor())
                             .stride({a.stride_h, a.stride_w})
                             .padding({p.top, p.left})
                             .dilation({a.dilation_h, a.dilation_w})
                             .groups(a.groups));
      }
      return conv->forward(Pad(x, p, 0.0));
    }
    case OpKind::kBatchNorm:
      return norms_[id]->forward(in(0));
    case OpKind::kBiasAdd:
      return in(0) + biases_[id].view({1, -1, 1, 1});
    case OpKind::kActivation:
      return Activate(in(0), a.activation);
    case OpKind::kAdd:
      return in(0) + in(1);
    case OpKind::kMul:
      return in(0) * in(1);
    case OpKind::kConcat: {
      std::vector<Tensor> xs;
      xs.reserve(op.inputs.size());
      for (size_t i = 0; i < op.inputs.size(); ++i) xs.push_back(in(i));
      static constexpr int64_t kNchwAxis[4] = {0, 2, 3, 1};  // IR n, h, w, c
      return ::torch::cat(xs, kNchwAxis[static_cast<size_t>(a.axis)]);
    }
    case OpKind::kPool: {
      const Tensor& x = in(0);
      const ResolvedPadding p = ResolvePadding(a, x.size(2), x.size(3));
      const std::vector<int64_t> kernel = {a.kernel_h, a.kernel_w};
      const std::vector<int64_t> stride = {a.stride_h, a.stride_w};
      const std::vector<int64_t> dilation = {a.dilation_h, a.dilation_w};
      if (a.pool == PoolMode::kMax) {
        const Tensor padded = Zero(p) ? x : Pad(x, p, -std::numeric_limits<double>::infinity());
        return F::max_pool2d(padded,
                             F::MaxPool2dFuncOptions(kernel).stride(stride).dilation(dilation));
      }
      if (a.dilation_h != 1 || a.dilation_w != 1) {
        throw InputError(Describe(op) + ": dilated average pooling has no LibTorch lowering");
      }
      if (Zero(p)) return F::avg_pool2d(x, F::AvgPool2dFuncOptions(kernel).stride(stride));
      if (Symmetric(p)) {
        return F::avg_pool2d(x, F::AvgPool2dFuncOptions(kernel)
                                    .stride(stride)
                                    .padding({p.top, p.left})
                                    .count_include_pad(false));
      }
      // Average over the valid window elements only (as TF does with SAME padding).
      const auto options = F::AvgPool2dFuncOptions(kernel).stride(stride);
      const Tensor sums = F::avg_pool2d(Pad(x, p, 0.0), options);
      const Tensor ones = ::torch::ones({1, 1, x.size(2), x.size(3)}, x.options());
      return sums / F::avg_pool2d(Pad(ones, p, 0.0), options);
    }
    case OpKind::kGlobalPool:
      if (a.pool == PoolMode::kMax) return ::torch::amax(in(0), {2, 3}, true);
      return in(0).mean({2, 3}, true);
    case OpKind::kFullyConnected: {
      const Tensor& x = in(0);
      if (x.size(2) == 1 && x.size(3) == 1) {
        return linears_[id]->forward(x.flatten(1)).view({x.size(0), a.out_channels, 1, 1});
      }
      return FromNhwc(linears_[id]->forward(ToNhwc(x)));  // on c at every position
    }
    case OpKind::kSpaceToDepth:
      return SpaceToDepth(in(0), a.block_size);
    case OpKind::kSpaceToBatch:
      return SpaceToBatch(in(0), a.block_size);
    case OpKind::kBatchToSpace:
      return BatchToSpace(in(0), a.block_size);
    case OpKind::kReshape: {
      // Per-image reshape in the graph's NHWC element order.
      const Tensor& x = in(0);
      // A reshape that changes n (tokens, windows) scales with the batch actually run.
      return x.permute({0, 2, 3, 1})
          .reshape({a.reshape_n > 0 ? -1 : x.size(0), a.reshape_h, a.reshape_w, a.reshape_c})
          .permute({0, 3, 1, 2});
    }
    case OpKind::kMatMul: {
      Tensor b = ToNhwc(in(1));
      if (a.transpose_b) b = b.transpose(2, 3);
      return FromNhwc(::torch::matmul(ToNhwc(in(0)), b));
    }
    case OpKind::kLayerNorm:
      return FromNhwc(F::layer_norm(ToNhwc(in(0)), F::LayerNormFuncOptions({op.out.shape.c})
                                                       .weight(weights_[id])
                                                       .bias(a.bias ? biases_[id] : Tensor())
                                                       .eps(1e-6)));
    case OpKind::kTranspose:
      return FromNhwc(ToNhwc(in(0)).permute({a.perm[0], a.perm[1], a.perm[2], a.perm[3]}));
    case OpKind::kConstant:
      return weights_[id];
    case OpKind::kSlice: {
      Tensor x = ToNhwc(in(0));
      // A whole batch axis is the batch actually run.
      const bool whole_n =
          a.reshape_n == graph_.op(op.inputs[0]).out.shape.n && a.start[0] == 0 && a.step[0] == 1;
      const int64_t out[4] = {whole_n ? x.size(0) : a.reshape_n, a.reshape_h, a.reshape_w,
                              a.reshape_c};
      for (int64_t axis = 0; axis < 4; ++axis) {
        const auto i = static_cast<size_t>(axis);
        x = x.slice(axis, a.start[i], a.start[i] + (out[i] - 1) * a.step[i] + 1, a.step[i]);
      }
      return FromNhwc(x);
    }
    case OpKind::kPad:
      return F::pad(in(0), F::PadFuncOptions(
                               {a.padding.left, a.padding.right, a.padding.top, a.padding.bottom}));
    case OpKind::kExpand: {
      // An expansion to the graph's batch is one to the batch actually run.
      const int64_t n = a.reshape_n == graph_.info().batch ? run_batch_ : a.reshape_n;
      return FromNhwc(ToNhwc(in(0)).expand({n, a.reshape_h, a.reshape_w, a.reshape_c}));
    }
    case OpKind::kGather: {
      // Rows of the table; the IR keeps the output's shape, not the exporter's indices, so rows
      // are taken in turn (the same memory traffic).
      const Tensor table = ToNhwc(in(0)).reshape({-1, a.reshape_c});
      const int64_t rows = a.reshape_n * a.reshape_h * a.reshape_w;
      const Tensor idx = ::torch::arange(rows, ::torch::kLong) % table.size(0);
      return FromNhwc(table.index_select(0, idx.to(table.device()))
                          .reshape({a.reshape_n, a.reshape_h, a.reshape_w, a.reshape_c}));
    }
    case OpKind::kSoftmax:
      return ::torch::softmax(in(0), 1);
    case OpKind::kDropout:
      return F::dropout(in(0), F::DropoutFuncOptions().p(a.rate).training(is_training()));
  }
  throw InternalError("unknown op kind in " + Describe(op));
}

std::vector<Tensor> GraphModuleImpl::Run(const Tensor& input, int stop_id, bool keep_all) {
  if (input.dim() != 4 || input.size(1) != graph_.op(input_id_).out.shape.c) {
    const Shape& s = graph_.op(input_id_).out.shape;
    throw InputError("graph '" + graph_.info().model + "' expects NCHW input with " +
                     std::to_string(s.c) + " channels, got sizes " +
                     std::string(::c10::str(input.sizes())));
  }
  run_batch_ = input.size(0);
  std::vector<Tensor> values(static_cast<size_t>(graph_.size()));
  for (size_t p = 0; p < order_.size(); ++p) {
    const Op& op = graph_.op(order_[p]);
    const auto id = static_cast<size_t>(op.id);
    values[id] = op.kind == OpKind::kInput ? input : RunOp(op, values);
    if (op.id == stop_id) break;
    if (keep_all) continue;
    for (int in_id : op.inputs) {
      if (last_use_[static_cast<size_t>(in_id)] == static_cast<int>(p)) {
        values[static_cast<size_t>(in_id)] = Tensor();
      }
    }
  }
  return values;
}

Tensor GraphModuleImpl::forward(const Tensor& input) {
  return Run(input, output_id_, false)[static_cast<size_t>(output_id_)];
}

std::vector<Tensor> GraphModuleImpl::ForwardAll(const Tensor& input) {
  return Run(input, -1, true);
}

Tensor GraphModuleImpl::Logits(const Tensor& input) {
  return Run(input, logits_id_, false)[static_cast<size_t>(logits_id_)].flatten(1);
}

int64_t CountParameters(const ::torch::nn::Module& module) {
  int64_t total = 0;
  for (const auto& p : module.parameters()) total += p.numel();
  return total;
}

::torch::Device ResolveDevice(const std::string& name) {
  CheckDeviceName(name);
  if (name == "cpu") return ::torch::Device(::torch::kCPU);
  if (!::torch::cuda::is_available()) {
    throw InputError("--device " + name +
                     ": this LibTorch has no CUDA device (torch::cuda::is_available() is false; "
                     "Debian's LibTorch is CPU-only: build against a CUDA LibTorch, see the "
                     "README)");
  }
  const ::torch::Device device(name);
  if (device.has_index() && device.index() >= static_cast<int>(::torch::cuda::device_count())) {
    throw InputError("--device " + name + ": there are " +
                     std::to_string(::torch::cuda::device_count()) + " CUDA devices");
  }
  return device;
}

int CudaDeviceCount() {
  return ::torch::cuda::is_available() ? static_cast<int>(::torch::cuda::device_count()) : 0;
}

void SyncDevice(const ::torch::Device& device) {
  if (device.is_cuda()) ::torch::cuda::synchronize(device.index());
}

}  // namespace dcnas::models::libtorch
