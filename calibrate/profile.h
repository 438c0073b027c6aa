// A calibrated profile from a fit: the fitted CalibrationParams with their provenance (what they
// were fitted to, when, the SHA-256 of the measurements) and validation metrics, and its file.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "calibrate/calibration_run.h"
#include "calibrate/sim_model.h"
#include "sim/calibration_params.h"

namespace dcnas::calibrate {

// Where a fitted profile comes from.
struct ProfileProvenance {
  std::string name;                            // profile name; empty: DEVICE-STACK-PRECISION
  std::string device;                          // the accelerator the measurements name
  std::string stack;                           // software stack name
  std::string precision;                       // fp32, tf32, fp16, bf16 or int8
  std::string regime;                          // the measurement regime of the rows
  std::vector<std::string> measurement_files;  // as given, in order
  std::string measurements_sha256;             // of the files' concatenated contents
  std::map<std::string, std::string> where;    // extra-column filters of the row selection
  std::vector<std::string> fit_fields;         // CalibrationParams fields that were fitted
  std::vector<std::string> overrides;          // accelerator KEY=VALUE what-ifs during the fit
  std::string date;                            // YYYY-MM-DD (UTC) of the fit
  std::string cpu;  // HostCpu::Identity() of the CPU the rows were timed on (CPU profiles only)
};

// The fitted parameters of `result` applied to `model`'s start, named and described from
// `provenance`, with fit_metrics: rows, models, rms_log_residual, before_/after_ and one prefix
// per held-out scheme (kfold_, lofo_, lodo_) of *_mape_pct, *_median_ape_pct, *_within_10_pct,
// *_within_20_pct, *_kendall_tau (when defined), *_worst_ape_pct, and stderr_FIELD per fitted
// field.
sim::CalibrationParams MakeProfile(const SimLatencyModel& model, const CalibrationResult& result,
                                   const ProfileProvenance& provenance);

// Adds PREFIX_mape_pct, PREFIX_median_ape_pct, PREFIX_within_10_pct, PREFIX_within_20_pct,
// PREFIX_kendall_tau (when defined) and PREFIX_worst_ape_pct to `out`.
void AddMetrics(std::map<std::string, double>& out, const std::string& prefix,
                const ErrorMetrics& m);

// The profile file: a comment header naming `title` and holding the validation table (the
// result's metrics, then `extra_rows`, e.g. models evaluated apart from the fit), then the
// profile's YAML.
std::string ProfileFileText(const sim::CalibrationParams& profile, const CalibrationResult& result,
                            const std::string& title,
                            const std::vector<NamedMetrics>& extra_rows = {});

// The fit_metrics prefix of a held-out scheme: "lofo", "lodo" or "kfold".
std::string SchemeKey(const std::string& scheme);

// Today's date in UTC, YYYY-MM-DD.
std::string TodayUtc();

}  // namespace dcnas::calibrate
