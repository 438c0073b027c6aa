// dcnas sim: simulate one model on one accelerator and print the latency report.
#include <iostream>
#include <map>
#include <set>

#include "cli/cli.h"
#include "cli/sim_common.h"
#include "common/host_cpu.h"
#include "common/text.h"
#include "sim/engine.h"
#include "sim/train_step.h"
#include "study/precision.h"

namespace dcnas::cli {

void SimSelection::AddOptions(po::options_description& options, bool multi_accel) {
  options.add_options()(
      "accel", po::value(&accel)->default_value(accel),
      multi_accel ? "accelerator name(s), comma-separated (data/accelerators) or YAML path"
                  : "accelerator name (data/accelerators) or YAML path")(
      "stack", po::value(&stack), "software stack (data/stacks); default by accelerator kind")(
      "calibration", po::value(&calibration),
      "calibration name (data/calibrated) or YAML path; default: built-in defaults")(
      "precision", po::value(&precision),
      "dtype of the run: bf16 (tpu default), fp16 (gpu default), fp32 (cpu default), int8")(
      "set", po::value(&sets)->composing(),
      "override KEY=VALUE (repeatable): accelerator keys (matrix_unit.rows=256, "
      "hbm.bandwidth_gbps=1800), stack.KEY=V, calibration.KEY=V")(
      "no-fusion", po::bool_switch(&no_fusion), "one kernel per op (ignore the stack's fusion)")(
      "intervals", po::value(&intervals),
      "prediction intervals: an error model file (`dcnas intervals --out`), or none; default: "
      "the shipped data/intervals/error-model.yaml (calibrate/README.md, \"Prediction "
      "intervals\")");
}

sim::IntervalModel SimSelection::Intervals() const {
  if (intervals == "none") return {};
  if (intervals.empty()) return {&sim::ShippedErrorModel()};
  static std::map<std::string, sim::ErrorModel> loaded;
  auto it = loaded.find(intervals);
  if (it == loaded.end()) it = loaded.emplace(intervals, sim::LoadErrorModel(intervals)).first;
  return {&it->second};
}

std::vector<Override> SimSelection::Overrides() const {
  std::vector<Override> out;
  for (const auto& s : sets) out.push_back(ParseOverride(s));
  return out;
}

std::string SimSelection::PrecisionFor(const std::string& kind) const {
  return study::PrecisionFor(precision, kind);
}

void SimSelection::ApplyPrecision(ModelSelection& selection, const std::string& kind) const {
  if (!selection.graph_path.empty()) {
    if (!precision.empty()) {
      throw UsageError("--graph " + selection.graph_path +
                       ": --precision cannot change a graph file's dtype (export it again with "
                       "--dtype)");
    }
    return;
  }
  selection.dtype = study::ResolveDType(selection.dtype, precision, kind);
}

sim::SimOptions SimSelection::Options() const {
  sim::SimOptions o;
  o.fusion = !no_fusion;
  return o;
}

study::RunOptions SimSelection::StudyOptions(int batch, int resolution) const {
  study::RunOptions o;
  o.batch = batch;
  o.resolution = resolution;
  o.precision = precision;
  o.sim = Options();
  o.sim.details = false;
  return o;
}

std::vector<sim::SimSetup> SimSelection::LoadSetups(const std::vector<std::string>& accels) const {
  std::vector<sim::SimSetup> setups;
  for (const auto& a : accels) {
    setups.push_back(sim::LoadSetup(a, stack, calibration, Overrides()));
    WarnIfOtherCpu(setups.back());
    WarnIfUnlistedDType(setups.back(), PrecisionFor(setups.back().spec.kind));
  }
  return setups;
}

sim::SimSetup SimSelection::LoadSetup(int batch) const {
  sim::SimSetup setup = sim::LoadSetup(accel, stack, calibration, Overrides());
  setup.dtype = models::ParseDType(PrecisionFor(setup.spec.kind));
  setup.batch = batch;
  setup.fusion = !no_fusion;
  return setup;
}

void WarnIfOtherCpu(const sim::SimSetup& setup) {
  static std::set<std::string> warned;
  if (setup.spec.kind != "cpu" || setup.calibration.cpu.empty()) return;
  if (!warned.insert(setup.calibration.file).second) return;
  HostCpu host;
  try {
    host = DetectHostCpu();
  } catch (const InputError&) {
    return;  // no /proc/cpuinfo: nothing to compare with
  }
  const std::string warning = OtherCpuWarning(setup.calibration.name, setup.calibration.cpu, host);
  if (!warning.empty()) std::cerr << "dcnas: warning: " << warning << "\n";
}

void WarnIfUnlistedDType(const sim::SimSetup& setup, const std::string& dtype) {
  static std::set<std::string> warned;
  const std::string note = setup.spec.UnlistedDTypeNote(models::ParseDType(dtype));
  if (note.empty() || !warned.insert(note).second) return;
  std::cerr << "dcnas: warning: " << note << "\n";
}

std::vector<std::string> SplitList(const std::string& text) {
  std::vector<std::string> out;
  for (std::string s : Split(text, ',')) {
    while (!s.empty() && s.front() == ' ') s.erase(s.begin());
    while (!s.empty() && s.back() == ' ') s.pop_back();
    if (!s.empty()) out.push_back(s);
  }
  return out;
}

namespace {

// `dcnas sim --mode train`: one data-parallel training step of the global batch --batch.
int RunTrainStep(ModelSelection selection, const sim::SimSetup& setup, const SimSelection& sim_sel,
                 const std::string& optimizer, int chips, bool no_memory_check, Format f,
                 const std::string& out) {
  if (f == Format::kCsv) throw UsageError("--mode train: --format is text or json");
  if (!selection.graph_path.empty()) {
    throw UsageError(
        "--mode train needs a zoo MODEL or --blocks: a --graph file fixes its "
        "batch, and the step's per-chip batch is --batch / --chips");
  }
  sim::TrainOptions options;
  options.optimizer = sim::ParseOptimizer(optimizer);
  options.chips = chips;
  options.fusion = !sim_sel.no_fusion;
  options.enforce_memory = !no_memory_check;
  selection.batch = sim::PerChipBatch(selection.batch, chips, setup.spec);
  const models::Graph graph = selection.Load();
  const sim::PreparedGraph prepared = sim::Prepare(graph);
  const sim::TrainGraph train =
      sim::BuildTrainGraph(prepared, options.optimizer, setup.stack.rematerialize_elementwise);
  sim::TrainReport report =
      sim::SimulateTrainStep(train, setup.spec, setup.stack, setup.calibration, options);
  if (const sim::IntervalModel im = sim_sel.Intervals()) {
    report.interval = im.Latency(setup, true, report.global_batch, report.step_s);
  }
  Emit(f == Format::kJson ? sim::TrainReportToJson(report) : sim::TrainReportToText(report), out);
  return 0;
}

// The options of `dcnas sim`.
struct SimArgs {
  ModelSelection selection;
  SimSelection sim_sel;
  std::string format;
  std::string out;
  std::string mode;
  std::string optimizer;
  int chips = 1;
  bool per_op = false;
  bool no_memory_check = false;
};

void AddOptions(po::options_description& options, po::positional_options_description& positional,
                SimArgs& a) {
  a.selection.AddOptions(options, positional, 128, "auto");
  options.add_options()("format", po::value(&a.format)->default_value("text"), "text, json or csv")(
      "per-op", po::bool_switch(&a.per_op), "text/csv: one row per op instead of per block")(
      "out", po::value(&a.out), "write to this file instead of stdout")(
      "mode", po::value(&a.mode)->default_value("infer"),
      "infer (one forward pass of --batch) or train (one data-parallel training step of the "
      "global batch --batch over --chips chips)")(
      "optimizer", po::value(&a.optimizer)->default_value("sgd-momentum"),
      "train: sgd-momentum, rmsprop, adam or lars")(
      "chips", po::value(&a.chips)->default_value(1),
      "train: chips in the slice (TPU v3-8 = 4 chips, v3-32 = 16; each TPU v2/v3 chip holds "
      "2 TensorCore replicas)")(
      "no-memory-check", po::bool_switch(&a.no_memory_check),
      "train: report a step whose memory high-water mark exceeds HBM instead of refusing it");
  a.sim_sel.AddOptions(options, false);
}

// Refuses options of the other --mode, and a run without a model.
void CheckMode(const SimArgs& a, const po::variables_map& vm) {
  if (a.mode != "infer" && a.mode != "train") {
    throw UsageError("--mode: expected infer or train, got '" + a.mode + "'");
  }
  if (a.mode == "infer") {
    for (const char* name : {"optimizer", "chips"}) {
      if (!vm[name].defaulted()) {
        throw UsageError(std::string("--") + name + " applies to --mode train only");
      }
    }
    if (a.no_memory_check) throw UsageError("--no-memory-check applies to --mode train only");
  } else if (a.per_op) {
    throw UsageError("--per-op applies to --mode infer only");
  }
  if (!a.selection.HasSource()) throw UsageError("dcnas sim: give a MODEL, --graph or --blocks");
}

// The inference report in the chosen format.
std::string InferenceReport(const SimArgs& a, const sim::SimSetup& setup, Format f) {
  const models::Graph graph = a.selection.Load();
  sim::Report report =
      sim::Simulate(graph, setup.spec, setup.stack, setup.calibration, a.sim_sel.Options());
  if (const sim::IntervalModel im = a.sim_sel.Intervals()) {
    report.interval = im.Latency(setup, false, report.batch, report.latency_s);
  }
  switch (f) {
    case Format::kText:
      return sim::ReportToText(report, a.per_op);
    case Format::kJson:
      return sim::ReportToJson(report);
    case Format::kCsv:
      return sim::ReportToCsv(report, a.per_op);
  }
  throw InternalError("unknown format");
}

}  // namespace

int RunSim(const Args& args) {
  po::options_description options("options");
  po::positional_options_description positional;
  SimArgs a;
  AddOptions(options, positional, a);
  po::variables_map vm;
  if (!Parse(args,
             "dcnas sim MODEL|--graph g.json|--blocks S... --accel tpu-v3 [--stack xla-tpu] "
             "[--batch 128] [--resolution R] [--precision bf16] [--calibration FILE] "
             "[--set k=v]... [--format text|json|csv] [--per-op] "
             "[--mode train --optimizer rmsprop --chips 16]",
             "Simulates inference of a model on an accelerator with a software stack: latency per\n"
             "batch, images/s, achieved TFLOP/s and % of peak, operational intensity, time by\n"
             "bound (matrix, vector, memory, overhead), per block or per op.\n"
             "With --mode train, one data-parallel training step instead: --batch is the global\n"
             "batch of the slice, split over --chips chips (and the replicas of each chip); the\n"
             "report gives the step time, images/s, the split into forward, backward, exposed\n"
             "gradient all-reduce and optimizer update, and the memory high-water mark per chip.\n"
             "Formulas: sim/README.md.",
             options, positional, vm)) {
    return 0;
  }
  const Format f = ParseFormat(a.format);
  CheckMode(a, vm);
  const SimSelection& sim_sel = a.sim_sel;
  const sim::SimSetup setup =
      sim::LoadSetup(sim_sel.accel, sim_sel.stack, sim_sel.calibration, sim_sel.Overrides());
  WarnIfOtherCpu(setup);
  sim_sel.ApplyPrecision(a.selection, setup.spec.kind);
  if (a.selection.graph_path.empty()) WarnIfUnlistedDType(setup, a.selection.dtype);
  if (a.mode == "train") {
    return RunTrainStep(a.selection, setup, sim_sel, a.optimizer, a.chips, a.no_memory_check, f,
                        a.out);
  }
  Emit(InferenceReport(a, setup, f), a.out);
  return 0;
}

}  // namespace dcnas::cli
