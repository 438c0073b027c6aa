// Value types shared by the cost formulas and the layers above them: per-dtype rates, the matrix
// unit's description, execution and mapping policies, GEMM shapes, bounds and op classes. Depends
// on nothing in sim/ outside sim/cost/, so the cost layer sits below the simulator.
#pragma once

#include <array>
#include <cstdint>

#include "models/tensor.h"

namespace dcnas::sim::cost {

// Number of element types; per-dtype tables are indexed by models::DType.
inline constexpr int kNumDTypes = 4;
// One value per element type (MAC rates, op rates), indexed by DTypeIndex.
using PerDType = std::array<double, kNumDTypes>;
// The index of `dtype` in a PerDType table.
inline int DTypeIndex(models::DType dtype) { return static_cast<int>(dtype); }

// The kind of matrix unit: a weight-stationary systolic array or GPU tensor cores.
enum class MatrixKind : uint8_t { kSystolic, kTensorCore };

// What a systolic array keeps in its PEs while the other operand streams through: the weights
// (K x N), the outputs (M x N, accumulated in place) or the inputs (K x M).
enum class Dataflow : uint8_t { kWeightStationary, kOutputStationary, kInputStationary };
// "ws", "os" or "is".
const char* DataflowName(Dataflow dataflow);

// The matrix unit of one core (sim/README.md documents each field and its unit).
struct MatrixUnitSpec {
  MatrixKind kind = MatrixKind::kSystolic;
  // Systolic array: rows hold the reduction (K) dimension, columns the output channels (N)
  // under the weight-stationary dataflow.
  int rows = 0;
  int cols = 0;
  Dataflow dataflow = Dataflow::kWeightStationary;
  // The next fold's stationary operand loads while the current fold streams (false: every fold
  // pays its load, as SCALE-Sim's cycle model charges it).
  bool double_buffered = true;
  // Tensor cores: the thread-block tile the vendor libraries use (M x N outputs, K per step) and
  // how many such tiles one SM runs at once.
  int tile_m = 0;
  int tile_n = 0;
  int tile_k = 0;
  int tiles_per_core = 0;
  int units_per_core = 1;  // MXUs per TensorCore, tensor cores per SM, AMX units per core
  // Per unit; 0 = dtype not supported. Systolic: rows * cols / passes_per_dtype (from the file).
  PerDType macs_per_cycle{};
};

// The unit a software stack runs a class of convolutions on.
enum class ExecUnit : uint8_t { kMatrix, kVector };
// What a tensor-core kernel does with channel counts that are not a multiple of the alignment:
// pad them (and waste the padded MACs), or fall back to CUDA-core (vector unit) kernels.
enum class UnalignedPolicy : uint8_t { kPad, kFallback };
// How grouped (not depthwise) convolutions map onto the matrix unit: groups packed side by side /
// run as separate GEMMs, or expanded to one dense convolution with a block-diagonal (zero-masked)
// filter, which multiplies the MACs by the group count (XLA's grouped-convolution rewrite), or
// one kernel per group run one after the other (each group's GEMM has the whole chip to itself
// and pays its own launch: the legacy group loop of cuDNN/TensorRT grouped convolutions).
enum class GroupedMapping : uint8_t { kPacked, kExpanded, kPerGroup };
// Which tensor-core convolutions of an NCHW stack run between two layout transposes (NCHW ->
// NHWC of the input, NHWC -> NCHW of the output, each its own memory-bound kernel): none, the
// spatial ones (every convolution but the 1x1 stride-1 ones, which run as GEMMs on NCHW
// directly), or all of them.
enum class LayoutTransposes : uint8_t { kNone, kSpatial, kAll };

// The software stack's rules for mapping convolutions onto the units (StackProfile extends it).
struct KernelRules {
  ExecUnit depthwise_unit = ExecUnit::kVector;
  ExecUnit grouped_conv_unit = ExecUnit::kMatrix;
  GroupedMapping grouped_conv_mapping = GroupedMapping::kPacked;
  UnalignedPolicy unaligned = UnalignedPolicy::kPad;
  // GEMM kernel selection on GPUs (sim/cost/matrix_unit.h): the smallest thread-block tile edge
  // the library offers (0: always the accelerator's tile), whether it splits K over idle SMs,
  // and whether CUDA-core (vector-unit) convolutions run as tiled GEMMs with the same tiles and
  // waves (false: streamed at the vector rate with no quantisation).
  int gemm_min_tile = 0;
  // Kernel selection for the forward kernels of grouped convolutions alone (0: as every GEMM,
  // gemm_min_tile): a group's GEMM is N = Cout/g wide, often 8-64 columns, and a kernel library
  // tiles it with narrow tiles (a CUTLASS grouped convolution keeps each thread block's N tile
  // inside one group) instead of padding every group to the accelerator's tile.
  int grouped_conv_min_tile = 0;
  // The same for the backward kernels of grouped convolutions in a training step (the data and
  // weight gradients, PreparedOp::backward; 0: as every GEMM, gemm_min_tile). A separate rule:
  // cuDNN's backward kernels for grouped convolutions are not its forward ones.
  int grouped_conv_backward_min_tile = 0;
  bool gemm_split_k = false;
  bool gemm_tiled_cuda_cores = false;
  // Winograd F(m x m, 3 x 3) for 3x3 stride-1 dense convolutions on CUDA cores: output tile m
  // (0: off). (m+2)^2 batched GEMMs of N*ceil(Ho/m)*ceil(Wo/m) x Cin x Cout replace the direct
  // GEMM, 9m^2/(m+2)^2 times fewer MACs (2.25x for m = 2, 4x for m = 4). On tiled CUDA cores the
  // batched GEMMs get tiles and waves; streamed at the vector rate, the MACs alone shrink.
  int winograd_tile = 0;
  // Inter-kernel L2 reuse (eager stacks, one kernel per op): a kernel's input produced by an
  // earlier kernel is read from the tensor-holding level (GPU L2) for the part still resident
  // there, min(S, max(0, U - W)) of its S bytes, where U is the usable holding capacity and W the
  // bytes written by the kernels run since the producer (ResidentInputBytes, sim/cost/op_cost.h).
  bool inter_kernel_reuse = false;
  // Fused intermediates stay in registers: a fused group's intermediate tensors (an epilogue's
  // conv output before its BN/activation/add, an elementwise chain's links) are produced and
  // consumed tile by tile and never reach the tensor-holding level or HBM (false: written to and
  // read back from the holding level when one image's largest intermediate fits, else HBM).
  bool intermediates_in_registers = false;
  // Layout transposes around tensor-core convolutions of an NCHW stack (cuDNN's tensor-core
  // kernels compute in NHWC; an NCHW framework tensor is transposed in and out of each one).
  LayoutTransposes nchw_conv_transposes = LayoutTransposes::kNone;
  // Mixed precision by autocast (PyTorch's torch.autocast, the AMP of timm's benchmark and
  // NVIDIA's training scripts), for runs at fp16 or bf16: parameters stay fp32, layer norm and
  // softmax return fp32, an elementwise op with an fp32 tensor operand returns fp32, and a
  // matrix kernel casts each fp32 activation input to the 16-bit dtype in a kernel of its own
  // (sim/README.md, "Autocast"). false: every tensor at the run's dtype.
  bool autocast = false;
};

// A batch of `groups` independent GEMMs, each (m x k) * (k x n): a convolution as GEMM has
// m = N*Ho*Wo, k = kh*kw*Cin/groups, n = Cout/groups.
struct Gemm {
  int64_t m = 0;
  int64_t k = 0;
  int64_t n = 0;
  int64_t groups = 1;
  int64_t macs() const { return m * k * n * groups; }
};

// The resource that bounds a kernel's time.
enum class Bound : uint8_t { kMatrix, kVector, kMemory, kOverhead };
// The lower-case name of a bound ("matrix", "vector", "memory", "overhead").
const char* BoundName(Bound bound);

// The unit an op's kernel runs on.
enum class Unit : uint8_t { kMatrix, kVector, kNone };

// What kind of work an op is, for costing.
enum class OpClass : uint8_t {
  kView,          // input, reshape, dropout: no kernel, no traffic
  kConv,          // dense or grouped convolution (matrix unit)
  kDepthwise,     // depthwise convolution (unit chosen by the stack)
  kFc,            // fully connected (matrix unit)
  kElementwise,   // batch norm, bias, activation, add, mul, softmax
  kPool,          // pooling and global pooling (vector unit reductions)
  kDataMovement,  // concat, space-to-depth/batch, batch-to-space
};
// The lower-case name of an op class ("conv", "data_movement", ...).
const char* OpClassName(OpClass cls);
// Whether ops of class `cls` are matrix kernels (convolutions, fully connected, products).
inline bool IsMatrixClass(OpClass cls) {
  return cls == OpClass::kConv || cls == OpClass::kDepthwise || cls == OpClass::kFc;
}

}  // namespace dcnas::sim::cost
