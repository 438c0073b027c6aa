// Closed-form checks of the cost model through the engine, on accelerators and stacks built in
// code (tests/sim/test_util.h).
#include "sim/engine.h"

#include <catch2/catch.hpp>
#include <cmath>
#include <vector>

#include "models/zoo/zoo.h"
#include "sim/cost/combine.h"
#include "sim/cost/op_cost.h"
#include "sim/cost_context.h"
#include "tests/sim/test_util.h"

namespace dcnas::sim {
namespace {

using models::DType;

CalibrationParams Ideal() {
  return DefaultCalibration({{"params.matrix_efficiency", "1"},
                             {"params.vector_efficiency", "1"},
                             {"params.memory_efficiency", "1"},
                             {"params.overlap", "1"}});
}

TEST_CASE("a memory-bound elementwise op costs bytes / bandwidth") {
  const AcceleratorSpec spec = testing::SystolicTestChip();
  StackProfile stack = testing::FusingTestStack();
  stack.kernel_overhead_us = 0;
  const CalibrationParams calib = Ideal();
  for (DType dt : {DType::kFp32, DType::kBf16}) {
    const models::Graph g = testing::ReluGraph(64, 56, 128, dt);
    const Report r = Simulate(g, spec, stack, calib);
    const double bytes = 2.0 * 64 * 56 * 56 * 128 * models::DTypeBytes(dt);
    CHECK(r.hbm_bytes == Approx(bytes));
    CHECK(r.latency_s == Approx(bytes / 900e9));
    CHECK(r.time_by_bound_s[static_cast<size_t>(Bound::kMemory)] == Approx(r.latency_s));
    CHECK(r.num_kernels == 1);
  }
  // With memory efficiency 0.8 the same op takes 1/0.8 as long.
  const CalibrationParams c8 =
      DefaultCalibration({{"params.memory_efficiency", "0.8"}, {"params.overlap", "1"}});
  const models::Graph g = testing::ReluGraph(64, 56, 128, DType::kBf16);
  CHECK(Simulate(g, spec, stack, c8).latency_s ==
        Approx(2.0 * 64 * 56 * 56 * 128 * 2 / (0.8 * 900e9)));
}

TEST_CASE("a per-core streaming limit caps the achieved HBM bandwidth") {
  // c = cores x clock x beta / peak; e = (eta^-4 + c^-4)^(-1/4), a smooth minimum.
  CHECK(cost::AchievedMemoryEfficiency(0.9, 0, 1e11, 900e9) == 0.9);  // 0: no limit
  CHECK(cost::AchievedMemoryEfficiency(0.9, 4.5, 1e11, 0) == 0.9);    // no HBM peak
  CHECK(cost::AchievedMemoryEfficiency(0.5, 4.5, 1e11, 900e9) ==
        Approx(0.5 * 0.8408964));  // c = eta = 0.5: 2^(-1/4) of either
  CHECK(cost::AchievedMemoryEfficiency(0.9, 900, 1e11, 900e9) == Approx(0.9).epsilon(1e-6));
  CHECK(cost::AchievedMemoryEfficiency(0.9, 0.9, 1e11, 900e9) ==
        Approx(0.1).epsilon(1e-4));  // c = 0.1 << eta
  // 80 SMs at 1.53 GHz, 900 GB/s HBM: 4 bytes per SM-cycle stream 490 GB/s (c = 0.544).
  const AcceleratorSpec spec = testing::TensorCoreTestChip();
  REQUIRE(spec.cores == 80);
  StackProfile stack = testing::EagerTestStack();
  stack.kernel_overhead_us = 0;
  const models::Graph g = testing::ReluGraph(64, 56, 128, DType::kFp16);
  const double bytes = 2.0 * 64 * 56 * 56 * 128 * 2;
  CalibrationParams calib = Ideal();
  calib.memory_efficiency = 0.9;
  const double free_s = Simulate(g, spec, stack, calib).latency_s;
  CHECK(free_s == Approx(bytes / (0.9 * 900e9)));
  calib.core_stream_bytes_per_cycle = 4;
  const double c = 80 * 1.53e9 * 4 / 900e9;
  const double e = std::pow(std::pow(0.9, -4) + std::pow(c, -4), -0.25);
  REQUIRE(e == Approx(0.5272).epsilon(1e-3));
  CHECK(Simulate(g, spec, stack, calib).latency_s == Approx(bytes / (e * 900e9)));
  // Sixteen times the SMs: the same limit hardly binds and the DRAM is the bound again.
  AcceleratorSpec wide = spec;
  wide.cores = 80 * 16;
  CHECK(Simulate(g, wide, stack, calib).latency_s == Approx(free_s).epsilon(1e-3));
}

TEST_CASE("a 1x1 conv on one MXU matches the closed-form systolic cycles") {
  // One core, one 128x128 MXU at 1 GHz; K = N = 128, M = N*H*W.
  AcceleratorSpec spec = testing::SystolicTestChip();
  spec.cores = 1;
  spec.matrix_unit.units_per_core = 1;
  spec.clock_ghz = 1;
  const StackProfile stack = testing::FusingTestStack();
  const CalibrationParams calib = Ideal();
  const models::Graph g = testing::ConvGraph(8, 32, 128, 128, 1, DType::kBf16);
  const PreparedGraph p = Prepare(g);
  const cost::CostContext ctx = MakeCostContext(spec, stack, calib, DType::kBf16);
  const PreparedOp& conv = p.ops.back();
  const cost::OpWork w = cost::ComputeOpWork(conv, ctx);
  const double m = 8 * 32 * 32;
  CHECK(w.unit == cost::Unit::kMatrix);
  CHECK(w.matrix_s == Approx((m + 3 * 128) / 1e9));
  CHECK(w.utilization == Approx(m / (m + 384)));
  // With matrix efficiency 0.5 it takes twice as long.
  const CalibrationParams half = DefaultCalibration({{"params.matrix_efficiency", "0.5"}});
  const cost::CostContext ctx2 = MakeCostContext(spec, stack, half, DType::kBf16);
  CHECK(cost::ComputeOpWork(conv, ctx2).matrix_s == Approx(2 * (m + 384) / 1e9));
}

TEST_CASE("tensor-core alignment: pad or fall back to CUDA cores") {
  const AcceleratorSpec spec = testing::TensorCoreTestChip();
  const CalibrationParams calib = Ideal();
  // 3x3 conv on 3 input channels: K = 27, not a multiple of 8.
  const models::Graph g = testing::ConvGraph(128, 224, 3, 32, 3, DType::kFp16);
  const PreparedGraph p = Prepare(g);
  const PreparedOp& conv = p.ops.back();
  REQUIRE(conv.gemm.k == 27);
  const StackProfile pad = testing::InferenceTestStack();
  const cost::OpWork wp =
      cost::ComputeOpWork(conv, MakeCostContext(spec, pad, calib, DType::kFp16));
  CHECK(wp.unit == cost::Unit::kMatrix);
  // Padding K to 32 costs the same as a K = 32 GEMM.
  PreparedOp k32 = conv;
  k32.gemm.k = 32;
  CHECK(wp.matrix_s ==
        Approx(cost::ComputeOpWork(k32, MakeCostContext(spec, pad, calib, DType::kFp16)).matrix_s));
  const StackProfile fb = testing::EagerTestStack();
  const cost::OpWork wf = cost::ComputeOpWork(conv, MakeCostContext(spec, fb, calib, DType::kFp16));
  CHECK(wf.unit == cost::Unit::kVector);
  // CUDA cores: one FMA per MAC at 80 SMs x 64 lanes x 2 (half2) x 1.53 GHz.
  CHECK(wf.vector_s == Approx(conv.macs / (80.0 * 64 * 2 * 1.53e9)));
}

TEST_CASE("depthwise convolutions run where the stack says") {
  const AcceleratorSpec spec = testing::SystolicTestChip();
  const CalibrationParams calib = Ideal();
  models::GraphInfo info;
  info.model = "dw";
  info.batch = 16;
  info.dtype = DType::kBf16;
  models::GraphBuilder b(info);
  b.DepthwiseConv(b.Input(28, 28, 256), 3, 1);
  const models::Graph g = b.Finish();
  const PreparedGraph p = Prepare(g);
  REQUIRE(p.ops.back().cls == OpClass::kDepthwise);
  const cost::OpWork on_mxu = cost::ComputeOpWork(
      p.ops.back(), MakeCostContext(spec, testing::FusingTestStack(), calib, DType::kBf16));
  CHECK(on_mxu.unit == cost::Unit::kMatrix);
  CHECK(on_mxu.utilization < 0.1);
  StackProfile vector_dw = testing::FusingTestStack();
  vector_dw.depthwise_unit = ExecUnit::kVector;
  const cost::OpWork on_vpu =
      cost::ComputeOpWork(p.ops.back(), MakeCostContext(spec, vector_dw, calib, DType::kBf16));
  CHECK(on_vpu.unit == cost::Unit::kVector);
  CHECK(on_vpu.vector_s == Approx(p.ops.back().macs / (2 * 1024 * 0.94e9)));
}

TEST_CASE("swish costs several vector ops and a transcendental, relu one op") {
  const AcceleratorSpec spec = testing::SystolicTestChip();
  const StackProfile stack = testing::FusingTestStack();
  const CalibrationParams calib = Ideal();
  const cost::CostContext ctx = MakeCostContext(spec, stack, calib, DType::kBf16);
  models::GraphInfo info;
  info.model = "act";
  info.batch = 4;
  info.dtype = DType::kBf16;
  models::GraphBuilder b(info);
  const int x = b.Input(10, 10, 100);
  b.Act(x, models::Activation::kSwish);
  b.Act(x, models::Activation::kRelu);
  const models::Graph g = b.Finish();
  const PreparedGraph p = Prepare(g);
  const double n = 4 * 10 * 10 * 100;
  const double ops_per_s = 2 * 1024 * 0.94e9;
  const double tr_per_s = 2 * 128 * 0.94e9;
  const auto& swish = p.op_by_id(1);
  const auto& relu = p.op_by_id(2);
  CHECK(cost::ComputeOpWork(swish, ctx).vector_s == Approx(4 * n / ops_per_s + n / tr_per_s));
  CHECK(cost::ComputeOpWork(relu, ctx).vector_s == Approx(n / ops_per_s));
}

TEST_CASE("Combine: overlap, overhead and bound classification") {
  auto c = cost::Combine(3, 1, 2, 0, 1.0, 1.0);
  CHECK(c.total_s == 3);
  CHECK(c.bound == Bound::kMatrix);
  c = cost::Combine(3, 1, 2, 0, 0.0, 1.0);
  CHECK(c.total_s == 6);
  c = cost::Combine(1, 1, 2, 0.5, 0.5, 2.0);
  CHECK(c.total_s == Approx(2 * (2 + 0.5 * 2) + 0.5));
  CHECK(c.bound == Bound::kMemory);
  CHECK(cost::Combine(1, 1, 1, 5, 1.0, 1.0).bound == Bound::kOverhead);
  CHECK(cost::Combine(1, 4, 1, 0, 1.0, 1.0).bound == Bound::kVector);
}

TEST_CASE("LargestBound: the largest time names the bound, ties go to the earlier unit") {
  CHECK(cost::LargestBound(2, 1, 1, 1) == Bound::kMatrix);
  CHECK(cost::LargestBound(1, 2, 1, 1) == Bound::kVector);
  CHECK(cost::LargestBound(1, 1, 2, 1) == Bound::kMemory);
  CHECK(cost::LargestBound(1, 1, 1, 2) == Bound::kOverhead);
  CHECK(cost::LargestBound(1, 1, 1, 1) == Bound::kMatrix);
  CHECK(cost::LargestBound(0, 3, 3, 3) == Bound::kVector);
  CHECK(cost::LargestBound(0, 0, 3, 3) == Bound::kMemory);
}

namespace {
cost::GroupCost Kernel(double busy_s, double issue_s) {
  cost::GroupCost c;
  c.memory_s = busy_s;
  c.overhead_s = issue_s;
  c.total_s = busy_s + issue_s;
  c.bound = Bound::kMemory;
  return c;
}
}  // namespace

TEST_CASE("asynchronous launches: the host's issue interval shows only under short kernels") {
  // Long kernels: the host runs ahead; only the first issue is exposed.
  std::vector<cost::GroupCost> ks = {Kernel(5, 1), Kernel(0.2, 1), Kernel(0.2, 1), Kernel(3, 1)};
  cost::QueueLaunches(ks);
  CHECK(ks[0].overhead_s == Approx(1));  // issued at 1, runs 1..6
  CHECK(ks[1].overhead_s == Approx(0));  // issued at 2, waits in the queue, runs 6..6.2
  CHECK(ks[2].overhead_s == Approx(0));
  CHECK(ks[3].overhead_s == Approx(0));  // issued at 4, runs 6.4..9.4
  double total = 0;
  for (const auto& k : ks) total += k.total_s;
  CHECK(total == Approx(1 + 5 + 0.2 + 0.2 + 3));
  CHECK(ks[1].bound == Bound::kMemory);
  // Short kernels: the device waits for the host; the end is the issues plus the last kernel.
  ks = {Kernel(0.2, 1), Kernel(0.2, 1), Kernel(0.2, 1), Kernel(0.2, 1)};
  cost::QueueLaunches(ks);
  total = 0;
  for (const auto& k : ks) total += k.total_s;
  CHECK(total == Approx(4 * 1 + 0.2));
  CHECK(ks[0].overhead_s == Approx(1));
  CHECK(ks[2].overhead_s == Approx(0.8));  // ended at 2.2, the next is issued at 3
  CHECK(ks[2].bound == Bound::kOverhead);
  // A long kernel lets the host build a queue that the short ones after it drain.
  ks = {Kernel(0.5, 1), Kernel(4, 1),   Kernel(0.5, 1),
        Kernel(0.5, 1), Kernel(0.5, 1), Kernel(0.5, 1)};
  cost::QueueLaunches(ks);
  // Kernel 1, issued at 2, runs 2..6 while kernels 2-5 are issued at 3..6; they run back to back
  // until 8 with no wait.
  total = 0;
  for (const auto& k : ks) total += k.total_s;
  CHECK(total == Approx(8));
  CHECK(ks[1].overhead_s == Approx(0.5));
  for (size_t i = 2; i < ks.size(); ++i) CHECK(ks[i].overhead_s == Approx(0));
  // Unequal issue times: a slow issue (3) after a fast one (0.5). Issued at 0.5, 3.5, 4;
  // runs 0.5..1.5, waits 2 for its issue and runs 3.5..4, then 4..6.
  ks = {Kernel(1, 0.5), Kernel(0.5, 3), Kernel(2, 0.5)};
  cost::QueueLaunches(ks);
  CHECK(ks[0].overhead_s == Approx(0.5));
  CHECK(ks[1].overhead_s == Approx(2));
  CHECK(ks[2].overhead_s == Approx(0));
  CHECK(ks[0].total_s + ks[1].total_s + ks[2].total_s == Approx(6));
}

TEST_CASE("asynchronous launches through the engine: never slower, overheads hidden") {
  const AcceleratorSpec spec = testing::TensorCoreTestChip();
  StackProfile stack = testing::EagerTestStack();  // one kernel per op: conv, BN, relu
  const CalibrationParams calib = Ideal();
  const models::Graph g = testing::ConvGraph(128, 56, 64, 64, 3, DType::kFp16, true);
  const Report serial = Simulate(g, spec, stack, calib);
  REQUIRE(serial.num_kernels == 3);
  double busy = 0;
  for (const auto& gr : serial.groups) busy += gr.time.total_s - gr.time.overhead_s;
  const double h = stack.kernel_overhead_us * 1e-6;
  CHECK(serial.latency_s == Approx(busy + 3 * h));
  stack.async_launch = true;
  const Report queued = Simulate(g, spec, stack, calib);
  double sum = 0;
  for (const auto& gr : queued.groups) sum += gr.time.total_s;
  CHECK(sum == Approx(queued.latency_s));
  CHECK(queued.latency_s <= serial.latency_s);
  CHECK(queued.latency_s >= busy + h);
  // Each kernel of this batch outlasts 10 us: only the first launch shows.
  for (const auto& gr : queued.groups) REQUIRE(gr.time.total_s - gr.time.overhead_s > h);
  CHECK(queued.latency_s == Approx(busy + h));
  CHECK(queued.time.overhead_s == Approx(h));
  // A host slower than every kernel: the issues set the pace, plus the last kernel.
  stack.kernel_overhead_us = 1e5;
  const Report host_bound = Simulate(g, spec, stack, calib);
  CHECK(host_bound.latency_s == Approx(3 * 0.1 + (queued.groups.back().time.total_s -
                                                  queued.groups.back().time.overhead_s)));
  CHECK(host_bound.time_by_bound_s[static_cast<size_t>(Bound::kOverhead)] > 0.2);
}

TEST_CASE("fused intermediates in registers cost no on-chip or HBM traffic") {
  const AcceleratorSpec spec = testing::TensorCoreTestChip();
  StackProfile stack = testing::FusingTestStack();
  stack.kernel_overhead_us = 0;
  const CalibrationParams calib = Ideal();
  // conv -> BN -> relu in one kernel: two intermediates of n*h*w*c fp16 elements each.
  const models::Graph g = testing::ConvGraph(64, 28, 64, 64, 1, DType::kFp16, true);
  const Report staged = Simulate(g, spec, stack, calib);
  REQUIRE(staged.num_kernels == 1);
  const double intermediate = 64.0 * 28 * 28 * 64 * 2;
  const GroupReport& s = staged.groups.at(0);
  stack.intermediates_in_registers = true;
  const Report regs = Simulate(g, spec, stack, calib);
  REQUIRE(regs.num_kernels == 1);
  // In registers: only the input, the output (each the size of an intermediate) and the weights.
  CHECK(regs.groups.at(0).onchip_bytes == 0);
  CHECK(regs.hbm_bytes == Approx(2 * intermediate).epsilon(1e-3));
  // Staged: each intermediate written and read once in the holding level (one image's, 100 KB,
  // fits in this chip's usable L2); HBM sees the same input, output and weights.
  CHECK(s.onchip_bytes == Approx(2 * 2 * intermediate));
  CHECK(staged.hbm_bytes == Approx(regs.hbm_bytes));
  // An L2 too small for one image's intermediate: staged through HBM, unless in registers.
  AcceleratorSpec tiny = spec;
  for (auto& level : tiny.on_chip) level.capacity_kib = 64;
  stack.intermediates_in_registers = false;
  const Report spilled = Simulate(g, tiny, stack, calib);
  CHECK(spilled.groups.at(0).onchip_bytes == 0);
  CHECK(spilled.hbm_bytes == Approx(regs.hbm_bytes + 2 * 2 * intermediate));
  stack.intermediates_in_registers = true;
  CHECK(Simulate(g, tiny, stack, calib).hbm_bytes == Approx(regs.hbm_bytes));
  CHECK(regs.time.memory_s < staged.time.memory_s);
  CHECK(regs.latency_s <= staged.latency_s);
  CHECK(regs.time.matrix_s == Approx(staged.time.matrix_s));
  CHECK(regs.time.vector_s == Approx(staged.time.vector_s));
}

TEST_CASE("weights that do not fit on chip re-stream the activations") {
  CHECK(cost::KernelHbmBytes(100, 50, 10, 64) == 160);
  CHECK(cost::KernelHbmBytes(100, 150, 10, 64) == 100 * 3 + 150 + 10);
}

TEST_CASE("the report embeds what was simulated") {
  const SimSetup s = LoadSetup("tpu-v3", "", "",
                               {{"hbm.bandwidth_gbps", "1800"},
                                {"stack.kernel_overhead_us", "1"},
                                {"calibration.overlap", "0.5"}});
  CHECK(s.stack.name == "xla-tpu");
  CHECK(s.spec.hbm_bandwidth_gbps == 1800);
  CHECK(s.stack.kernel_overhead_us == 1);
  CHECK(s.calibration.overlap == 0.5);
  const models::Graph g = models::BuiltinModels().Build("efficientnet-b0", {224, 8});
  const Report r = Simulate(g, s.spec, s.stack, s.calibration);
  CHECK(r.model == "efficientnet-b0");
  CHECK(r.stack == "xla-tpu");
  CHECK(r.overrides.size() == 3);
  CHECK_FALSE(r.tool_version.empty());
  CHECK(r.blocks.front().block == "stem");
  CHECK(r.blocks.back().block == "head");
  double sum = 0;
  for (const auto& o : r.ops) sum += o.time.total_s;
  CHECK(sum == Approx(r.latency_s));
  double blocks = 0;
  for (const auto& b : r.blocks) blocks += b.time.total_s;
  CHECK(blocks == Approx(r.latency_s));
  double bounds = 0;
  for (double t : r.time_by_bound_s) bounds += t;
  CHECK(bounds == Approx(r.latency_s));
  const std::string json = ReportToJson(r);
  CHECK(json.find("\"latency_ms\"") != std::string::npos);
  CHECK(json.find("\"throughput_img_per_s\"") != std::string::npos);
  CHECK(json.find("\"intensity_flop_per_byte\"") != std::string::npos);
}

TEST_CASE("per-group grouped convolutions: one GEMM and one launch per group") {
  const AcceleratorSpec spec = testing::SmallTensorCoreTestChip();
  const CalibrationParams calib = Ideal();
  const models::Graph g = testing::GroupedConvGraph(1, 56, 128, 32, DType::kFp16);
  const PreparedGraph p = Prepare(g);
  const PreparedOp& conv = p.ops.back();
  REQUIRE(conv.gemm.groups == 32);
  const StackProfile per_group = testing::InferenceTestStack();
  REQUIRE(per_group.grouped_conv_mapping == GroupedMapping::kPerGroup);
  const cost::CostContext ctx = MakeCostContext(spec, per_group, calib, DType::kFp16);
  const cost::OpWork w = cost::ComputeOpWork(conv, ctx);
  CHECK(w.extra_kernels == 31);
  PreparedOp one = conv;
  one.gemm.groups = 1;
  CHECK(w.matrix_s == Approx(32 * cost::ComputeOpWork(one, ctx).matrix_s));
  cost::GroupTerms t;
  cost::AddToGroup(t, p, conv, w, -1, ctx);
  CHECK(cost::FinishGroup(t, ctx).overhead_s == Approx(32 * ctx.kernel_overhead_s));
  StackProfile packed = testing::InferenceTestStack();
  packed.grouped_conv_mapping = GroupedMapping::kPacked;
  const cost::OpWork wp =
      cost::ComputeOpWork(conv, MakeCostContext(spec, packed, calib, DType::kFp16));
  CHECK(wp.extra_kernels == 0);
  CHECK(wp.matrix_s < w.matrix_s);
}

TEST_CASE("Winograd F(2x2,3x3) cuts the CUDA-core MACs of a 3x3 stride-1 conv by 2.25") {
  const AcceleratorSpec spec = testing::TensorCoreTestChip();
  const CalibrationParams calib = Ideal();
  // 3x3 conv, 56x56x256 -> 256 at batch 32: fp32 runs on CUDA cores (no fp32 tensor cores).
  const models::Graph g = testing::ConvGraph(32, 56, 256, 256, 3, DType::kFp32);
  const PreparedGraph p = Prepare(g);
  const PreparedOp& conv = p.ops.back();
  REQUIRE(conv.winograd_conv);
  StackProfile direct = testing::InferenceTestStack();
  direct.winograd_tile = 0;
  const StackProfile wino = testing::InferenceTestStack();
  REQUIRE(wino.winograd_tile == 2);
  const double t_direct =
      cost::ComputeOpWork(conv, MakeCostContext(spec, direct, calib, DType::kFp32)).vector_s;
  const double t_wino =
      cost::ComputeOpWork(conv, MakeCostContext(spec, wino, calib, DType::kFp32)).vector_s;
  // Many full waves either way: the ratio is the MAC ratio 9 * 2^2 / 4^2 up to tile rounding.
  CHECK(t_direct / t_wino == Approx(2.25).epsilon(0.05));
}

TEST_CASE("Winograd on streamed CUDA cores (no tiling) divides the MACs by 9m^2/(m+2)^2") {
  const AcceleratorSpec spec = testing::TensorCoreTestChip();
  const CalibrationParams calib = Ideal();
  StackProfile direct = testing::InferenceTestStack();
  direct.gemm_tiled_cuda_cores = false;  // the eager stack's streamed CUDA-core convolutions
  direct.winograd_tile = 0;
  StackProfile f2 = direct;
  f2.winograd_tile = 2;
  StackProfile f4 = direct;
  f4.winograd_tile = 4;
  auto vector_s = [&](const PreparedOp& op, const StackProfile& stack) {
    return cost::ComputeOpWork(op, MakeCostContext(spec, stack, calib, DType::kFp32)).vector_s;
  };
  // A 3x3 stride-1 dense conv without bias: the vector time is the MACs' alone, so the ratios are
  // exact: 36/16 = 2.25 for F(2x2,3x3), 144/36 = 4 for F(4x4,3x3).
  const PreparedGraph dense = Prepare(testing::ConvGraph(32, 56, 64, 64, 3, DType::kFp32));
  const PreparedOp& conv = dense.ops.back();
  REQUIRE(conv.winograd_conv);
  REQUIRE(conv.flops == Approx(2.0 * conv.macs));
  CHECK(vector_s(conv, direct) / vector_s(conv, f2) == Approx(2.25));
  CHECK(vector_s(conv, direct) / vector_s(conv, f4) == Approx(4.0));
  // A 1x1 convolution is not Winograd-eligible: unchanged.
  const PreparedGraph pointwise = Prepare(testing::ConvGraph(32, 56, 64, 64, 1, DType::kFp32));
  REQUIRE_FALSE(pointwise.ops.back().winograd_conv);
  CHECK(vector_s(pointwise.ops.back(), f4) == Approx(vector_s(pointwise.ops.back(), direct)));
}

}  // namespace
}  // namespace dcnas::sim
