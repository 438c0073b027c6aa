#include "sim/engine.h"

#include <algorithm>

#include "common/errors.h"
#include "models/op_kinds.h"
#include "sim/cost/combine.h"
#include "sim/cost_context.h"
#include "sim/fusion.h"

#ifndef DCNAS_VERSION
#define DCNAS_VERSION "0.1.0"
#endif

namespace dcnas::sim {
namespace {

const char* UnitName(cost::Unit u) {
  switch (u) {
    case cost::Unit::kMatrix:
      return "matrix";
    case cost::Unit::kVector:
      return "vector";
    case cost::Unit::kNone:
      return "none";
  }
  return "none";
}

void FillDetails(const PreparedGraph& graph, const std::vector<cost::OpWork>& work,
                 const FusionPlan& plan, const std::vector<cost::GroupCost>& costs,
                 const cost::CostContext& ctx, Report& r) {
  const size_t n = graph.ops.size();
  // Weights for sharing a group's time among its ops.
  std::vector<double> weight(n, 0.0);
  std::vector<double> group_weight(plan.groups.size(), 0.0);
  std::vector<int> group_size(plan.groups.size(), 0);
  for (size_t i = 0; i < n; ++i) {
    const int g = plan.group_of[i];
    if (g < 0) continue;
    const PreparedOp& op = graph.ops[i];
    weight[i] = work[i].matrix_s + work[i].vector_s +
                (op.weight_bytes + op.out_bytes) / ctx.hbm_bytes_per_s;
    group_weight[static_cast<size_t>(g)] += weight[i];
    group_size[static_cast<size_t>(g)] += 1;
  }
  r.groups.resize(plan.groups.size());
  for (size_t g = 0; g < plan.groups.size(); ++g) {
    const auto& pg = plan.groups[g];
    const auto& c = costs[g];
    GroupReport& gr = r.groups[g];
    gr.id = static_cast<int>(g);
    gr.name = graph.graph->op(graph.ops[static_cast<size_t>(pg.anchor)].id).name;
    gr.flops = pg.terms.flops;
    gr.hbm_bytes = c.hbm_bytes;
    gr.onchip_bytes = c.onchip_bytes;
    gr.time = TimeSplit{c.matrix_s, c.vector_s, c.memory_s, c.overhead_s, c.total_s};
    gr.bound = c.bound;
  }
  r.blocks.resize(graph.blocks.size());
  for (size_t b = 0; b < graph.blocks.size(); ++b) {
    r.blocks[b].block = graph.blocks[b].name;
    r.blocks[b].stage = graph.blocks[b].stage;
  }
  r.ops.reserve(n);
  for (size_t i = 0; i < n; ++i) {
    const int g = plan.group_of[i];
    if (g < 0) continue;
    const PreparedOp& op = graph.ops[i];
    const models::Op& mop = graph.graph->op(op.id);
    const auto& c = costs[static_cast<size_t>(g)];
    const double gw = group_weight[static_cast<size_t>(g)];
    const double share = gw > 0 ? weight[i] / gw : 1.0 / group_size[static_cast<size_t>(g)];
    OpReport o;
    o.id = op.id;
    o.group = g;
    o.name = mop.name;
    o.kind = std::string(models::OpKindName(mop.kind));
    o.detail = models::OpDetail(mop);
    o.block = mop.block;
    o.stage = mop.stage;
    o.unit = UnitName(work[i].unit);
    o.flops = op.flops;
    o.macs = op.macs;
    o.matrix_utilization = work[i].utilization;
    o.time = TimeSplit{work[i].matrix_s, work[i].vector_s, c.memory_s * share, c.overhead_s * share,
                       c.total_s * share};
    r.groups[static_cast<size_t>(g)].op_ids.push_back(op.id);
    BlockReport& br = r.blocks[static_cast<size_t>(op.block)];
    br.num_ops += 1;
    br.flops += op.flops;
    br.hbm_bytes += c.hbm_bytes * share;
    br.time.matrix_s += o.time.matrix_s;
    br.time.vector_s += o.time.vector_s;
    br.time.memory_s += o.time.memory_s;
    br.time.overhead_s += o.time.overhead_s;
    br.time.total_s += o.time.total_s;
    r.ops.push_back(std::move(o));
  }
  std::erase_if(r.blocks, [](const BlockReport& b) { return b.num_ops == 0; });
  for (auto& b : r.blocks)
    b.bound =
        cost::LargestBound(b.time.matrix_s, b.time.vector_s, b.time.memory_s, b.time.overhead_s);
}

}  // namespace

const char* ToolVersion() { return "dcnas " DCNAS_VERSION; }

RunIdentity DescribeRun(const PreparedGraph& graph, const AcceleratorSpec& spec,
                        const StackProfile& stack, const CalibrationParams& calibration) {
  RunIdentity id;
  id.tool_version = ToolVersion();
  id.model = graph.model;
  id.resolution = graph.resolution;
  id.dtype = std::string(models::DTypeName(graph.dtype));
  id.accelerator = spec.name;
  id.accelerator_file = spec.file;
  id.stack = stack.name;
  id.stack_file = stack.file;
  id.calibration = calibration.name;
  id.calibration_file = calibration.file;
  return id;
}

Kernels PlanKernels(const PreparedGraph& graph, const cost::CostContext& ctx,
                    const StackProfile& stack, bool fusion, CostCache* cache) {
  const size_t n = graph.ops.size();
  Kernels k;
  k.work.resize(n);
  for (size_t i = 0; i < n; ++i) {
    const PreparedOp& op = graph.ops[i];
    if (op.cls == OpClass::kView) continue;
    if (cache != nullptr) {
      if (const cost::OpWork* hit = cache->Find(op.signature, ctx.fingerprint)) {
        k.work[i] = *hit;
        continue;
      }
      k.work[i] = cost::ComputeOpWork(op, ctx);
      cache->Insert(op.signature, ctx.fingerprint, k.work[i]);
    } else {
      k.work[i] = cost::ComputeOpWork(op, ctx);
    }
  }
  k.plan = PlanFusion(graph, k.work, ctx, stack, fusion);
  k.costs.resize(k.plan.groups.size());
  for (size_t g = 0; g < k.plan.groups.size(); ++g) {
    k.costs[g] = cost::FinishGroup(k.plan.groups[g].terms, ctx);
  }
  return k;
}

double KernelsLatencyS(std::vector<cost::GroupCost>& costs, const StackProfile& stack) {
  if (stack.async_launch) cost::QueueLaunches(costs);
  double latency_s = 0.0;
  for (const cost::GroupCost& c : costs) latency_s += c.total_s;
  return latency_s;
}

Report Simulate(const PreparedGraph& graph, const AcceleratorSpec& spec, const StackProfile& stack,
                const CalibrationParams& calibration, const SimOptions& options, CostCache* cache) {
  if (graph.graph == nullptr) throw InternalError("Simulate: unprepared graph");
  const cost::CostContext ctx = MakeCostContext(spec, stack, calibration, graph.dtype);
  Kernels k = PlanKernels(graph, ctx, stack, options.fusion, cache);
  const FusionPlan& plan = k.plan;
  std::vector<cost::GroupCost>& costs = k.costs;
  Report r;
  static_cast<RunIdentity&>(r) = DescribeRun(graph, spec, stack, calibration);
  r.batch = graph.batch;
  for (const auto* list : {&spec.overrides, &stack.overrides, &calibration.overrides}) {
    for (const auto& o : *list) r.overrides.push_back(o.path + "=" + o.value);
  }
  r.fusion = options.fusion;
  r.extends = spec.extends_chain;
  r.context_fingerprint = ctx.fingerprint;
  if (options.details) {
    for (const auto& f : CalibrationFields()) {
      r.calibration_params.emplace_back(f.name, calibration.*f.member);
    }
  }
  r.peak_flops_per_s = spec.PeakFlopsPerS(graph.dtype);
  r.clock_ghz = spec.clock_ghz;
  r.sustained_clock_ghz = spec.SustainedClockGhz();
  r.board_w = spec.power.board_w;
  r.hbm_bytes_per_s = spec.HbmBytesPerS();
  r.ridge_flop_per_byte = spec.RidgeFlopPerByte(graph.dtype);
  r.latency_s = KernelsLatencyS(costs, stack);
  for (const cost::GroupCost& c : costs) {
    r.hbm_bytes += c.hbm_bytes;
    r.time.matrix_s += c.matrix_s;
    r.time.vector_s += c.vector_s;
    r.time.memory_s += c.memory_s;
    r.time.overhead_s += c.overhead_s;
    r.time_by_bound_s[static_cast<size_t>(c.bound)] += c.total_s;
  }
  r.time.total_s = r.latency_s;
  r.num_kernels = static_cast<int>(plan.groups.size());
  r.flops = graph.total_flops;
  r.macs = graph.total_macs;
  r.compulsory_bytes = graph.compulsory_bytes;
  r.intensity_flop_per_byte = r.hbm_bytes > 0 ? r.flops / r.hbm_bytes : 0.0;
  if (r.latency_s > 0) {
    r.throughput_img_per_s = graph.batch / r.latency_s;
    r.achieved_flops_per_s = r.flops / r.latency_s;
    r.percent_of_peak = 100.0 * r.achieved_flops_per_s / r.peak_flops_per_s;
  }
  if (options.details) FillDetails(graph, k.work, plan, costs, ctx, r);
  return r;
}

Report Simulate(const models::Graph& graph, const AcceleratorSpec& spec, const StackProfile& stack,
                const CalibrationParams& calibration, const SimOptions& options, CostCache* cache) {
  const PreparedGraph prepared = Prepare(graph);
  return Simulate(prepared, spec, stack, calibration, options, cache);
}

SimSetup LoadSetup(const std::string& accelerator, const std::string& stack,
                   const std::string& calibration, const std::vector<Override>& overrides) {
  std::vector<Override> spec_o;
  std::vector<Override> stack_o;
  std::vector<Override> calib_o;
  for (const auto& o : overrides) {
    if (o.path.rfind("stack.", 0) == 0) {
      stack_o.push_back(Override{o.path.substr(6), o.value});
    } else if (o.path.rfind("calibration.", 0) == 0) {
      calib_o.push_back(Override{"params." + o.path.substr(12), o.value});
    } else {
      spec_o.push_back(o);
    }
  }
  SimSetup s;
  s.spec = LoadAccelerator(accelerator, spec_o);
  s.stack = LoadStack(stack.empty() ? DefaultStackFor(s.spec.kind) : stack, stack_o);
  s.calibration =
      calibration.empty() ? DefaultCalibration(calib_o) : LoadCalibration(calibration, calib_o);
  s.overrides = overrides;
  return s;
}

models::BuildOptions SimSetup::GraphOptions() const {
  models::BuildOptions o;
  o.batch = batch;
  o.dtype = dtype;
  return o;
}

SimOptions SimSetup::Options(bool details) const { return {.fusion = fusion, .details = details}; }

}  // namespace dcnas::sim
