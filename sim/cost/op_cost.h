// Per-op work and fused-group cost: the bridge from counted, prepared ops to seconds. Pure
// functions of (PreparedOp, CostContext); the fusion planner and the engine only call these.
#pragma once

#include <cstdint>

#include "sim/calibration.h"
#include "sim/cost/combine.h"
#include "sim/cost/matrix_unit.h"
#include "sim/prepared.h"
#include "sim/spec.h"
#include "sim/stack.h"

namespace dcnas::sim::cost {

// Everything a cost formula needs, resolved once per (spec, stack, calibration, dtype).
struct CostContext {
  const AcceleratorSpec* spec = nullptr;
  const StackProfile* stack = nullptr;
  const CalibrationParams* calibration = nullptr;
  models::DType dtype = models::DType::kFp32;
  double clock_hz = 0;
  double vector_ops_per_s = 0;       // whole chip
  double transcendentals_per_s = 0;  // whole chip
  double hbm_bytes_per_s = 0;
  double onchip_bytes_per_s = 0;
  double usable_onchip_bytes = 0;  // whole chip, for weight residency
  double usable_hold_bytes = 0;    // for holding fused intermediates (see FinishGroup)
  double kernel_overhead_s = 0;
  bool matrix_supports_dtype = false;
  int alignment = 0;
  uint64_t fingerprint = 0;  // spec, stack, calibration and dtype identity
};
CostContext MakeContext(const AcceleratorSpec& spec, const StackProfile& stack,
                        const CalibrationParams& calibration, models::DType dtype);

enum class Unit : uint8_t { kMatrix, kVector, kNone };

// Standalone work of one op (as if it were its own kernel).
struct OpWork {
  double matrix_s = 0;
  double vector_s = 0;
  double input_passes = 1;  // activation re-streaming factor (weights not resident)
  double utilization = 0;   // matrix-unit utilisation (0 when not on the matrix unit)
  double class_scale = 1;
  double extra_kernels = 0;  // launches beyond the group's one (per-group grouped convolutions)
  Unit unit = Unit::kNone;
};
OpWork ComputeOpWork(const PreparedOp& op, const CostContext& ctx);

// Accumulated cost terms of a (possibly fused) group of ops.
struct GroupTerms {
  double matrix_s = 0;
  double vector_s = 0;
  double hbm_bytes = 0;             // external reads and writes
  double intermediate_bytes = 0;    // tensors produced and consumed inside the group
  double held_per_image_bytes = 0;  // largest intermediate of one image (streamed chain)
  double class_scale = 1;           // of the anchor (first op)
  double extra_kernels = 0;         // launches beyond one per group (OpWork::extra_kernels)
  double flops = 0;
  int num_ops = 0;
};

// Adds `op` to `terms`. `intermediate_input` is the producer id whose output is consumed inside
// the group (-1: none): that input is not read from HBM, and the producer's output (already
// counted as written by the group) becomes an intermediate instead.
void AddToGroup(GroupTerms& terms, const PreparedGraph& graph, const PreparedOp& op,
                const OpWork& work, int intermediate_input);

struct GroupCost {
  double matrix_s = 0;
  double vector_s = 0;
  double memory_s = 0;
  double overhead_s = 0;
  double total_s = 0;
  double hbm_bytes = 0;
  double onchip_bytes = 0;
  Bound bound = Bound::kMatrix;
};
// Intermediates stay on chip (written and read once at on-chip bandwidth) when the largest of
// them, for one image, fits in usable_hold_bytes: the usable part of one core's share of the
// holding level when that level is per core (TPU VMEM), or of the whole level when it is chip-wide
// (GPU L2).
// Otherwise they are written to and read back from HBM. One kernel overhead per group, plus one
// per extra launch of its ops (per-group grouped convolutions).
GroupCost FinishGroup(const GroupTerms& terms, const CostContext& ctx);

}  // namespace dcnas::sim::cost
