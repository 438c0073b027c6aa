#include "calibrate/sim_model.h"

#include <catch2/catch.hpp>
#include <tuple>

#include "calibrate/fit.h"
#include "common/errors.h"
#include "models/zoo/zoo.h"
#include "sim/calibration_params.h"
#include "sim/spec.h"
#include "sim/stack.h"

namespace dcnas::calibrate {
namespace {

std::vector<Measurement> Rows(const std::vector<std::string>& models,
                              const std::vector<int>& batches) {
  std::vector<Measurement> rows;
  for (const std::string& model : models) {
    for (int batch : batches) {
      Measurement m;
      m.model = model;
      m.device = "v100";
      m.stack = "tensorrt";
      m.precision = "fp16";
      m.batch_size = batch;
      m.image_size = models::BuiltinModels().Get(model).native_resolution;
      m.regime = kRegimeEngineLatency;
      m.file = "synthetic.csv";
      m.line = static_cast<int>(rows.size()) + 2;
      rows.push_back(m);
    }
  }
  return rows;
}

// Fits `model` to rows whose latencies are `synthetic` (its own predictions), unregularised.
FitResult FitToSynthetic(const LatencyModel& model, std::vector<Measurement> rows,
                         const std::vector<double>& synthetic) {
  for (size_t i = 0; i < rows.size(); ++i) rows[i].latency_ms = synthetic[i];
  FitOptions options;
  options.regularization = 1e-9;
  return Fit(model, rows, options);
}

}  // namespace

TEST_CASE("fitting the simulator to its own predictions recovers the parameters",
          "[calibrate][relational]") {
  const auto spec = sim::LoadAccelerator("v100");
  const auto stack = sim::LoadStack("tensorrt");
  const std::vector<std::string> fields = {"matrix_efficiency", "memory_efficiency",
                                           "kernel_overhead_scale"};
  const SimLatencyModel model(spec, stack, sim::DefaultCalibration(), fields,
                              models::BuiltinModels());
  REQUIRE(model.Parameters().size() == 3);
  std::vector<Measurement> rows =
      Rows({"resnet50", "efficientnet-b0", "mobilenetv2-1.0", "regnety-1.6gf", "efficientnet-b3"},
           {1, 4, 16, 64, 256});
  const std::vector<double> truth = {0.55, 0.45, 2.5};
  const std::vector<double> synthetic = model.PredictAllMs(truth, rows);
  const FitResult fit = FitToSynthetic(model, rows, synthetic);
  INFO(fit.status);
  CHECK(fit.values[0] == Approx(truth[0]).epsilon(0.01));
  CHECK(fit.values[1] == Approx(truth[1]).epsilon(0.01));
  CHECK(fit.values[2] == Approx(truth[2]).epsilon(0.01));
  CHECK(fit.rms_log_residual < 1e-3);
  // The calibration written back carries the fitted values and keeps the others.
  const sim::CalibrationParams c = model.Apply(fit.values);
  CHECK(c.matrix_efficiency == fit.values[0]);
  CHECK(c.overlap == sim::DefaultCalibration().overlap);
  CHECK(model.graphs_built() == rows.size());
}

TEST_CASE("pooled chips: each row runs on its own chip file", "[calibrate][relational]") {
  const auto stack = sim::LoadStack("pytorch-eager");
  const std::vector<std::string> fields = {"matrix_efficiency", "memory_efficiency",
                                           "core_stream_bytes_per_cycle"};
  sim::CalibrationParams start = sim::DefaultCalibration();
  start.core_stream_bytes_per_cycle = 3;
  const std::vector<std::pair<std::string, sim::AcceleratorSpec>> chips = {
      {"v100", sim::LoadAccelerator("v100")},
      {"rtx-4090", sim::LoadAccelerator("rtx-4090")},
      {"a100", sim::LoadAccelerator("a100", {ParseOverride("hbm.bandwidth_gbps=2039")})}};
  SimLatencyModel pooled(chips[0].second, stack, start, fields, models::BuiltinModels());
  for (const auto& [device, spec] : chips) pooled.AddDevice(device, spec);
  CHECK_THROWS_AS(pooled.AddDevice("v100", chips[0].second), InputError);
  std::vector<Measurement> rows;
  for (const auto& [device, spec] : chips) {
    for (Measurement m :
         Rows({"resnet50", "efficientnet-b0", "regnetx-400mf", "mnasnet-b1"}, {64, 256})) {
      m.device = device;
      m.stack = "pytorch-eager";
      m.regime = kRegimeLargeBatch;
      m.line = static_cast<int>(rows.size()) + 2;
      rows.push_back(m);
    }
  }
  const std::vector<double> truth = {0.8, 0.9, 5.0};
  const std::vector<double> synthetic = pooled.PredictAllMs(truth, rows);
  // Each row as the single-chip model of its own chip predicts it.
  for (const auto& [device, spec] : chips) {
    const SimLatencyModel alone(spec, stack, start, fields, models::BuiltinModels());
    for (size_t i = 0; i < rows.size(); ++i) {
      if (rows[i].device == device) CHECK(synthetic[i] == Approx(alone.PredictMs(truth, rows[i])));
    }
  }
  // The a100's 2039 GB/s on 108 SMs is beyond what 5 B per SM-cycle streams: the limit binds.
  CHECK(synthetic[16] > pooled.PredictAllMs({0.8, 0.9, 50.0}, rows)[16] * 1.2);
  Measurement stray = rows.front();
  stray.device = "t4";
  CHECK_THROWS_AS(pooled.PredictMs(truth, stray), InputError);
  // A pool identifies the DRAM efficiency and the per-core limit together.
  const FitResult fit = FitToSynthetic(pooled, rows, synthetic);
  INFO(fit.status);
  CHECK(fit.values[1] == Approx(truth[1]).epsilon(0.02));
  CHECK(fit.values[2] == Approx(truth[2]).epsilon(0.02));
  CHECK(fit.rms_log_residual < 1e-3);
}

TEST_CASE("a row measured in NHWC runs an NCHW stack without layout transposes",
          "[calibrate][relational]") {
  const auto spec = sim::LoadAccelerator("rtx-3090");
  const auto plain = sim::LoadStack("pytorch-eager");
  const auto transposed = sim::LoadStack("pytorch-eager", {{"nchw_conv_transposes", "spatial"}});
  const std::vector<std::string> fields = {"matrix_efficiency"};
  const SimLatencyModel with(spec, transposed, sim::DefaultCalibration(), fields,
                             models::BuiltinModels());
  const SimLatencyModel without(spec, plain, sim::DefaultCalibration(), fields,
                                models::BuiltinModels());
  std::vector<Measurement> rows = Rows({"resnet50"}, {64, 64, 64});
  for (Measurement& m : rows) {
    m.device = "rtx-3090";
    m.stack = "pytorch-eager";
    m.regime = kRegimeLargeBatch;
  }
  rows[0].extra["layout"] = "NCHW";
  rows[1].extra["layout"] = "NHWC";  // rows[2] records no layout: the stack's
  const std::vector<double> params = {0.8};
  const std::vector<double> predicted = with.PredictAllMs(params, rows);
  // NHWC: the stack without transposes, exactly; NCHW and unrecorded: with them (ResNet-50's 3x3
  // convolutions and stem transposed: slower).
  CHECK(predicted[1] == Approx(without.PredictMs(params, rows[1])).epsilon(1e-12));
  CHECK(predicted[0] > predicted[1] * 1.03);
  CHECK(predicted[2] == Approx(predicted[0]).epsilon(1e-12));
  CHECK(with.PredictMs(params, rows[1]) == Approx(predicted[1]).epsilon(1e-12));
  // On the stack without transposes the recorded layout changes nothing.
  CHECK(without.PredictMs(params, rows[0]) == Approx(predicted[1]).epsilon(1e-12));
}

TEST_CASE("simulated latency grows with batch for every zoo family", "[calibrate][relational]") {
  const SimLatencyModel model(sim::LoadAccelerator("rtx-4090"), sim::LoadStack("pytorch-eager"),
                              sim::DefaultCalibration(), DefaultFitFields(),
                              models::BuiltinModels());
  const auto rows = Rows({"resnet50", "regnetx-400mf", "resnest50", "mnasnet-b1"}, {8, 64});
  const auto predicted = model.PredictAllMs(DefaultValues(model), rows);
  for (size_t i = 0; i + 1 < rows.size(); i += 2) CHECK(predicted[i + 1] > predicted[i]);
}

TEST_CASE("fit ranges and precisions", "[calibrate]") {
  const sim::CalibrationParams start = sim::DefaultCalibration();
  const ParameterSpec efficiency = FitRange("memory_efficiency", start);
  CHECK(efficiency.lower >= 0.0);
  CHECK(efficiency.upper == 1.0);
  CHECK(efficiency.default_value == start.memory_efficiency);
  const ParameterSpec overhead = FitRange("kernel_overhead_scale", start);
  CHECK(overhead.lower == Approx(start.kernel_overhead_scale / kMaxScaleFactor));
  CHECK(overhead.upper == Approx(start.kernel_overhead_scale * kMaxScaleFactor));
  CHECK_THROWS_WITH(FitRange("matrix_eficiency", start),
                    Catch::Contains("did you mean") && Catch::Contains("matrix_efficiency"));
  CHECK(PrecisionDType("tf32") == models::DType::kFp32);
  CHECK(PrecisionDType("fp16") == models::DType::kFp16);
  CHECK(PrecisionDType("int8") == models::DType::kInt8);
  CHECK_THROWS_AS(PrecisionDType("fp8"), InputError);
}

TEST_CASE("a measurement the zoo cannot build names its row", "[calibrate]") {
  const SimLatencyModel model(sim::LoadAccelerator("v100"), sim::LoadStack("tensorrt"),
                              sim::DefaultCalibration(), DefaultFitFields(),
                              models::BuiltinModels());
  auto rows = Rows({"resnet50"}, {1});
  rows[0].image_size = 1000000;
  CHECK_THROWS_WITH(model.PredictAllMs(DefaultValues(model), rows),
                    Catch::Contains("synthetic.csv:2") && Catch::Contains("resnet50"));
}

}  // namespace dcnas::calibrate

namespace dcnas::calibrate {

TEST_CASE("training rows are simulated as data-parallel steps and fitted",
          "[calibrate][relational]") {
  const auto spec = sim::LoadAccelerator("tpu-v3");
  const auto stack = sim::LoadStack("xla-tpu");
  const std::vector<std::string> fields = {"matrix_efficiency", "memory_efficiency"};
  const SimLatencyModel model(spec, stack, sim::DefaultCalibration(), fields,
                              models::BuiltinModels());
  std::vector<Measurement> rows;
  for (const auto& [model_name, chips, batch] :
       std::vector<std::tuple<std::string, int, int>>{{"resnet50", 16, 1024},
                                                      {"resnet50", 4, 1024},
                                                      {"resnet50", 64, 16384},
                                                      {"efficientnet-b0", 16, 1024},
                                                      {"efficientnet-b3", 16, 1024}}) {
    Measurement m;
    m.model = model_name;
    m.device = "tpu-v3";
    m.stack = "xla-tpu";
    m.precision = "bf16";
    m.batch_size = batch;
    m.image_size = models::BuiltinModels().Get(model_name).native_resolution;
    m.regime = kRegimeTraining;
    m.chips = chips;
    m.optimizer = "sgd-momentum";
    m.file = "train.csv";
    m.line = static_cast<int>(rows.size()) + 2;
    rows.push_back(m);
  }
  const std::vector<double> truth = {0.6, 0.5};
  const std::vector<double> synthetic = model.PredictAllMs(truth, rows);
  // The same graph (64 images per chip) on 16 chips and on 4 chips: different steps.
  CHECK(synthetic[0] != synthetic[1]);
  const FitResult fit = FitToSynthetic(model, rows, synthetic);
  CHECK(fit.values[0] == Approx(truth[0]).epsilon(0.01));
  CHECK(fit.values[1] == Approx(truth[1]).epsilon(0.01));
  // A global batch that does not split over the slice names the row.
  rows[0].batch_size = 1000;
  CHECK_THROWS_WITH(model.PredictAllMs(truth, rows),
                    Catch::Contains("train.csv:2") && Catch::Contains("multiple of 32"));
}

}  // namespace dcnas::calibrate
