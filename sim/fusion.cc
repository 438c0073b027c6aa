#include "sim/fusion.h"

namespace dcnas::sim {
namespace {

using models::OpKind;

bool IsMatrixClass(OpClass c) {
  return c == OpClass::kConv || c == OpClass::kDepthwise || c == OpClass::kFc;
}

// Whether the stack's rules let `op` join a group anchored as `g` as an epilogue.
bool EpilogueAllowed(const PreparedOp& op, const PlannedGroup& g, const StackProfile& s) {
  const bool chain = g.elementwise_anchor && s.fuse_elementwise_chains;
  // Attention: the scores' scale, mask and softmax, then the product with V.
  const bool attention = g.attention_anchor && s.fuse_attention;
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

}  // namespace

FusionPlan PlanFusion(const PreparedGraph& graph, const std::vector<cost::OpWork>& work,
                      const cost::CostContext& ctx, const StackProfile& stack, bool enable_fusion) {
  const size_t n = graph.ops.size();
  FusionPlan plan;
  plan.group_of.assign(n, -1);
  plan.intermediate.assign(n, -1);
  plan.groups.reserve(n);
  for (size_t i = 0; i < n; ++i) {
    const PreparedOp& op = graph.ops[i];
    if (op.cls == OpClass::kView) continue;
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
        const bool epilogue = EpilogueAllowed(op, g, stack);
        // A fused attention kernel is the library's own (flash attention, TensorRT's MHA), not
        // a generic fusion: the group-size limit does not apply to it.
        const bool attention_kernel = g.attention_anchor && stack.fuse_attention;
        if (acyclic && (epilogue || se_prologue) &&
            (g.terms.num_ops < stack.max_group_ops || attention_kernel)) {
          cost::GroupTerms alone;
          cost::AddToGroup(alone, graph, op, w, -1, ctx);
          cost::GroupTerms merged = g.terms;
          cost::AddToGroup(merged, graph, op, w, op.main_input, ctx);
          if (se_prologue) merged.class_scale = w.class_scale;
          const double apart =
              cost::FinishGroup(g.terms, ctx).total_s + cost::FinishGroup(alone, ctx).total_s;
          const double together = cost::FinishGroup(merged, ctx).total_s;
          if (together <= apart) {
            g.terms = merged;
            if (IsMatrixClass(op.cls)) {
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
      g.matrix_anchor = IsMatrixClass(op.cls);
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
