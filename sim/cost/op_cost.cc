#include "sim/cost/op_cost.h"

#include <algorithm>
#include <cmath>

namespace dcnas::sim::cost {

using models::Activation;
using models::OpKind;

namespace {

double ActivationOps(Activation a, const CostParams& p, double* transcendentals) {
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

// Grouped-convolution mapping of op.gemm (shared by the unit choice and the GEMM mapping).
MappedGemm GroupMapped(const PreparedOp& op, const KernelRules& rules) {
  MappedGemm mapped;
  Gemm& gemm = mapped.gemm;
  gemm = op.gemm;
  if (op.cls == OpClass::kConv && gemm.groups > 1 &&
      rules.grouped_conv_mapping == GroupedMapping::kExpanded) {
    gemm.k *= gemm.groups;
    gemm.n *= gemm.groups;
    gemm.groups = 1;
  }
  // One kernel per group: the cost is one group's, times the groups, plus their launches.
  if (op.cls == OpClass::kConv && gemm.groups > 1 &&
      rules.grouped_conv_mapping == GroupedMapping::kPerGroup) {
    mapped.serial_groups = static_cast<double>(gemm.groups);
    gemm.groups = 1;
  }
  return mapped;
}

bool TensorCores(const CostContext& ctx) { return ctx.matrix_unit.kind == MatrixKind::kTensorCore; }

bool Unaligned(const Gemm& gemm, const CostContext& ctx) {
  return TensorCores(ctx) && ctx.alignment > 1 &&
         (gemm.k % ctx.alignment != 0 || gemm.n % ctx.alignment != 0);
}

// GPU GEMM geometry shared by tensor-core and (when the stack tiles them) CUDA-core kernels,
// without the MAC rate.
TensorCoreGeometry GpuGeometry(const CostContext& ctx, bool split_reduction, int grouped_min_tile) {
  const MatrixUnitSpec& mu = ctx.matrix_unit;
  TensorCoreGeometry geo;
  geo.tile_m = mu.tile_m;
  geo.tile_n = mu.tile_n;
  geo.tile_k = mu.tile_k;
  geo.tiles_per_core = mu.tiles_per_core;
  geo.sms = ctx.cores;
  geo.min_tile = grouped_min_tile > 0 ? grouped_min_tile : ctx.kernels.gemm_min_tile;
  geo.split_k = ctx.kernels.gemm_split_k || split_reduction;
  geo.element_bytes = models::DTypeBytes(ctx.dtype);
  if (geo.min_tile > 0) {
    geo.operand_bytes_per_cycle_per_sm =
        ctx.onchip_bytes_per_s * ctx.params.onchip_efficiency / (ctx.clock_hz * ctx.cores);
  }
  return geo;
}

void MatrixWork(const PreparedOp& op, const CostContext& ctx, OpWork& w) {
  const CostParams& p = ctx.params;
  const MatrixPath path = ChooseMatrixPath(op, ctx);
  const MappedGemm mapped = MapGemm(op, ctx, path);
  if (mapped.serial_groups > 1) w.extra_kernels = mapped.serial_groups - 1;
  // A grouped (not depthwise) convolution's GEMM, forward or a gradient: its own tile rule.
  int grouped_min_tile = 0;
  if (op.cls == OpClass::kConv && mapped.gemm.groups > 1) {
    grouped_min_tile = op.backward ? ctx.kernels.grouped_conv_backward_min_tile
                                   : ctx.kernels.grouped_conv_min_tile;
  }
  switch (path) {
    case MatrixPath::kMatrixUnit: {
      const MatrixCycles mc =
          CountMatrixCycles(mapped.gemm, ctx, path, op.split_reduction, grouped_min_tile);
      w.unit = Unit::kMatrix;
      const double efficiency =
          op.cls == OpClass::kFc && p.gemm_efficiency > 0 ? p.gemm_efficiency : p.matrix_efficiency;
      w.matrix_s = mapped.serial_groups * mc.cycles / (ctx.clock_hz * efficiency);
      w.utilization = mc.utilization;
      const LayoutTransposes rule = ctx.kernels.nchw_conv_transposes;
      if (op.cls == OpClass::kConv && TensorCores(ctx) && op.out_elements > 0 &&
          (rule == LayoutTransposes::kAll ||
           (rule == LayoutTransposes::kSpatial && !op.pointwise_conv))) {
        // Each transpose reads and writes its tensor once.
        const double input_bytes = op.in_elements * (op.out_bytes / op.out_elements);
        w.transpose_bytes = 2.0 * (input_bytes + op.out_bytes);
        w.transpose_kernels = 2;
      }
      break;
    }
    case MatrixPath::kTiledCudaCores: {
      const MatrixCycles mc =
          CountMatrixCycles(mapped.gemm, ctx, path, op.split_reduction, grouped_min_tile);
      w.unit = Unit::kVector;
      w.vector_s = mapped.serial_groups * mc.cycles / (ctx.clock_hz * p.vector_efficiency);
      break;
    }
    case MatrixPath::kVectorStream: {
      w.unit = Unit::kVector;
      // Winograd F(wt x wt, 3 x 3) on the streamed path: the MACs of the (wt+2)^2 element-wise
      // products per tile and channel pair, (wt+2)^2 / (9 wt^2) of the direct convolution's.
      double macs = op.macs;
      const int64_t wt = ctx.kernels.winograd_tile;
      if (wt > 0 && op.winograd_conv) {
        macs *= static_cast<double>((wt + 2) * (wt + 2)) / (9.0 * static_cast<double>(wt * wt));
      }
      w.vector_s = VectorSeconds(macs * p.ops_depthwise_per_mac, 0, ctx.vector_ops_per_s,
                                 ctx.transcendentals_per_s, p.vector_efficiency);
      break;
    }
  }
  // Autocast: the casts of fp32 activation inputs, memory-bound kernels before this one.
  if (ctx.autocast && op.amp_cast_kernels > 0) {
    w.transpose_bytes += op.amp_cast_bytes;
    w.transpose_kernels += op.amp_cast_kernels;
  }
  // Bias (when the kernel has one) runs on the vector unit, as does a training kernel's
  // recomputed elementwise prologue (extra_vector_ops, counted in its FLOPs too).
  const double bias_elements = op.flops - 2.0 * op.macs - op.extra_vector_ops;
  if (bias_elements > 0) {
    w.vector_s += VectorSeconds(bias_elements * p.ops_bias, 0, ctx.vector_ops_per_s,
                                ctx.transcendentals_per_s, p.vector_efficiency);
  }
  if (op.extra_vector_ops > 0 || op.extra_transcendentals > 0) {
    w.vector_s += VectorSeconds(op.extra_vector_ops, op.extra_transcendentals, ctx.vector_ops_per_s,
                                ctx.transcendentals_per_s, p.vector_efficiency);
  }
  if (op.weight_bytes > ctx.usable_onchip_bytes && ctx.usable_onchip_bytes > 0) {
    w.input_passes = std::ceil(op.weight_bytes / ctx.usable_onchip_bytes);
  }
}

}  // namespace

MatrixPath ChooseMatrixPath(const PreparedOp& op, const CostContext& ctx) {
  const KernelRules& rules = ctx.kernels;
  if (op.vector_reduction) return MatrixPath::kVectorStream;
  bool on_matrix = ctx.matrix_supports_dtype;
  if (op.cls == OpClass::kDepthwise) {
    on_matrix = on_matrix && rules.depthwise_unit == ExecUnit::kMatrix;
  }
  if (op.cls == OpClass::kConv && op.gemm.groups > 1) {
    on_matrix = on_matrix && rules.grouped_conv_unit == ExecUnit::kMatrix;
  }
  // GEMM-library kernels (fully connected layers, batched activation products) stay on the
  // matrix unit when unaligned: the library pads them (cuBLAS on tensor cores), where a
  // convolution library falls back.
  if (on_matrix && rules.unaligned == UnalignedPolicy::kFallback && op.cls != OpClass::kFc &&
      Unaligned(GroupMapped(op, rules).gemm, ctx)) {
    on_matrix = false;
  }
  if (on_matrix) return MatrixPath::kMatrixUnit;
  if (TensorCores(ctx) && rules.gemm_tiled_cuda_cores && op.cls != OpClass::kDepthwise &&
      ctx.clock_hz > 0) {
    return MatrixPath::kTiledCudaCores;
  }
  return MatrixPath::kVectorStream;
}

MappedGemm MapGemm(const PreparedOp& op, const CostContext& ctx, MatrixPath path) {
  MappedGemm mapped = GroupMapped(op, ctx.kernels);
  Gemm& gemm = mapped.gemm;
  if (path == MatrixPath::kMatrixUnit && Unaligned(gemm, ctx)) {
    gemm.k = AlignUp(gemm.k, ctx.alignment);
    gemm.n = AlignUp(gemm.n, ctx.alignment);
  }
  const int64_t wt = ctx.kernels.winograd_tile;
  if (path == MatrixPath::kTiledCudaCores && wt > 0 && op.winograd_conv && op.out_h > 0 &&
      op.out_w > 0) {
    // Winograd F(wt x wt, 3 x 3): one GEMM per point of the (wt+2)^2 transformed tile.
    const int64_t images = gemm.m / (static_cast<int64_t>(op.out_h) * op.out_w);
    gemm.m = images * ((op.out_h + wt - 1) / wt) * ((op.out_w + wt - 1) / wt);
    gemm.k /= 9;
    gemm.groups = (wt + 2) * (wt + 2);
  }
  return mapped;
}

MatrixCycles CountMatrixCycles(const Gemm& gemm, const CostContext& ctx, MatrixPath path,
                               bool split_reduction, int grouped_min_tile) {
  const MatrixUnitSpec& mu = ctx.matrix_unit;
  const CostParams& p = ctx.params;
  switch (path) {
    case MatrixPath::kMatrixUnit: {
      if (TensorCores(ctx)) {
        TensorCoreGeometry geo = GpuGeometry(ctx, split_reduction, grouped_min_tile);
        geo.macs_per_cycle_per_sm = mu.macs_per_cycle[DTypeIndex(ctx.dtype)] * mu.units_per_core;
        return TensorCoreCycles(gemm, geo);
      }
      SystolicGeometry geo;
      geo.rows = mu.rows;
      geo.cols = mu.cols;
      geo.units_per_core = mu.units_per_core;
      geo.cores = ctx.cores;
      geo.pipeline_scale = p.systolic_pipeline_scale;
      geo.dataflow = mu.dataflow;
      geo.double_buffered = mu.double_buffered;
      // Dtypes that need several passes through the array (fp32 as bf16 passes) take longer.
      const double rate =
          mu.macs_per_cycle[DTypeIndex(ctx.dtype)] / (static_cast<double>(geo.rows) * geo.cols);
      MatrixCycles mc = SystolicCycles(gemm, geo);
      mc.cycles /= rate;
      mc.utilization *= rate;
      return mc;
    }
    case MatrixPath::kTiledCudaCores: {
      // A CUDA-core GEMM: the same tiles and waves at the CUDA cores' MAC rate.
      TensorCoreGeometry geo = GpuGeometry(ctx, split_reduction, grouped_min_tile);
      geo.macs_per_cycle_per_sm =
          ctx.vector_ops_per_s / (ctx.clock_hz * ctx.cores * p.ops_depthwise_per_mac);
      return TensorCoreCycles(gemm, geo);
    }
    case MatrixPath::kVectorStream:
      break;
  }
  return MatrixCycles{};
}

OpWork ComputeOpWork(const PreparedOp& op, const CostContext& ctx) {
  const CostParams& p = ctx.params;
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
        case OpKind::kLayerNorm:
          ops = p.ops_layer_norm;
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
  ops += op.extra_vector_ops;
  transcendentals += op.extra_transcendentals;
  w.unit = Unit::kVector;
  w.vector_s = VectorSeconds(ops, transcendentals, ctx.vector_ops_per_s, ctx.transcendentals_per_s,
                             p.vector_efficiency);
  return w;
}

double ResidentInputBytes(double tensor_bytes, double written_since_bytes, double usable_bytes) {
  return std::clamp(usable_bytes - written_since_bytes, 0.0, std::max(tensor_bytes, 0.0));
}

double BytesWrittenBetween(const PreparedGraph& graph, int producer_id,
                           const PreparedOp& consumer) {
  const int from = graph.position[static_cast<size_t>(producer_id)] + 1;
  const int to = graph.position[static_cast<size_t>(consumer.id)];
  double bytes = 0;
  for (int k = from; k < to; ++k) bytes += graph.ops[static_cast<size_t>(k)].out_bytes;
  return bytes;
}

namespace {

// An input's and an output's HBM bytes as the run stores them (autocast's fp32 tensors).
double InputBytes(const PreparedGraph& graph, size_t slot, const CostContext& ctx) {
  return ctx.autocast && graph.has_autocast() ? graph.amp_input_bytes[slot]
                                              : graph.input_bytes[slot];
}
double OutputBytes(const PreparedGraph& graph, const PreparedOp& op, const CostContext& ctx) {
  return ctx.autocast && graph.has_autocast() ? op.amp_out_bytes : op.out_bytes;
}

}  // namespace

void AddToGroup(GroupTerms& terms, const PreparedGraph& graph, const PreparedOp& op,
                const OpWork& work, int intermediate_input, const CostContext& ctx) {
  if (terms.num_ops == 0) terms.class_scale = work.class_scale;
  terms.num_ops += 1;
  terms.extra_kernels += work.extra_kernels;
  terms.transpose_bytes += work.transpose_bytes;
  terms.transpose_kernels += work.transpose_kernels;
  terms.matrix_s += work.matrix_s;
  terms.vector_s += work.vector_s;
  terms.flops += op.flops;
  for (int i = 0; i < op.num_inputs; ++i) {
    const size_t slot = static_cast<size_t>(op.first_input) + static_cast<size_t>(i);
    const int producer = graph.inputs[slot];
    if (producer == intermediate_input) continue;
    const double bytes = InputBytes(graph, slot, ctx);
    double resident = 0;
    if (ctx.kernels.inter_kernel_reuse && bytes > 0 &&
        graph.op_by_id(producer).cls != OpClass::kView) {
      resident = ResidentInputBytes(bytes, BytesWrittenBetween(graph, producer, op),
                                    ctx.usable_onchip_bytes);
      terms.resident_input_bytes += resident;
    }
    terms.hbm_bytes +=
        i == 0 ? (bytes - resident) + bytes * (work.input_passes - 1) : bytes - resident;
  }
  terms.hbm_bytes += op.weight_bytes + OutputBytes(graph, op, ctx);
  if (intermediate_input >= 0 && !graph.op_by_id(intermediate_input).kept_output) {
    const PreparedOp& p = graph.op_by_id(intermediate_input);
    const double bytes = OutputBytes(graph, p, ctx);
    terms.hbm_bytes -= bytes;
    terms.intermediate_bytes += bytes;
    terms.held_per_image_bytes = std::max(terms.held_per_image_bytes, p.per_image_out_bytes);
  }
}

GroupCost FinishGroup(const GroupTerms& t, const CostContext& ctx) {
  const CostParams& p = ctx.params;
  GroupCost g;
  const bool in_registers = ctx.kernels.intermediates_in_registers || t.attention;
  const bool fits = in_registers || t.held_per_image_bytes <= ctx.usable_hold_bytes;
  const double staged = in_registers ? 0.0 : 2.0 * t.intermediate_bytes;
  g.hbm_bytes = t.hbm_bytes + (fits ? 0.0 : staged);
  g.onchip_bytes = (fits ? staged : 0.0) + t.resident_input_bytes;
  g.matrix_s = t.matrix_s;
  g.vector_s = t.vector_s;
  g.memory_s = MemorySeconds(g.hbm_bytes, ctx.hbm_bytes_per_s, ctx.memory_efficiency,
                             g.onchip_bytes, ctx.onchip_bytes_per_s, p.onchip_efficiency);
  g.overhead_s =
      t.num_ops > 0 ? ctx.kernel_overhead_s * (1.0 + t.extra_kernels * p.group_launch_scale) : 0.0;
  const Combined c =
      Combine(g.matrix_s, g.vector_s, g.memory_s, g.overhead_s, p.overlap, t.class_scale);
  g.total_s = c.total_s;
  g.bound = c.bound;
  if (t.transpose_kernels > 0) {
    // Layout transposes: memory-bound kernels of their own, before and after the group's kernel.
    const double transpose_s =
        MemorySeconds(t.transpose_bytes, ctx.hbm_bytes_per_s, ctx.memory_efficiency, 0, 0, 0);
    const double launches_s = t.transpose_kernels * ctx.kernel_overhead_s;
    g.hbm_bytes += t.transpose_bytes;
    g.memory_s += transpose_s;
    g.overhead_s += launches_s;
    g.total_s += transpose_s + launches_s;
    g.bound = LargestBound(g.matrix_s, g.vector_s, g.memory_s, g.overhead_s);
  }
  return g;
}

void QueueLaunches(std::vector<GroupCost>& costs) {
  double issued = 0;
  double end = 0;
  for (GroupCost& c : costs) {
    const double busy = c.total_s - c.overhead_s;
    issued += c.overhead_s;
    const double start = std::max(end, issued);
    c.overhead_s = start - end;
    c.total_s = busy + c.overhead_s;
    end = start + busy;
    c.bound = LargestBound(c.matrix_s, c.vector_s, c.memory_s, c.overhead_s);
  }
}

}  // namespace dcnas::sim::cost
