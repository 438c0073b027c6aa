// Building a calibrated profile: fitted values, provenance and validation metrics.
#include "calibrate/profile.h"

#include <catch2/catch.hpp>

#include <cmath>
#include <limits>

#include "common/errors.h"
#include "common/sha256.h"
#include "models/registry.h"
#include "models/zoo/zoo.h"
#include "sim/spec.h"
#include "sim/stack.h"

namespace dcnas::calibrate {
namespace {

using Catch::Contains;

Measurement Row(const std::string& model, int batch) {
  Measurement m;
  m.model = model;
  m.device = "v100";
  m.stack = "tensorrt";
  m.precision = "fp16";
  m.batch_size = batch;
  m.image_size = 224;
  m.latency_ms = 2.0 * batch;
  m.regime = kRegimeEngineLatency;
  m.file = "m.csv";
  m.line = batch + 1;
  return m;
}

ErrorMetrics Metrics(double mape, double tau) {
  ErrorMetrics m;
  m.mape = mape;
  m.median_ape = mape / 2;
  m.within_10 = 0.5;
  m.within_20 = 0.75;
  m.kendall_tau = tau;
  m.worst_ape = 2 * mape;
  return m;
}

// A fit of two of three fields on three rows of two models, with two held-out schemes.
CalibrationResult Result() {
  CalibrationResult r;
  r.rows = {Row("resnet50", 1), Row("resnet50", 4), Row("efficientnet-b0", 1)};
  r.families = {"resnet", "resnet", "efficientnet"};
  r.fit.names = {"matrix_efficiency", "memory_efficiency", "overlap"};
  r.fit.values = {0.6, 0.5, 0.8};
  r.fit.std_errors = {0.01, 0.02, 0.0};
  r.fit.fitted = {true, true, false};
  r.fit.rms_log_residual = 0.04;
  r.before = Metrics(0.2, 0.9);
  r.after = Metrics(0.1, std::numeric_limits<double>::quiet_NaN());
  r.held_out = {{"5-fold (grouped by model)", 5, {}, Metrics(0.12, 0.8)},
                {"leave-one-family-out", 2, {}, Metrics(0.3, 0.7)}};
  return r;
}

SimLatencyModel Model() {
  return SimLatencyModel(
      sim::LoadAccelerator("v100"), sim::LoadStack("tensorrt"), sim::DefaultCalibration(),
      {"matrix_efficiency", "memory_efficiency", "overlap"}, models::BuiltinModels());
}

ProfileProvenance Provenance() {
  ProfileProvenance p;
  p.device = "v100";
  p.stack = "tensorrt";
  p.precision = "fp16";
  p.regime = kRegimeEngineLatency;
  p.measurement_files = {"a.csv", "b.csv"};
  p.measurements_sha256 = Sha256Hex("contents");
  p.where = {{"layout", "NCHW"}, {"stack_version", "8.0"}};
  p.fit_fields = {"matrix_efficiency", "memory_efficiency"};
  p.date = "2026-11-30";
  return p;
}

TEST_CASE("a profile carries the fitted values and where they came from") {
  const sim::CalibrationParams c = MakeProfile(Model(), Result(), Provenance());
  CHECK(c.matrix_efficiency == 0.6);
  CHECK(c.memory_efficiency == 0.5);
  CHECK(c.overlap == 0.8);
  CHECK(c.vector_efficiency == sim::DefaultCalibration().vector_efficiency);
  CHECK(c.name == "v100-tensorrt-fp16");
  CHECK(c.device == "v100");
  CHECK(c.stack == "tensorrt");
  CHECK(c.precision == "fp16");
  CHECK(c.measurements_file == "a.csv, b.csv");
  CHECK(c.measurements_sha256 == Sha256Hex("contents"));
  CHECK(c.date == "2026-11-30");
  CHECK(c.description ==
        "fitted to 3 engine_latency rows (2 models, layout=NCHW, stack_version=8.0); fitted: "
        "matrix_efficiency, memory_efficiency");
}

TEST_CASE("a profile's name and overrides come from the provenance") {
  ProfileProvenance p = Provenance();
  p.name = "custom";
  p.overrides = {"hbm.bandwidth_gbps=2039"};
  p.where.clear();
  const sim::CalibrationParams c = MakeProfile(Model(), Result(), p);
  CHECK(c.name == "custom");
  CHECK(c.description ==
        "fitted to 3 engine_latency rows (2 models); fitted: matrix_efficiency, "
        "memory_efficiency; accelerator overrides during the fit: hbm.bandwidth_gbps=2039");
}

TEST_CASE("a profile's fit metrics: counts, each scheme in percent, errors of fitted fields") {
  const auto m = MakeProfile(Model(), Result(), Provenance()).fit_metrics;
  CHECK(m.at("rows") == 3);
  CHECK(m.at("models") == 2);
  CHECK(m.at("rms_log_residual") == 0.04);
  CHECK(m.at("before_mape_pct") == Approx(20.0));
  CHECK(m.at("before_median_ape_pct") == Approx(10.0));
  CHECK(m.at("before_within_10_pct") == Approx(50.0));
  CHECK(m.at("before_within_20_pct") == Approx(75.0));
  CHECK(m.at("before_worst_ape_pct") == Approx(40.0));
  CHECK(m.at("before_kendall_tau") == 0.9);
  CHECK(m.count("after_kendall_tau") == 0);  // NaN: not written
  CHECK(m.at("after_mape_pct") == Approx(10.0));
  CHECK(m.at("kfold_mape_pct") == Approx(12.0));
  CHECK(m.at("lofo_mape_pct") == Approx(30.0));
  CHECK(m.at("lofo_kendall_tau") == 0.7);
  CHECK(m.at("stderr_matrix_efficiency") == 0.01);
  CHECK(m.at("stderr_memory_efficiency") == 0.02);
  CHECK(m.count("stderr_overlap") == 0);  // not fitted
  CHECK(m.count("lodo_mape_pct") == 0);
}

TEST_CASE("held-out schemes have short metric prefixes") {
  CHECK(SchemeKey("leave-one-family-out") == "lofo");
  CHECK(SchemeKey("leave-one-device-out") == "lodo");
  CHECK(SchemeKey("5-fold (grouped by model)") == "kfold");
}

TEST_CASE("the profile file holds the validation as comments, then YAML that loads back") {
  const CalibrationResult result = Result();
  const sim::CalibrationParams c = MakeProfile(Model(), result, Provenance());
  const std::string text = ProfileFileText(c, result, "v100 / tensorrt / fp16 (engine_latency)");
  CHECK_THAT(text, Catch::StartsWith("# Calibrated profile for v100 / tensorrt / fp16 "
                                     "(engine_latency), written by `dcnas calibrate`.\n"));
  CHECK_THAT(text, Contains("# leave-one-family-out, held-out"));
  CHECK_THAT(text, Contains(sim::CalibrationToYaml(c)));
}

TEST_CASE("today's date is YYYY-MM-DD") {
  const std::string today = TodayUtc();
  REQUIRE(today.size() == 10);
  CHECK(today[4] == '-');
  CHECK(today[7] == '-');
  CHECK(today.substr(0, 2) == "20");
}

TEST_CASE("evaluating a calibration predicts at its values without fitting") {
  const SimLatencyModel model = Model();
  std::vector<Measurement> rows = {Row("resnet50", 1), Row("efficientnet-b0", 4)};
  CalibrationOptions options;
  options.family_of = [](const Measurement& m) {
    return models::BuiltinModels().Get(m.model).family;
  };
  const CalibrationResult r = Evaluate(model, rows, options);
  CHECK(r.families == std::vector<std::string>{"resnet", "efficientnet"});
  REQUIRE(r.predicted_before_ms.size() == 2);
  CHECK(r.predicted_before_ms == model.PredictAllMs(DefaultValues(model), rows));
  CHECK(r.before.count == 2);
  CHECK(r.fit.values.empty());
  CHECK(r.held_out.empty());
  CHECK_THROWS_AS(Evaluate(model, {}, options), InputError);
}

TEST_CASE("the predictions table: one line per row, the held-out column when given") {
  const Measurement a = Row("resnet50", 4);  // measured 8 ms
  const std::vector<PredictedRow> rows = {{&a, "resnet", 10.0}};
  const std::string csv = PredictionsTable(rows, {9.0}).ToCsv();
  CHECK(csv ==
        "model,family,batch_size,image_size,measured_ms,predicted_ms,error_pct,held_out_lofo_ms,"
        "source\nresnet50,resnet,4,224,8.0000,10.0000,25.0,9.0000,m.csv:5\n");
  CHECK_THAT(PredictionsTable(rows, {}).ToCsv(), Contains(",25.0,,m.csv:5\n"));
  CHECK_THROWS_AS(PredictionsTable(rows, {1.0, 2.0}), InternalError);
}

}  // namespace
}  // namespace dcnas::calibrate
