// Simulator speed: EfficientNet-B0 at batch 128 on tpu-v3 (warm and cold cost cache, with and
// without the per-op report), graph preparation, the whole zoo on every shipped accelerator, and
// a ResNet-50 training step on a TPU v3-32 slice (building its ops, then simulating it).
// Targets (issue 3): <= 20 us warm, <= 200 us cold, whole zoo x accelerators < 1 s.
#include <benchmark/benchmark.h>

#include "models/zoo/zoo.h"
#include "sim/engine.h"
#include "sim/train_step.h"

namespace {

using namespace dcnas;

struct B0 {
  models::Graph graph;
  sim::PreparedGraph prepared;
  sim::SimSetup setup;
  B0()
      : graph(models::BuiltinModels().Build("efficientnet-b0", {224, 128, models::DType::kBf16})),
        prepared(sim::Prepare(graph)),
        setup(sim::LoadSetup("tpu-v3", "xla-tpu", "", {})) {}
};

const B0& Fixture() {
  static const B0 kB0;
  return kB0;
}

void B0WarmTotals(benchmark::State& state) {
  const B0& f = Fixture();
  sim::CostCache cache;
  const sim::SimOptions options{true, false};
  sim::Simulate(f.prepared, f.setup.spec, f.setup.stack, f.setup.calibration, options, &cache);
  for (auto _ : state) {
    benchmark::DoNotOptimize(sim::Simulate(f.prepared, f.setup.spec, f.setup.stack,
                                           f.setup.calibration, options, &cache));
  }
}
BENCHMARK(B0WarmTotals)->Unit(benchmark::kMicrosecond);

void B0ColdTotals(benchmark::State& state) {
  const B0& f = Fixture();
  const sim::SimOptions options{true, false};
  for (auto _ : state) {
    sim::CostCache cache(512);
    benchmark::DoNotOptimize(sim::Simulate(f.prepared, f.setup.spec, f.setup.stack,
                                           f.setup.calibration, options, &cache));
  }
}
BENCHMARK(B0ColdTotals)->Unit(benchmark::kMicrosecond);

void B0WarmFullReport(benchmark::State& state) {
  const B0& f = Fixture();
  sim::CostCache cache;
  const sim::SimOptions options{true, true};
  sim::Simulate(f.prepared, f.setup.spec, f.setup.stack, f.setup.calibration, options, &cache);
  for (auto _ : state) {
    benchmark::DoNotOptimize(sim::Simulate(f.prepared, f.setup.spec, f.setup.stack,
                                           f.setup.calibration, options, &cache));
  }
}
BENCHMARK(B0WarmFullReport)->Unit(benchmark::kMicrosecond);

// What a caller with a graph (not prepared) and a warm cost cache pays per call: the C++ side
// of the Python module's Simulator.simulate (bench/python_bench.py compares the two).
void B0PrepareAndSimulateWarm(benchmark::State& state) {
  const B0& f = Fixture();
  sim::CostCache cache;
  const sim::SimOptions options{true, state.range(0) != 0};
  sim::Simulate(f.graph, f.setup.spec, f.setup.stack, f.setup.calibration, options, &cache);
  for (auto _ : state) {
    benchmark::DoNotOptimize(
        sim::Simulate(f.graph, f.setup.spec, f.setup.stack, f.setup.calibration, options, &cache));
  }
}
BENCHMARK(B0PrepareAndSimulateWarm)->Arg(0)->Arg(1)->Unit(benchmark::kMicrosecond);

void B0PrepareAndSimulateCold(benchmark::State& state) {
  const B0& f = Fixture();
  const sim::SimOptions options{true, false};
  for (auto _ : state) {
    sim::CostCache cache(512);
    benchmark::DoNotOptimize(
        sim::Simulate(f.graph, f.setup.spec, f.setup.stack, f.setup.calibration, options, &cache));
  }
}
BENCHMARK(B0PrepareAndSimulateCold)->Unit(benchmark::kMicrosecond);

// Every zoo model (prepared once, as search does) on every shipped accelerator with its default
// stack and precision; a fresh cost cache per accelerator.
void ZooOnEveryAccelerator(benchmark::State& state) {
  const auto& registry = models::BuiltinModels();
  std::vector<sim::SimSetup> setups;
  for (const auto& name : sim::AcceleratorNames())
    setups.push_back(sim::LoadSetup(name, "", "", {}));
  std::vector<models::Graph> graphs[3];  // fp32, fp16, bf16
  const models::DType dtypes[3] = {models::DType::kFp32, models::DType::kFp16,
                                   models::DType::kBf16};
  std::vector<sim::PreparedGraph> prepared[3];
  for (int d = 0; d < 3; ++d) {
    for (const auto& name : registry.Names()) {
      models::BuildOptions o;
      o.batch = 128;
      o.dtype = dtypes[d];
      graphs[d].push_back(registry.Build(name, o));
    }
    for (const auto& g : graphs[d]) prepared[d].push_back(sim::Prepare(g));
  }
  int64_t sims = 0;
  for (auto _ : state) {
    for (const auto& s : setups) {
      const int d = s.spec.kind == "tpu" ? 2 : s.spec.kind == "gpu" ? 1 : 0;
      sim::CostCache cache;
      for (const auto& p : prepared[d]) {
        benchmark::DoNotOptimize(
            sim::Simulate(p, s.spec, s.stack, s.calibration, {true, false}, &cache));
        ++sims;
      }
    }
  }
  state.counters["models"] = static_cast<double>(registry.Names().size());
  state.counters["accelerators"] = static_cast<double>(setups.size());
  state.counters["sims_per_s"] =
      benchmark::Counter(static_cast<double>(sims), benchmark::Counter::kIsRate);
}
BENCHMARK(ZooOnEveryAccelerator)->Unit(benchmark::kMillisecond);

}  // namespace

struct R50Train {
  models::Graph graph;
  sim::PreparedGraph prepared;
  sim::SimSetup setup;
  R50Train()
      : graph(models::BuiltinModels().Build("resnet50", {224, 64, models::DType::kBf16})),
        prepared(sim::Prepare(graph)),
        setup(sim::LoadSetup("tpu-v3", "xla-tpu", "tpu-v3-xla-tpu-bf16-training", {})) {}
};

const R50Train& TrainFixture() {
  static const R50Train kR50;
  return kR50;
}

void R50TrainGraphBuild(benchmark::State& state) {
  const R50Train& f = TrainFixture();
  for (auto _ : state) {
    benchmark::DoNotOptimize(sim::BuildTrainGraph(f.prepared, sim::Optimizer::kSgdMomentum, true));
  }
}
BENCHMARK(R50TrainGraphBuild)->Unit(benchmark::kMicrosecond);

void R50TrainStepV3x32(benchmark::State& state) {
  const R50Train& f = TrainFixture();
  const sim::TrainGraph train =
      sim::BuildTrainGraph(f.prepared, sim::Optimizer::kSgdMomentum, true);
  sim::TrainOptions options;
  options.chips = 16;
  for (auto _ : state) {
    benchmark::DoNotOptimize(
        sim::SimulateTrainStep(train, f.setup.spec, f.setup.stack, f.setup.calibration, options));
  }
}
BENCHMARK(R50TrainStepV3x32)->Unit(benchmark::kMicrosecond);

BENCHMARK_MAIN();
