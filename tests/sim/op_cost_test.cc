// The three steps of a conv/fc op's work (sim/cost/op_cost.h): choosing where it runs, mapping
// its GEMM, counting the cycles; on accelerators and stacks built in code.
#include "sim/cost/op_cost.h"

#include <catch2/catch.hpp>
#include <vector>

#include "models/builder.h"
#include "sim/cost_context.h"
#include "sim/prepared.h"
#include "tests/sim/test_util.h"

namespace dcnas::sim {
namespace {

using cost::MatrixPath;
using models::DType;

// The last op of a graph, prepared (the graph must outlive the result's use of names only).
PreparedOp LastOp(const models::Graph& g) { return Prepare(g).ops.back(); }

PreparedOp GroupedConv(DType dtype) {
  return LastOp(testing::GroupedConvGraph(2, 14, 128, 32, dtype));
}

PreparedOp Depthwise(DType dtype) {
  models::GraphInfo info;
  info.model = "dw";
  info.batch = 2;
  info.dtype = dtype;
  models::GraphBuilder b(info);
  b.DepthwiseConv(b.Input(14, 14, 64), 3, 1);
  return LastOp(b.Finish());
}

cost::CostContext Context(const AcceleratorSpec& spec, const StackProfile& stack, DType dtype) {
  return MakeCostContext(spec, stack, CalibrationParams(), dtype);
}

TEST_CASE("ChooseMatrixPath: the matrix unit when the dtype, the stack and the channels allow") {
  const AcceleratorSpec tpu = testing::SystolicTestChip();
  const AcceleratorSpec gpu = testing::TensorCoreTestChip();
  const StackProfile fusing = testing::FusingTestStack();
  const StackProfile inference = testing::InferenceTestStack();
  const StackProfile eager = testing::EagerTestStack();
  const PreparedOp conv_bf16 = LastOp(testing::ConvGraph(2, 8, 128, 128, 1, DType::kBf16));
  const PreparedOp conv_int8 = LastOp(testing::ConvGraph(2, 8, 128, 128, 1, DType::kInt8));
  const PreparedOp conv_fp16 = LastOp(testing::ConvGraph(2, 8, 128, 128, 1, DType::kFp16));
  const PreparedOp conv_fp32 = LastOp(testing::ConvGraph(2, 8, 128, 128, 1, DType::kFp32));
  const PreparedOp k27 = LastOp(testing::ConvGraph(2, 8, 3, 32, 3, DType::kFp16));
  REQUIRE(k27.gemm.k == 27);

  CHECK(ChooseMatrixPath(conv_bf16, Context(tpu, fusing, DType::kBf16)) == MatrixPath::kMatrixUnit);
  // The systolic chip has no int8 rate and no CUDA cores: the vector unit streams the MACs.
  CHECK(ChooseMatrixPath(conv_int8, Context(tpu, fusing, DType::kInt8)) ==
        MatrixPath::kVectorStream);
  CHECK(ChooseMatrixPath(conv_fp16, Context(gpu, inference, DType::kFp16)) ==
        MatrixPath::kMatrixUnit);
  // No fp32 tensor cores: tiled CUDA cores where the stack tiles them, else the vector stream.
  CHECK(ChooseMatrixPath(conv_fp32, Context(gpu, inference, DType::kFp32)) ==
        MatrixPath::kTiledCudaCores);
  CHECK(ChooseMatrixPath(conv_fp32, Context(gpu, eager, DType::kFp32)) ==
        MatrixPath::kVectorStream);
  // Unaligned K: padded on the matrix unit (pad) or off it (fallback).
  CHECK(ChooseMatrixPath(k27, Context(gpu, inference, DType::kFp16)) == MatrixPath::kMatrixUnit);
  CHECK(ChooseMatrixPath(k27, Context(gpu, eager, DType::kFp16)) == MatrixPath::kVectorStream);
  // A fully connected layer is the GEMM library's: it pads, whatever the convolutions do.
  {
    models::GraphInfo info;
    info.model = "fc27";
    info.batch = 2;
    info.dtype = DType::kFp16;
    models::GraphBuilder b(info);
    b.FullyConnected(b.Input(1, 64, 27), 196);
    const PreparedOp fc27 = LastOp(b.Finish());
    REQUIRE(fc27.gemm.k == 27);
    CHECK(ChooseMatrixPath(fc27, Context(gpu, eager, DType::kFp16)) == MatrixPath::kMatrixUnit);
  }
  // Depthwise: where the stack says; never a tiled CUDA-core GEMM.
  CHECK(ChooseMatrixPath(Depthwise(DType::kBf16), Context(tpu, fusing, DType::kBf16)) ==
        MatrixPath::kMatrixUnit);
  StackProfile vector_dw = fusing;
  vector_dw.depthwise_unit = ExecUnit::kVector;
  CHECK(ChooseMatrixPath(Depthwise(DType::kBf16), Context(tpu, vector_dw, DType::kBf16)) ==
        MatrixPath::kVectorStream);
  CHECK(ChooseMatrixPath(Depthwise(DType::kFp16), Context(gpu, inference, DType::kFp16)) ==
        MatrixPath::kVectorStream);
  // Grouped convolutions: where grouped_conv_unit says.
  StackProfile vector_grouped = fusing;
  vector_grouped.grouped_conv_unit = ExecUnit::kVector;
  CHECK(ChooseMatrixPath(GroupedConv(DType::kBf16), Context(tpu, vector_grouped, DType::kBf16)) ==
        MatrixPath::kVectorStream);
}

TEST_CASE("MapGemm: grouped mapping, alignment padding and Winograd") {
  const AcceleratorSpec tpu = testing::SystolicTestChip();
  const AcceleratorSpec gpu = testing::TensorCoreTestChip();
  const PreparedOp grouped = GroupedConv(DType::kBf16);
  REQUIRE(grouped.gemm.groups == 32);
  REQUIRE(grouped.gemm.k == 36);  // 3 x 3 x 4 input channels per group
  REQUIRE(grouped.gemm.n == 4);
  StackProfile stack = testing::FusingTestStack();
  const auto map = [&](const StackProfile& s) {
    return MapGemm(grouped, Context(tpu, s, DType::kBf16), MatrixPath::kMatrixUnit);
  };
  stack.grouped_conv_mapping = GroupedMapping::kExpanded;
  cost::MappedGemm m = map(stack);
  CHECK(m.gemm.k == int64_t{36} * 32);
  CHECK(m.gemm.n == int64_t{4} * 32);
  CHECK(m.gemm.groups == 1);
  CHECK(m.gemm.m == grouped.gemm.m);
  CHECK(m.serial_groups == 1);
  stack.grouped_conv_mapping = GroupedMapping::kPerGroup;
  m = map(stack);
  CHECK(m.gemm.k == 36);
  CHECK(m.gemm.n == 4);
  CHECK(m.gemm.groups == 1);
  CHECK(m.serial_groups == 32);
  stack.grouped_conv_mapping = GroupedMapping::kPacked;
  m = map(stack);
  CHECK(m.gemm.groups == 32);
  CHECK(m.serial_groups == 1);

  // K = 27 padded to 32 for the tensor cores; left alone off them.
  const PreparedOp k27 = LastOp(testing::ConvGraph(2, 8, 3, 30, 3, DType::kFp16));
  const cost::CostContext trt = Context(gpu, testing::InferenceTestStack(), DType::kFp16);
  m = MapGemm(k27, trt, MatrixPath::kMatrixUnit);
  CHECK(m.gemm.k == 32);
  CHECK(m.gemm.n == 32);
  m = MapGemm(k27, trt, MatrixPath::kVectorStream);
  CHECK(m.gemm.k == 27);
  CHECK(m.gemm.n == 30);

  // Winograd F(2x2, 3x3) on tiled CUDA cores: 16 GEMMs of N*28*28 x Cin x Cout for a 56x56 map.
  const PreparedOp conv3 = LastOp(testing::ConvGraph(4, 56, 64, 64, 3, DType::kFp32));
  REQUIRE(conv3.winograd_conv);
  const cost::CostContext fp32 = Context(gpu, testing::InferenceTestStack(), DType::kFp32);
  m = MapGemm(conv3, fp32, MatrixPath::kTiledCudaCores);
  CHECK(m.gemm.m == int64_t{4} * 28 * 28);
  CHECK(m.gemm.k == 64);
  CHECK(m.gemm.n == 64);
  CHECK(m.gemm.groups == 16);
  CHECK(MapGemm(conv3, fp32, MatrixPath::kVectorStream).gemm.k == int64_t{9} * 64);
}

TEST_CASE("CountMatrixCycles: systolic fill and drain, dtype passes, tensor-core waves") {
  AcceleratorSpec tpu = testing::SystolicTestChip();
  tpu.cores = 1;
  tpu.matrix_unit.units_per_core = 1;
  const cost::Gemm gemm{.m = 128, .k = 128, .n = 128, .groups = 1};
  const StackProfile fusing = testing::FusingTestStack();
  // load 128 + (max(M, 128) + fill 128 + drain 128) = 512 cycles; fp32 takes 3 passes.
  const cost::MatrixCycles bf16 =
      CountMatrixCycles(gemm, Context(tpu, fusing, DType::kBf16), MatrixPath::kMatrixUnit);
  CHECK(bf16.cycles == 512);
  CHECK(bf16.utilization == Approx(128.0 / 512));
  const cost::MatrixCycles fp32 =
      CountMatrixCycles(gemm, Context(tpu, fusing, DType::kFp32), MatrixPath::kMatrixUnit);
  CHECK(fp32.cycles == Approx(3 * 512));
  CHECK(fp32.utilization == Approx(128.0 / 512 / 3));
  CHECK(CountMatrixCycles(gemm, Context(tpu, fusing, DType::kBf16), MatrixPath::kVectorStream)
            .cycles == 0);

  // Tensor cores (eager stack: the accelerator's own 128x128 tile, no split-K): 4 K steps of
  // 32 * 128*128 / (8 x 64) = 1024 cycles.
  const AcceleratorSpec gpu = testing::TensorCoreTestChip();
  StackProfile eager = testing::EagerTestStack();
  CHECK(
      CountMatrixCycles(gemm, Context(gpu, eager, DType::kFp16), MatrixPath::kMatrixUnit).cycles ==
      4096);
  // 81 tiles on 80 SMs: two waves.
  const cost::Gemm tall{.m = int64_t{81} * 128, .k = 128, .n = 128, .groups = 1};
  CHECK(
      CountMatrixCycles(tall, Context(gpu, eager, DType::kFp16), MatrixPath::kMatrixUnit).cycles ==
      8192);
  // Tiled CUDA cores at 64 fp32 FMAs per cycle per SM: 4 steps of 32 * 128*128 / 64 cycles.
  eager.gemm_tiled_cuda_cores = true;
  CHECK(CountMatrixCycles(gemm, Context(gpu, eager, DType::kFp32), MatrixPath::kTiledCudaCores)
            .cycles == 4.0 * 32 * 128 * 128 / 64);
}

TEST_CASE(
    "grouped_conv_min_tile: a grouped convolution's GEMM selects narrow tiles, dense GEMMs keep "
    "theirs") {
  // 32 groups of M = 80 x 128, K = 72, N = 8 on 80 SMs of 512 fp16 MACs per cycle.
  const AcceleratorSpec gpu = testing::TensorCoreTestChip();
  StackProfile eager = testing::EagerTestStack();
  REQUIRE(eager.gemm_min_tile == 0);
  const cost::Gemm grouped{.m = int64_t{80} * 128, .k = 72, .n = 8, .groups = 32};
  const auto cycles = [&](const StackProfile& s, bool is_grouped) {
    return CountMatrixCycles(grouped, Context(gpu, s, DType::kFp16), MatrixPath::kMatrixUnit, false,
                             is_grouped ? s.grouped_conv_min_tile : 0)
        .cycles;
  };
  // The accelerator's 128 x 128 tile pads every group to 128 columns: 32 waves of 3 K steps of
  // 32 x 128*128 / 512 cycles.
  const double padded = 32.0 * 3 * 32 * 128 * 128 / 512;
  CHECK(cycles(eager, true) == Approx(padded));
  eager.grouped_conv_min_tile = 32;
  CHECK(cycles(eager, false) == Approx(padded));  // a dense GEMM keeps the accelerator's tile
  // 128 x 32 tiles: the same 2560 tiles (32 waves), each K step bound by its operands,
  // (128 + 32) x 2 bytes at the L2's 2500 GB/s x 0.8 over 80 SMs at 1.53 GHz.
  const double per_sm = 2500e9 * 0.8 / (1.53e9 * 80);
  const double narrow = 32.0 * 3 * 32 * (160.0 * 2 / per_sm);
  CHECK(cycles(eager, true) == Approx(narrow));
  CHECK(narrow < 0.7 * padded);
  // Where every GEMM selects its tile (gemm_min_tile), grouped_conv_min_tile overrides it for
  // grouped convolutions only.
  eager.gemm_min_tile = 64;
  eager.grouped_conv_min_tile = 0;
  const double at64 = cycles(eager, true);
  CHECK(at64 > narrow);
  eager.grouped_conv_min_tile = 32;
  CHECK(cycles(eager, true) == Approx(narrow));
  CHECK(cycles(eager, false) == Approx(at64));

  // Through the op: a 32-group convolution's matrix time falls, a dense one's does not move.
  // 8 channels per group: aligned for the tensor cores.
  const PreparedOp op = LastOp(testing::GroupedConvGraph(16, 14, 256, 32, DType::kFp16));
  REQUIRE(op.gemm.n == 8);
  const PreparedOp dense = LastOp(testing::ConvGraph(2, 14, 128, 128, 3, DType::kFp16));
  StackProfile plain = testing::EagerTestStack();
  StackProfile narrow_groups = plain;
  narrow_groups.grouped_conv_min_tile = 32;
  const auto matrix_s = [&](const PreparedOp& o, const StackProfile& s) {
    return cost::ComputeOpWork(o, Context(gpu, s, DType::kFp16)).matrix_s;
  };
  REQUIRE(matrix_s(op, plain) > 0);
  CHECK(matrix_s(op, narrow_groups) < 0.7 * matrix_s(op, plain));
  REQUIRE(matrix_s(dense, plain) > 0);
  CHECK(matrix_s(dense, narrow_groups) == matrix_s(dense, plain));
}

TEST_CASE(
    "grouped_conv_backward_min_tile: a grouped convolution's gradients have their own tile rule") {
  // A dense convolution, then a 32-group one (8 channels per group): the grouped convolution's
  // input needs a gradient, so it gets both a data and a weight gradient, each a 32-group GEMM
  // 8 columns wide.
  models::GraphBuilder b(testing::GraphInfoOf("dense-then-grouped", 16, 14, DType::kFp16));
  models::GraphBuilder::ConvOptions grouped_options;
  grouped_options.groups = 32;
  const int dense = b.Conv(b.Input(14, 14, 256), 256, 1, 1);
  const int grouped = b.Conv(dense, 256, 3, grouped_options);
  const models::Graph g = b.Finish();
  const PreparedGraph p = Prepare(g);
  const TrainGraph t = BuildTrainGraph(p, Optimizer::kSgdMomentum);
  const std::string name = g.op(grouped).name;
  const PreparedOp& fwd = testing::Named(t, name);
  const PreparedOp& dgrad = testing::Named(t, name + "/dgrad");
  const PreparedOp& wgrad = testing::Named(t, name + "/wgrad");
  CHECK_FALSE(fwd.backward);
  CHECK(dgrad.backward);
  CHECK(wgrad.backward);
  REQUIRE(dgrad.gemm.groups == 32);
  REQUIRE(wgrad.gemm.groups == 32);

  const AcceleratorSpec gpu = testing::TensorCoreTestChip();
  const StackProfile plain = testing::EagerTestStack();
  const auto matrix_s = [&](const PreparedOp& o, const StackProfile& s) {
    return cost::ComputeOpWork(o, Context(gpu, s, DType::kFp16)).matrix_s;
  };
  // Narrow forward tiles leave the gradients padded ...
  StackProfile forward_only = plain;
  forward_only.grouped_conv_min_tile = 32;
  CHECK(matrix_s(fwd, forward_only) < 0.7 * matrix_s(fwd, plain));
  for (const PreparedOp* grad : {&dgrad, &wgrad}) {
    REQUIRE(matrix_s(*grad, plain) > 0);
    CHECK(matrix_s(*grad, forward_only) == matrix_s(*grad, plain));
  }
  // ... and the gradients' own rule narrows them, without touching the forward kernel.
  StackProfile both = forward_only;
  both.grouped_conv_backward_min_tile = 32;
  CHECK(matrix_s(fwd, both) == matrix_s(fwd, forward_only));
  CHECK(matrix_s(dgrad, both) < 0.7 * matrix_s(dgrad, plain));
  CHECK(matrix_s(wgrad, both) < matrix_s(wgrad, plain));
  StackProfile backward_only = plain;
  backward_only.grouped_conv_backward_min_tile = 32;
  CHECK(matrix_s(fwd, backward_only) == matrix_s(fwd, plain));
  CHECK(matrix_s(dgrad, backward_only) == matrix_s(dgrad, both));
  // The dense convolution's gradient is not a grouped GEMM: no rule of the two moves it.
  const PreparedOp& dense_wgrad = testing::Named(t, g.op(dense).name + "/wgrad");
  CHECK_FALSE(dense_wgrad.gemm.groups > 1);
  CHECK(matrix_s(dense_wgrad, both) == matrix_s(dense_wgrad, plain));
}

TEST_CASE(
    "nchw_conv_transposes: layout transposes around an NCHW stack's tensor-core convolutions") {
  // A 3x3 convolution, a 1x1 stride-1 one (a GEMM on NCHW directly) and a depthwise one, batch 4
  // of 28x28, fp16: every tensor is 4*28*28*C*2 bytes.
  models::GraphBuilder b(testing::GraphInfoOf("transposes", 4, 28, DType::kFp16));
  const int spatial = b.Conv(b.Input(28, 28, 64), 128, 3);
  const int pointwise = b.Conv(spatial, 256, 1);
  b.DepthwiseConv(pointwise, 3, 1);
  const models::Graph g = b.Finish();
  const PreparedGraph p = Prepare(g);
  const PreparedOp& conv3 = p.op_by_id(spatial);
  const PreparedOp& conv1 = p.op_by_id(pointwise);
  const PreparedOp& dw = p.ops.back();
  REQUIRE(conv1.pointwise_conv);
  REQUIRE(dw.cls == cost::OpClass::kDepthwise);
  const double pixels = 4.0 * 28 * 28 * 2;  // bytes per channel
  const AcceleratorSpec gpu = testing::TensorCoreTestChip();
  StackProfile stack = testing::EagerTestStack();
  REQUIRE(stack.layout == "nchw");
  const auto work = [&](const PreparedOp& o, const AcceleratorSpec& spec) {
    return cost::ComputeOpWork(o, Context(spec, stack, DType::kFp16));
  };
  // One kernel of its own: the group's cost.
  const auto group = [&](const PreparedOp& o) {
    const cost::CostContext ctx = Context(gpu, stack, DType::kFp16);
    cost::GroupTerms terms;
    cost::AddToGroup(terms, p, o, cost::ComputeOpWork(o, ctx), -1, ctx);
    return cost::FinishGroup(terms, ctx);
  };

  // Off (the default): no transposes anywhere.
  for (const PreparedOp* o : {&conv3, &conv1, &dw}) {
    CHECK(work(*o, gpu).transpose_bytes == 0);
    CHECK(work(*o, gpu).transpose_kernels == 0);
  }
  const cost::GroupCost plain3 = group(conv3);

  // Spatial: the 3x3 convolution's input (64 channels) and output (128) each read and written
  // once more; the pointwise and the depthwise convolutions untouched.
  stack.nchw_conv_transposes = cost::LayoutTransposes::kSpatial;
  CHECK(work(conv3, gpu).transpose_bytes == Approx(2 * (64 + 128) * pixels));
  CHECK(work(conv3, gpu).transpose_kernels == 2);
  CHECK(work(conv1, gpu).transpose_bytes == 0);
  CHECK(work(dw, gpu).transpose_bytes == 0);
  // Serial with the convolution: their own HBM time and two launches on top of its cost.
  const cost::GroupCost t3 = group(conv3);
  const CalibrationParams calib;
  const double transpose_s = 2 * (64 + 128) * pixels / (900e9 * calib.memory_efficiency);
  const double launch_s = 10e-6 * calib.kernel_overhead_scale;
  CHECK(t3.hbm_bytes == Approx(plain3.hbm_bytes + 2 * (64 + 128) * pixels));
  CHECK(t3.memory_s == Approx(plain3.memory_s + transpose_s));
  CHECK(t3.overhead_s == Approx(plain3.overhead_s + 2 * launch_s));
  CHECK(t3.total_s == Approx(plain3.total_s + transpose_s + 2 * launch_s));
  CHECK(t3.matrix_s == plain3.matrix_s);

  // All: the pointwise convolution too (input 128, output 256 channels); never the depthwise one,
  // which runs on the vector unit.
  stack.nchw_conv_transposes = cost::LayoutTransposes::kAll;
  CHECK(work(conv1, gpu).transpose_bytes == Approx(2 * (128 + 256) * pixels));
  CHECK(work(dw, gpu).transpose_bytes == 0);
  // Only tensor cores compute in NHWC: a systolic array's convolution has no transposes.
  CHECK(work(conv3, testing::SystolicTestChip()).transpose_bytes == 0);
}

TEST_CASE("inter-kernel reuse: an input still resident in L2 is read at L2 bandwidth") {
  CHECK(cost::ResidentInputBytes(100, 0, 300) == 100);   // fits: all resident
  CHECK(cost::ResidentInputBytes(100, 250, 300) == 50);  // evicted in part by later writes
  CHECK(cost::ResidentInputBytes(500, 0, 300) == 300);   // larger than L2: the last-written share
  CHECK(cost::ResidentInputBytes(100, 400, 300) == 0);   // evicted
  // bn -> relu -> add(relu, bn), one kernel each; every tensor is S = 56*56*64 fp16 bytes.
  models::GraphInfo info;
  info.model = "eager-chain";
  info.batch = 1;
  info.dtype = DType::kFp16;
  models::GraphBuilder b(info);
  const int bn = b.BatchNorm(b.Input(56, 56, 64));
  b.Add(b.Act(bn, models::Activation::kRelu), bn);
  const models::Graph g = b.Finish();
  const PreparedGraph p = Prepare(g);
  const double s = 56.0 * 56 * 64 * 2;
  const CalibrationParams calib;
  StackProfile stack = testing::InferenceTestStack();
  // Costs of the relu and the add, each its own kernel.
  auto costs = [&](const AcceleratorSpec& spec) {
    const cost::CostContext ctx = MakeCostContext(spec, stack, calib, DType::kFp16);
    std::vector<cost::GroupTerms> terms(2);
    std::vector<cost::GroupCost> out;
    for (int k = 0; k < 2; ++k) {
      const PreparedOp& op = p.ops[p.ops.size() - 2 + static_cast<size_t>(k)];
      cost::AddToGroup(terms[static_cast<size_t>(k)], p, op, cost::ComputeOpWork(op, ctx), -1, ctx);
      out.push_back(cost::FinishGroup(terms[static_cast<size_t>(k)], ctx));
    }
    return out;
  };
  const double hbm = 900e9 * calib.memory_efficiency;
  const double l2 = 2500e9 * calib.onchip_efficiency;
  SECTION("off: every input from HBM") {
    const auto c = costs(testing::TensorCoreTestChip());
    CHECK(c[0].hbm_bytes == Approx(2 * s));
    CHECK(c[0].onchip_bytes == 0);
    CHECK(c[1].hbm_bytes == Approx(3 * s));
  }
  stack.inter_kernel_reuse = true;
  SECTION("6 MiB L2 (3 MiB usable): both inputs fit and are read at L2 bandwidth") {
    const auto c = costs(testing::TensorCoreTestChip());
    CHECK(c[0].hbm_bytes == Approx(s));  // the output write only
    CHECK(c[0].onchip_bytes == Approx(s));
    CHECK(c[0].memory_s == Approx(s / hbm + s / l2));
    // relu's output (written just before) and bn's (s bytes written since) both still fit.
    CHECK(c[1].onchip_bytes == Approx(2 * s));
    CHECK(c[1].memory_s == Approx(s / hbm + 2 * s / l2));
  }
  SECTION("512 KiB L2 (256 KiB usable): the resident share only, the rest from DRAM") {
    const double u = 256.0 * 1024;
    REQUIRE(u < s);
    const auto c = costs(testing::TensorCoreTestChip(80, 1.53, 900, 512, 2500));
    CHECK(c[0].onchip_bytes == Approx(u));
    CHECK(c[0].hbm_bytes == Approx(2 * s - u));
    CHECK(c[0].memory_s == Approx((2 * s - u) / hbm + u / l2));
    // relu's output: the last u bytes resident; bn's: evicted by relu's s bytes (s > u).
    CHECK(c[1].onchip_bytes == Approx(u));
    CHECK(c[1].hbm_bytes == Approx(3 * s - u));
  }
}

TEST_CASE("autocast: fp32 norms, promotions and the casts before matrix kernels") {
  // x -> layer norm -> fc, and an fc output plus an fp32 parameter (a position embedding) or
  // a scalar: under autocast the norm writes fp32 (4 bytes an element), the fc first casts it
  // (4 read, 2 written) in a kernel of its own, the parameter promotes the add, the scalar not.
  models::GraphInfo info;
  info.model = "amp";
  info.batch = 4;
  info.dtype = DType::kFp16;
  models::GraphBuilder b(info);
  const int x = b.Input(1, 64, 128);
  const int norm = b.LayerNorm(x);
  const int fc = b.FullyConnected(norm, 128);
  const int promoted = b.Add(fc, b.Constant(models::Shape{1, 1, 64, 128}));
  const int scaled = b.Mul(fc, b.Constant(models::Shape{1, 1, 1, 1}, false));
  b.Add(promoted, scaled);
  const models::Graph g = b.Finish();
  const PreparedGraph p = Prepare(g);
  REQUIRE(p.has_autocast());
  const double elements = 4.0 * 64 * 128;
  const PreparedOp& n = p.op_by_id(norm);
  CHECK(n.amp_fp32);
  CHECK(n.amp_out_bytes == 4 * elements);
  CHECK(n.out_bytes == 2 * elements);
  const PreparedOp& f = p.op_by_id(fc);
  CHECK_FALSE(f.amp_fp32);
  CHECK(f.amp_cast_kernels == 1);
  CHECK(f.amp_cast_bytes == 6 * elements);
  CHECK(p.op_by_id(promoted).amp_fp32);
  CHECK_FALSE(p.op_by_id(scaled).amp_fp32);
  // The stack decides: the same fc costs one cast kernel more under autocast.
  const AcceleratorSpec gpu = testing::TensorCoreTestChip();
  StackProfile eager = testing::EagerTestStack();
  const cost::OpWork plain = cost::ComputeOpWork(f, Context(gpu, eager, DType::kFp16));
  eager.autocast = true;
  const cost::CostContext amp = Context(gpu, eager, DType::kFp16);
  const cost::OpWork cast = cost::ComputeOpWork(f, amp);
  CHECK(cast.transpose_kernels == plain.transpose_kernels + 1);
  CHECK(cast.transpose_bytes == Approx(plain.transpose_bytes + 6 * elements));
  // ... and the norm writes twice the bytes.
  cost::GroupTerms terms;
  cost::AddToGroup(terms, p, n, cost::ComputeOpWork(n, amp), -1, amp);
  CHECK(terms.hbm_bytes == Approx(2 * elements + 4 * elements + n.weight_bytes));
  // An fp32 run has no autocast: its tensors are fp32 already.
  CHECK_FALSE(Context(gpu, eager, DType::kFp32).autocast);
}

}  // namespace
}  // namespace dcnas::sim
