#include "calibrate/calibration_run.h"

#include <cmath>
#include <set>

#include "calibrate/cross_validation.h"
#include "common/errors.h"

namespace dcnas::calibrate {
namespace {

std::vector<Measurement> Pick(const std::vector<Measurement>& rows,
                              const std::vector<size_t>& indices) {
  std::vector<Measurement> out;
  out.reserve(indices.size());
  for (size_t i : indices) out.push_back(rows[i]);
  return out;
}

std::vector<double> Measured(const std::vector<Measurement>& rows) {
  std::vector<double> out;
  for (const Measurement& m : rows) out.push_back(m.latency_ms);
  return out;
}

std::vector<std::string> Groups(const std::vector<Measurement>& rows) {
  std::vector<std::string> out;
  for (const Measurement& m : rows) out.push_back(RankingGroup(m));
  return out;
}

std::vector<std::string> Labels(const std::vector<Measurement>& rows) {
  std::vector<std::string> out;
  for (const Measurement& m : rows) {
    out.push_back(m.model + " b" + std::to_string(m.batch_size) + " r" +
                  std::to_string(m.image_size) + " " + m.where());
  }
  return out;
}

}  // namespace

std::vector<PredictedRow> CalibrationResult::Predicted(
    const std::vector<double>& predicted_ms) const {
  if (predicted_ms.size() != rows.size()) throw InternalError("predictions do not match rows");
  std::vector<PredictedRow> out;
  for (size_t i = 0; i < rows.size(); ++i) out.push_back({&rows[i], families[i], predicted_ms[i]});
  return out;
}

std::vector<NamedMetrics> CalibrationResult::AllMetrics() const {
  std::vector<NamedMetrics> out = {{"defaults (before)", before}, {"fitted, in-sample", after}};
  for (const HeldOut& h : held_out) out.push_back({h.scheme + ", held-out", h.metrics});
  return out;
}

std::vector<double> CalibrationResult::HeldOutPredictions(const std::string& scheme) const {
  for (const HeldOut& h : held_out) {
    if (h.scheme == scheme) return h.predicted_ms;
  }
  return {};
}

HeldOut CrossValidate(const LatencyModel& model, const std::vector<Measurement>& rows,
                      const std::vector<Fold>& folds, const FitOptions& fit,
                      const std::string& scheme) {
  HeldOut out;
  out.scheme = scheme;
  out.folds = static_cast<int>(folds.size());
  out.predicted_ms.assign(rows.size(), 0.0);
  std::vector<bool> seen(rows.size(), false);
  for (const Fold& fold : folds) {
    if (fold.train.empty() || fold.test.empty()) continue;
    const std::vector<Measurement> train = Pick(rows, fold.train);
    const std::vector<Measurement> test = Pick(rows, fold.test);
    FitResult result;
    try {
      result = Fit(model, train, fit);
    } catch (const NotConvergedError& e) {
      throw NotConvergedError(scheme + ", " + fold.label + ": " + e.what());
    }
    const std::vector<double> predicted = PredictChecked(model, result.values, test);
    for (size_t j = 0; j < fold.test.size(); ++j) {
      out.predicted_ms[fold.test[j]] = predicted[j];
      seen[fold.test[j]] = true;
    }
  }
  std::vector<double> predicted;
  std::vector<Measurement> held;
  for (size_t i = 0; i < rows.size(); ++i) {
    if (!seen[i]) throw InternalError(scheme + ": row " + rows[i].where() + " never held out");
    predicted.push_back(out.predicted_ms[i]);
    held.push_back(rows[i]);
  }
  out.metrics = ComputeMetrics(predicted, Measured(held), Labels(held), Groups(held));
  return out;
}

CalibrationResult Evaluate(const LatencyModel& model, const std::vector<Measurement>& rows,
                           const CalibrationOptions& options) {
  if (rows.empty()) throw InputError("calibration: no measurement rows selected");
  if (!options.family_of) throw InternalError("calibration: no family function");
  CalibrationResult result;
  result.rows = rows;
  for (const Measurement& m : rows) result.families.push_back(options.family_of(m));
  result.predicted_before_ms = PredictChecked(model, DefaultValues(model), rows);
  result.before =
      ComputeMetrics(result.predicted_before_ms, Measured(rows), Labels(rows), Groups(rows));
  return result;
}

void ValidateCalibrationOptions(const CalibrationOptions& o) {
  if (!(o.fit.regularization >= 0) || !std::isfinite(o.fit.regularization)) {
    throw InputError("--regularization " + std::to_string(o.fit.regularization) +
                     " must be finite and >= 0");
  }
  if (o.fit.max_evaluations < 1 || o.fit.max_evaluations > 1000000) {
    throw InputError("--max-evaluations " + std::to_string(o.fit.max_evaluations) +
                     " must be in 1..1000000");
  }
  if (o.k_folds != 0 && (o.k_folds < 2 || o.k_folds > 1000)) {
    throw InputError("--k-folds " + std::to_string(o.k_folds) +
                     " must be 2..1000 (or --no-cv for no cross-validation)");
  }
}

CalibrationResult Calibrate(const LatencyModel& model, const std::vector<Measurement>& rows,
                            const CalibrationOptions& options) {
  ValidateCalibrationOptions(options);
  CalibrationResult result = Evaluate(model, rows, options);
  result.fit = Fit(model, rows, options.fit);
  result.after =
      ComputeMetrics(result.fit.predicted_ms, Measured(rows), Labels(rows), Groups(rows));

  std::vector<std::string> model_keys;
  std::set<std::string> devices;
  std::vector<std::string> device_keys;
  for (const Measurement& m : rows) {
    model_keys.push_back(m.model);
    devices.insert(m.device);
    device_keys.push_back(m.device);
  }
  const std::set<std::string> distinct_models(model_keys.begin(), model_keys.end());
  if (options.k_folds > 0 && distinct_models.size() < static_cast<size_t>(options.k_folds)) {
    throw InputError("--k-folds " + std::to_string(options.k_folds) + " needs at least " +
                     std::to_string(options.k_folds) + " distinct models; the rows have " +
                     std::to_string(distinct_models.size()) + " (lower --k-folds or --no-cv)");
  }
  if (options.k_folds >= 2) {
    result.held_out.push_back(
        CrossValidate(model, rows, KFold(rows.size(), options.k_folds, options.seed, model_keys),
                      options.fit, std::to_string(options.k_folds) + "-fold by model"));
  }
  const std::set<std::string> families(result.families.begin(), result.families.end());
  if (options.leave_one_family_out && families.size() >= 2) {
    result.held_out.push_back(CrossValidate(
        model, rows, LeaveOneGroupOut(result.families, "family"), options.fit, kLeaveOneFamilyOut));
  }
  if (options.leave_one_device_out && devices.size() >= 2) {
    result.held_out.push_back(CrossValidate(model, rows, LeaveOneGroupOut(device_keys, "device"),
                                            options.fit, kLeaveOneDeviceOut));
  }
  return result;
}

}  // namespace dcnas::calibrate
