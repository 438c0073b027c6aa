#include "models/torch/zero_cost.h"

#include <chrono>
#include <cmath>
#include <string>
#include <vector>

#include "common/errors.h"
#include "models/torch/augment.h"
#include "models/torch/measure.h"
#include "models/torch/zero_cost_torch.h"

namespace dcnas::models::libtorch {
namespace {

using ::torch::Tensor;

std::string Network(const GraphModule& module) {
  return "zero-cost proxies of '" + module->graph().info().model + "'";
}

// The scored parameters: weights of the convolutions and fully-connected layers, in
// registration order (the graph's op order).
std::vector<Tensor> ScoredWeights(GraphModuleImpl& module) {
  std::vector<Tensor> out;
  for (const auto& m : module.modules(/*include_self=*/false)) {
    if (auto* conv = m->as<::torch::nn::Conv2dImpl>()) out.push_back(conv->weight);
    if (auto* linear = m->as<::torch::nn::LinearImpl>()) out.push_back(linear->weight);
  }
  return out;
}

double Finite(double value, const char* score, const GraphModule& module) {
  if (!std::isfinite(value)) {
    throw InputError(Network(module) + ": " + score + " is not finite (" + std::to_string(value) +
                     ")");
  }
  return value;
}

// naswot: K summed over the activation ops' binary codes (pre-activation > 0), log|det K|.
double Naswot(GraphModuleImpl& module, const Tensor& images) {
  ::torch::NoGradGuard no_grad;
  const std::vector<Tensor> values = module.ForwardAll(images);
  const Graph& graph = module.graph();
  const int64_t n = images.size(0);
  Tensor k = ::torch::zeros({n, n}, images.options().dtype(::torch::kDouble));
  int activations = 0;
  for (const Op& op : graph.ops()) {
    if (op.kind != OpKind::kActivation) continue;
    const Tensor& pre = values[static_cast<size_t>(op.inputs[0])];
    const Tensor codes = (pre.reshape({n, -1}) > 0).to(::torch::kDouble);
    k += codes.matmul(codes.t()) + (1.0 - codes).matmul((1.0 - codes).t());
    ++activations;
  }
  if (activations == 0) {
    throw InputError("zero-cost proxies of '" + graph.info().model +
                     "': naswot needs an activation op, the network has none");
  }
  return std::get<1>(::torch::linalg::slogdet(k)).item<double>();
}

}  // namespace

ZeroCostScores ComputeZeroCost(GraphModule& module, const Tensor& images, const Tensor& labels) {
  const auto start = std::chrono::steady_clock::now();
  ZeroCostScores s;
  if (images.dim() != 4 || labels.dim() != 1 || labels.size(0) != images.size(0)) {
    throw InputError(Network(module) + ": needs NCHW images and one label per image");
  }
  module->train();
  s.naswot = Finite(Naswot(*module, images), "naswot", module);

  // grad_norm and snip: one backward pass of the batch's mean cross-entropy.
  const std::vector<Tensor> weights = ScoredWeights(*module);
  module->zero_grad();
  const Tensor loss = ::torch::nn::functional::cross_entropy(module->Logits(images), labels);
  loss.backward();
  {
    ::torch::NoGradGuard no_grad;
    for (const Tensor& w : weights) {
      if (!w.grad().defined()) continue;
      s.grad_norm += w.grad().norm().item<double>();
      s.snip += (w * w.grad()).abs().sum().item<double>();
    }
  }
  s.grad_norm = Finite(s.grad_norm, "grad_norm", module);
  s.snip = Finite(s.snip, "snip", module);

  // synflow: |parameters| in double, batch norm as the identity, an input of ones. The float
  // parameters and buffers are kept and put back afterwards (integer buffers are not touched).
  std::vector<Tensor> tensors;
  for (const Tensor& t : module->parameters()) tensors.push_back(t);
  for (const Tensor& t : module->buffers()) {
    if (t.is_floating_point()) tensors.push_back(t);
  }
  std::vector<Tensor> saved;
  {
    ::torch::NoGradGuard no_grad;
    for (Tensor& t : tensors) {
      t.mutable_grad() = Tensor();
      saved.push_back(t.detach().clone());
      t.set_data(saved.back().to(::torch::kDouble).abs());
    }
    for (const auto& m : module->modules(/*include_self=*/false)) {
      if (auto* bn = m->as<::torch::nn::BatchNorm2dImpl>()) {
        bn->running_mean.zero_();
        bn->running_var.fill_(1.0 - bn->options.eps());
        if (bn->weight.defined()) bn->weight.fill_(1.0);
        if (bn->bias.defined()) bn->bias.zero_();
      }
    }
  }
  module->eval();
  const Graph& graph = module->graph();
  const Shape& in = graph.op(graph.Inputs().at(0)).out.shape;
  const Tensor ones = ::torch::ones({1, in.c, images.size(2), images.size(3)},
                                    images.options().dtype(::torch::kDouble));
  module->Logits(ones).sum().backward();
  {
    ::torch::NoGradGuard no_grad;
    for (const Tensor& w : ScoredWeights(*module)) {
      if (w.grad().defined()) s.synflow += (w * w.grad()).abs().sum().item<double>();
    }
    for (size_t i = 0; i < tensors.size(); ++i) {
      tensors[i].mutable_grad() = Tensor();
      tensors[i].set_data(saved[i]);
    }
  }
  module->train();
  s.synflow = Finite(s.synflow, "synflow", module);
  s.time_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return s;
}

ZeroCostScores ComputeZeroCost(const Graph& graph, const Tensor& images, const Tensor& labels,
                               uint64_t seed, int64_t max_memory_bytes) {
  const auto start = std::chrono::steady_clock::now();
  CheckZeroCostMemory(graph, static_cast<int>(images.size(0)), max_memory_bytes);
  ::torch::manual_seed(seed);
  GraphModule module(graph);
  module->to(images.device());
  ZeroCostScores s = ComputeZeroCost(module, images, labels);
  s.time_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return s;
}

ZeroCostScores ComputeZeroCost(const Graph& graph, const ZeroCostOptions& options,
                               const TrainingData& data) {
  const std::string name = "zero-cost proxies of '" + graph.info().model + "'";
  if (options.batch < 2) throw InputError(name + ": the batch needs at least 2 images");
  if (options.threads < 1) throw InputError(name + ": threads must be at least 1");
  CheckZeroCostMemory(graph, options.batch, options.max_memory_bytes);
  const std::vector<int> inputs = graph.Inputs();
  if (inputs.size() != 1) throw InputError(name + ": needs exactly one input op");
  const Shape& in = graph.op(inputs[0]).out.shape;
  if (in.h != in.w || (in.c != 1 && in.c != 3)) {
    throw InputError(name + ": needs a square input of 1 or 3 channels, not " + ShapeString(in));
  }
  if (in.c != data.channels() && data.channels() != 1) {
    throw InputError(name + ": takes " + std::to_string(in.c) + " input channels; " + data.id() +
                     " has " + std::to_string(data.channels()));
  }
  const ::torch::Device device = ResolveDevice(options.device);
  // The trainer's default validation hold-out: the batch comes from every run's training split.
  const ImageSelection selection =
      data.Select(DefaultValidationImages(data.train().count), options.batch, 0);
  if (static_cast<int64_t>(selection.train.size()) < options.batch) {
    throw InputError(name + ": batch " + std::to_string(options.batch) + " exceeds the " +
                     std::to_string(selection.train.size()) + " training images");
  }
  SetThreads(options.threads);
  const PreparedImages prepared = PrepareImages(data.train(), selection.train, in.h, false);
  return ComputeZeroCost(graph, ToChannels(prepared.plain, in.c).to(device),
                         prepared.labels.to(device), options.seed, options.max_memory_bytes);
}

}  // namespace dcnas::models::libtorch
