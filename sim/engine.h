// The simulator's entry point: Simulate(graph, spec, stack, calibration, options, cache) ->
// Report. The engine walks the graph and sums; formulas live in sim/cost/, fusion policy in
// sim/fusion.h, memoisation in sim/cost_cache.h.
#pragma once

#include "models/graph.h"
#include "sim/calibration_params.h"
#include "sim/cost_cache.h"
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

// Simulates a prepared graph. `cache` may be null (no memoisation).
Report Simulate(const PreparedGraph& graph, const AcceleratorSpec& spec, const StackProfile& stack,
                const CalibrationParams& calibration, const SimOptions& options, CostCache* cache);

// Convenience: prepares `graph` and simulates it.
Report Simulate(const models::Graph& graph, const AcceleratorSpec& spec, const StackProfile& stack,
                const CalibrationParams& calibration, const SimOptions& options = {},
                CostCache* cache = nullptr);

// A complete simulation setup loaded from names, with `--set` overrides routed by prefix:
// `stack.KEY=V` to the stack, `calibration.KEY=V` to the calibration (its `params.` map), anything
// else to the accelerator.
struct SimSetup {
  AcceleratorSpec spec;
  StackProfile stack;
  CalibrationParams calibration;
};
SimSetup LoadSetup(const std::string& accelerator, const std::string& stack,
                   const std::string& calibration, const std::vector<Override>& overrides);

}  // namespace dcnas::sim
