// dcnas sim: simulate one model on one accelerator and print the latency report.
#include <iostream>

#include "cli/cli.h"
#include "cli/sim_common.h"
#include "common/text.h"
#include "sim/engine.h"
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
      "no-fusion", po::bool_switch(&no_fusion), "one kernel per op (ignore the stack's fusion)");
}

std::vector<sim::Override> SimSelection::Overrides() const {
  std::vector<sim::Override> out;
  for (const auto& s : sets) out.push_back(sim::ParseOverride(s));
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
  for (const auto& a : accels) setups.push_back(sim::LoadSetup(a, stack, calibration, Overrides()));
  return setups;
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

int RunSim(const Args& args) {
  po::options_description options("options");
  ModelSelection selection;
  SimSelection sim_sel;
  std::string format;
  std::string out;
  bool per_op = false;
  po::positional_options_description positional;
  selection.AddOptions(options, positional, 128, "auto");
  options.add_options()("format", po::value(&format)->default_value("text"), "text, json or csv")(
      "per-op", po::bool_switch(&per_op), "text/csv: one row per op instead of per block")(
      "out", po::value(&out), "write to this file instead of stdout");
  sim_sel.AddOptions(options, false);
  po::variables_map vm;
  if (!Parse(args,
             "dcnas sim MODEL|--graph g.json|--blocks S... --accel tpu-v3 [--stack xla-tpu] "
             "[--batch 128] [--resolution R] [--precision bf16] [--calibration FILE] "
             "[--set k=v]... [--format text|json|csv] [--per-op]",
             "Simulates inference of a model on an accelerator with a software stack: latency per\n"
             "batch, images/s, achieved TFLOP/s and % of peak, operational intensity, time by\n"
             "bound (matrix, vector, memory, overhead), per block or per op. Formulas:\n"
             "sim/README.md.",
             options, positional, vm)) {
    return 0;
  }
  const Format f = ParseFormat(format);
  if (!selection.HasSource()) throw UsageError("dcnas sim: give a MODEL, --graph or --blocks");
  const sim::SimSetup setup =
      sim::LoadSetup(sim_sel.accel, sim_sel.stack, sim_sel.calibration, sim_sel.Overrides());
  sim_sel.ApplyPrecision(selection, setup.spec.kind);
  const models::Graph graph = selection.Load();
  const sim::Report report =
      sim::Simulate(graph, setup.spec, setup.stack, setup.calibration, sim_sel.Options());
  std::string text;
  switch (f) {
    case Format::kText:
      text = sim::ReportToText(report, per_op);
      break;
    case Format::kJson:
      text = sim::ReportToJson(report);
      break;
    case Format::kCsv:
      text = sim::ReportToCsv(report, per_op);
      break;
  }
  Emit(text, out);
  return 0;
}

}  // namespace dcnas::cli
