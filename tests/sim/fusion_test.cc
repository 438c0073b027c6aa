// Direct tests of the fusion planner (sim/fusion.h): which ops share a kernel under a stack's
// rules, on graphs built for one rule each.
#include "sim/fusion.h"

#include <catch2/catch.hpp>
#include <vector>

#include "models/blocks.h"
#include "models/builder.h"
#include "sim/cost_context.h"
#include "sim/prepared.h"
#include "tests/sim/test_util.h"

namespace dcnas::sim {
namespace {

using models::Activation;
using models::DType;

FusionPlan Plan(const PreparedGraph& p, const StackProfile& stack, bool fusion = true,
                const CalibrationParams& calibration = CalibrationParams()) {
  const cost::CostContext ctx =
      MakeCostContext(testing::SystolicTestChip(), stack, calibration, p.dtype);
  std::vector<cost::OpWork> work;
  for (const PreparedOp& op : p.ops) work.push_back(cost::ComputeOpWork(op, ctx));
  return PlanFusion(p, work, ctx, stack, fusion);
}

// The group of the op with graph id `id`.
int GroupOf(const FusionPlan& plan, const PreparedGraph& p, int id) {
  return plan.group_of[static_cast<size_t>(p.position[static_cast<size_t>(id)])];
}

models::GraphBuilder Builder(const char* name) {
  models::GraphInfo info;
  info.model = name;
  info.batch = 8;
  info.dtype = DType::kBf16;
  return models::GraphBuilder(info);
}

TEST_CASE("fusion: conv + BN + activation is one kernel, up to the group-size cap") {
  models::GraphBuilder b = Builder("chain");
  const int x = b.Input(28, 28, 64);
  const int conv = b.Conv(x, 128, 1);
  const int bn = b.BatchNorm(conv);
  const int act = b.Act(bn, Activation::kSwish);
  const models::Graph g = b.Finish();
  const PreparedGraph p = Prepare(g);
  StackProfile stack = testing::FusingTestStack();

  const FusionPlan all = Plan(p, stack);
  REQUIRE(all.groups.size() == 1);
  CHECK(all.groups[0].terms.num_ops == 3);
  CHECK(all.groups[0].matrix_anchor);
  CHECK(GroupOf(all, p, x) == -1);  // the input is a view
  CHECK(GroupOf(all, p, act) == 0);
  // The BN and the activation read their producers' outputs on chip.
  CHECK(all.intermediate[static_cast<size_t>(p.position[bn])] == conv);
  CHECK(all.intermediate[static_cast<size_t>(p.position[act])] == bn);

  stack.max_group_ops = 2;
  const FusionPlan capped = Plan(p, stack);
  REQUIRE(capped.groups.size() == 2);
  CHECK(capped.groups[0].terms.num_ops == 2);
  CHECK(GroupOf(capped, p, bn) == GroupOf(capped, p, conv));
  CHECK(GroupOf(capped, p, act) != GroupOf(capped, p, bn));
  CHECK(capped.intermediate[static_cast<size_t>(p.position[act])] == -1);

  stack.max_group_ops = 1;
  CHECK(Plan(p, stack).groups.size() == 3);
  // Fusion disabled: one kernel per non-view op whatever the stack allows.
  stack.max_group_ops = 16;
  CHECK(Plan(p, stack, false).groups.size() == 3);
}

TEST_CASE("fusion: only what the stack fuses joins the group") {
  models::GraphBuilder b = Builder("rules");
  const int conv = b.Conv(b.Input(28, 28, 64), 128, 1);
  const int act = b.Act(b.BatchNorm(conv), Activation::kSwish);
  const models::Graph g = b.Finish();
  const PreparedGraph p = Prepare(g);
  // The inference stack fuses BN and relu but not swish.
  const FusionPlan plan = Plan(p, testing::InferenceTestStack());
  CHECK(plan.groups.size() == 2);
  CHECK(GroupOf(plan, p, act) != GroupOf(plan, p, conv));
}

TEST_CASE("fusion: a diamond keeps its branches apart and joins them without a cycle") {
  // conv -> {relu, relu6} -> add, built with the add's inputs in both orders. The conv's output
  // is read twice, so neither activation fuses into the conv's kernel. The add may join the
  // group of its main (first) input only when its other input comes from an earlier group:
  // joining the branch planned first would make that group wait for the second one.
  int fused_variants = 0;
  for (const bool left_first : {true, false}) {
    INFO("add(" << (left_first ? "relu, relu6" : "relu6, relu") << ")");
    models::GraphBuilder b = Builder("diamond");
    const int conv = b.Conv(b.Input(28, 28, 64), 64, 1);
    const int left = b.Act(conv, Activation::kRelu);
    const int right = b.Act(conv, Activation::kRelu6);
    const int main_in = left_first ? left : right;
    const int other_in = left_first ? right : left;
    const int join = b.Add(main_in, other_in);
    const models::Graph g = b.Finish();
    const PreparedGraph p = Prepare(g);
    REQUIRE(p.op_by_id(join).main_input == main_in);
    const FusionPlan plan = Plan(p, testing::FusingTestStack());
    CHECK(GroupOf(plan, p, left) != GroupOf(plan, p, conv));
    CHECK(GroupOf(plan, p, right) != GroupOf(plan, p, conv));
    CHECK(GroupOf(plan, p, right) != GroupOf(plan, p, left));
    const int join_at = p.position[static_cast<size_t>(join)];
    if (GroupOf(plan, p, other_in) < GroupOf(plan, p, main_in)) {
      CHECK(GroupOf(plan, p, join) == GroupOf(plan, p, main_in));
      CHECK(plan.intermediate[static_cast<size_t>(join_at)] == main_in);
      CHECK(plan.groups.size() == 3);
      ++fused_variants;
      // Without elementwise chains the add has no group to join.
      StackProfile no_chains = testing::FusingTestStack();
      no_chains.fuse_elementwise_chains = false;
      CHECK(Plan(p, no_chains).groups.size() == 4);
    } else {
      CHECK(GroupOf(plan, p, join) != GroupOf(plan, p, main_in));
      CHECK(GroupOf(plan, p, join) != GroupOf(plan, p, other_in));
      CHECK(plan.intermediate[static_cast<size_t>(join_at)] == -1);
      CHECK(plan.groups.size() == 4);
    }
  }
  // In one order the main input's branch is planned first, in the other second: both outcomes
  // of the rule were exercised.
  CHECK(fused_variants == 1);
}

TEST_CASE("fusion: the SE multiply is the prologue of the following 1x1 convolution") {
  models::GraphBuilder b = Builder("se");
  const int x = b.Input(14, 14, 96);
  const int scaled = models::SqueezeExcite(b, x, 24, Activation::kSwish);
  const int project = b.Conv(scaled, 32, 1);
  const models::Graph g = b.Finish();
  const PreparedGraph p = Prepare(g);
  REQUIRE(p.op_by_id(scaled).kind == models::OpKind::kMul);
  REQUIRE(p.op_by_id(scaled).broadcast_mul);
  REQUIRE(p.op_by_id(project).pointwise_conv);

  CalibrationParams calibration;
  calibration.conv_scale = 2.0;
  calibration.elementwise_scale = 1.0;
  StackProfile stack = testing::FusingTestStack();
  const FusionPlan plan = Plan(p, stack, true, calibration);
  const int group = GroupOf(plan, p, project);
  REQUIRE(group == GroupOf(plan, p, scaled));
  const PlannedGroup& g_se = plan.groups[static_cast<size_t>(group)];
  CHECK(g_se.terms.num_ops == 2);
  CHECK(g_se.matrix_anchor);
  CHECK_FALSE(g_se.elementwise_anchor);
  // The group is costed as a convolution (its class scale), not as the elementwise anchor.
  CHECK(g_se.terms.class_scale == 2.0);
  CHECK(plan.intermediate[static_cast<size_t>(p.position[project])] == scaled);

  stack.fuse_se_multiply = false;
  const FusionPlan apart = Plan(p, stack, true, calibration);
  CHECK(GroupOf(apart, p, project) != GroupOf(apart, p, scaled));
  CHECK(apart.groups.size() == plan.groups.size() + 1);
}

TEST_CASE("fusion: the SE prologue needs the multiply alone in its group") {
  // x * gate -> relu -> * gate -> 1x1 conv: the elementwise chain puts both multiplies and the
  // relu in one kernel, so the conv does not take the second multiply as its prologue.
  models::GraphBuilder b = Builder("se-chain");
  const int x = b.Input(14, 14, 96);
  const int gate = b.Act(b.Conv(b.GlobalPool(x), 96, 1), Activation::kSigmoid);
  const int first = b.Mul(x, gate);
  const int relu = b.Act(first, Activation::kRelu);
  const int scaled = b.Mul(relu, gate);
  const int project = b.Conv(scaled, 32, 1);
  const models::Graph g = b.Finish();
  const PreparedGraph p = Prepare(g);
  const FusionPlan plan = Plan(p, testing::FusingTestStack());
  REQUIRE(GroupOf(plan, p, relu) == GroupOf(plan, p, first));
  REQUIRE(GroupOf(plan, p, scaled) == GroupOf(plan, p, first));
  CHECK(plan.groups[static_cast<size_t>(GroupOf(plan, p, scaled))].terms.num_ops == 3);
  CHECK(GroupOf(plan, p, project) != GroupOf(plan, p, scaled));
}

}  // namespace
}  // namespace dcnas::sim

namespace dcnas::sim {
namespace {

// Attention over 64 tokens of 4 heads: q x k^T plus a bias (an fp32 parameter under autocast),
// the softmax, x v, then a projection; the ids of its ops.
struct BiasedAttention {
  models::Graph graph;
  int scores = -1;
  int biased = -1;
  int attn = -1;
  int out = -1;
  int proj = -1;
};
BiasedAttention BuildBiasedAttention(DType dtype) {
  models::GraphInfo info;
  info.model = "attention";
  info.batch = 8;
  info.dtype = dtype;
  models::GraphBuilder b(info);
  const int x = b.Input(1, 64, 96);
  const int q = b.Reshape4(b.FullyConnected(x, 96), models::Shape{8, 4, 64, 24});
  const int k = b.Reshape4(b.FullyConnected(x, 96), models::Shape{8, 4, 64, 24});
  const int v = b.Reshape4(b.FullyConnected(x, 96), models::Shape{8, 4, 64, 24});
  BiasedAttention a;
  a.scores = b.MatMul(q, k, true);
  a.biased = b.Add(a.scores, b.Constant(models::Shape{1, 4, 64, 64}));
  a.attn = b.Softmax(a.biased);
  a.out = b.MatMul(a.attn, v);
  a.proj = b.FullyConnected(b.Reshape4(a.out, models::Shape{8, 1, 64, 96}), 96);
  a.graph = b.Finish();
  return a;
}

TEST_CASE("fusion: attention is one kernel where the stack fuses it, and five where it does not") {
  // q x k^T, a bias, the softmax, x v, then a projection that must stay apart.
  const BiasedAttention a = BuildBiasedAttention(DType::kBf16);
  const PreparedGraph p = Prepare(a.graph);
  StackProfile stack = testing::FusingTestStack();
  stack.max_group_ops = 1;  // no generic fusion at all (an eager stack)
  stack.fuse_attention = true;
  const FusionPlan fused = Plan(p, stack);
  for (int id : {a.biased, a.attn, a.out}) {
    CHECK(GroupOf(fused, p, id) == GroupOf(fused, p, a.scores));
  }
  CHECK(GroupOf(fused, p, a.proj) != GroupOf(fused, p, a.scores));
  // The T x T scores and probabilities stay on chip.
  CHECK(fused.intermediate[static_cast<size_t>(p.position[static_cast<size_t>(a.attn)])] ==
        a.biased);
  stack.fuse_attention = false;
  const FusionPlan apart = Plan(p, stack);
  CHECK(GroupOf(apart, p, a.attn) != GroupOf(apart, p, a.scores));
  CHECK(GroupOf(apart, p, a.out) != GroupOf(apart, p, a.attn));
}

TEST_CASE("fusion: a fused attention kernel reads Q, K, V through their strides") {
  // The head split's transposes and the scalar scale of Q are the kernel's own (PyTorch's
  // scaled_dot_product_attention), as is the head merge after x V; apart, each is a kernel.
  models::GraphInfo info;
  info.model = "attention";
  info.batch = 8;
  info.dtype = DType::kBf16;
  models::GraphBuilder b(info);
  const int x = b.Input(1, 64, 96);
  auto head = [&]() {
    const int p = b.Reshape4(b.FullyConnected(x, 96), models::Shape{8, 64, 4, 24});
    return b.Transpose(p, {0, 2, 1, 3});
  };
  const int qt = head();
  const int q = b.Mul(qt, b.Constant(models::Shape{1, 1, 1, 1}, false));
  const int k = head();
  const int v = head();
  const int out = b.MatMul(b.Softmax(b.MatMul(q, k, true)), v);
  const int merged = b.Transpose(out, {0, 2, 1, 3});
  b.FullyConnected(b.Reshape4(merged, models::Shape{8, 1, 64, 96}), 96);
  const models::Graph g = b.Finish();
  const PreparedGraph p = Prepare(g);
  StackProfile stack = testing::EagerTestStack();
  stack.fuse_attention = true;
  const FusionPlan fused = Plan(p, stack);
  for (int id : {qt, q, k, v, merged}) CHECK(GroupOf(fused, p, id) == -1);
  stack.fuse_attention = false;
  const FusionPlan apart = Plan(p, stack);
  for (int id : {qt, q, k, v, merged}) CHECK(GroupOf(apart, p, id) >= 0);
}

TEST_CASE("fusion: autocast keeps attention with an fp32 bias op by op") {
  // A bias from an fp32 parameter promotes the scores to fp32 under autocast (timm's Swin
  // computes that attention itself); without autocast the same graph is one fused kernel.
  const BiasedAttention a = BuildBiasedAttention(DType::kFp16);
  const PreparedGraph p = Prepare(a.graph);
  StackProfile stack = testing::EagerTestStack();
  stack.fuse_attention = true;
  stack.autocast = true;
  const FusionPlan promoted = Plan(p, stack);
  CHECK(GroupOf(promoted, p, a.biased) != GroupOf(promoted, p, a.scores));
  CHECK(GroupOf(promoted, p, a.attn) != GroupOf(promoted, p, a.biased));
  stack.autocast = false;
  const FusionPlan fused = Plan(p, stack);
  CHECK(GroupOf(fused, p, a.attn) == GroupOf(fused, p, a.scores));
}

}  // namespace
}  // namespace dcnas::sim
