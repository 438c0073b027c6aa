// Nonlinear least squares on log latency: fits a latency model's parameters to measurements
// with Eigen's Levenberg-Marquardt (MINPACK lmder), with bounds and regularisation toward the
// documented defaults.
//
// Bounds: each free parameter p in (lower, upper) is optimised as z with
// p = lower + (upper - lower) * sigmoid(z), so every trial point is valid.
// Regularisation: one extra residual per free parameter, sqrt(weight) * (z - z_default), pulls
// parameters the data does not constrain back to their defaults instead of letting them drift.
// Residuals: r_i = ln(predicted_i) - ln(measured_i), so every row counts by its relative error
// whatever its absolute latency.
// Uncertainty: the covariance s^2 (J^T J)^-1 of the linearised problem at the optimum (J over
// data and regularisation rows, s^2 = data SSR / (rows - free parameters)), mapped to parameter
// space with the derivative of the bound transform.
#pragma once

#include <functional>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "calibrate/measurement.h"

namespace dcnas::calibrate {

struct ParameterSpec {
  std::string name;  // data-file key, e.g. "matrix_efficiency"
  double default_value = 0;
  double lower = 0;  // open bounds: lower < default < upper
  double upper = 0;
  std::string meaning;  // one line, with the unit
};

// What a calibration fits: a parameter vector and a latency prediction for one measurement row.
class LatencyModel {
 public:
  virtual ~LatencyModel() = default;
  virtual const std::vector<ParameterSpec>& Parameters() const = 0;
  // Predicted latency per batch in ms (> 0) of `row` under `params` (one per Parameters()).
  virtual double PredictMs(const std::vector<double>& params, const Measurement& row) const = 0;
  // Predicts many rows; the default loops over PredictMs. Models override it to share work.
  virtual std::vector<double> PredictAllMs(const std::vector<double>& params,
                                           const std::vector<Measurement>& rows) const;
};

// A LatencyModel from a function (tests, simple closed-form models).
class FunctionModel : public LatencyModel {
 public:
  using Fn = std::function<double(const std::vector<double>& params, const Measurement& row)>;
  FunctionModel(std::vector<ParameterSpec> parameters, Fn fn);
  const std::vector<ParameterSpec>& Parameters() const override { return parameters_; }
  double PredictMs(const std::vector<double>& params, const Measurement& row) const override {
    return fn_(params, row);
  }

 private:
  std::vector<ParameterSpec> parameters_;
  Fn fn_;
};

struct FitOptions {
  // Weight of the pull toward the defaults (per free parameter, in sigmoid space). Small: the
  // data decides where it can.
  double regularization = 1e-3;
  // Parameters to fit; empty = all. The others stay at their defaults (thin data).
  std::set<std::string> free;
  int max_evaluations = 400;    // residual evaluations (each Jacobian costs 2 per free parameter)
  double tolerance = 1e-6;      // relative reduction of the cost and of the step
  double jacobian_step = 1e-4;  // central-difference step in sigmoid space
};

struct FitResult {
  std::vector<std::string> names;
  std::vector<double> values;  // fitted (defaults for fixed parameters)
  std::vector<double> defaults;
  std::vector<double> std_errors;  // 0 for fixed parameters
  std::vector<bool> fitted;
  std::vector<double> predicted_ms;    // per row, at the fitted values
  std::vector<double> log_residuals;   // ln(predicted / measured) per row
  double rms_log_residual_before = 0;  // at the defaults
  double rms_log_residual = 0;         // at the fit
  int evaluations = 0;
  std::string status;  // the optimiser's stopping reason
};

// The fit stopped without meeting its convergence criteria (too many evaluations, predictions
// that are not finite and positive, or an improper setup). Nothing should be written.
class NotConvergedError : public std::runtime_error {
 public:
  explicit NotConvergedError(const std::string& what)
      : std::runtime_error("calibration fit did not converge: " + what) {}
};

// Fits `model` to `rows` (measured latency_ms). Throws InputError on an invalid setup (no rows,
// bounds that do not contain the default, an unknown free parameter name) and
// NotConvergedError when the optimiser fails.
FitResult Fit(const LatencyModel& model, const std::vector<Measurement>& rows,
              const FitOptions& options = {});

// Predictions at given parameter values, checked to be finite and positive (InputError naming
// the row otherwise).
std::vector<double> PredictChecked(const LatencyModel& model, const std::vector<double>& params,
                                   const std::vector<Measurement>& rows);

// Default parameter values of a model.
std::vector<double> DefaultValues(const LatencyModel& model);

}  // namespace dcnas::calibrate
