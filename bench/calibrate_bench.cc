// Benchmark of one device's calibration: the Levenberg-Marquardt fit alone, and the fit with
// 5-fold and leave-one-family-out cross-validation, on the shipped RTX 3090 timm rows (every
// PyTorch version and layout: 582 rows) and on those rows twice over (1,164 rows). Each
// iteration starts from a fresh model, so graph building is included.
#include <benchmark/benchmark.h>

#include "calibrate/calibration_run.h"
#include "calibrate/measurement.h"
#include "calibrate/sim_model.h"
#include "common/data_dir.h"
#include "models/zoo/zoo.h"
#include "sim/calibration_params.h"
#include "sim/spec.h"
#include "sim/stack.h"

namespace {

namespace cal = dcnas::calibrate;

std::vector<cal::Measurement> Rows(int copies) {
  const auto all = cal::LoadMeasurements(dcnas::DataPath("measurements/timm_rtx3090.csv"), {});
  const auto eager = cal::Select(all, {"rtx-3090", "pytorch-eager", "fp16", "large_batch", {}});
  std::vector<cal::Measurement> rows;
  for (int c = 0; c < copies; ++c) rows.insert(rows.end(), eager.begin(), eager.end());
  return rows;
}

void Calibrate(benchmark::State& state) {
  const auto rows = Rows(static_cast<int>(state.range(0)));
  const bool cross_validate = state.range(1) != 0;
  const auto spec = dcnas::sim::LoadAccelerator("rtx-3090");
  const auto stack = dcnas::sim::LoadStack("pytorch-eager");
  const auto& registry = dcnas::models::BuiltinModels();
  cal::CalibrationOptions options;
  options.k_folds = cross_validate ? 5 : 0;
  options.leave_one_family_out = cross_validate;
  options.family_of = [&registry](const cal::Measurement& m) {
    return registry.Get(m.model).family;
  };
  int evaluations = 0;
  for (auto _ : state) {
    const cal::SimLatencyModel model(spec, stack, dcnas::sim::DefaultCalibration(),
                                     cal::DefaultFitFields(), registry);
    const cal::CalibrationResult result = cal::Calibrate(model, rows, options);
    evaluations = result.fit.evaluations;
    benchmark::DoNotOptimize(result.after.mape);
  }
  state.counters["rows"] = static_cast<double>(rows.size());
  state.counters["fit_evaluations"] = evaluations;
}

BENCHMARK(Calibrate)
    ->ArgNames({"copies", "cv"})
    ->Args({1, 0})
    ->Args({2, 0})
    ->Args({2, 1})
    ->Unit(benchmark::kSecond)
    ->Iterations(1);

}  // namespace

BENCHMARK_MAIN();
