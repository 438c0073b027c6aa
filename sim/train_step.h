// Training steps: one data-parallel step of a layer graph (forward, backward, gradient
// all-reduce, optimizer update) on a slice of chips, with the memory it keeps.
//
// BuildTrainGraph turns a prepared forward graph into the ops of one step: the forward ops (batch
// norm with its batch statistics), the backward ops of each forward op with their own shapes (a
// convolution's input gradient and weight gradient are GEMMs of their own), the summation of
// gradients at forks, the loss, and one update op per parameter tensor. SimulateTrainStep costs
// them with the inference cost layer and fusion planner (sim/cost/, sim/fusion.h), adds the
// all-reduce (sim/collective.h) and checks the memory high-water mark against HBM. The formulas
// are in sim/README.md, "Training steps".
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "sim/calibration_params.h"
#include "sim/collective.h"
#include "sim/prepared.h"
#include "sim/report.h"
#include "sim/spec.h"
#include "sim/stack.h"

namespace dcnas::sim {

// The optimizers a step can use and what their update costs per parameter.
enum class Optimizer : uint8_t { kSgdMomentum, kRmsProp, kAdam, kLars };
const char* OptimizerName(Optimizer optimizer);
const std::vector<std::string>& OptimizerNames();  // sgd-momentum, rmsprop, adam, lars
// Throws InputError naming the valid optimizers for an unknown name.
Optimizer ParseOptimizer(const std::string& name);

struct OptimizerCost {
  int state_tensors = 0;       // fp32 values kept per parameter besides the weight
  double vector_ops = 0;       // per parameter per update
  double transcendentals = 0;  // per parameter per update (square roots)
  double bytes_per_param() const { return 4.0 * (2.0 * (1.0 + state_tensors) + 1.0); }
};
// SGD with momentum: 1 state (momentum), 3 ops. RMSProp (TF, with momentum): 2 states (mean
// square, momentum), 8 ops and a square root. Adam: 2 states (m, v), 10 ops and a square root.
// LARS (momentum plus the layer-wise trust ratio): 1 state, 7 ops and a square root (the norms).
// Each update reads the fp32 weight, its gradient and the states and writes the weight and the
// states: bytes_per_param() = 4 * (2 * (1 + states) + 1).
OptimizerCost OptimizerCostOf(Optimizer optimizer);

// Where an op of a training step belongs.
enum class Phase : uint8_t { kForward, kBackward, kUpdate };
const char* PhaseName(Phase phase);

// The ops of one training step on one chip, in execution order.
struct TrainGraph {
  PreparedGraph graph;             // ids are positions; graph.graph is the forward models::Graph
  std::vector<Phase> phase;        // per op
  std::vector<std::string> names;  // per op: the forward op's name, "NAME/dgrad", "NAME/wgrad", ...
  // Per op: the output is a parameter gradient or an updated weight (kept in the persistent
  // gradient and weight buffers, not in the activation liveness).
  std::vector<bool> persistent_output;
  Optimizer optimizer = Optimizer::kSgdMomentum;
  bool rematerialized = false;  // elementwise chains recomputed in backward
  double params = 0;            // trainable parameters
  double param_tensors = 0;     // tensors updated (one update op each)
  double forward_flops = 0;
  double backward_flops = 0;
  double update_flops = 0;
  double saved_activation_bytes = 0;  // forward outputs read by backward ops
  double peak_activation_bytes = 0;   // liveness high-water mark of all activations and gradients
  double input_bytes = 0;             // the input images
};

// Builds the training step of `forward` (prepared at the per-chip batch). The forward graph
// (and its models::Graph) must outlive the result. With `rematerialize` (the stack's
// rematerialize_elementwise), backward recomputes the outputs of one-input elementwise chains
// (batch norm, bias, activation) from the chain's input instead of keeping them.
TrainGraph BuildTrainGraph(const PreparedGraph& forward, Optimizer optimizer,
                           bool rematerialize = false);

struct TrainOptions {
  Optimizer optimizer = Optimizer::kSgdMomentum;
  int chips = 1;               // chips in the slice (TPU v3-8 = 4, v3-32 = 16)
  bool fusion = true;          // plan fusion by the stack's rules
  bool enforce_memory = true;  // refuse a step whose high-water mark exceeds HBM
  double gradient_bytes = 4;   // bytes per parameter gradient in the all-reduce (fp32)
};

// The per-chip batch of a global batch: global / chips, which must also split evenly over the
// chip's replicas. Throws InputError with the numbers otherwise.
int PerChipBatch(int global_batch, int chips, const AcceleratorSpec& spec);

struct TrainPhaseReport {
  TimeSplit time;  // summed over the phase's kernels; time.total_s is the phase's time
  int kernels = 0;
  double flops = 0;
  double hbm_bytes = 0;
};

// Memory of one chip at the step's high-water mark (bytes).
struct TrainMemory {
  double weights = 0;            // fp32 master weights, per replica
  double gradients = 0;          // fp32 gradients, per replica
  double optimizer = 0;          // optimizer states, per replica
  double activations_saved = 0;  // forward outputs kept for backward (chip batch)
  double activations_peak = 0;   // liveness high-water mark of activations and gradients
  double input = 0;              // the input images
  double total = 0;              // replicas x (weights + gradients + optimizer) + peak + input
  double capacity = 0;           // HBM of one chip
};

struct TrainReport : RunIdentity {
  std::string optimizer;
  int global_batch = 0;
  int chips = 1;
  int replicas = 1;  // chips x replicas per chip
  int per_chip_batch = 0;
  int per_replica_batch = 0;  // TPU v2/v3: per TensorCore
  double params = 0;
  TrainPhaseReport forward;
  TrainPhaseReport backward;
  TrainPhaseReport update;
  AllReduceCost allreduce;
  double allreduce_bytes = 0;      // per replica
  double allreduce_hidden_s = 0;   // under backward (stack allreduce_overlap)
  double allreduce_exposed_s = 0;  // on the step's critical path
  double step_s = 0;
  double images_per_s = 0;  // whole slice
  double step_flops = 0;    // whole slice
  double achieved_flops_per_s = 0;
  double percent_of_peak = 0;
  TrainMemory memory;
};

// Simulates one step of `train` (built at the per-chip batch) on `options.chips` chips. Throws
// InputError when the memory high-water mark exceeds HBM (with enforce_memory), naming the parts.
TrainReport SimulateTrainStep(const TrainGraph& train, const AcceleratorSpec& spec,
                              const StackProfile& stack, const CalibrationParams& calibration,
                              const TrainOptions& options);

// The report as text (a summary and the phase split) and as JSON.
std::string TrainReportToText(const TrainReport& report);
std::string TrainReportToJson(const TrainReport& report);

}  // namespace dcnas::sim
