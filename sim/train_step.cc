#include "sim/train_step.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

#include "common/config_tree.h"
#include "common/errors.h"
#include "common/text.h"
#include "models/counts.h"
#include "sim/cost_context.h"
#include "sim/engine.h"
#include "sim/fusion.h"

namespace dcnas::sim {

using cost::Gemm;
using models::OpKind;

const char* OptimizerName(Optimizer optimizer) {
  switch (optimizer) {
    case Optimizer::kSgdMomentum:
      return "sgd-momentum";
    case Optimizer::kRmsProp:
      return "rmsprop";
    case Optimizer::kAdam:
      return "adam";
    case Optimizer::kLars:
      return "lars";
  }
  return "sgd-momentum";
}

const std::vector<std::string>& OptimizerNames() {
  static const std::vector<std::string> kNames = {"sgd-momentum", "rmsprop", "adam", "lars"};
  return kNames;
}

Optimizer ParseOptimizer(const std::string& name) {
  for (Optimizer o :
       {Optimizer::kSgdMomentum, Optimizer::kRmsProp, Optimizer::kAdam, Optimizer::kLars}) {
    if (name == OptimizerName(o)) return o;
  }
  throw InputError("unknown optimizer '" + name + "'" + DidYouMean(name, OptimizerNames()) +
                   " (valid: " + Join(OptimizerNames(), ", ") + ")");
}

OptimizerCost OptimizerCostOf(Optimizer optimizer) {
  switch (optimizer) {
    case Optimizer::kSgdMomentum:
      return OptimizerCost{1, 3, 0};
    case Optimizer::kRmsProp:
      return OptimizerCost{2, 8, 1};
    case Optimizer::kAdam:
      return OptimizerCost{2, 10, 1};
    case Optimizer::kLars:
      return OptimizerCost{1, 7, 1};
  }
  return OptimizerCost{};
}

const char* PhaseName(Phase phase) {
  switch (phase) {
    case Phase::kForward:
      return "forward";
    case Phase::kBackward:
      return "backward";
    case Phase::kUpdate:
      return "update";
  }
  return "forward";
}

namespace {

// Vector ops per element of a training batch norm's statistics (sum and sum of squares).
constexpr double kBatchStatsOps = 3;
// Extra vector ops per element of the backward ops beyond their forward rule: an activation's
// gradient multiplies by the incoming gradient; batch norm's gradient needs two reductions
// (sum of dy, sum of dy * x_hat) and the correction terms.
constexpr double kActivationGradOps = 1;
constexpr double kBatchNormGradOps = 5;
// fp32 bytes of a weight, a gradient or an optimizer state value.
constexpr double kFp32 = 4;

int64_t CeilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

class Builder {
 public:
  Builder(const PreparedGraph& forward, Optimizer optimizer, bool rematerialize)
      : f_(forward), rematerialize_(rematerialize) {
    TrainGraph& t = tg_;
    t.optimizer = optimizer;
    t.graph.graph = forward.graph;
    t.graph.model = forward.model;
    t.graph.batch = forward.batch;
    t.graph.resolution = forward.resolution;
    t.graph.dtype = forward.dtype;
    t.graph.blocks = forward.blocks;
  }

  TrainGraph Build() {
    const size_t n = f_.ops.size();
    new_id_.assign(n, -1);
    requires_grad_.assign(n, false);
    params_.assign(n, 0.0);
    contributions_.assign(n, {});
    AddForward();
    AddLoss();
    for (size_t k = n; k-- > 0;) AddBackward(k);
    AddUpdates();
    Finish();
    return std::move(tg_);
  }

 private:
  struct Input {
    int id = -1;  // new id
    double bytes = 0;
  };

  const models::Op& Mop(const PreparedOp& op) const { return f_.graph->op(op.id); }
  size_t Index(int forward_id) const {
    return static_cast<size_t>(f_.position[static_cast<size_t>(forward_id)]);
  }

  // Appends `op` with `inputs` (main input first unless main < 0) and returns its new id.
  int Add(PreparedOp op, const std::vector<Input>& inputs, int main, Phase phase,
          const std::string& name, bool persistent = false) {
    PreparedGraph& g = tg_.graph;
    const int id = static_cast<int>(g.ops.size());
    op.id = id;
    op.first_input = static_cast<int>(g.inputs.size());
    op.num_inputs = static_cast<int>(inputs.size());
    for (const Input& in : inputs) {
      g.inputs.push_back(in.id);
      g.input_bytes.push_back(in.bytes);
    }
    op.main_input = main;
    op.backward = phase == Phase::kBackward;
    op.signature =
        HashMix(HashMix(op.signature, static_cast<uint64_t>(phase)), static_cast<uint64_t>(id));
    g.ops.push_back(op);
    g.position.push_back(id);
    tg_.phase.push_back(phase);
    tg_.names.push_back(name);
    tg_.persistent_output.push_back(persistent);
    const double flops = op.cls == OpClass::kView ? 0.0 : op.flops;
    switch (phase) {
      case Phase::kForward:
        tg_.forward_flops += flops;
        break;
      case Phase::kBackward:
        tg_.backward_flops += flops;
        break;
      case Phase::kUpdate:
        tg_.update_flops += flops;
        break;
    }
    return id;
  }

  void AddForward() {
    for (size_t i = 0; i < f_.ops.size(); ++i) {
      PreparedOp op = f_.ops[i];
      const models::Op& m = Mop(op);
      std::vector<Input> inputs;
      bool any_grad = false;
      for (int k = 0; k < op.num_inputs; ++k) {
        const size_t slot = static_cast<size_t>(op.first_input) + static_cast<size_t>(k);
        const int producer = f_.inputs[slot];
        inputs.push_back(Input{new_id_[Index(producer)], f_.input_bytes[slot]});
        any_grad = any_grad || requires_grad_[Index(producer)];
      }
      const models::OpCounts counts = models::CountOp(*f_.graph, m);
      requires_grad_[i] = any_grad || counts.params > 0;
      if (op.kind == OpKind::kBatchNorm) {
        // Training batch norm normalises with the batch's own statistics: one pass over the
        // input for the sums, one to normalise.
        op.extra_vector_ops = kBatchStatsOps * op.out_elements;
        op.flops += kBatchStatsOps * op.out_elements;
        if (!inputs.empty()) inputs.push_back(inputs.front());
      }
      const int main = op.main_input >= 0 ? new_id_[Index(op.main_input)] : -1;
      new_id_[i] = Add(op, inputs, main, Phase::kForward, m.name);
      if (op.kind == OpKind::kInput) tg_.input_bytes += op.per_image_out_bytes * f_.batch;
      params_[i] = static_cast<double>(counts.params);
      if (counts.params > 0) {
        params_of_.emplace_back(i, static_cast<double>(counts.params));
        tg_.params += static_cast<double>(counts.params);
      }
    }
  }

  // The loss: softmax cross-entropy on the last op's output, whose gradient seeds backward.
  // A graph that ends in softmax has the fused softmax-cross-entropy gradient (p - y) as the
  // gradient of the softmax's input.
  void AddLoss() {
    size_t last = f_.ops.size() - 1;
    while (last > 0 && f_.ops[last].cls == OpClass::kView && f_.ops[last].main_input >= 0) {
      last = Index(f_.ops[last].main_input);
    }
    const PreparedOp& sink = f_.ops[last];
    size_t target = last;
    if (sink.kind == OpKind::kSoftmax && sink.main_input >= 0) target = Index(sink.main_input);
    const PreparedOp& logits = f_.ops[target];
    PreparedOp loss = Elementwise(OpKind::kSoftmax, logits.out_elements, logits.out_bytes);
    const int id = Add(loss, {{new_id_[target], logits.out_bytes}}, new_id_[target],
                       Phase::kBackward, "loss/grad");
    contributions_[target].push_back(Input{id, logits.out_bytes});
    skip_backward_ = target != last ? last : f_.ops.size();
  }

  PreparedOp Elementwise(OpKind kind, double elements, double out_bytes) const {
    PreparedOp op;
    op.kind = kind;
    op.cls = OpClass::kElementwise;
    op.out_elements = elements;
    op.in_elements = elements;
    op.out_bytes = out_bytes;
    op.per_image_out_bytes = out_bytes / std::max(1, f_.batch);
    op.flops = elements;
    op.signature = HashMix(0x7261696e, static_cast<uint64_t>(kind));
    return op;
  }

  // The gradient of forward op i's output: its single contribution, or their sum.
  int Gradient(size_t i) {
    auto& parts = contributions_[i];
    if (parts.empty()) return -1;
    if (parts.size() == 1) return parts.front().id;
    const PreparedOp& op = f_.ops[i];
    PreparedOp add = Elementwise(OpKind::kAdd, op.out_elements, op.out_bytes);
    add.extra_vector_ops = static_cast<double>(parts.size() - 2) * op.out_elements;
    add.flops = static_cast<double>(parts.size() - 1) * op.out_elements;
    const int id = Add(add, parts, parts.front().id, Phase::kBackward, Mop(op).name + "/grad_sum");
    parts = {Input{id, op.out_bytes}};
    return id;
  }

  void Contribute(int forward_producer, int grad_id, double bytes) {
    const size_t p = Index(forward_producer);
    if (requires_grad_[p]) contributions_[p].push_back(Input{grad_id, bytes});
  }

  // Forward input k of op (forward id, bytes, new id).
  struct FwdInput {
    int forward_id = -1;
    double bytes = 0;
    int id = -1;
  };
  FwdInput InputOf(const PreparedOp& op, int k) const {
    const size_t slot = static_cast<size_t>(op.first_input) + static_cast<size_t>(k);
    const int producer = f_.inputs[slot];
    return FwdInput{producer, f_.input_bytes[slot], new_id_[Index(producer)]};
  }

  // A forward tensor a backward op reads. With rematerialisation, the output of a chain of
  // one-input elementwise ops (batch norm, bias, activation) is recomputed inside the backward
  // kernel from the chain's first input instead of being kept: the op reads that input (same
  // bytes) and does the chain's vector work again (one op per FLOP, one transcendental per
  // element of a swish, sigmoid or gelu).
  struct Saved {
    Input input;
    double ops = 0;
    double transcendentals = 0;
  };
  Saved Keep(const FwdInput& x) const {
    Saved s{Input{x.id, x.bytes}};
    if (!rematerialize_) return s;
    int at = x.forward_id;
    for (;;) {
      const PreparedOp& op = f_.ops[Index(at)];
      const bool chain = op.cls == OpClass::kElementwise && op.num_inputs == 1 &&
                         (op.kind == OpKind::kBatchNorm || op.kind == OpKind::kBiasAdd ||
                          op.kind == OpKind::kActivation);
      if (!chain) break;
      s.ops += op.flops;
      const auto a = op.activation;
      if (op.kind == OpKind::kActivation &&
          (a == models::Activation::kSwish || a == models::Activation::kSigmoid ||
           a == models::Activation::kGelu)) {
        s.transcendentals += op.out_elements;
      }
      at = InputOf(op, 0).forward_id;
    }
    s.input.id = new_id_[Index(at)];
    return s;
  }
  // Adds a saved read's recomputation to a backward op.
  static void Recompute(PreparedOp& op, const Saved& s) {
    op.extra_vector_ops += s.ops;
    op.extra_transcendentals += s.transcendentals;
    op.flops += s.ops;
  }

  void AddBackward(size_t i) {
    const PreparedOp& op = f_.ops[i];
    if (i == skip_backward_) {
      return;  // softmax folded into the loss gradient
    }
    const int g = Gradient(i);
    if (g < 0) return;
    const double gb = op.out_bytes > 0 ? op.out_bytes : GradientBytes(i);
    const models::Op& m = Mop(op);
    const int self = new_id_[i];
    switch (op.cls) {
      case OpClass::kView:
        for (int k = 0; k < op.num_inputs; ++k) Contribute(InputOf(op, k).forward_id, g, gb);
        if (op.kind == OpKind::kConstant && params_[i] > 0) grad_of_[i] = g;  // learned tensor
        return;
      case OpClass::kConv:
      case OpClass::kDepthwise:
      case OpClass::kFc:
        if (op.kind == OpKind::kMatMul) {
          MatMulBackward(i, g, gb);
        } else {
          MatrixBackward(i, g, gb);
        }
        return;
      case OpClass::kElementwise:
        ElementwiseBackward(i, g, gb, self);
        return;
      case OpClass::kPool: {
        const FwdInput x = InputOf(op, 0);
        PreparedOp b = op;
        b.out_bytes = x.bytes;
        b.per_image_out_bytes = x.bytes / std::max(1, f_.batch);
        b.extra_vector_ops = 0;
        std::vector<Input> ins = {{g, gb}};
        // Max pooling routes the gradient to the arg-max: it reads the saved input.
        if (op.kind == OpKind::kPool && m.attrs.pool == models::PoolMode::kMax) {
          const Saved sx = Keep(x);
          ins.push_back(sx.input);
          Recompute(b, sx);
        }
        const int id = Add(b, ins, g, Phase::kBackward, m.name + "/grad");
        Contribute(x.forward_id, id, x.bytes);
        return;
      }
      case OpClass::kDataMovement: {
        // The inverse movement (slices of a concat, depth-to-space of space-to-depth): the same
        // bytes moved.
        PreparedOp b = op;
        b.out_bytes = 0;
        for (int k = 0; k < op.num_inputs; ++k) b.out_bytes += InputOf(op, k).bytes;
        b.per_image_out_bytes = b.out_bytes / std::max(1, f_.batch);
        const int id = Add(b, {{g, gb}}, g, Phase::kBackward, m.name + "/grad");
        for (int k = 0; k < op.num_inputs; ++k) {
          const FwdInput x = InputOf(op, k);
          Contribute(x.forward_id, id, x.bytes);
        }
        return;
      }
    }
  }

  // Bytes of the gradient of a view's output (views carry no bytes in the prepared graph).
  double GradientBytes(size_t i) const {
    const PreparedOp& op = f_.ops[i];
    return op.per_image_out_bytes * f_.batch;
  }

  void MatrixBackward(size_t i, int g, double gb) {
    const PreparedOp& op = f_.ops[i];
    const models::Op& m = Mop(op);
    const FwdInput x = InputOf(op, 0);
    const double params = params_[i];  // counted once, in AddForward
    const Gemm& fwd = op.gemm;
    Gemm dgrad;
    Gemm wgrad;
    int in_h = 1;
    int in_w = 1;
    if (op.kind == OpKind::kConv2d) {
      const auto& a = m.attrs;
      const auto& in = f_.graph->op(m.inputs[0]).out.shape;
      in_h = static_cast<int>(in.h);
      in_w = static_cast<int>(in.w);
      const int64_t cin_g = in.c / a.groups;
      const int64_t cout_g = a.out_channels / a.groups;
      // Input gradient: a transposed convolution. Each input pixel gathers, on average,
      // kh*kw*Cout/g / (sh*sw) taps (sub-pixel decomposition of the strided convolution), so the
      // GEMM is (N*Hi*Wi) x ceil(kh*kw*Cout/g / (sh*sw)) x (Cin/g): the forward's MACs.
      const int64_t taps = CeilDiv(static_cast<int64_t>(a.kernel_h) * a.kernel_w * cout_g,
                                   static_cast<int64_t>(a.stride_h) * a.stride_w);
      dgrad = Gemm{in.n * in.h * in.w, taps, cin_g, a.groups};
      // Weight gradient: the reduction runs over the batch and the output pixels; the kernel
      // streams the longer of (kh*kw*Cin/g) and (Cout/g) (dW or its transpose, as the compiler
      // picks) through the matrix unit.
      const int64_t taps_in = static_cast<int64_t>(a.kernel_h) * a.kernel_w * cin_g;
      wgrad = Gemm{std::max(taps_in, cout_g), fwd.m, std::min(taps_in, cout_g), a.groups};
    } else {
      dgrad = Gemm{fwd.m, fwd.n, fwd.k, 1};
      wgrad = Gemm{std::max(fwd.k, fwd.n), fwd.m, std::min(fwd.k, fwd.n), 1};
    }
    if (requires_grad_[Index(x.forward_id)]) {
      PreparedOp d = op;
      d.gemm = dgrad;
      d.macs = static_cast<double>(dgrad.macs());
      d.flops = 2.0 * d.macs;
      d.out_bytes = x.bytes;
      d.out_elements = static_cast<double>(f_.graph->op(m.inputs[0]).out.shape.elements());
      d.in_elements = op.out_elements;
      d.per_image_out_bytes = x.bytes / std::max(1, f_.batch);
      d.out_h = in_h;
      d.out_w = in_w;
      d.pointwise_conv = false;
      d.signature = HashMix(op.signature, 0xd6);
      const int id = Add(d, {{g, gb}}, g, Phase::kBackward, m.name + "/dgrad");
      Contribute(x.forward_id, id, x.bytes);
    }
    PreparedOp w = op;
    w.gemm = wgrad;
    w.macs = static_cast<double>(wgrad.macs());
    // The bias gradient is a reduction of the output gradient (MatrixWork charges the bias
    // elements on the vector unit).
    w.flops = 2.0 * w.macs + (m.attrs.bias ? op.out_elements : 0.0);
    w.weight_bytes = 0;
    w.out_bytes = params * kFp32;
    w.out_elements = params;
    w.per_image_out_bytes = 0;
    w.winograd_conv = false;
    w.pointwise_conv = false;
    w.split_reduction = true;
    w.vector_reduction = op.cls == OpClass::kDepthwise;
    w.signature = HashMix(op.signature, 0x77);
    const Saved sx = Keep(x);
    Recompute(w, sx);
    const int id = Add(w, {{g, gb}, sx.input}, g, Phase::kBackward, m.name + "/wgrad", true);
    grad_of_[i] = id;
  }

  // Y = A x B per batch entry ([M, K] x [K, N]): dA = dY x B^T ([M, N] x [N, K]) and
  // dB = A^T x dY ([K, M] x [M, N]), each reading the gradient and the other saved operand.
  void MatMulBackward(size_t i, int g, double gb) {
    const PreparedOp& op = f_.ops[i];
    const models::Op& m = Mop(op);
    const Gemm& fwd = op.gemm;
    const FwdInput a = InputOf(op, 0);
    const FwdInput b = InputOf(op, 1);
    const Gemm grads[2] = {Gemm{fwd.m, fwd.n, fwd.k, fwd.groups},
                           Gemm{fwd.k, fwd.m, fwd.n, fwd.groups}};
    const FwdInput targets[2] = {a, b};
    const FwdInput others[2] = {b, a};
    for (int t = 0; t < 2; ++t) {
      const FwdInput& x = targets[t];
      if (!requires_grad_[Index(x.forward_id)]) continue;
      PreparedOp d = op;
      d.gemm = grads[t];
      d.macs = static_cast<double>(d.gemm.macs());
      d.flops = 2.0 * d.macs;
      d.out_bytes = x.bytes;
      d.out_elements =
          static_cast<double>(f_.graph->op(m.inputs[static_cast<size_t>(t)]).out.shape.elements());
      d.per_image_out_bytes = x.bytes / std::max(1, f_.batch);
      d.signature = HashMix(op.signature, t == 0 ? 0xa1 : 0xb1);
      const Saved so = Keep(others[t]);
      const int id = Add(d, {{g, gb}, so.input}, g, Phase::kBackward,
                         m.name + (t == 0 ? "/grad_a" : "/grad_b"));
      Contribute(x.forward_id, id, x.bytes);
    }
  }

  void ElementwiseBackward(size_t i, int g, double gb, int self) {
    const PreparedOp& op = f_.ops[i];
    const models::Op& m = Mop(op);
    const double e = op.out_elements;
    switch (op.kind) {
      case OpKind::kBatchNorm:
      case OpKind::kLayerNorm: {
        // Layer norm's gradient has the same two passes, its reductions over c.
        const FwdInput x = InputOf(op, 0);
        PreparedOp b = Elementwise(op.kind, e, x.bytes);
        b.extra_vector_ops = kBatchNormGradOps * e;
        b.flops = (2.0 + kBatchNormGradOps) * e;
        // Two passes over dy and x: the reductions, then the input gradient.
        const Saved sx = Keep(x);
        Recompute(b, sx);
        Recompute(b, sx);
        const int id =
            Add(b, {{g, gb}, sx.input, {g, gb}, sx.input}, g, Phase::kBackward, m.name + "/grad");
        Contribute(x.forward_id, id, x.bytes);
        grad_of_[i] = id;
        return;
      }
      case OpKind::kBiasAdd: {
        // The input gradient is dy itself; the bias gradient is a reduction of dy.
        const FwdInput x = InputOf(op, 0);
        Contribute(x.forward_id, g, gb);
        const double params = params_[i];
        PreparedOp b = Elementwise(OpKind::kBiasAdd, e, params * kFp32);
        b.per_image_out_bytes = 0;
        grad_of_[i] = Add(b, {{g, gb}}, g, Phase::kBackward, m.name + "/wgrad", true);
        return;
      }
      case OpKind::kActivation: {
        const FwdInput x = InputOf(op, 0);
        PreparedOp b = Elementwise(OpKind::kActivation, e, x.bytes);
        b.activation = op.activation;
        b.extra_vector_ops = kActivationGradOps * e;
        b.flops = op.flops + kActivationGradOps * e;
        const Saved sx = Keep(x);
        Recompute(b, sx);
        const int id = Add(b, {{g, gb}, sx.input}, g, Phase::kBackward, m.name + "/grad");
        Contribute(x.forward_id, id, x.bytes);
        return;
      }
      case OpKind::kAdd:
        for (int k = 0; k < op.num_inputs; ++k) Contribute(InputOf(op, k).forward_id, g, gb);
        return;
      case OpKind::kMul: {
        const FwdInput a = InputOf(op, 0);
        const FwdInput b = op.num_inputs > 1 ? InputOf(op, 1) : a;
        // d(a*b)/da = dy * b; d/db = dy * a, reduced over the broadcast dimensions when b (or a)
        // is the [N,1,1,C] scale of a squeeze-excite block.
        for (const auto& [target, other] : {std::pair{a, b}, std::pair{b, a}}) {
          if (!requires_grad_[Index(target.forward_id)]) continue;
          PreparedOp d = Elementwise(OpKind::kMul, e, target.bytes);
          if (target.bytes < gb) {
            d.cls = OpClass::kPool;
            d.kind = OpKind::kGlobalPool;
            d.in_elements = e;
            d.out_elements = e * target.bytes / gb;
            d.extra_vector_ops = e;  // the multiply before the reduction
            d.flops = 2.0 * e;
          }
          const Saved so = Keep(other);
          Recompute(d, so);
          const int id = Add(d, {{g, gb}, so.input}, g, Phase::kBackward, m.name + "/grad");
          Contribute(target.forward_id, id, target.bytes);
        }
        return;
      }
      case OpKind::kSoftmax: {
        PreparedOp b = Elementwise(OpKind::kSoftmax, e, InputOf(op, 0).bytes);
        const int id =
            Add(b, {{g, gb}, {self, op.out_bytes}}, g, Phase::kBackward, m.name + "/grad");
        Contribute(InputOf(op, 0).forward_id, id, InputOf(op, 0).bytes);
        return;
      }
      default:
        throw InternalError("train step: no backward rule for " +
                            std::string(models::OpKindName(op.kind)));
    }
  }

  void AddUpdates() {
    const OptimizerCost c = OptimizerCostOf(tg_.optimizer);
    for (const auto& [i, params] : params_of_) {
      auto it = grad_of_.find(i);
      if (it == grad_of_.end()) continue;  // a parameter no gradient reaches
      PreparedOp u = Elementwise(OpKind::kAdd, params, params * kFp32 * (1.0 + c.state_tensors));
      u.extra_vector_ops = (c.vector_ops - 1.0) * params;
      u.extra_transcendentals = c.transcendentals * params;
      u.flops = c.vector_ops * params;
      u.weight_bytes = params * kFp32 * (1.0 + c.state_tensors);
      u.per_image_out_bytes = 0;
      // No main input: the update never fuses into the gradient's kernel (the all-reduce sits
      // between them).
      Add(u, {{it->second, params * kFp32}}, -1, Phase::kUpdate, Mop(f_.ops[i]).name + "/update",
          true);
      tg_.param_tensors += 1;
    }
  }

  void Finish() {
    PreparedGraph& g = tg_.graph;
    const size_t n = g.ops.size();
    std::vector<std::vector<int>> consumers(n);
    for (size_t i = 0; i < n; ++i) {
      const PreparedOp& op = g.ops[i];
      for (int k = 0; k < op.num_inputs; ++k) {
        const int p = g.inputs[static_cast<size_t>(op.first_input) + static_cast<size_t>(k)];
        auto& list = consumers[static_cast<size_t>(p)];
        if (list.empty() || list.back() != static_cast<int>(i)) list.push_back(static_cast<int>(i));
      }
    }
    for (size_t i = 0; i < n; ++i) {
      PreparedOp& op = g.ops[i];
      // The fusion planner sees the consumers of the op's own phase; a later phase's read makes
      // the output kept (written to HBM even inside a fused group).
      op.first_consumer = static_cast<int>(g.consumers.size());
      for (int c : consumers[i]) {
        if (tg_.phase[static_cast<size_t>(c)] == tg_.phase[i]) {
          g.consumers.push_back(c);
        } else {
          op.kept_output = true;
        }
      }
      op.num_consumers = static_cast<int>(g.consumers.size()) - op.first_consumer;
      if (op.cls != OpClass::kView) {
        g.total_flops += op.flops;
        g.total_macs += op.macs;
      }
    }
    // Liveness: an activation or gradient lives from its op to its last consumer.
    std::vector<int> last_use(n, -1);
    for (size_t i = 0; i < n; ++i) {
      for (int c : consumers[i]) last_use[i] = std::max(last_use[i], c);
    }
    std::vector<std::vector<size_t>> frees(n);
    for (size_t i = 0; i < n; ++i) {
      if (last_use[i] >= 0) frees[static_cast<size_t>(last_use[i])].push_back(i);
    }
    double live = 0;
    for (size_t i = 0; i < n; ++i) {
      const PreparedOp& op = g.ops[i];
      const bool counted = !tg_.persistent_output[i] && last_use[i] >= 0;
      if (counted) live += op.out_bytes;
      tg_.peak_activation_bytes = std::max(tg_.peak_activation_bytes, live);
      for (size_t p : frees[i]) {
        if (!tg_.persistent_output[p]) live -= g.ops[p].out_bytes;
      }
    }
    for (size_t i = 0; i < n; ++i) {
      if (tg_.phase[i] != Phase::kForward) continue;
      for (int c : consumers[i]) {
        if (tg_.phase[static_cast<size_t>(c)] != Phase::kForward) {
          tg_.saved_activation_bytes += g.ops[i].out_bytes;
          break;
        }
      }
    }
  }

  const PreparedGraph& f_;
  bool rematerialize_ = false;
  TrainGraph tg_;
  std::vector<int> new_id_;
  std::vector<bool> requires_grad_;
  std::vector<std::vector<Input>> contributions_;
  std::vector<double> params_;                        // per forward index (CountOp's params)
  std::vector<std::pair<size_t, double>> params_of_;  // forward index, parameters
  std::map<size_t, int> grad_of_;                     // forward index -> its parameter gradient
  size_t skip_backward_ = 0;
};

std::string Gib(double bytes) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.2f GiB", bytes / (1024.0 * 1024.0 * 1024.0));
  return buf;
}

}  // namespace

TrainGraph BuildTrainGraph(const PreparedGraph& forward, Optimizer optimizer, bool rematerialize) {
  if (forward.graph == nullptr || forward.ops.empty()) {
    throw InternalError("BuildTrainGraph: unprepared graph");
  }
  TrainGraph t = Builder(forward, optimizer, rematerialize).Build();
  t.rematerialized = rematerialize;
  return t;
}

int PerChipBatch(int global_batch, int chips, const AcceleratorSpec& spec) {
  if (chips < 1) throw InputError("--chips must be at least 1, got " + std::to_string(chips));
  if (global_batch < 1) {
    throw InputError("global batch must be at least 1, got " + std::to_string(global_batch));
  }
  const int replicas = spec.interconnect.replicas_per_chip;
  const int64_t slice_replicas = static_cast<int64_t>(chips) * replicas;
  if (global_batch % slice_replicas != 0) {
    throw InputError("global batch " + std::to_string(global_batch) + " does not split over " +
                     std::to_string(chips) + " chips x " + std::to_string(replicas) +
                     " replicas per chip (" + spec.name + "): give a multiple of " +
                     std::to_string(slice_replicas));
  }
  return global_batch / chips;
}

TrainReport SimulateTrainStep(const TrainGraph& train, const AcceleratorSpec& spec,
                              const StackProfile& stack, const CalibrationParams& calibration,
                              const TrainOptions& options) {
  const PreparedGraph& graph = train.graph;
  // A stack that fuses batch norm into the convolution fuses it in training too: the batch
  // statistics are a second output of the convolution's kernel (multi-output fusion) and the
  // normalisation joins the kernel that consumes it; a stack that does not runs the statistics
  // and the normalisation as kernels of their own (sim/README.md, "Training steps").
  const cost::CostContext ctx = MakeCostContext(spec, stack, calibration, graph.dtype);
  const size_t n = graph.ops.size();
  std::vector<cost::OpWork> work(n);
  for (size_t i = 0; i < n; ++i) {
    if (graph.ops[i].cls != OpClass::kView) work[i] = cost::ComputeOpWork(graph.ops[i], ctx);
  }
  const FusionPlan plan = PlanFusion(graph, work, ctx, stack, options.fusion);
  TrainReport r;
  static_cast<RunIdentity&>(r) = DescribeRun(graph, spec, stack, calibration);
  r.optimizer = OptimizerName(train.optimizer);
  r.chips = options.chips;
  r.per_chip_batch = graph.batch;
  r.global_batch = graph.batch * options.chips;
  r.replicas = options.chips * spec.interconnect.replicas_per_chip;
  r.per_replica_batch = graph.batch / spec.interconnect.replicas_per_chip;
  r.params = train.params;
  std::vector<cost::GroupCost> costs;
  costs.reserve(plan.groups.size());
  for (const PlannedGroup& pg : plan.groups) costs.push_back(cost::FinishGroup(pg.terms, ctx));
  if (stack.async_launch) cost::QueueLaunches(costs);
  for (size_t g = 0; g < plan.groups.size(); ++g) {
    const PlannedGroup& pg = plan.groups[g];
    const cost::GroupCost& c = costs[g];
    const Phase phase = train.phase[static_cast<size_t>(pg.anchor)];
    TrainPhaseReport& p = phase == Phase::kForward    ? r.forward
                          : phase == Phase::kBackward ? r.backward
                                                      : r.update;
    p.time.matrix_s += c.matrix_s;
    p.time.vector_s += c.vector_s;
    p.time.memory_s += c.memory_s;
    p.time.overhead_s += c.overhead_s;
    p.time.total_s += c.total_s;
    p.kernels += 1;
    p.hbm_bytes += c.hbm_bytes;
  }
  r.forward.flops = train.forward_flops;
  r.backward.flops = train.backward_flops;
  r.update.flops = train.update_flops;
  r.allreduce_bytes = train.params * options.gradient_bytes;
  r.allreduce =
      GradientAllReduce(r.allreduce_bytes, options.chips, spec, calibration.interconnect_efficiency,
                        calibration.memory_efficiency);
  r.allreduce_hidden_s =
      std::min(r.allreduce.seconds, stack.allreduce_overlap * r.backward.time.total_s);
  r.allreduce_exposed_s = r.allreduce.seconds - r.allreduce_hidden_s;
  r.step_s = r.forward.time.total_s + r.backward.time.total_s + r.allreduce_exposed_s +
             r.update.time.total_s;
  r.step_flops = (train.forward_flops + train.backward_flops + train.update_flops) * r.chips;
  if (r.step_s > 0) {
    r.images_per_s = r.global_batch / r.step_s;
    r.achieved_flops_per_s = r.step_flops / r.step_s;
    r.percent_of_peak =
        100.0 * r.achieved_flops_per_s / (spec.PeakFlopsPerS(graph.dtype) * r.chips);
  }
  const OptimizerCost oc = OptimizerCostOf(train.optimizer);
  const double replicas = spec.interconnect.replicas_per_chip;
  TrainMemory& m = r.memory;
  m.weights = replicas * train.params * kFp32;
  m.gradients = replicas * train.params * kFp32;
  m.optimizer = replicas * train.params * kFp32 * oc.state_tensors;
  m.activations_saved = train.saved_activation_bytes;
  m.activations_peak = train.peak_activation_bytes;
  m.input = train.input_bytes;
  m.total = m.weights + m.gradients + m.optimizer + m.activations_peak + m.input;
  m.capacity = spec.HbmUsableGib() * 1024.0 * 1024.0 * 1024.0;
  if (options.enforce_memory && m.total > m.capacity) {
    throw InputError("training step of " + r.model + " at " + std::to_string(r.per_chip_batch) +
                     " images per chip does not fit " + spec.name + "'s HBM: it needs " +
                     Gib(m.total) + " (weights " + Gib(m.weights) + ", gradients " +
                     Gib(m.gradients) + ", " + r.optimizer + " state " + Gib(m.optimizer) +
                     ", activations at the high-water mark " + Gib(m.activations_peak) +
                     " of which " + Gib(m.activations_saved) + " kept for backward, input " +
                     Gib(m.input) + ") and the chip has " + Gib(m.capacity) +
                     "; lower the global batch or use more chips");
  }
  return r;
}

namespace {

nlohmann::json PhaseJson(const TrainPhaseReport& p) {
  return {{"seconds", p.time.total_s},       {"matrix_s", p.time.matrix_s},
          {"vector_s", p.time.vector_s},     {"memory_s", p.time.memory_s},
          {"overhead_s", p.time.overhead_s}, {"kernels", p.kernels},
          {"flops_per_chip", p.flops},       {"hbm_bytes_per_chip", p.hbm_bytes}};
}

std::string Ms(double s) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%10.3f ms", s * 1e3);
  return buf;
}

std::string Pct(double part, double whole) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%5.1f%%", whole > 0 ? 100.0 * part / whole : 0.0);
  return buf;
}

}  // namespace

std::string TrainReportToJson(const TrainReport& r) {
  nlohmann::json j;
  j["tool_version"] = r.tool_version;
  j["mode"] = "train";
  j["model"] = r.model;
  j["resolution"] = r.resolution;
  j["dtype"] = r.dtype;
  j["accelerator"] = r.accelerator;
  j["accelerator_file"] = r.accelerator_file;
  j["stack"] = r.stack;
  j["calibration"] = r.calibration;
  j["optimizer"] = r.optimizer;
  j["chips"] = r.chips;
  j["replicas"] = r.replicas;
  j["global_batch"] = r.global_batch;
  j["per_chip_batch"] = r.per_chip_batch;
  j["per_replica_batch"] = r.per_replica_batch;
  j["params"] = r.params;
  j["step_s"] = r.step_s;
  if (r.interval) j["step_interval_ms"] = IntervalToJson(*r.interval, 1e3);
  j["images_per_s"] = r.images_per_s;
  j["step_flops"] = r.step_flops;
  j["achieved_flops_per_s"] = r.achieved_flops_per_s;
  j["percent_of_peak"] = r.percent_of_peak;
  j["forward"] = PhaseJson(r.forward);
  j["backward"] = PhaseJson(r.backward);
  j["update"] = PhaseJson(r.update);
  j["allreduce"] = {
      {"bytes_per_replica", r.allreduce_bytes},   {"algorithm", r.allreduce.algorithm},
      {"seconds", r.allreduce.seconds},           {"intra_chip_s", r.allreduce.intra_chip_s},
      {"inter_chip_s", r.allreduce.inter_chip_s}, {"hidden_s", r.allreduce_hidden_s},
      {"exposed_s", r.allreduce_exposed_s}};
  j["memory_bytes"] = {{"weights", r.memory.weights},
                       {"gradients", r.memory.gradients},
                       {"optimizer", r.memory.optimizer},
                       {"activations_saved", r.memory.activations_saved},
                       {"activations_peak", r.memory.activations_peak},
                       {"input", r.memory.input},
                       {"total", r.memory.total},
                       {"capacity", r.memory.capacity}};
  return j.dump(2) + "\n";
}

std::string TrainReportToText(const TrainReport& r) {
  std::ostringstream o;
  char buf[256];
  o << r.model << " training step on " << r.chips << " x " << r.accelerator << " (" << r.stack
    << ", " << r.dtype << ", " << r.optimizer << ", calibration " << r.calibration << ")\n";
  std::snprintf(buf, sizeof(buf),
                "  batch: %d global = %d chips x %d per chip; %d replicas x %d per replica\n",
                r.global_batch, r.chips, r.per_chip_batch, r.replicas, r.per_replica_batch);
  o << buf;
  std::snprintf(buf, sizeof(buf),
                "  step: %.3f ms   %.1f images/s   %.1f TFLOP/s (%.1f%% of peak)\n", r.step_s * 1e3,
                r.images_per_s, r.achieved_flops_per_s / 1e12, r.percent_of_peak);
  o << buf;
  if (r.interval) o << IntervalLine(*r.interval);
  std::snprintf(buf, sizeof(buf),
                "  params: %.2f M   step FLOPs per chip: forward %.2f G, "
                "backward %.2f G (%.2fx forward)\n",
                r.params / 1e6, r.forward.flops / 1e9, r.backward.flops / 1e9,
                r.forward.flops > 0 ? r.backward.flops / r.forward.flops : 0.0);
  o << buf;
  o << "  split:\n";
  o << "    forward    " << Ms(r.forward.time.total_s) << "  "
    << Pct(r.forward.time.total_s, r.step_s) << "  " << r.forward.kernels << " kernels\n";
  o << "    backward   " << Ms(r.backward.time.total_s) << "  "
    << Pct(r.backward.time.total_s, r.step_s) << "  " << r.backward.kernels << " kernels\n";
  o << "    all-reduce " << Ms(r.allreduce_exposed_s) << "  "
    << Pct(r.allreduce_exposed_s, r.step_s) << "  exposed of " << Ms(r.allreduce.seconds) << " ("
    << r.allreduce.algorithm << ", " << Gib(r.allreduce_bytes) << " per replica; intra-chip "
    << Ms(r.allreduce.intra_chip_s) << ")\n";
  o << "    update     " << Ms(r.update.time.total_s) << "  "
    << Pct(r.update.time.total_s, r.step_s) << "  " << r.update.kernels << " kernels\n";
  o << "  memory per chip (high-water mark): " << Gib(r.memory.total) << " of "
    << Gib(r.memory.capacity) << "\n";
  o << "    weights " << Gib(r.memory.weights) << ", gradients " << Gib(r.memory.gradients)
    << ", optimizer " << Gib(r.memory.optimizer) << ", activations "
    << Gib(r.memory.activations_peak) << " (" << Gib(r.memory.activations_saved)
    << " kept for backward), input " << Gib(r.memory.input) << "\n";
  return o.str();
}

}  // namespace dcnas::sim
