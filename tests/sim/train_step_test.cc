// Training steps: backward op shapes and FLOPs, the all-reduce closed forms, scaling over chips
// and the memory refusal (sim/train_step.h, sim/collective.h).
#include <catch2/catch.hpp>
#include <cmath>
#include <utility>

#include "common/errors.h"
#include "models/zoo/zoo.h"
#include "sim/collective.h"
#include "sim/train_step.h"
#include "tests/sim/test_util.h"

namespace dcnas::sim {
namespace {

using models::DType;

using testing::Named;

bool HasOp(const TrainGraph& train, const std::string& name) {
  for (const auto& n : train.names) {
    if (n == name) return true;
  }
  return false;
}

models::Graph Zoo(const std::string& name, int batch, DType dtype = DType::kBf16,
                  int resolution = 224) {
  models::BuildOptions o;
  o.batch = batch;
  o.dtype = dtype;
  o.resolution = resolution;
  return models::BuiltinModels().Build(name, o);
}

TEST_CASE("a convolution's backward is two GEMMs with their own shapes") {
  models::GraphInfo info;
  info.model = "three-convs";
  info.batch = 2;
  info.dtype = DType::kBf16;
  models::GraphBuilder b(info);
  const int x = b.Input(8, 8, 16);
  const int c1 = b.Conv(x, 32, 3, 1);
  const int c2 = b.Conv(c1, 32, 3, 1);
  b.Conv(c2, 64, 3, 2);
  const models::Graph g = b.Finish();
  const PreparedGraph p = Prepare(g);
  const TrainGraph t = BuildTrainGraph(p, Optimizer::kSgdMomentum);
  const std::string n1 = g.op(c1).name;
  const std::string n2 = g.op(c2).name;
  const std::string n3 = g.op(g.size() - 1).name;
  // The first convolution reads the images: no input gradient.
  CHECK_FALSE(HasOp(t, n1 + "/dgrad"));
  CHECK(HasOp(t, n1 + "/wgrad"));
  // Stride 1: the input gradient is (N*H*W) x (9*Cout) x Cin and has the forward's MACs.
  const PreparedOp& fwd2 = p.op_by_id(c2);
  const PreparedOp& d2 = Named(t, n2 + "/dgrad");
  CHECK(d2.gemm.m == 2 * 8 * 8);
  CHECK(d2.gemm.k == 9 * 32);
  CHECK(d2.gemm.n == 32);
  CHECK(d2.macs == fwd2.macs);
  // The weight gradient reduces over the batch and the output pixels: (9*Cin) x (N*Ho*Wo) x Cout,
  // the longer of 9*Cin and Cout streaming.
  const PreparedOp& w2 = Named(t, n2 + "/wgrad");
  CHECK(w2.gemm.m == 9 * 32);
  CHECK(w2.gemm.k == 2 * 8 * 8);
  CHECK(w2.gemm.n == 32);
  CHECK(w2.macs == fwd2.macs);
  CHECK(w2.out_bytes == 9 * 32 * 32 * 4.0);  // fp32 gradient of the weights
  // Stride 2: each input pixel gathers 9 * 64 / 4 taps on average; the MACs stay the forward's.
  const PreparedOp& d3 = Named(t, n3 + "/dgrad");
  CHECK(d3.gemm.m == 2 * 8 * 8);
  CHECK(d3.gemm.k == 9 * 64 / 4);
  CHECK(d3.macs == p.ops.back().macs);
  CHECK(d3.gemm.n == 32);
  const PreparedOp& w3 = Named(t, n3 + "/wgrad");
  CHECK(w3.gemm.m == 9 * 32);
  CHECK(w3.gemm.k == 2 * 4 * 4);
  CHECK(w3.gemm.n == 64);
  // One update per weight tensor.
  CHECK(t.param_tensors == 3);
  CHECK(t.params == 16 * 32 * 9 + 32 * 32 * 9 + 32 * 64 * 9);
}

TEST_CASE("a training step of ResNet-50 costs about three forward passes") {
  const models::Graph g = Zoo("resnet50", 32);
  const PreparedGraph p = Prepare(g);
  const TrainGraph t = BuildTrainGraph(p, Optimizer::kSgdMomentum);
  // Backward: an input and a weight gradient per convolution (no input gradient for the stem).
  const double ratio = t.backward_flops / t.forward_flops;
  CHECK(ratio > 1.9);
  CHECK(ratio < 2.1);
  CHECK(t.params == Approx(25.557e6).epsilon(0.01));
  // SGD with momentum: 3 ops per parameter.
  CHECK(t.update_flops == Approx(3 * t.params));
  CHECK(t.saved_activation_bytes > 0);
  CHECK(t.peak_activation_bytes >= t.saved_activation_bytes);
}

TEST_CASE("the ring all-reduce follows its closed form") {
  const double s = 1e8;
  CHECK(RingAllReduceSeconds(s, 1, 1e10, 1e-6) == 0);
  CHECK(RingAllReduceSeconds(s, 8, 1e10, 1e-6) == Approx(2.0 * 7 / 8 * s / 1e10 + 2.0 * 7 * 1e-6));
  // Large rings approach 2 S / B.
  CHECK(RingAllReduceSeconds(s, 1024, 1e10, 0) == Approx(2 * s / 1e10).epsilon(0.002));
  // A ring of GPUs injects at links x link bandwidth x efficiency.
  AcceleratorSpec gpu = testing::TensorCoreTestChip();
  gpu.interconnect.topology = "ring";
  gpu.interconnect.links_per_chip = 6;
  gpu.interconnect.link_bandwidth_gbps = 25;
  gpu.interconnect.link_latency_us = 5;
  const AllReduceCost c = GradientAllReduce(s, 8, gpu, 0.5, 0.8);
  CHECK(c.algorithm == "ring");
  CHECK(c.intra_chip_s == 0);
  CHECK(c.seconds == Approx(2.0 * 7 / 8 * s / (6 * 25e9 * 0.5) + 2.0 * 7 * 5e-6));
  // No interconnect: one chip works, a slice is an input error.
  AcceleratorSpec alone = testing::TensorCoreTestChip();
  CHECK(GradientAllReduce(s, 1, alone, 0.5, 0.8).seconds == 0);
  CHECK_THROWS_AS(GradientAllReduce(s, 2, alone, 0.5, 0.8), InputError);
}

TEST_CASE("the 2D torus all-reduce goes dimension by dimension") {
  CHECK(TorusShapeFor(4).x == 2);
  CHECK(TorusShapeFor(4).y == 2);
  CHECK(TorusShapeFor(16).x == 4);
  CHECK(TorusShapeFor(8).x == 2);
  CHECK(TorusShapeFor(8).y == 4);
  CHECK(TorusShapeFor(7).x == 1);
  CHECK(TorusShapeFor(7).y == 7);
  const double s = 1e8;
  const double b = 2 * 82e9;
  CHECK(Torus2dAllReduceSeconds(s, {4, 4}, b, 1e-6) ==
        Approx(2.0 * 3 / 4 * s / b + 2.0 * 3 / 4 * (s / 4) / b + 2.0 * (3 + 3) * 1e-6));
  // TPU-v3-like chip: 2 replicas per chip reduce through HBM first, then the 4 x 4 torus.
  AcceleratorSpec tpu = testing::SystolicTestChip();
  tpu.interconnect.topology = "torus2d";
  tpu.interconnect.links_per_chip = 4;
  tpu.interconnect.link_bandwidth_gbps = 82;
  tpu.interconnect.link_latency_us = 1;
  tpu.interconnect.replicas_per_chip = 2;
  const AllReduceCost c = GradientAllReduce(s, 16, tpu, 1.0, 1.0);
  CHECK(c.algorithm == "torus2d 4x4");
  CHECK(c.intra_chip_s == Approx(2.0 * 1 / 2 * s / 900e9));
  CHECK(c.inter_chip_s == Approx(Torus2dAllReduceSeconds(s, {4, 4}, b, 1e-6)));
}

TEST_CASE("more chips are never slower per image until the all-reduce dominates") {
  const AcceleratorSpec spec = LoadAccelerator("tpu-v3");
  const StackProfile stack = LoadStack("xla-tpu");
  const CalibrationParams calib = DefaultCalibration();
  // Weak scaling: 64 images per chip. The step only grows (the all-reduce grows with the ring)
  // and the slice's images/s only rises.
  const models::Graph g = Zoo("resnet50", 64);
  const PreparedGraph p = Prepare(g);
  const TrainGraph t = BuildTrainGraph(p, Optimizer::kSgdMomentum);
  double last_step = 0;
  double last_rate = 0;
  for (int chips = 1; chips <= 1024; chips *= 2) {
    TrainOptions o;
    o.chips = chips;
    const TrainReport r = SimulateTrainStep(t, spec, stack, calib, o);
    CHECK(r.global_batch == 64 * chips);
    CHECK(r.step_s >= last_step);
    CHECK(r.images_per_s > last_rate);
    last_step = r.step_s;
    last_rate = r.images_per_s;
  }
  // Strong scaling: global batch 4096. While the exposed all-reduce is under half the step, more
  // chips never cost more time per image. With the shipped ICI that holds to 2048 chips; with
  // links 100x slower the all-reduce comes to dominate and the rate stops improving.
  for (const double link_gbps : {82.0, 0.82}) {
    const AcceleratorSpec chip = LoadAccelerator(
        "tpu-v3", {{"interconnect.link_bandwidth_gbps", std::to_string(link_gbps)}});
    double last_per_image = 1e30;
    bool dominated = false;
    for (int chips = 1; chips <= 2048; chips *= 4) {
      const models::Graph gc = Zoo("resnet50", 4096 / chips);
      const PreparedGraph pc = Prepare(gc);
      const TrainGraph tc = BuildTrainGraph(pc, Optimizer::kSgdMomentum);
      TrainOptions o;
      o.chips = chips;
      o.enforce_memory = false;
      const TrainReport r = SimulateTrainStep(tc, chip, stack, calib, o);
      const double per_image = r.step_s / r.global_batch;
      if (!dominated) CHECK(per_image <= last_per_image);
      if (dominated) CHECK(per_image > 0.5 * last_per_image);  // no more than 2x from 4x chips
      dominated = dominated || r.allreduce_exposed_s > 0.5 * r.step_s;
      last_per_image = per_image;
    }
    CHECK(dominated == (link_gbps < 1));
  }
}

TEST_CASE("a step whose working set exceeds HBM is refused with the numbers") {
  const AcceleratorSpec spec = LoadAccelerator("tpu-v3");
  const StackProfile stack = LoadStack("xla-tpu");
  const CalibrationParams calib = DefaultCalibration();
  const models::Graph g = Zoo("resnet50", 4096);
  const PreparedGraph p = Prepare(g);
  const TrainGraph t = BuildTrainGraph(p, Optimizer::kAdam);
  TrainOptions o;
  o.optimizer = Optimizer::kAdam;
  CHECK_THROWS_WITH(SimulateTrainStep(t, spec, stack, calib, o),
                    Catch::Contains("does not fit") && Catch::Contains("activations") &&
                        Catch::Contains("32.00 GiB"));
  o.enforce_memory = false;
  const TrainReport r = SimulateTrainStep(t, spec, stack, calib, o);
  CHECK(r.memory.total > r.memory.capacity);
  // Adam keeps two fp32 states per parameter on each of the chip's two replicas.
  CHECK(r.memory.optimizer == Approx(2 * 2 * 4 * t.params));
  CHECK(r.memory.weights == Approx(2 * 4 * t.params));
  // Activations scale with the batch: a small batch fits.
  const models::Graph small = Zoo("resnet50", 64);
  const PreparedGraph ps = Prepare(small);
  const TrainGraph ts = BuildTrainGraph(ps, Optimizer::kAdam);
  o.enforce_memory = true;
  const TrainReport rs = SimulateTrainStep(ts, spec, stack, calib, o);
  CHECK(rs.memory.total < rs.memory.capacity);
  CHECK(rs.memory.activations_peak == Approx(r.memory.activations_peak * 64 / 4096).epsilon(0.01));
}

TEST_CASE("the step splits into forward, backward, all-reduce and update") {
  const AcceleratorSpec spec = LoadAccelerator("tpu-v3");
  const StackProfile stack = LoadStack("xla-tpu");
  const CalibrationParams calib = DefaultCalibration();
  const models::Graph g = Zoo("efficientnet-b0", 64);
  const PreparedGraph p = Prepare(g);
  const TrainGraph t = BuildTrainGraph(p, Optimizer::kRmsProp);
  TrainOptions o;
  o.optimizer = Optimizer::kRmsProp;
  o.chips = 16;
  const TrainReport r = SimulateTrainStep(t, spec, stack, calib, o);
  CHECK(r.replicas == 32);
  CHECK(r.per_replica_batch == 32);
  CHECK(r.step_s == Approx(r.forward.time.total_s + r.backward.time.total_s +
                           r.allreduce_exposed_s + r.update.time.total_s));
  CHECK(r.backward.time.total_s > r.forward.time.total_s);
  CHECK(r.allreduce.seconds > 0);
  CHECK(r.allreduce_exposed_s <= r.allreduce.seconds);
  CHECK(r.update.kernels == static_cast<int>(t.param_tensors));
  CHECK(r.images_per_s == Approx(1024 / r.step_s));
  // RMSProp's update is heavier than SGD's.
  const TrainGraph sgd = BuildTrainGraph(p, Optimizer::kSgdMomentum);
  o.optimizer = Optimizer::kSgdMomentum;
  CHECK(SimulateTrainStep(sgd, spec, stack, calib, o).update.time.total_s < r.update.time.total_s);
  const std::string text = TrainReportToText(r);
  CHECK_THAT(text, Catch::Contains("all-reduce") && Catch::Contains("torus2d 4x4"));
  CHECK_THAT(TrainReportToJson(r), Catch::Contains("\"exposed_s\""));
  CHECK_THROWS_AS(PerChipBatch(1000, 16, spec), InputError);  // 1000 / 32 replicas
  CHECK_THROWS_AS(PerChipBatch(-128, 4, spec), InputError);   // a negative batch splits too
  CHECK(PerChipBatch(1024, 16, spec) == 64);
  CHECK_THROWS_AS(ParseOptimizer("sgd"), InputError);
}

TEST_CASE("asynchronous launches shorten an eager training step, never lengthen it") {
  const AcceleratorSpec spec = LoadAccelerator("rtx-3090");
  StackProfile stack = LoadStack("pytorch-eager");
  const CalibrationParams calib = DefaultCalibration();
  const models::Graph g = Zoo("efficientnet-b0", 16, DType::kFp16);
  const PreparedGraph p = Prepare(g);
  const TrainGraph t = BuildTrainGraph(p, Optimizer::kSgdMomentum);
  TrainOptions o;
  o.optimizer = Optimizer::kSgdMomentum;
  const TrainReport serial = SimulateTrainStep(t, spec, stack, calib, o);
  stack.async_launch = true;
  const TrainReport queued = SimulateTrainStep(t, spec, stack, calib, o);
  CHECK(queued.step_s < serial.step_s);
  CHECK(queued.step_s == Approx(queued.forward.time.total_s + queued.backward.time.total_s +
                                queued.allreduce_exposed_s + queued.update.time.total_s));
  CHECK(queued.forward.kernels == serial.forward.kernels);
  // The busy time is the same; only the exposed launch time shrinks.
  for (auto [a, b] :
       {std::pair{&serial.forward, &queued.forward}, std::pair{&serial.backward, &queued.backward},
        std::pair{&serial.update, &queued.update}}) {
    CHECK(b->time.total_s - b->time.overhead_s == Approx(a->time.total_s - a->time.overhead_s));
    CHECK(b->time.overhead_s <= a->time.overhead_s);
  }
  // One queue across the phases: the backward pass's larger kernels hide most of its launches,
  // and the first backward kernel does not pay a fresh launch after the forward pass.
  CHECK(queued.backward.time.overhead_s < 0.5 * serial.backward.time.overhead_s);
  const double h = stack.kernel_overhead_us * 1e-6;
  CHECK(queued.forward.time.overhead_s >= h);  // at least the first launch
}

}  // namespace
}  // namespace dcnas::sim
