#include "sim/fusion.h"

namespace dcnas::sim {
namespace {

using models::OpKind;

// An attention score op that autocast promotes to fp32 (a bias from an fp32 parameter added
// to the scores op by op): the model computes attention itself, not through the fused kernel.
bool PromotedScores(const PreparedOp& op, const cost::CostContext& ctx) {
  return ctx.autocast && op.amp_fp32 && (op.kind == OpKind::kAdd || op.kind == OpKind::kMul);
}

// Whether the stack's rules let `op` join a group anchored as `g` as an epilogue.
bool EpilogueAllowed(const PreparedOp& op, const PlannedGroup& g, const StackProfile& s,
                     const cost::CostContext& ctx) {
  const bool chain = g.elementwise_anchor && s.fuse_elementwise_chains;
  // Attention: the scores' scale, mask and softmax, then the product with V.
  const bool attention = g.attention_anchor && s.fuse_attention && !PromotedScores(op, ctx);
  switch (op.kind) {
    case OpKind::kBatchNorm:
      return (g.matrix_anchor && s.fuse_batch_norm) || chain;
    case OpKind::kBiasAdd:
      return (g.matrix_anchor && s.fuse_bias) || chain;
    case OpKind::kActivation:
      return (g.matrix_anchor && s.FusesActivation(op.activation)) || chain;
    case OpKind::kAdd:  // a residual add, or an attention bias or mask
      return (g.matrix_anchor && s.fuse_residual_add) || chain ||
             (attention && !g.attention_softmax);
    case OpKind::kMul:
    case OpKind::kSoftmax:
      return chain || (attention && !g.attention_done);
    case OpKind::kMatMul:
      return attention && g.attention_softmax && !g.attention_done;
    case OpKind::kLayerNorm:
    case OpKind::kGlobalPool:
    case OpKind::kPool:
      return chain;
    default:
      return false;
  }
}

// The only consumer of prepared op `i`, as a prepared index, or -1.
int SoleConsumer(const PreparedGraph& graph, size_t i) {
  const PreparedOp& op = graph.ops[i];
  if (op.num_consumers != 1) return -1;
  return graph
      .position[static_cast<size_t>(graph.consumers[static_cast<size_t>(op.first_consumer)])];
}

// The ops that cost nothing (1 in the result, per prepared index): data movement read in place
// (below), and the ops a fused attention kernel absorbs (PyTorch's scaled_dot_product_attention,
// TensorRT's MHA): the kernel reads Q, K and V through their strides (the head split's
// transposes), scales the scores itself (a scalar multiply of Q) and writes its output in the
// layout the head merge asks for (the transpose after the product with V). Found where Q x K^T,
// an optional scale or mask, the softmax and the product with V form the chain the fusion rules
// then fuse.
std::vector<char> FreeOps(const PreparedGraph& graph, const cost::CostContext& ctx,
                          const StackProfile& stack, bool enable_fusion) {
  const size_t n = graph.ops.size();
  std::vector<char> free_op(n, 0);
  // A slice read only by a concat is a view the concat reads in place (torch.roll's halves,
  // Swin's patch-merging phases); a transpose read only by elementwise ops whose other operand
  // is a whole tensor in the logical order is a view they read through its strides (an
  // MLP-Mixer's token mixing added back to the tokens: the sum takes the tokens' layout).
  for (size_t i = 0; i < n; ++i) {
    const PreparedOp& op = graph.ops[i];
    const int c = SoleConsumer(graph, i);
    if (op.kind == OpKind::kSlice && c >= 0 &&
        graph.ops[static_cast<size_t>(c)].kind == OpKind::kConcat) {
      free_op[i] = 1;
    }
    if (op.kind == OpKind::kTranspose && op.num_consumers > 0) {
      bool elementwise = true;
      for (int k = 0; k < op.num_consumers; ++k) {
        const PreparedOp& user = graph.op_by_id(
            graph.consumers[static_cast<size_t>(op.first_consumer) + static_cast<size_t>(k)]);
        bool whole_other = false;
        for (int j = 0; j < user.num_inputs; ++j) {
          const int q =
              graph.inputs[static_cast<size_t>(user.first_input) + static_cast<size_t>(j)];
          const PreparedOp& other = graph.op_by_id(q);
          if (q != op.id && other.kind != OpKind::kTranspose &&
              other.out_elements == user.out_elements) {
            whole_other = true;
          }
        }
        elementwise = elementwise && (user.kind == OpKind::kAdd || user.kind == OpKind::kMul) &&
                      user.num_inputs == 2 && whole_other;
      }
      if (elementwise) free_op[i] = 1;
    }
  }
  if (!enable_fusion || !stack.fuse_attention) return free_op;
  for (size_t i = 0; i < n; ++i) {
    if (graph.ops[i].kind != OpKind::kMatMul) continue;
    // Walk the scores: elementwise scale or mask ops, then the softmax, then x V.
    int at = SoleConsumer(graph, i);
    while (at >= 0 && (graph.ops[static_cast<size_t>(at)].kind == OpKind::kAdd ||
                       graph.ops[static_cast<size_t>(at)].kind == OpKind::kMul ||
                       graph.ops[static_cast<size_t>(at)].cls == OpClass::kView)) {
      if (PromotedScores(graph.ops[static_cast<size_t>(at)], ctx)) {
        at = -1;
        break;
      }
      at = SoleConsumer(graph, static_cast<size_t>(at));
    }
    if (at < 0 || graph.ops[static_cast<size_t>(at)].kind != OpKind::kSoftmax) continue;
    const int pv = SoleConsumer(graph, static_cast<size_t>(at));
    if (pv < 0 || graph.ops[static_cast<size_t>(pv)].kind != OpKind::kMatMul) continue;
    // Q and K (the first product's operands) and V (the second's other operand).
    std::vector<int> operands;
    const PreparedOp& qk = graph.ops[i];
    for (int k = 0; k < qk.num_inputs; ++k) {
      operands.push_back(
          graph.inputs[static_cast<size_t>(qk.first_input) + static_cast<size_t>(k)]);
    }
    const PreparedOp& av = graph.ops[static_cast<size_t>(pv)];
    for (int k = 1; k < av.num_inputs; ++k) {
      operands.push_back(
          graph.inputs[static_cast<size_t>(av.first_input) + static_cast<size_t>(k)]);
    }
    for (int id : operands) {
      auto p = static_cast<size_t>(graph.position[static_cast<size_t>(id)]);
      // A scalar scale of Q (one element: a Python number), then the transpose before it.
      const PreparedOp& first = graph.ops[p];
      if (first.kind == OpKind::kMul && first.num_consumers == 1 && first.num_inputs == 2) {
        int other = -1;
        for (int k = 0; k < 2; ++k) {
          const int q =
              graph.inputs[static_cast<size_t>(first.first_input) + static_cast<size_t>(k)];
          if (q != first.main_input) other = q;
        }
        if (other >= 0 && graph.op_by_id(other).out_elements == 1) {
          free_op[p] = 1;
          p = static_cast<size_t>(graph.position[static_cast<size_t>(first.main_input)]);
        }
      }
      if (graph.ops[p].kind == OpKind::kTranspose && graph.ops[p].num_consumers == 1)
        free_op[p] = 1;
    }
    // The head merge after x V (through views).
    int out = SoleConsumer(graph, static_cast<size_t>(pv));
    if (out >= 0 && graph.ops[static_cast<size_t>(out)].kind == OpKind::kTranspose) {
      free_op[static_cast<size_t>(out)] = 1;
    }
  }
  return free_op;
}

}  // namespace

FusionPlan PlanFusion(const PreparedGraph& graph, const std::vector<cost::OpWork>& work,
                      const cost::CostContext& ctx, const StackProfile& stack, bool enable_fusion) {
  const size_t n = graph.ops.size();
  FusionPlan plan;
  plan.group_of.assign(n, -1);
  plan.intermediate.assign(n, -1);
  plan.groups.reserve(n);
  const std::vector<char> free_op = FreeOps(graph, ctx, stack, enable_fusion);
  for (size_t i = 0; i < n; ++i) {
    const PreparedOp& op = graph.ops[i];
    if (op.cls == OpClass::kView || free_op[i]) continue;
    const cost::OpWork& w = work[i];
    bool fused = false;
    if (enable_fusion && op.main_input >= 0) {
      const int pidx = graph.position[static_cast<size_t>(op.main_input)];
      const PreparedOp& producer = graph.ops[static_cast<size_t>(pidx)];
      const int gi = plan.group_of[static_cast<size_t>(pidx)];
      if (gi >= 0 && producer.num_consumers == 1) {
        PlannedGroup& g = plan.groups[static_cast<size_t>(gi)];
        // Other inputs must come from earlier groups (no cycle through this group).
        bool acyclic = true;
        for (int k = 0; k < op.num_inputs; ++k) {
          const int q = graph.inputs[static_cast<size_t>(op.first_input) + static_cast<size_t>(k)];
          if (q == op.main_input) continue;
          const int gq = plan.group_of[static_cast<size_t>(graph.position[static_cast<size_t>(q)])];
          if (gq >= gi) acyclic = false;
        }
        const bool se_prologue = stack.fuse_se_multiply && op.pointwise_conv &&
                                 producer.kind == OpKind::kMul && producer.broadcast_mul &&
                                 g.terms.num_ops == 1;
        const bool epilogue = EpilogueAllowed(op, g, stack, ctx);
        // A fused attention kernel is the library's own (flash attention, TensorRT's MHA), not
        // a generic fusion: the group-size limit does not apply to it.
        const bool attention_kernel =
            g.attention_anchor && stack.fuse_attention && !PromotedScores(op, ctx);
        if (acyclic && (epilogue || se_prologue) &&
            (g.terms.num_ops < stack.max_group_ops || attention_kernel)) {
          cost::GroupTerms alone;
          cost::AddToGroup(alone, graph, op, w, -1, ctx);
          cost::GroupTerms merged = g.terms;
          cost::OpWork in_group = w;
          if (attention_kernel && op.kind == OpKind::kMatMul && ctx.autocast) {
            // The fused attention kernel reads its operands at their own dtype: no casts.
            in_group.transpose_bytes -= op.amp_cast_bytes;
            in_group.transpose_kernels -= op.amp_cast_kernels;
          }
          cost::AddToGroup(merged, graph, op, in_group, op.main_input, ctx);
          if (attention_kernel) merged.attention = true;
          if (se_prologue) merged.class_scale = w.class_scale;
          const double apart =
              cost::FinishGroup(g.terms, ctx).total_s + cost::FinishGroup(alone, ctx).total_s;
          const double together = cost::FinishGroup(merged, ctx).total_s;
          if (together <= apart) {
            g.terms = merged;
            if (cost::IsMatrixClass(op.cls)) {
              g.matrix_anchor = true;
              g.elementwise_anchor = false;
            }
            if (op.kind == OpKind::kSoftmax && g.attention_anchor) g.attention_softmax = true;
            if (op.kind == OpKind::kMatMul && g.attention_softmax) g.attention_done = true;
            plan.group_of[i] = gi;
            plan.intermediate[i] = op.main_input;
            fused = true;
          }
        }
      }
    }
    if (!fused) {
      PlannedGroup g;
      g.anchor = static_cast<int>(i);
      g.matrix_anchor = cost::IsMatrixClass(op.cls);
      g.elementwise_anchor = op.cls == OpClass::kElementwise || op.cls == OpClass::kPool;
      g.attention_anchor = op.kind == OpKind::kMatMul;
      cost::AddToGroup(g.terms, graph, op, w, -1, ctx);
      plan.group_of[i] = static_cast<int>(plan.groups.size());
      plan.groups.push_back(g);
    }
  }
  return plan;
}

}  // namespace dcnas::sim
