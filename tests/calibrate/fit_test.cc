#include "calibrate/fit.h"

#include <catch2/catch.hpp>

#include <cmath>
#include <random>

#include "calibrate/calibration_run.h"
#include "common/errors.h"

namespace dcnas::calibrate {
namespace {

// A roofline-like synthetic model: latency = overhead + max(work / efficiency, bytes / bandwidth)
// blended by overlap, over rows whose "work" and "bytes" come from batch and image size.
const std::vector<ParameterSpec> kSpecs = {
    {"efficiency", 0.5, 0.05, 1.0, "achieved fraction of peak"},
    {"bandwidth", 0.5, 0.05, 1.0, "achieved fraction of memory peak"},
    {"overhead_ms", 1.0, 0.01, 10.0, "fixed cost per batch"},
};

double Synthetic(const std::vector<double>& p, const Measurement& row) {
  const double work = 0.02 * row.batch_size * (row.image_size / 100.0) * (row.image_size / 100.0);
  const double bytes = 0.5 * row.batch_size + 3.0 * (row.image_size / 100.0);
  return p[2] + std::max(work / p[0], bytes / (40.0 * p[1])) +
         0.2 * std::min(work / p[0], bytes / (40.0 * p[1]));
}

std::vector<Measurement> SyntheticRows(const std::vector<double>& truth, double noise_sigma,
                                       uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> noise(0.0, noise_sigma);
  std::vector<Measurement> rows;
  int line = 2;
  for (int batch : {1, 2, 4, 8, 16, 32, 64, 128, 256}) {
    for (int size : {96, 128, 160, 224, 299, 384}) {
      Measurement m;
      m.model = "m" + std::to_string(size);
      m.batch_size = batch;
      m.image_size = size;
      m.file = "synthetic.csv";
      m.line = line++;
      m.latency_ms = Synthetic(truth, m) * std::exp(noise_sigma > 0 ? noise(rng) : 0.0);
      rows.push_back(m);
    }
  }
  return rows;
}

}  // namespace

TEST_CASE("the fit recovers known synthetic parameters", "[calibrate][relational]") {
  const FunctionModel model(kSpecs, Synthetic);
  const std::vector<double> truth = {0.83, 0.27, 0.35};
  const auto rows = SyntheticRows(truth, 0.0, 1);
  FitOptions options;
  options.regularization = 1e-9;
  const FitResult fit = Fit(model, rows, options);
  REQUIRE(fit.values.size() == 3);
  CHECK(fit.values[0] == Approx(truth[0]).epsilon(1e-3));
  CHECK(fit.values[1] == Approx(truth[1]).epsilon(1e-3));
  CHECK(fit.values[2] == Approx(truth[2]).epsilon(1e-3));
  CHECK(fit.rms_log_residual < 1e-4);
  CHECK(fit.rms_log_residual_before > 0.1);
  CHECK(fit.fitted == std::vector<bool>{true, true, true});
  REQUIRE(fit.log_residuals.size() == rows.size());
}

TEST_CASE("with noise the truth lies within a few standard errors", "[calibrate][relational]") {
  const FunctionModel model(kSpecs, Synthetic);
  const std::vector<double> truth = {0.6, 0.4, 2.0};
  const auto rows = SyntheticRows(truth, 0.05, 11);
  const FitResult fit = Fit(model, rows);
  for (size_t i = 0; i < truth.size(); ++i) {
    INFO(fit.names[i] << " = " << fit.values[i] << " +- " << fit.std_errors[i]);
    CHECK(fit.std_errors[i] > 0);
    CHECK(std::abs(fit.values[i] - truth[i]) < 4 * fit.std_errors[i]);
  }
  CHECK(fit.rms_log_residual == Approx(0.05).epsilon(0.3));
}

TEST_CASE("fitted values stay inside their bounds", "[calibrate][relational]") {
  // The truth asks for an efficiency above the upper bound 1.0.
  const FunctionModel model(kSpecs, Synthetic);
  const auto rows = SyntheticRows({1.6, 0.5, 1.0}, 0.0, 1);
  const FitResult fit = Fit(model, rows);
  CHECK(fit.values[0] < 1.0);
  CHECK(fit.values[0] > 0.95);
}

TEST_CASE("regularisation keeps unconstrained parameters at their defaults",
          "[calibrate][relational]") {
  // Only huge batches: the overhead is invisible, so the data cannot move it.
  const std::vector<ParameterSpec> specs = {
      {"efficiency", 0.5, 0.05, 1.0, ""},
      {"unused", 3.0, 1.0, 9.0, "a parameter the model ignores"},
  };
  const FunctionModel model(specs, [](const std::vector<double>& p, const Measurement& row) {
    return row.batch_size / p[0];
  });
  std::vector<Measurement> rows;
  for (int batch : {64, 128, 256}) {
    Measurement m;
    m.batch_size = batch;
    m.image_size = 224;
    m.latency_ms = batch / 0.7;
    rows.push_back(m);
  }
  const FitResult fit = Fit(model, rows);
  CHECK(fit.values[0] == Approx(0.7).epsilon(1e-3));
  CHECK(fit.values[1] == Approx(3.0).epsilon(1e-6));
}

TEST_CASE("only the free parameters move", "[calibrate][relational]") {
  const FunctionModel model(kSpecs, Synthetic);
  const auto rows = SyntheticRows({0.83, 0.27, 0.35}, 0.0, 1);
  FitOptions options;
  options.free = {"overhead_ms"};
  const FitResult fit = Fit(model, rows, options);
  CHECK(fit.values[0] == kSpecs[0].default_value);
  CHECK(fit.values[1] == kSpecs[1].default_value);
  CHECK(fit.fitted == std::vector<bool>{false, false, true});
  CHECK(fit.std_errors[0] == 0.0);
  options.free = {"no_such_parameter"};
  CHECK_THROWS_WITH(Fit(model, rows, options), Catch::Contains("no_such_parameter"));
}

TEST_CASE("a fit that does not converge says so", "[calibrate]") {
  const FunctionModel model(kSpecs, Synthetic);
  const auto rows = SyntheticRows({0.83, 0.27, 0.35}, 0.0, 1);
  FitOptions options;
  options.max_evaluations = 2;
  CHECK_THROWS_AS(Fit(model, rows, options), NotConvergedError);
  // A model that cannot predict some rows stops the fit too.
  const FunctionModel broken(kSpecs, [](const std::vector<double>& p, const Measurement& row) {
    return row.batch_size > 100 && p[2] < 0.9 ? std::nan("") : Synthetic(p, row);
  });
  CHECK_THROWS_WITH(Fit(broken, rows), Catch::Contains("did not converge"));
}

TEST_CASE("invalid fit setups are input errors", "[calibrate]") {
  const FunctionModel model(kSpecs, Synthetic);
  CHECK_THROWS_AS(Fit(model, {}), InputError);
  const FunctionModel bad({{"x", 2.0, 0.0, 1.0, ""}}, Synthetic);
  Measurement m;
  m.batch_size = 1;
  m.image_size = 1;
  m.latency_ms = 1;
  CHECK_THROWS_WITH(Fit(bad, {m}), Catch::Contains("not inside its bounds"));
}

TEST_CASE("calibration reports before, after and held-out errors", "[calibrate][relational]") {
  const FunctionModel model(kSpecs, Synthetic);
  auto rows = SyntheticRows({0.83, 0.27, 0.35}, 0.02, 5);
  for (Measurement& m : rows) m.device = m.batch_size < 32 ? "small" : "large";
  CalibrationOptions options;
  options.family_of = [](const Measurement& m) { return m.image_size < 200 ? "low" : "high"; };
  const CalibrationResult result = Calibrate(model, rows, options);
  CHECK(result.after.mape < result.before.mape);
  CHECK(result.after.mape < 0.05);
  REQUIRE(result.held_out.size() == 3);  // 5-fold, leave-one-family-out, leave-one-device-out
  CHECK(result.held_out[0].scheme == "5-fold by model");
  CHECK(result.held_out[1].scheme == "leave-one-family-out");
  CHECK(result.held_out[2].scheme == "leave-one-device-out");
  for (const HeldOut& h : result.held_out) {
    CHECK(h.metrics.count == rows.size());
    // Held-out error is never better than the in-sample fit by more than noise.
    CHECK(h.metrics.mape > 0.5 * result.after.mape);
  }
  CHECK(result.AllMetrics().size() == 5);
}

}  // namespace dcnas::calibrate
