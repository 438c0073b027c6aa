// The simulator's entry point: Simulate(graph, spec, stack, calibration, options, cache) ->
// Report. The engine walks the graph and sums; formulas live in sim/cost/, fusion policy in
// sim/fusion.h, memoisation in sim/cost_cache.h.
#pragma once

#include <vector>

#include "models/builder.h"
#include "models/graph.h"
#include "sim/calibration_params.h"
#include "sim/cost_cache.h"
#include "sim/fusion.h"
#include "sim/prepared.h"
#include "sim/report.h"
#include "sim/spec.h"
#include "sim/stack.h"

namespace dcnas::sim {

struct SimOptions {
  bool fusion = true;   // plan fusion by the stack's rules (false: one kernel per op)
  bool details = true;  // fill per-op, per-group and per-block breakdowns
};

// The version string embedded in reports.
const char* ToolVersion();

// The identity of a run of `graph` on (spec, stack, calibration), for a report's head.
RunIdentity DescribeRun(const PreparedGraph& graph, const AcceleratorSpec& spec,
                        const StackProfile& stack, const CalibrationParams& calibration);

// The kernels of a prepared graph before any launch is queued: each op's work (memoised in
// `cache` when it is not null), the fusion plan and each group's cost, in issue order.
struct Kernels {
  std::vector<cost::OpWork> work;  // per prepared op
  FusionPlan plan;
  std::vector<cost::GroupCost> costs;  // per planned group
};
Kernels PlanKernels(const PreparedGraph& graph, const cost::CostContext& ctx,
                    const StackProfile& stack, bool fusion, CostCache* cache);

// The latency of kernels in issue order: queued as the stack issues them (cost::QueueLaunches
// when it launches asynchronously; `costs` is changed then), then summed.
double KernelsLatencyS(std::vector<cost::GroupCost>& costs, const StackProfile& stack);

// Simulates a prepared graph. `cache` may be null (no memoisation).
Report Simulate(const PreparedGraph& graph, const AcceleratorSpec& spec, const StackProfile& stack,
                const CalibrationParams& calibration, const SimOptions& options, CostCache* cache);

// Convenience: prepares `graph` and simulates it.
Report Simulate(const models::Graph& graph, const AcceleratorSpec& spec, const StackProfile& stack,
                const CalibrationParams& calibration, const SimOptions& options = {},
                CostCache* cache = nullptr);

// A simulated setup, whole: the silicon, the software stack and the calibration, the `--set`
// overrides they were loaded with, and how graphs run on them (precision, batch, fusion). One
// value, asked by whoever builds or simulates a graph for the setup (the search's latency
// objective and its best.json, LACS's network simulator), so a run's setup is written down once.
// Studies that sweep batches or precisions take the loaded files from it and set the rest per
// run (study::RunOptions).
struct SimSetup {
  AcceleratorSpec spec;
  StackProfile stack;
  CalibrationParams calibration;
  std::vector<Override> overrides;  // as given, in order (each file records its own share)
  models::DType dtype = models::DType::kFp32;
  int batch = 1;
  bool fusion = true;

  // How to build a graph for this setup: its batch and dtype, the rest at the defaults.
  models::BuildOptions GraphOptions() const;
  // How to simulate on it: its fusion; per-op details when asked.
  SimOptions Options(bool details = false) const;
};
// Loads a setup from names (or YAML paths; an empty stack: the accelerator kind's default; an
// empty calibration: the built-in defaults), with the overrides routed by prefix: `stack.KEY=V`
// to the stack, `calibration.KEY=V` to the calibration (its `params.` map), anything else to the
// accelerator. Precision, batch and fusion stay at their defaults (fp32, 1, on) for the caller
// to set.
SimSetup LoadSetup(const std::string& accelerator, const std::string& stack,
                   const std::string& calibration, const std::vector<Override>& overrides);

}  // namespace dcnas::sim
