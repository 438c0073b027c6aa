// dcnas calibrate: fit CalibrationParams to published measurements for one (accelerator, stack,
// precision), validate on held-out data, and write a calibrated profile.
#include <chrono>
#include <iostream>
#include <set>

#include "calibrate/calibration_run.h"
#include "calibrate/measurement.h"
#include "calibrate/profile.h"
#include "calibrate/report.h"
#include "calibrate/selection.h"
#include "calibrate/sim_model.h"
#include "cli/cli.h"
#include "common/file_io.h"
#include "common/table.h"
#include "common/text.h"
#include "sim/calibration_params.h"
#include "sim/spec.h"
#include "sim/stack.h"

namespace dcnas::cli {
namespace {

namespace cal = dcnas::calibrate;

struct CalibrateArgs {
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
  std::string cpu;
  std::vector<std::string> onnx_paths;
};

void AddOptions(po::options_description& options, CalibrateArgs& a) {
  options.add_options()(
      "accel", po::value(&a.accel)->required(),
      "accelerator (data/accelerators/NAME.yaml); A,B,... pools several chips into one fit, each "
      "row simulated on its own chip's spec sheet, with a leave-one-device-out cross-validation")(
      "stack", po::value(&a.stack_name)->required(), "software stack (data/stacks/NAME.yaml)")(
      "precision", po::value(&a.precision)->required(), "fp32, tf32, fp16, bf16 or int8")(
      "measurements", po::value(&a.files)->multitoken()->required(),
      "measurement CSV files (data/measurements/*.csv)")(
      "onnx", po::value(&a.onnx_paths)->multitoken(),
      "ONNX files: rows whose model column is a file's stem are simulated on that import")(
      "regime", po::value(&a.regime),
      "large_batch, engine_latency, framework_latency, host_cpu or training (required when the "
      "rows span several; training rows are steps of the global batch over `chips` chips)")(
      "where", po::value(&a.where_items)->multitoken(),
      "COLUMN=VALUE: keep rows whose column matches (any but the timings: model=resnet50, "
      "batch_size=1, layout=NHWC, stack_version=...); "
      "DEVICE:COLUMN=VALUE filters one pooled chip's rows only")(
      "fit", po::value(&a.fit_list),
      "comma-separated CalibrationParams fields to fit (default: matrix_efficiency,"
      "vector_efficiency,memory_efficiency,overlap,kernel_overhead_scale)")(
      "from", po::value(&a.from),
      "starting calibration (data/calibrated/NAME.yaml); default: "
      "the documented defaults, which are also the regularisation target")(
      "regularization", po::value(&a.regularization)->default_value(1e-3),
      "weight of the pull toward the starting values")(
      "max-evaluations", po::value(&a.max_evaluations)->default_value(400),
      "residual evaluations before the fit gives up (it then writes nothing)")(
      "k-folds", po::value(&a.k_folds)->default_value(5), "k of the k-fold cross-validation")(
      "seed", po::value(&a.seed)->default_value(1), "seed of the k-fold shuffle")(
      "no-cv", po::bool_switch(&a.no_cv), "skip the cross-validation")(
      "evaluate", po::value(&a.evaluate),
      "no fit: report the error of this calibration (e.g. a profile fitted on another chip)")(
      "out", po::value(&a.out), "write the calibrated profile (YAML) here")(
      "name", po::value(&a.name),
      "profile name (default ACCEL-STACK-PRECISION, with -training for the training regime)")(
      "chart", po::value(&a.chart_path), "write the parity chart (SVG) here")(
      "residuals", po::value(&a.residuals_path), "write per-row predictions and residuals (CSV)")(
      "set", po::value(&a.set_items)->multitoken(),
      "KEY=VALUE accelerator override (what-if); DEVICE:KEY=VALUE overrides one pooled chip")(
      "cpu", po::value(&a.cpu),
      "the CPU the rows were timed on, as 'VENDOR family 0xFF model 0xMM: NAME' (what "
      "`dcnas calibrate-host --detect-only` prints), recorded in the profile: the simulator "
      "warns when a CPU profile is used on another CPU");
}

// Refuses outputs that do not go together: --cpu without --out, --out with --evaluate, one file
// named by two outputs.
void CheckOutputs(const CalibrateArgs& a) {
  if (!a.cpu.empty() && a.out.empty()) throw UsageError("--cpu is recorded in --out's profile");
  if (!a.out.empty() && !a.evaluate.empty()) {
    throw UsageError("--out writes a fitted profile; not with --evaluate");
  }
  std::set<std::string> outputs;
  for (const std::string* p : {&a.out, &a.chart_path, &a.residuals_path}) {
    if (!p->empty() && *p != "-" && !outputs.insert(*p).second) {
      throw UsageError(*p + ": named by two of --out, --chart, --residuals");
    }
  }
}

// How many rows are usable, and why others are not.
void PrintRows(const cal::SelectedRows& rows, const std::string& spec_name,
               const std::string& stack_name, const std::string& precision) {
  std::set<std::string> distinct_models;
  for (const cal::Measurement& m : rows.resolved.usable) distinct_models.insert(m.model);
  std::cout << "measurements: " << rows.rows.size() << " rows for " << spec_name << " / "
            << stack_name << " / " << precision << " / " << rows.regime << "; "
            << rows.resolved.usable.size() << " usable (" << distinct_models.size() << " models)\n";
  for (const auto& [reason, n] : rows.resolved.CountsByReason()) {
    std::set<std::string> examples;
    for (const cal::Exclusion& e : rows.resolved.excluded) {
      if (e.reason == reason && examples.size() < 5) examples.insert(e.row.model);
    }
    std::cout << "  excluded " << n << " rows: " << reason << " ("
              << Join({examples.begin(), examples.end()}, ", ") << ")\n";
  }
  if (rows.resolved.usable.empty()) throw InputError("no usable measurement rows");
}

cal::CalibrationOptions OptionsFrom(const CalibrateArgs& a, const models::ModelRegistry& registry) {
  cal::CalibrationOptions o;
  o.fit.regularization = a.regularization;
  o.fit.max_evaluations = a.max_evaluations;
  o.k_folds = a.no_cv ? 0 : a.k_folds;
  o.leave_one_family_out = !a.no_cv;
  o.leave_one_device_out = !a.no_cv;
  o.seed = a.seed;
  o.family_of = [&registry](const cal::Measurement& m) { return registry.Get(m.model).family; };
  return o;
}

// Fits (or with --evaluate, only predicts) and prints the parameters and the error tables.
cal::CalibrationResult FitAndReport(const CalibrateArgs& a, const cal::SimLatencyModel& model,
                                    const std::vector<cal::Measurement>& rows,
                                    const std::string& start_name,
                                    const models::ModelRegistry& registry) {
  const cal::CalibrationOptions options = OptionsFrom(a, registry);
  if (!a.evaluate.empty()) {
    cal::CalibrationResult result = cal::Evaluate(model, rows, options);
    std::cout << "\nerror of calibration '" << start_name << "' (no fit):\n"
              << cal::MetricsTable(
                     {{"evaluated", cal::MetricsOf(result.Predicted(result.predicted_before_ms))}})
                     .ToText();
    return result;
  }
  const auto t0 = std::chrono::steady_clock::now();
  cal::CalibrationResult result = cal::Calibrate(model, rows, options);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
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
            << (a.no_cv ? " s\n" : " s with cross-validation\n") << params.ToText()
            << "\nerror (per-batch latency):\n"
            << cal::MetricsTable(result.AllMetrics()).ToText();
  return result;
}

// The residual table of the final predictions, and for a pooled fit each chip's rows as predicted
// by the fit on the other chips, from its own spec sheet (the transfer a new chip would see).
void PrintResiduals(const CalibrateArgs& a, const cal::CalibrationResult& result,
                    const std::vector<cal::PredictedRow>& final_rows,
                    const std::vector<std::string>& devices) {
  std::cout << "\nresiduals by family and batch (" << (a.evaluate.empty() ? "fitted" : "evaluated")
            << "):\n"
            << cal::ResidualTable(final_rows).ToText();
  const std::vector<double> lodo_ms = result.HeldOutPredictions(cal::kLeaveOneDeviceOut);
  if (!lodo_ms.empty()) {
    std::cout
        << "\nleave-one-device-out by device (each chip predicted by the fit on the others):\n"
        << cal::MetricsTable(cal::MetricsByDevice(result.Predicted(lodo_ms), devices)).ToText();
  }
}

// What a run fitted, for its outputs.
struct FitContext {
  const cal::PooledChips& chips;
  const sim::StackProfile& stack;
  const cal::SelectedRows& rows;
  const std::vector<std::string>& fit_fields;
  const cal::SimLatencyModel& model;
  const cal::CalibrationResult& result;
};

// Writes --chart, --residuals and --out as one set, the profile last (WriteFileSet): a kill leaves
// the old set, the new one, or a marker beside the profile naming the set partly replaced. "-"
// prints to stdout.
void WriteOutputs(const CalibrateArgs& a, const FitContext& c,
                  const std::vector<cal::PredictedRow>& final_rows) {
  const std::string spec_names = Join(c.chips.SpecNames(), " + ");
  const std::string title =
      spec_names + " / " + c.stack.name + " / " + a.precision + " (" + c.rows.regime + ")";
  std::vector<std::pair<std::string, std::string>> set;
  const auto add = [&set](const std::string& path, const std::string& content) {
    if (path == "-") {
      std::cout << content;
    } else if (!path.empty()) {
      set.emplace_back(path, content);
    }
  };
  add(a.chart_path, RenderSvg(cal::ParityChart(final_rows, "parity: " + title)));
  add(a.residuals_path,
      cal::PredictionsTable(final_rows, c.result.HeldOutPredictions(cal::kLeaveOneFamilyOut),
                            c.result.HeldOutPredictions(cal::kLeaveOneDeviceOut))
          .ToCsv());
  if (!a.out.empty()) {
    const std::string device = Join(c.chips.devices, "+");
    // A training profile is named apart from the inference profile of the same setup.
    const std::string name = !a.name.empty() || c.rows.regime != cal::kRegimeTraining
                                 ? a.name
                                 : device + "-" + c.stack.name + "-" + a.precision + "-training";
    const sim::CalibrationParams profile = cal::MakeProfile(
        c.model, c.result,
        {name, device, c.stack.name, a.precision, c.rows.regime, a.files, c.rows.sha256,
         c.rows.selection.where, c.fit_fields, a.set_items, cal::TodayUtc(), a.cpu});
    add(a.out, cal::ProfileFileText(profile, c.result, title));
  }
  WriteFileSet(set);
  if (!a.out.empty() && a.out != "-") std::cout << "\nwrote " << a.out << "\n";
}

}  // namespace

int RunCalibrate(const Args& args) {
  po::options_description options("options");
  CalibrateArgs a;
  AddOptions(options, a);
  po::variables_map vm;
  if (!Parse(args,
             "dcnas calibrate --accel A[,B...] --stack S --precision P --measurements FILE... "
             "[--regime R] [--out FILE.yaml]",
             "Fits the simulator's CalibrationParams to measured latencies (nonlinear least "
             "squares on log latency, Levenberg-Marquardt, bounded, regularised toward the "
             "defaults), reports the error before and after and on held-out data (k-fold by "
             "model, leave-one-family-out, and leave-one-device-out when several chips are pooled, "
             "overall and by chip), and writes a calibrated profile. A fit that does not "
             "converge writes nothing.",
             options, {}, vm)) {
    return 0;
  }
  CheckOutputs(a);
  const cal::PooledChips chips = cal::LoadPooledChips(Split(a.accel, ','), a.set_items);
  const sim::StackProfile stack = sim::LoadStack(a.stack_name);
  const models::ModelRegistry registry = RegistryWithOnnx(a.onnx_paths);
  const cal::SelectedRows rows = cal::SelectRows(
      a.files, {chips.devices, stack.name, a.precision, a.regime, a.where_items}, registry);
  PrintRows(rows, Join(chips.SpecNames(), " + "), stack.name, a.precision);
  const std::vector<std::string> fit_fields =
      a.fit_list.empty() ? cal::DefaultFitFields() : Split(a.fit_list, ',');
  const sim::CalibrationParams start =
      !a.evaluate.empty()
          ? sim::LoadCalibration(a.evaluate)
          : (a.from.empty() ? sim::DefaultCalibration() : sim::LoadCalibration(a.from));
  cal::SimLatencyModel model(chips.specs.front(), stack, start, fit_fields, registry);
  for (size_t i = 0; i < chips.specs.size(); ++i) model.AddDevice(chips.devices[i], chips.specs[i]);
  const cal::CalibrationResult result =
      FitAndReport(a, model, rows.resolved.usable, start.name, registry);
  const std::vector<cal::PredictedRow> final_rows =
      result.Predicted(a.evaluate.empty() ? result.fit.predicted_ms : result.predicted_before_ms);
  PrintResiduals(a, result, final_rows, chips.devices);
  WriteOutputs(a, {chips, stack, rows, fit_fields, model, result}, final_rows);
  return 0;
}

}  // namespace dcnas::cli
