// Prepare(): flattens a layer graph into the cost layer's PreparedGraph (sim/cost/prepared_op.h)
// once, so simulating it on many accelerators, stacks or calibrations does no string work, no map
// lookups and no counting.
#pragma once

#include "models/graph.h"
#include "sim/cost/prepared_op.h"
#include "sim/cost/types.h"

namespace dcnas::sim {

using cost::OpClass;
using cost::OpClassName;
using cost::PreparedBlock;
using cost::PreparedGraph;
using cost::PreparedOp;

// Flattens `graph` (shapes must be inferred). The graph must outlive the result.
PreparedGraph Prepare(const models::Graph& graph);

}  // namespace dcnas::sim
