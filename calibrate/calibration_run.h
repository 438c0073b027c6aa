// One calibration run: fit on all selected rows, report the error before and after, and judge
// the fit on held-out data (k-fold, leave-one-family-out, leave-one-device-out).
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "calibrate/cross_validation.h"
#include "calibrate/fit.h"
#include "calibrate/measurement.h"
#include "calibrate/metrics.h"
#include "calibrate/report.h"

namespace dcnas::calibrate {

struct CalibrationOptions {
  FitOptions fit;
  int k_folds = 5;  // 0 disables k-fold
  uint64_t seed = 1;
  bool leave_one_family_out = true;
  bool leave_one_device_out = true;  // only where the rows span several devices
  // The model family of a row (for leave-one-family-out and the reports).
  std::function<std::string(const Measurement&)> family_of;
};

// Throws InputError naming the option for a regularization that is not finite and >= 0, fewer
// than 1 or more than 1,000,000 evaluations, or k-folds other than 0 and 2..1000.
void ValidateCalibrationOptions(const CalibrationOptions& options);

struct HeldOut {
  std::string scheme;  // "5-fold (grouped by model)", "leave-one-family-out", ...
  int folds = 0;
  std::vector<double> predicted_ms;  // per row, from the fold that held the row out
  ErrorMetrics metrics;
};

// Names of the cross-validation schemes that hold out a whole family or a whole device.
inline constexpr const char* kLeaveOneFamilyOut = "leave-one-family-out";
inline constexpr const char* kLeaveOneDeviceOut = "leave-one-device-out";

struct CalibrationResult {
  std::vector<Measurement> rows;
  std::vector<std::string> families;
  FitResult fit;
  std::vector<double> predicted_before_ms;  // at the defaults
  ErrorMetrics before;
  ErrorMetrics after;  // in-sample
  std::vector<HeldOut> held_out;

  std::vector<PredictedRow> Predicted(const std::vector<double>& predicted_ms) const;
  std::vector<NamedMetrics> AllMetrics() const;  // before, after, then each held-out scheme
  // The held-out predictions of one scheme (per row), or none when it did not run.
  std::vector<double> HeldOutPredictions(const std::string& scheme) const;
};

// Runs the fit and the cross-validation. Throws NotConvergedError naming the fold whose fit
// failed; InputError on unusable input (no rows, no family function).
CalibrationResult Calibrate(const LatencyModel& model, const std::vector<Measurement>& rows,
                            const CalibrationOptions& options);

// No fit: the rows, their families and the predictions at the model's start values
// (predicted_before_ms and before). Throws InputError on no rows, InternalError on no family
// function.
CalibrationResult Evaluate(const LatencyModel& model, const std::vector<Measurement>& rows,
                           const CalibrationOptions& options);

// Held-out predictions for given folds (exposed for transfer and custom schemes).
HeldOut CrossValidate(const LatencyModel& model, const std::vector<Measurement>& rows,
                      const std::vector<Fold>& folds, const FitOptions& fit,
                      const std::string& scheme);

}  // namespace dcnas::calibrate
