// Relational properties of the simulator over the zoo, accelerators and stacks.
#include <catch2/catch.hpp>

#include "models/counts.h"
#include "models/zoo/zoo.h"
#include "sim/engine.h"
#include "tests/sim/test_util.h"

namespace dcnas::sim {
namespace {

using models::DType;

struct Target {
  const char* accel;
  const char* stack;
  DType dtype;
};

const std::vector<Target>& Targets() {
  static const std::vector<Target> t = {
      {"tpu-v3", "xla-tpu", DType::kBf16},         {"tpu-v2", "xla-tpu", DType::kBf16},
      {"v100", "tensorrt", DType::kFp16},          {"a100", "torch-compile", DType::kFp16},
      {"t4", "pytorch-eager", DType::kFp16},       {"host-cpu", "libtorch-cpu", DType::kFp32},
      {"rtx-3090", "tensorrt", DType::kFp16},      {"tpu-v3-mxu256", "xla-tpu", DType::kBf16},
      {"epyc-zen4", "libtorch-cpu", DType::kFp32},
  };
  return t;
}

std::vector<std::string> SomeModels() {
  std::vector<std::string> out;
  const auto& reg = models::BuiltinModels();
  for (const char* name :
       {"efficientnet-b0", "efficientnet-b3", "efficientnet-x-tpu-b0", "efficientnet-x-gpu-b2",
        "resnet50", "regnety-800mf", "resnest50", "mobilenetv2-1.0", "resnext101-32x4d"}) {
    out.push_back(reg.Get(name).name);  // an unknown name throws, naming it
  }
  return out;
}

models::Graph Build(const std::string& name, int batch, DType dtype, int resolution = 0) {
  models::BuildOptions o;
  o.batch = batch;
  o.dtype = dtype;
  o.resolution = resolution;
  return models::BuiltinModels().Build(name, o);
}

TEST_CASE("fusion never makes an estimate slower") {
  const CalibrationParams calib = DefaultCalibration();
  for (const auto& t : Targets()) {
    const AcceleratorSpec spec = LoadAccelerator(t.accel);
    const StackProfile stack = LoadStack(t.stack);
    for (const auto& name : SomeModels()) {
      for (int batch : {1, 128}) {
        INFO(name << " on " << t.accel << "/" << t.stack << " batch " << batch);
        const models::Graph g = Build(name, batch, t.dtype);
        const PreparedGraph p = Prepare(g);
        const Report fused = Simulate(p, spec, stack, calib, {true, false}, nullptr);
        const Report unfused = Simulate(p, spec, stack, calib, {false, false}, nullptr);
        CHECK(fused.latency_s <= unfused.latency_s * (1 + 1e-12));
        CHECK(fused.num_kernels <= unfused.num_kernels);
        CHECK(fused.hbm_bytes <= unfused.hbm_bytes * (1 + 1e-12));
      }
    }
  }
  // Stacks that fuse do fuse: XLA has fewer kernels than eager PyTorch on the same chip.
  const models::Graph g = Build("efficientnet-b0", 8, DType::kFp16);
  const AcceleratorSpec v100 = LoadAccelerator("v100");
  const Report trt = Simulate(g, v100, LoadStack("tensorrt"), calib);
  const Report eager = Simulate(g, v100, LoadStack("pytorch-eager"), calib);
  CHECK(trt.num_kernels < eager.num_kernels);
  CHECK(trt.latency_s < eager.latency_s);
}

TEST_CASE("swish fusion: XLA fuses it, 2020 TensorRT runs it as its own kernel") {
  const CalibrationParams calib = DefaultCalibration();
  const models::Graph g =
      testing::ConvGraph(32, 56, 64, 64, 1, DType::kFp16, true, models::Activation::kSwish);
  const models::Graph r =
      testing::ConvGraph(32, 56, 64, 64, 1, DType::kFp16, true, models::Activation::kRelu);
  const AcceleratorSpec v100 = LoadAccelerator("v100");
  const StackProfile trt = LoadStack("tensorrt");
  CHECK(Simulate(g, v100, trt, calib).num_kernels == 2);
  CHECK(Simulate(r, v100, trt, calib).num_kernels == 1);
  CHECK(Simulate(g, LoadAccelerator("tpu-v3"), LoadStack("xla-tpu"), calib).num_kernels == 1);
}

TEST_CASE("no op runs faster than its roofline bound") {
  const CalibrationParams calib = DefaultCalibration();
  for (const auto& t : Targets()) {
    const AcceleratorSpec spec = LoadAccelerator(t.accel);
    const StackProfile stack = LoadStack(t.stack);
    const double peak = spec.PeakFlopsPerS(t.dtype) + 2 * spec.PeakVectorOpsPerS(t.dtype);
    const double bw = spec.HbmBytesPerS();
    for (const auto& name : SomeModels()) {
      INFO(name << " on " << t.accel);
      const models::Graph g = Build(name, 32, t.dtype);
      const Report r = Simulate(g, spec, stack, calib, {false, true}, nullptr);
      REQUIRE(r.groups.size() == r.ops.size());
      for (size_t i = 0; i < r.groups.size(); ++i) {
        const auto& k = r.groups[i];
        const double bound = std::max(k.flops / peak, k.hbm_bytes / bw);
        INFO(k.name);
        CHECK(k.time.total_s >= bound * (1 - 1e-12));
      }
      const models::OpCounts counts = models::CountGraph(g);
      CHECK(r.hbm_bytes >= static_cast<double>(counts.bytes()) * (1 - 1e-12));
      CHECK(r.latency_s >= static_cast<double>(counts.flops) / peak);
    }
  }
}

TEST_CASE("latency grows with batch, resolution and falls with bandwidth") {
  const CalibrationParams calib = DefaultCalibration();
  for (const auto& t : Targets()) {
    const AcceleratorSpec spec = LoadAccelerator(t.accel);
    const StackProfile stack = LoadStack(t.stack);
    for (const auto& name : SomeModels()) {
      INFO(name << " on " << t.accel);
      double last = 0;
      for (int batch : {1, 2, 8, 32, 128}) {
        const double l =
            Simulate(Build(name, batch, t.dtype), spec, stack, calib, {true, false}, nullptr)
                .latency_s;
        CHECK(l >= last);
        last = l;
      }
      last = 0;
      for (int res : {128, 160, 224, 256, 320}) {
        const double l =
            Simulate(Build(name, 16, t.dtype, res), spec, stack, calib, {true, false}, nullptr)
                .latency_s;
        CHECK(l >= last);
        last = l;
      }
    }
  }
  const models::Graph g = Build("efficientnet-b0", 128, DType::kBf16);
  double last = 1e30;
  for (const char* bw : {"450", "900", "1800", "3600"}) {
    const AcceleratorSpec s = LoadAccelerator("tpu-v3", {{"hbm.bandwidth_gbps", bw}});
    const double l = Simulate(g, s, LoadStack("xla-tpu"), calib).latency_s;
    CHECK(l <= last);
    last = l;
  }
  const Report v3 = Simulate(g, LoadAccelerator("tpu-v3"), LoadStack("xla-tpu"), calib);
  const Report v2 = Simulate(g, LoadAccelerator("tpu-v2"), LoadStack("xla-tpu"), calib);
  CHECK(v2.latency_s > v3.latency_s);
}

TEST_CASE("the cost cache returns what uncached simulation computes") {
  const CalibrationParams calib = DefaultCalibration();
  CostCache cache(16);
  for (const auto& t : Targets()) {
    const AcceleratorSpec spec = LoadAccelerator(t.accel);
    const StackProfile stack = LoadStack(t.stack);
    for (const auto& name : SomeModels()) {
      const PreparedGraph p = Prepare(Build(name, 64, t.dtype));
      const Report a = Simulate(p, spec, stack, calib, {true, false}, nullptr);
      const Report b = Simulate(p, spec, stack, calib, {true, false}, &cache);
      const Report c = Simulate(p, spec, stack, calib, {true, false}, &cache);
      CHECK(a.latency_s == b.latency_s);
      CHECK(a.latency_s == c.latency_s);
    }
  }
  CHECK(cache.hits() > cache.misses());
  // Repeated layers hit within one model: B0 has fewer distinct op signatures than ops.
  CostCache fresh;
  const PreparedGraph p = Prepare(Build("efficientnet-b0", 128, DType::kBf16));
  Simulate(p, LoadAccelerator("tpu-v3"), LoadStack("xla-tpu"), calib, {true, false}, &fresh);
  CHECK(fresh.size() < p.ops.size());
  CHECK(fresh.hits() > 0);
}

}  // namespace
}  // namespace dcnas::sim
