// Per-op work and fused-group cost: the bridge from counted, prepared ops to seconds. Pure
// functions of (PreparedOp, CostContext); the fusion planner and the engine only call these.
#pragma once

#include <cstdint>
#include <vector>

#include "models/tensor.h"
#include "sim/cost/combine.h"
#include "sim/cost/matrix_unit.h"
#include "sim/cost/params.h"
#include "sim/cost/prepared_op.h"
#include "sim/cost/types.h"

namespace dcnas::sim::cost {

// Everything a cost formula needs, resolved once per (spec, stack, calibration, dtype) by
// sim::MakeCostContext (sim/cost_context.h): plain values, no pointers into the data files.
struct CostContext {
  models::DType dtype = models::DType::kFp32;
  MatrixUnitSpec matrix_unit;  // of one core
  int cores = 0;
  KernelRules kernels;  // the stack's mapping rules
  CostParams params;    // the calibration
  double clock_hz = 0;
  double vector_ops_per_s = 0;       // whole chip
  double transcendentals_per_s = 0;  // whole chip
  double hbm_bytes_per_s = 0;
  // The achieved fraction of hbm_bytes_per_s: memory_efficiency, or less where the cores cannot
  // stream more (CostParams::core_stream_bytes_per_cycle).
  double memory_efficiency = 1;
  double onchip_bytes_per_s = 0;
  double usable_onchip_bytes = 0;  // whole chip, for weight residency
  double usable_hold_bytes = 0;    // for holding fused intermediates (see FinishGroup)
  double kernel_overhead_s = 0;
  bool matrix_supports_dtype = false;
  // The stack's autocast applies: KernelRules::autocast and a 16-bit float run.
  bool autocast = false;
  int alignment = 0;
  uint64_t fingerprint = 0;  // spec, stack, calibration and dtype identity
};

// Standalone work of one op (as if it were its own kernel).
struct OpWork {
  double matrix_s = 0;
  double vector_s = 0;
  double input_passes = 1;  // activation re-streaming factor (weights not resident)
  double utilization = 0;   // matrix-unit utilisation (0 when not on the matrix unit)
  double class_scale = 1;
  double extra_kernels = 0;  // launches beyond the group's one (per-group grouped convolutions)
  // Memory-bound kernels of their own beside this one, serial with it: layout transposes in and
  // out of it (KernelRules::nchw_conv_transposes) and autocast's casts of its fp32 inputs
  // (KernelRules::autocast); HBM bytes read and written by them, and their launches.
  double transpose_bytes = 0;
  int transpose_kernels = 0;
  Unit unit = Unit::kNone;
};
OpWork ComputeOpWork(const PreparedOp& op, const CostContext& ctx);

// Where a convolution or fully connected layer runs: the matrix unit, CUDA cores as a tiled GEMM
// (the tensor-core tiles and waves at the CUDA-core MAC rate), or the vector unit streaming its
// MACs at the vector op rate with no quantisation.
enum class MatrixPath : uint8_t { kMatrixUnit, kTiledCudaCores, kVectorStream };

// Step 1 of a conv/fc op's work: the matrix unit when it supports the dtype, the stack puts the
// op's class there (depthwise_unit, grouped_conv_unit) and unaligned channels do not fall back;
// otherwise tiled CUDA cores when the stack tiles them (not for depthwise convolutions), else
// the vector stream.
MatrixPath ChooseMatrixPath(const PreparedOp& op, const CostContext& ctx);

// A conv/fc op's GEMM as its kernels run it, and how many of them run one after the other.
struct MappedGemm {
  Gemm gemm;
  double serial_groups = 1;  // per-group kernels (GroupedMapping::kPerGroup), else 1
};

// Step 2: maps op.gemm for `path`. Grouped convolutions follow grouped_conv_mapping (expanded:
// one dense GEMM with groups x K and N; per group: one GEMM of one group, serial_groups times);
// on tensor cores K and N are padded to the alignment; on tiled CUDA cores a Winograd-eligible
// convolution becomes (wt+2)^2 batched GEMMs of N*ceil(Ho/wt)*ceil(Wo/wt) x Cin x Cout.
MappedGemm MapGemm(const PreparedOp& op, const CostContext& ctx, MatrixPath path);

// Step 3: cycles of one mapped GEMM on the matrix unit (systolic: SystolicCycles divided by the
// dtype's rate relative to rows x cols; tensor cores: TensorCoreCycles at the dtype's MAC rate)
// or on tiled CUDA cores (TensorCoreCycles at the vector rate / ops_depthwise_per_mac). The
// vector stream is not counted in cycles (its time is VectorSeconds of the op's MACs): zero.
// `split_reduction` (a weight gradient's long reduction) lets tensor cores split K over idle SMs
// even where the stack's GEMMs do not (KernelRules::gemm_split_k). `grouped_min_tile` > 0 (a
// grouped, not depthwise, convolution's GEMM where the stack sets KernelRules::
// grouped_conv_min_tile or, for its gradients, grouped_conv_backward_min_tile) selects its tiles
// down to that edge in place of the stack's gemm_min_tile.
MatrixCycles CountMatrixCycles(const Gemm& gemm, const CostContext& ctx, MatrixPath path,
                               bool split_reduction = false, int grouped_min_tile = 0);

// Accumulated cost terms of a (possibly fused) group of ops.
struct GroupTerms {
  double matrix_s = 0;
  double vector_s = 0;
  double hbm_bytes = 0;             // external reads and writes
  double intermediate_bytes = 0;    // tensors produced and consumed inside the group
  double resident_input_bytes = 0;  // external inputs read from the holding level (L2), not HBM
  double held_per_image_bytes = 0;  // largest intermediate of one image (streamed chain)
  double class_scale = 1;           // of the anchor (first op)
  double extra_kernels = 0;         // launches beyond one per group (OpWork::extra_kernels)
  double transpose_bytes = 0;       // of the transposes and casts (OpWork::transpose_bytes)
  int transpose_kernels = 0;
  double flops = 0;
  int num_ops = 0;
  // A fused attention kernel (flash attention, TensorRT's MHA): its scores live in registers
  // and shared memory, whatever the stack's rule for other fused intermediates.
  bool attention = false;
};

// Bytes of an S-byte input still resident in the tensor-holding level when its consumer runs:
// its producer wrote it through that level, and the kernels run since wrote W more bytes into
// it; of the usable capacity U, the last-written max(0, U - W) bytes remain:
// min(S, max(0, U - W)). An input that fits (S <= U - W) is read entirely on chip; one larger
// than the capacity only for its resident share.
double ResidentInputBytes(double tensor_bytes, double written_since_bytes, double usable_bytes);

// Bytes written (outputs of non-view ops) by the ops strictly between producer `producer_id` and
// consumer `consumer` in execution (topological) order: the traffic that has passed through the
// holding level since the producer's kernel.
double BytesWrittenBetween(const PreparedGraph& graph, int producer_id, const PreparedOp& consumer);

// Adds `op` to `terms`. `intermediate_input` is the producer id whose output is consumed inside
// the group (-1: none): that input is not read from HBM, and the producer's output (already
// counted as written by the group) becomes an intermediate instead. With the stack's
// `inter_kernel_reuse` (ctx.kernels), an external input produced by an earlier kernel is read
// from the holding level for its ResidentInputBytes, from HBM for the rest.
void AddToGroup(GroupTerms& terms, const PreparedGraph& graph, const PreparedOp& op,
                const OpWork& work, int intermediate_input, const CostContext& ctx);

// The cost of one fused group (one kernel).
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
// Resident external inputs (AddToGroup) are read at on-chip bandwidth. Intermediates stay on chip
// (written and read once at on-chip bandwidth) when the largest of them, for one image, fits in
// usable_hold_bytes: the usable part of one core's share of the holding level when that level is
// per core (TPU VMEM), or of the whole level when it is chip-wide (GPU L2). Otherwise they are
// written to and read back from HBM. One kernel overhead per group, plus one per extra launch of
// its ops (per-group grouped convolutions). Layout transposes (OpWork::transpose_bytes) add, serial
// with the group's kernel, their HBM time and one kernel overhead each.
GroupCost FinishGroup(const GroupTerms& terms, const CostContext& ctx);

// Asynchronous launches (the stack's async_launch): `costs` are the kernels in issue order, each
// with its host issue time in overhead_s. The host issues kernel i at I_i = sum of the overheads
// up to and including i; the device starts it at S_i = max(E_{i-1}, I_i) and ends it at
// E_i = S_i + busy_i (busy = total - overhead). Each kernel's overhead_s becomes the device's
// idle wait before it, S_i - E_{i-1} (the first kernel waits for its own issue), and total_s
// busy + that wait, so the totals still add up to the end of the last kernel. A kernel whose
// wait exceeds each of its unit times is overhead-bound.
void QueueLaunches(std::vector<GroupCost>& costs);

}  // namespace dcnas::sim::cost
