// The fusion planner: policy only. Walks the prepared graph in topological order and offers each
// op to its producer's group when the stack's rules allow it (BN, bias, activations, residual
// add, SE multiply as a 1x1-conv prologue, elementwise chains), keeping the merge only if the
// cost layer says the fused group is not slower than the two kernels apart.
#pragma once

#include <vector>

#include "sim/cost/op_cost.h"
#include "sim/prepared.h"
#include "sim/stack.h"

namespace dcnas::sim {

// One planned kernel: its first op, what anchors it and its accumulated cost terms.
struct PlannedGroup {
  int anchor = -1;                  // prepared index of the first op
  bool matrix_anchor = false;       // the group contains a conv/fc kernel
  bool elementwise_anchor = false;  // the group is a chain of elementwise/pool ops
  bool attention_anchor = false;    // the group starts with an activation x activation matmul
  bool attention_softmax = false;   // ... and has taken its softmax
  bool attention_done = false;      // ... and the product with V
  cost::GroupTerms terms;
};

// The kernels of a prepared graph and which group each op belongs to.
struct FusionPlan {
  std::vector<int> group_of;      // per prepared index; -1 for views
  std::vector<int> intermediate;  // per prepared index: producer id consumed on chip, or -1
  std::vector<PlannedGroup> groups;
};

// Plans the kernels of `graph` under `stack`'s fusion rules, comparing costs in `ctx`. `work`
// holds ComputeOpWork for each prepared op. With fusion disabled every non-view op is its own
// kernel.
FusionPlan PlanFusion(const PreparedGraph& graph, const std::vector<cost::OpWork>& work,
                      const cost::CostContext& ctx, const StackProfile& stack, bool enable_fusion);

}  // namespace dcnas::sim
