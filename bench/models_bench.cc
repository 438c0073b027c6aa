// Benchmarks of the layer graph: building and counting zoo models.
#include <benchmark/benchmark.h>

#include "models/counts.h"
#include "models/zoo/zoo.h"

namespace {

void BuildAndCount(benchmark::State& state, const char* name) {
  const auto& registry = dcnas::models::BuiltinModels();
  for (auto _ : state) {
    const dcnas::models::Graph g = registry.Build(name, {});
    benchmark::DoNotOptimize(dcnas::models::CountGraph(g).macs);
  }
}

BENCHMARK_CAPTURE(BuildAndCount, efficientnet_b0, "efficientnet-b0")->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(BuildAndCount, efficientnet_b7, "efficientnet-b7")->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(BuildAndCount, efficientnet_x_gpu_b7, "efficientnet-x-gpu-b7")
    ->Unit(benchmark::kMicrosecond);

}  // namespace

BENCHMARK_MAIN();
