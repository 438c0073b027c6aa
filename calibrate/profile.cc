#include "calibrate/profile.h"

#include <chrono>
#include <cmath>
#include <ctime>
#include <set>

#include "common/text.h"

namespace dcnas::calibrate {
namespace {

std::string Commented(const std::string& text) {
  std::string out;
  for (const std::string& line : Split(text, '\n')) {
    if (!line.empty()) out += "# " + line + "\n";
  }
  return out;
}

}  // namespace

void AddMetrics(std::map<std::string, double>& out, const std::string& prefix,
                const ErrorMetrics& m) {
  out[prefix + "_mape_pct"] = 100.0 * m.mape;
  out[prefix + "_median_ape_pct"] = 100.0 * m.median_ape;
  out[prefix + "_within_10_pct"] = 100.0 * m.within_10;
  out[prefix + "_within_20_pct"] = 100.0 * m.within_20;
  if (!std::isnan(m.kendall_tau)) out[prefix + "_kendall_tau"] = m.kendall_tau;
  out[prefix + "_worst_ape_pct"] = 100.0 * m.worst_ape;
}

std::string SchemeKey(const std::string& scheme) {
  if (scheme == kLeaveOneFamilyOut) return "lofo";
  if (scheme == kLeaveOneDeviceOut) return "lodo";
  return "kfold";
}

sim::CalibrationParams MakeProfile(const SimLatencyModel& model, const CalibrationResult& result,
                                   const ProfileProvenance& provenance) {
  std::set<std::string> distinct_models;
  for (const Measurement& m : result.rows) distinct_models.insert(m.model);
  sim::CalibrationParams c = model.Apply(result.fit.values);
  c.name = provenance.name.empty()
               ? provenance.device + "-" + provenance.stack + "-" + provenance.precision
               : provenance.name;
  std::string where_text;
  for (const auto& [column, value] : provenance.where) where_text += ", " + column + "=" + value;
  c.description = "fitted to " + std::to_string(result.rows.size()) + " " + provenance.regime +
                  " rows (" + std::to_string(distinct_models.size()) + " models" + where_text +
                  "); fitted: " + Join(provenance.fit_fields, ", ");
  if (!provenance.overrides.empty()) {
    c.description += "; accelerator overrides during the fit: " + Join(provenance.overrides, ", ");
  }
  c.device = provenance.device;
  c.stack = provenance.stack;
  c.precision = provenance.precision;
  c.measurements_file = Join(provenance.measurement_files, ", ");
  c.measurements_sha256 = provenance.measurements_sha256;
  c.date = provenance.date;
  c.cpu = provenance.cpu;
  c.fit_metrics.clear();
  c.fit_metrics["rows"] = static_cast<double>(result.rows.size());
  c.fit_metrics["models"] = static_cast<double>(distinct_models.size());
  c.fit_metrics["rms_log_residual"] = result.fit.rms_log_residual;
  AddMetrics(c.fit_metrics, "before", result.before);
  AddMetrics(c.fit_metrics, "after", result.after);
  for (const HeldOut& h : result.held_out)
    AddMetrics(c.fit_metrics, SchemeKey(h.scheme), h.metrics);
  for (size_t i = 0; i < result.fit.names.size(); ++i) {
    if (result.fit.fitted[i]) {
      c.fit_metrics["stderr_" + result.fit.names[i]] = result.fit.std_errors[i];
    }
  }
  return c;
}

std::string ProfileFileText(const sim::CalibrationParams& profile, const CalibrationResult& result,
                            const std::string& title, const std::vector<NamedMetrics>& extra_rows) {
  std::vector<NamedMetrics> rows = result.AllMetrics();
  rows.insert(rows.end(), extra_rows.begin(), extra_rows.end());
  return "# Calibrated profile for " + title + ", written by `dcnas calibrate`.\n" +
         "# Validation (per-batch latency; held-out = predicted by fits that did not see the "
         "row):\n" +
         Commented(MetricsTable(rows).ToText()) + sim::CalibrationToYaml(profile);
}

std::string TodayUtc() {
  const std::time_t now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm tm{};
  gmtime_r(&now, &tm);
  char buffer[16];
  std::strftime(buffer, sizeof(buffer), "%Y-%m-%d", &tm);
  return buffer;
}

}  // namespace dcnas::calibrate
