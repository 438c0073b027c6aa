#include "sim/cost/op_cost.h"

#include <algorithm>
#include <cmath>

namespace dcnas::sim::cost {

using models::Activation;
using models::OpKind;

CostContext MakeContext(const AcceleratorSpec& spec, const StackProfile& stack,
                        const CalibrationParams& calibration, models::DType dtype) {
  CostContext c;
  c.spec = &spec;
  c.stack = &stack;
  c.calibration = &calibration;
  c.dtype = dtype;
  c.clock_hz = spec.clock_hz();
  c.vector_ops_per_s = spec.PeakVectorOpsPerS(dtype);
  c.transcendentals_per_s = spec.vector_unit.transcendentals_per_cycle * spec.cores * c.clock_hz;
  c.hbm_bytes_per_s = spec.HbmBytesPerS();
  c.onchip_bytes_per_s = spec.ReuseLevel().bandwidth_gbps * 1e9;
  c.usable_onchip_bytes = spec.ReuseCapacityBytes() * calibration.onchip_usable_fraction;
  c.usable_hold_bytes =
      spec.ReuseLevel().per_core ? c.usable_onchip_bytes / spec.cores : c.usable_onchip_bytes;
  c.kernel_overhead_s = stack.kernel_overhead_us * 1e-6 * calibration.kernel_overhead_scale;
  c.matrix_supports_dtype = spec.MatrixSupports(dtype);
  c.alignment = stack.Alignment(dtype);
  uint64_t h = HashMix(spec.fingerprint, stack.fingerprint);
  h = HashMix(h, calibration.Fingerprint());
  c.fingerprint = HashMix(h, static_cast<uint64_t>(dtype));
  return c;
}

namespace {

double ActivationOps(Activation a, const CalibrationParams& p, double* transcendentals) {
  *transcendentals = 0;
  switch (a) {
    case Activation::kRelu:
      return p.ops_relu;
    case Activation::kRelu6:
      return p.ops_relu6;
    case Activation::kSwish:
      *transcendentals = 1;
      return p.ops_swish;
    case Activation::kSigmoid:
      *transcendentals = 1;
      return p.ops_sigmoid;
    case Activation::kHardSwish:
      return p.ops_hard_swish;
    case Activation::kHardSigmoid:
      return p.ops_hard_sigmoid;
    case Activation::kGelu:
      *transcendentals = 1;
      return p.ops_gelu;
  }
  return 1;
}

void MatrixWork(const PreparedOp& op, const CostContext& ctx, OpWork& w) {
  const AcceleratorSpec& spec = *ctx.spec;
  const StackProfile& stack = *ctx.stack;
  const CalibrationParams& p = *ctx.calibration;
  bool on_matrix = ctx.matrix_supports_dtype;
  if (op.cls == OpClass::kDepthwise)
    on_matrix = on_matrix && stack.depthwise_unit == ExecUnit::kMatrix;
  if (op.cls == OpClass::kConv && op.gemm.groups > 1) {
    on_matrix = on_matrix && stack.grouped_conv_unit == ExecUnit::kMatrix;
  }
  Gemm gemm = op.gemm;
  if (op.cls == OpClass::kConv && gemm.groups > 1 &&
      stack.grouped_conv_mapping == GroupedMapping::kExpanded) {
    gemm.k *= gemm.groups;
    gemm.n *= gemm.groups;
    gemm.groups = 1;
  }
  // One kernel per group: the cost below is one group's, times the groups, plus their launches.
  double serial_groups = 1;
  if (op.cls == OpClass::kConv && gemm.groups > 1 &&
      stack.grouped_conv_mapping == GroupedMapping::kPerGroup) {
    serial_groups = static_cast<double>(gemm.groups);
    gemm.groups = 1;
    w.extra_kernels = serial_groups - 1;
  }
  const bool tensor_core = spec.matrix_unit.kind == MatrixKind::kTensorCore;
  if (on_matrix && tensor_core && ctx.alignment > 1 &&
      (gemm.k % ctx.alignment != 0 || gemm.n % ctx.alignment != 0)) {
    if (stack.unaligned == UnalignedPolicy::kFallback) {
      on_matrix = false;
    } else {
      gemm.k = AlignUp(gemm.k, ctx.alignment);
      gemm.n = AlignUp(gemm.n, ctx.alignment);
    }
  }
  // GPU GEMM geometry shared by tensor-core and (when the stack tiles them) CUDA-core kernels.
  TensorCoreGeometry geo_tc;
  if (tensor_core) {
    geo_tc.tile_m = spec.matrix_unit.tile_m;
    geo_tc.tile_n = spec.matrix_unit.tile_n;
    geo_tc.tile_k = spec.matrix_unit.tile_k;
    geo_tc.tiles_per_core = spec.matrix_unit.tiles_per_core;
    geo_tc.sms = spec.cores;
    geo_tc.min_tile = stack.gemm_min_tile;
    geo_tc.split_k = stack.gemm_split_k;
    geo_tc.element_bytes = models::DTypeBytes(ctx.dtype);
    if (stack.gemm_min_tile > 0) {
      geo_tc.operand_bytes_per_cycle_per_sm =
          ctx.onchip_bytes_per_s * p.onchip_efficiency / (ctx.clock_hz * spec.cores);
    }
  }
  if (on_matrix) {
    MatrixCycles mc;
    if (tensor_core) {
      TensorCoreGeometry geo = geo_tc;
      geo.macs_per_cycle_per_sm =
          spec.matrix_unit.macs_per_cycle[DTypeIndex(ctx.dtype)] * spec.matrix_unit.units_per_core;
      mc = TensorCoreCycles(gemm, geo);
    } else {
      SystolicGeometry geo;
      geo.rows = spec.matrix_unit.rows;
      geo.cols = spec.matrix_unit.cols;
      geo.units_per_core = spec.matrix_unit.units_per_core;
      geo.cores = spec.cores;
      geo.pipeline_scale = p.systolic_pipeline_scale;
      // Dtypes that need several passes through the array (fp32 as bf16 passes) take longer.
      const double rate = spec.matrix_unit.macs_per_cycle[DTypeIndex(ctx.dtype)] /
                          (static_cast<double>(geo.rows) * geo.cols);
      mc = SystolicCycles(gemm, geo);
      mc.cycles /= rate;
      mc.utilization *= rate;
    }
    w.unit = Unit::kMatrix;
    w.matrix_s = serial_groups * mc.cycles / (ctx.clock_hz * p.matrix_efficiency);
    w.utilization = mc.utilization;
  } else if (tensor_core && stack.gemm_tiled_cuda_cores && op.cls != OpClass::kDepthwise &&
             ctx.clock_hz > 0) {
    // A CUDA-core GEMM: the same tiles and waves at the CUDA cores' MAC rate.
    TensorCoreGeometry geo = geo_tc;
    geo.macs_per_cycle_per_sm =
        ctx.vector_ops_per_s / (ctx.clock_hz * spec.cores * p.ops_depthwise_per_mac);
    const int64_t wt = stack.winograd_tile;
    if (wt > 0 && op.winograd_conv && op.out_h > 0 && op.out_w > 0) {
      // Winograd F(wt x wt, 3 x 3): one GEMM per point of the (wt+2)^2 transformed tile.
      const int64_t images = gemm.m / (static_cast<int64_t>(op.out_h) * op.out_w);
      gemm.m = images * ((op.out_h + wt - 1) / wt) * ((op.out_w + wt - 1) / wt);
      gemm.k /= 9;
      gemm.groups = (wt + 2) * (wt + 2);
    }
    const MatrixCycles mc = TensorCoreCycles(gemm, geo);
    w.unit = Unit::kVector;
    w.vector_s = serial_groups * mc.cycles / (ctx.clock_hz * p.vector_efficiency);
  } else {
    w.unit = Unit::kVector;
    w.vector_s = VectorSeconds(op.macs * p.ops_depthwise_per_mac, 0, ctx.vector_ops_per_s,
                               ctx.transcendentals_per_s, p.vector_efficiency);
  }
  // Bias (when the kernel has one) runs on the vector unit.
  const double bias_elements = op.flops - 2.0 * op.macs;
  if (bias_elements > 0) {
    w.vector_s += VectorSeconds(bias_elements * p.ops_bias, 0, ctx.vector_ops_per_s,
                                ctx.transcendentals_per_s, p.vector_efficiency);
  }
  if (op.weight_bytes > ctx.usable_onchip_bytes && ctx.usable_onchip_bytes > 0) {
    w.input_passes = std::ceil(op.weight_bytes / ctx.usable_onchip_bytes);
  }
}

}  // namespace

OpWork ComputeOpWork(const PreparedOp& op, const CostContext& ctx) {
  const CalibrationParams& p = *ctx.calibration;
  OpWork w;
  double ops = 0;
  double transcendentals = 0;
  switch (op.cls) {
    case OpClass::kView:
      return w;
    case OpClass::kConv:
      w.class_scale = p.conv_scale;
      MatrixWork(op, ctx, w);
      return w;
    case OpClass::kDepthwise:
      w.class_scale = p.depthwise_scale;
      MatrixWork(op, ctx, w);
      return w;
    case OpClass::kFc:
      w.class_scale = p.fc_scale;
      MatrixWork(op, ctx, w);
      return w;
    case OpClass::kElementwise: {
      w.class_scale = p.elementwise_scale;
      double t = 0;
      switch (op.kind) {
        case OpKind::kBatchNorm:
          ops = p.ops_batch_norm;
          break;
        case OpKind::kBiasAdd:
          ops = p.ops_bias;
          break;
        case OpKind::kActivation:
          ops = ActivationOps(op.activation, p, &t);
          break;
        case OpKind::kAdd:
          ops = p.ops_add;
          break;
        case OpKind::kMul:
          ops = p.ops_mul;
          break;
        case OpKind::kSoftmax:
          ops = p.ops_softmax;
          t = 1;
          break;
        default:
          ops = 1;
          break;
      }
      ops *= op.out_elements;
      transcendentals = t * op.out_elements;
      break;
    }
    case OpClass::kPool:
      w.class_scale = p.pool_scale;
      if (op.kind == OpKind::kGlobalPool) {
        ops = op.in_elements * p.ops_global_pool_per_input;
      } else {
        ops = op.out_elements * op.window * p.ops_pool_per_window_element;
      }
      break;
    case OpClass::kDataMovement:
      w.class_scale = p.data_movement_scale;
      w.unit = Unit::kNone;
      return w;
  }
  w.unit = Unit::kVector;
  w.vector_s = VectorSeconds(ops, transcendentals, ctx.vector_ops_per_s, ctx.transcendentals_per_s,
                             p.vector_efficiency);
  return w;
}

void AddToGroup(GroupTerms& terms, const PreparedGraph& graph, const PreparedOp& op,
                const OpWork& work, int intermediate_input) {
  if (terms.num_ops == 0) terms.class_scale = work.class_scale;
  terms.num_ops += 1;
  terms.extra_kernels += work.extra_kernels;
  terms.matrix_s += work.matrix_s;
  terms.vector_s += work.vector_s;
  terms.flops += op.flops;
  for (int i = 0; i < op.num_inputs; ++i) {
    const size_t slot = static_cast<size_t>(op.first_input) + static_cast<size_t>(i);
    const int producer = graph.inputs[slot];
    if (producer == intermediate_input) continue;
    const double bytes = graph.input_bytes[slot];
    terms.hbm_bytes += i == 0 ? bytes * work.input_passes : bytes;
  }
  terms.hbm_bytes += op.weight_bytes + op.out_bytes;
  if (intermediate_input >= 0) {
    const PreparedOp& p = graph.op_by_id(intermediate_input);
    terms.hbm_bytes -= p.out_bytes;
    terms.intermediate_bytes += p.out_bytes;
    terms.held_per_image_bytes = std::max(terms.held_per_image_bytes, p.per_image_out_bytes);
  }
}

GroupCost FinishGroup(const GroupTerms& t, const CostContext& ctx) {
  const CalibrationParams& p = *ctx.calibration;
  GroupCost g;
  const bool fits = t.held_per_image_bytes <= ctx.usable_hold_bytes;
  g.hbm_bytes = t.hbm_bytes + (fits ? 0.0 : 2.0 * t.intermediate_bytes);
  g.onchip_bytes = fits ? 2.0 * t.intermediate_bytes : 0.0;
  g.matrix_s = t.matrix_s;
  g.vector_s = t.vector_s;
  g.memory_s = MemorySeconds(g.hbm_bytes, ctx.hbm_bytes_per_s, p.memory_efficiency, g.onchip_bytes,
                             ctx.onchip_bytes_per_s, p.onchip_efficiency);
  g.overhead_s =
      t.num_ops > 0 ? ctx.kernel_overhead_s * (1.0 + t.extra_kernels * p.group_launch_scale) : 0.0;
  const Combined c =
      Combine(g.matrix_s, g.vector_s, g.memory_s, g.overhead_s, p.overlap, t.class_scale);
  g.total_s = c.total_s;
  g.bound = c.bound;
  return g;
}

}  // namespace dcnas::sim::cost
