// dcnas calibrate: fit CalibrationParams to published measurements for one (accelerator, stack,
// precision), validate on held-out data, and write a calibrated profile.
#include <chrono>
#include <cmath>
#include <ctime>
#include <iostream>
#include <map>
#include <set>

#include "calibrate/calibration.h"
#include "calibrate/measurement.h"
#include "calibrate/report.h"
#include "calibrate/sha256.h"
#include "calibrate/sim_model.h"
#include "cli/cli.h"
#include "common/file_io.h"
#include "common/table.h"
#include "common/text.h"
#include "sim/calibration.h"
#include "sim/config_tree.h"
#include "sim/spec.h"
#include "sim/stack.h"

namespace dcnas::cli {
namespace {

namespace cal = dcnas::calibrate;

std::string TodayUtc() {
  const std::time_t now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm tm{};
  gmtime_r(&now, &tm);
  char buffer[16];
  std::strftime(buffer, sizeof(buffer), "%Y-%m-%d", &tm);
  return buffer;
}

std::map<std::string, std::string> ParseWhere(const std::vector<std::string>& items) {
  std::map<std::string, std::string> where;
  for (const std::string& item : items) {
    const size_t eq = item.find('=');
    if (eq == std::string::npos || eq == 0) {
      throw UsageError("--where expects COLUMN=VALUE, got '" + item + "'");
    }
    where[item.substr(0, eq)] = item.substr(eq + 1);
  }
  return where;
}

// What the files hold, for the "no rows match" message.
std::string Available(const std::vector<cal::Measurement>& rows) {
  std::map<std::string, int> counts;
  for (const cal::Measurement& m : rows) {
    ++counts[m.device + " / " + m.stack + " / " + m.precision + " / " + m.regime];
  }
  std::string out;
  for (const auto& [key, n] : counts) out += "\n  " + key + ": " + std::to_string(n) + " rows";
  return out;
}

std::string Pct(double fraction) { return FormatFixed(100.0 * fraction, 1); }

void AddMetrics(std::map<std::string, double>& out, const std::string& prefix,
                const cal::ErrorMetrics& m) {
  out[prefix + "_mape_pct"] = 100.0 * m.mape;
  out[prefix + "_median_ape_pct"] = 100.0 * m.median_ape;
  out[prefix + "_within_10_pct"] = 100.0 * m.within_10;
  out[prefix + "_within_20_pct"] = 100.0 * m.within_20;
  if (!std::isnan(m.kendall_tau)) out[prefix + "_kendall_tau"] = m.kendall_tau;
  out[prefix + "_worst_ape_pct"] = 100.0 * m.worst_ape;
}

std::string SchemeKey(const std::string& scheme) {
  if (scheme == "leave-one-family-out") return "lofo";
  if (scheme == "leave-one-device-out") return "lodo";
  return "kfold";
}

std::string Commented(const std::string& text) {
  std::string out;
  for (const std::string& line : Split(text, '\n')) {
    if (!line.empty()) out += "# " + line + "\n";
  }
  return out;
}

}  // namespace

int RunCalibrate(const Args& args) {
  po::options_description options("options");
  std::string accel;
  std::string stack_name;
  std::string precision;
  std::vector<std::string> files;
  std::string regime;
  std::vector<std::string> where_items;
  std::string fit_list;
  std::string from;
  std::string evaluate;
  double regularization = 1e-3;
  int max_evaluations = 400;
  int k_folds = 5;
  uint64_t seed = 1;
  bool no_cv = false;
  std::string out;
  std::string name;
  std::string chart_path;
  std::string residuals_path;
  std::vector<std::string> set_items;
  options.add_options()("accel", po::value(&accel)->required(),
                        "accelerator (data/accelerators/NAME.yaml)")(
      "stack", po::value(&stack_name)->required(), "software stack (data/stacks/NAME.yaml)")(
      "precision", po::value(&precision)->required(), "fp32, tf32, fp16, bf16 or int8")(
      "measurements", po::value(&files)->multitoken()->required(),
      "measurement CSV files (data/measurements/*.csv)")(
      "regime", po::value(&regime),
      "large_batch, engine_latency or framework_latency (required when the rows span several)")(
      "where", po::value(&where_items)->multitoken(),
      "COLUMN=VALUE: keep rows whose extra column matches (e.g. layout=NHWC)")(
      "fit", po::value(&fit_list),
      "comma-separated CalibrationParams fields to fit (default: matrix_efficiency,"
      "vector_efficiency,memory_efficiency,overlap,kernel_overhead_scale)")(
      "from", po::value(&from),
      "starting calibration (data/calibrated/NAME.yaml); default: "
      "the documented defaults, which are also the regularisation target")(
      "regularization", po::value(&regularization)->default_value(1e-3),
      "weight of the pull toward the starting values")(
      "max-evaluations", po::value(&max_evaluations)->default_value(400),
      "residual evaluations before the fit gives up (it then writes nothing)")(
      "k-folds", po::value(&k_folds)->default_value(5), "k of the k-fold cross-validation")(
      "seed", po::value(&seed)->default_value(1), "seed of the k-fold shuffle")(
      "no-cv", po::bool_switch(&no_cv), "skip the cross-validation")(
      "evaluate", po::value(&evaluate),
      "no fit: report the error of this calibration (e.g. a profile fitted on another chip)")(
      "out", po::value(&out), "write the calibrated profile (YAML) here")(
      "name", po::value(&name), "profile name (default ACCEL-STACK-PRECISION)")(
      "chart", po::value(&chart_path), "write the parity chart (SVG) here")(
      "residuals", po::value(&residuals_path), "write per-row predictions and residuals (CSV)")(
      "set", po::value(&set_items)->multitoken(), "KEY=VALUE accelerator override (what-if)");
  po::variables_map vm;
  if (!Parse(args,
             "dcnas calibrate --accel A --stack S --precision P --measurements FILE... "
             "[--regime R] [--out FILE.yaml]",
             "Fits the simulator's CalibrationParams to measured latencies (nonlinear least "
             "squares on log latency, Levenberg-Marquardt, bounded, regularised toward the "
             "defaults), reports the error before and after and on held-out data (k-fold by "
             "model, leave-one-family-out), and writes a calibrated profile. A fit that does not "
             "converge writes nothing.",
             options, {}, vm)) {
    return 0;
  }
  std::vector<sim::Override> overrides;
  for (const std::string& item : set_items) overrides.push_back(sim::ParseOverride(item));

  // Measurements name the accelerator file; overrides (what-ifs) only change the simulated spec.
  const std::string device = sim::LoadAccelerator(accel).name;
  sim::AcceleratorSpec spec = sim::LoadAccelerator(accel, overrides);
  sim::StackProfile stack = sim::LoadStack(stack_name);
  cal::Vocabulary vocabulary;
  for (const std::string& n : sim::AcceleratorNames()) vocabulary.devices.insert(n);
  for (const std::string& n : sim::StackNames()) vocabulary.stacks.insert(n);

  std::vector<cal::Measurement> all;
  std::string contents;
  for (const std::string& file : files) {
    const std::string text = ReadFile(file);
    contents += text;
    for (cal::Measurement& m : cal::ParseMeasurements(text, file, vocabulary)) {
      all.push_back(std::move(m));
    }
  }
  cal::Selection selection{device, stack.name, precision, regime, ParseWhere(where_items)};
  const std::vector<cal::Measurement> selected = cal::Select(all, selection);
  if (selected.empty()) {
    throw InputError("no measurement rows for " + device + " / " + stack.name + " / " + precision +
                     (regime.empty() ? "" : " / " + regime) + "; the files hold:" + Available(all));
  }
  cal::RequireSingleRegime(selected);
  const std::string used_regime = selected.front().regime;
  const models::ModelRegistry& registry = models::BuiltinModels();
  const cal::Resolved resolved = cal::ResolveModels(selected, registry);
  std::set<std::string> distinct_models;
  for (const cal::Measurement& m : resolved.usable) distinct_models.insert(m.model);
  std::cout << "measurements: " << selected.size() << " rows for " << spec.name << " / "
            << stack.name << " / " << precision << " / " << used_regime << "; "
            << resolved.usable.size() << " usable (" << distinct_models.size() << " models)\n";
  for (const auto& [reason, n] : resolved.CountsByReason()) {
    std::set<std::string> examples;
    for (const cal::Exclusion& e : resolved.excluded) {
      if (e.reason == reason && examples.size() < 5) examples.insert(e.row.model);
    }
    std::cout << "  excluded " << n << " rows: " << reason << " ("
              << Join({examples.begin(), examples.end()}, ", ") << ")\n";
  }
  if (resolved.usable.empty()) throw InputError("no usable measurement rows");

  std::vector<std::string> fit_fields = cal::DefaultFitFields();
  if (!fit_list.empty()) fit_fields = Split(fit_list, ',');
  const sim::CalibrationParams start =
      !evaluate.empty() ? sim::LoadCalibration(evaluate)
                        : (from.empty() ? sim::DefaultCalibration() : sim::LoadCalibration(from));
  const cal::SimLatencyModel model(spec, stack, start, fit_fields, registry);

  cal::CalibrationOptions cal_options;
  cal_options.fit.regularization = regularization;
  cal_options.fit.max_evaluations = max_evaluations;
  cal_options.k_folds = no_cv ? 0 : k_folds;
  cal_options.leave_one_family_out = !no_cv;
  cal_options.leave_one_device_out = !no_cv;
  cal_options.seed = seed;
  cal_options.family_of = [&registry](const cal::Measurement& m) {
    return registry.Get(m.model).family;
  };

  std::vector<cal::PredictedRow> final_rows;
  cal::CalibrationResult result;
  if (!evaluate.empty()) {
    result.rows = resolved.usable;
    for (const auto& m : result.rows) result.families.push_back(cal_options.family_of(m));
    result.predicted_before_ms = cal::PredictChecked(model, cal::DefaultValues(model), result.rows);
    final_rows = result.Predicted(result.predicted_before_ms);
    std::cout << "\nerror of calibration '" << start.name << "' (no fit):\n"
              << cal::MetricsTable({{"evaluated", cal::MetricsOf(final_rows)}}).ToText();
  } else {
    const auto t0 = std::chrono::steady_clock::now();
    result = cal::Calibrate(model, resolved.usable, cal_options);
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    final_rows = result.Predicted(result.fit.predicted_ms);
    Table params({"parameter", "start", "fitted", "std error", "meaning"});
    params.SetRightAligned({false, true, true, true, false});
    for (size_t i = 0; i < result.fit.names.size(); ++i) {
      params.AddRow({result.fit.names[i], FormatFixed(result.fit.defaults[i], 4),
                     FormatFixed(result.fit.values[i], 4), FormatFixed(result.fit.std_errors[i], 4),
                     model.Parameters()[i].meaning});
    }
    std::cout << "\nfit: " << result.fit.status << ", " << result.fit.evaluations
              << " evaluations; rms log residual "
              << FormatFixed(result.fit.rms_log_residual_before, 3) << " -> "
              << FormatFixed(result.fit.rms_log_residual, 3) << "; " << FormatFixed(seconds, 1)
              << " s with cross-validation\n"
              << params.ToText() << "\nerror (per-batch latency):\n"
              << cal::MetricsTable(result.AllMetrics()).ToText();
  }
  std::cout << "\nresiduals by family and batch (" << (evaluate.empty() ? "fitted" : "evaluated")
            << "):\n"
            << cal::ResidualTable(final_rows).ToText();

  const std::string title =
      spec.name + " / " + stack.name + " / " + precision + " (" + used_regime + ")";
  if (!chart_path.empty()) {
    Emit(RenderSvg(cal::ParityChart(final_rows, "parity: " + title)), chart_path);
  }
  if (!residuals_path.empty()) {
    Table table({"model", "family", "batch_size", "image_size", "measured_ms", "predicted_ms",
                 "error_pct", "held_out_lofo_ms", "source"});
    const cal::HeldOut* lofo = nullptr;
    for (const cal::HeldOut& h : result.held_out) {
      if (h.scheme == "leave-one-family-out") lofo = &h;
    }
    for (size_t i = 0; i < final_rows.size(); ++i) {
      const cal::PredictedRow& p = final_rows[i];
      table.AddRow({p.row->model, p.family, std::to_string(p.row->batch_size),
                    std::to_string(p.row->image_size), FormatFixed(p.row->latency_ms, 4),
                    FormatFixed(p.predicted_ms, 4),
                    Pct((p.predicted_ms - p.row->latency_ms) / p.row->latency_ms),
                    lofo ? FormatFixed(lofo->predicted_ms[i], 4) : "", p.row->where()});
    }
    Emit(table.ToCsv(), residuals_path);
  }
  if (!out.empty()) {
    if (!evaluate.empty()) throw UsageError("--out writes a fitted profile; not with --evaluate");
    sim::CalibrationParams c = model.Apply(result.fit.values);
    c.name = name.empty() ? device + "-" + stack.name + "-" + precision : name;
    std::string where_text;
    for (const auto& [column, value] : selection.where) {
      where_text += ", " + column + "=" + value;
    }
    c.description = "fitted to " + std::to_string(result.rows.size()) + " " + used_regime +
                    " rows (" + std::to_string(distinct_models.size()) + " models" + where_text +
                    "); fitted: " + Join(fit_fields, ", ");
    if (!set_items.empty()) {
      c.description += "; accelerator overrides during the fit: " + Join(set_items, ", ");
    }
    c.device = device;
    c.stack = stack.name;
    c.precision = precision;
    c.measurements_file = Join(files, ", ");
    c.measurements_sha256 = cal::Sha256Hex(contents);
    c.date = TodayUtc();
    c.fit_metrics.clear();
    c.fit_metrics["rows"] = static_cast<double>(result.rows.size());
    c.fit_metrics["models"] = static_cast<double>(distinct_models.size());
    c.fit_metrics["rms_log_residual"] = result.fit.rms_log_residual;
    AddMetrics(c.fit_metrics, "before", result.before);
    AddMetrics(c.fit_metrics, "after", result.after);
    for (const cal::HeldOut& h : result.held_out) {
      AddMetrics(c.fit_metrics, SchemeKey(h.scheme), h.metrics);
    }
    for (size_t i = 0; i < result.fit.names.size(); ++i) {
      if (result.fit.fitted[i])
        c.fit_metrics["stderr_" + result.fit.names[i]] = result.fit.std_errors[i];
    }
    const std::string text =
        "# Calibrated profile for " + title + ", written by `dcnas calibrate`.\n" +
        "# Validation (per-batch latency; held-out = predicted by fits that did not see the "
        "row):\n" +
        Commented(cal::MetricsTable(result.AllMetrics()).ToText()) + sim::CalibrationToYaml(c);
    WriteFileAtomic(out, text);
    std::cout << "\nwrote " << out << "\n";
  }
  return 0;
}

}  // namespace dcnas::cli
