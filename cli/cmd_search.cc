// dcnas search: architecture search scored by the simulator (or a latency table) and the
// accuracy surrogate (or an accuracy table), journaled and resumable.
#include <chrono>
#include <iostream>
#include <memory>

#include "calibrate/sha256.h"
#include "cli/cli.h"
#include "cli/sim_common.h"
#include "common/file_io.h"
#include "common/table.h"
#include "common/text.h"
#include "search/objectives.h"
#include "search/run.h"
#include "search/space.h"
#ifdef DCNAS_WITH_XGBOOST
#include "search/surrogate_objective.h"
#endif

namespace dcnas::cli {
namespace {

// "kind:FILE" -> {kind, FILE}; a bare word -> {word, ""}.
std::pair<std::string, std::string> SplitSource(const std::string& text) {
  const size_t colon = text.find(':');
  if (colon == std::string::npos) return {text, ""};
  return {text.substr(0, colon), text.substr(colon + 1)};
}

std::string FileSha256(const std::string& path) { return calibrate::Sha256Hex(ReadFile(path)); }

std::unique_ptr<search::AccuracyObjective> MakeAccuracy(const std::string& text,
                                                        const search::Space& space,
                                                        double min_tau) {
  const auto [kind, file] = SplitSource(text);
  if (kind == "train") {
    throw UsageError(
        "--accuracy train (real proxy training per candidate) is not built yet; use "
        "surrogate:FILE or table:FILE");
  }
  if ((kind == "table" || kind == "surrogate") && file.empty()) {
    throw UsageError("--accuracy " + kind + ": needs a file (" + kind + ":FILE)");
  }
  if (kind == "table") return search::MakeTableAccuracy(file, space, FileSha256(file));
  if (kind == "surrogate") {
#ifdef DCNAS_WITH_XGBOOST
    return search::MakeSurrogateAccuracy(file, space, min_tau, FileSha256(file));
#else
    (void)min_tau;
    throw UsageError("--accuracy surrogate: this dcnas was built without XGBoost");
#endif
  }
  throw UsageError("unknown --accuracy '" + text + "' (valid: surrogate:FILE, table:FILE, train)");
}

}  // namespace

int RunSearch(const Args& args) {
  po::options_description options("options");
  SimSelection sim_sel;
  std::string space_file, accuracy_text, latency_text, out;
  search::SearchOptions o;
  int batch = 128;
  double min_tau = 0.5;
  options.add_options()("space", po::value(&space_file), "search-space YAML file")(
      "strategy", po::value(&o.strategy)->default_value(o.strategy),
      "random, evolution, rl, nsga2 (Pareto: accuracy up, latency down) or predictor")(
      "batch", po::value(&batch)->default_value(batch), "batch size of the simulated graphs")(
      "target-ms", po::value(&o.target_ms), "latency target T of the reward (ms per batch)")(
      "w", po::value(&o.w)->default_value(o.w), "soft reward exponent: ACC * (LAT / T)^w")(
      "hard", po::bool_switch(&o.hard), "hard constraint: w = 0 under T, -1 above")(
      "accuracy", po::value(&accuracy_text), "surrogate:FILE, table:FILE (encoding,accuracy)")(
      "min-surrogate-tau", po::value(&min_tau)->default_value(min_tau),
      "refuse a surrogate whose held-out Kendall tau is below this")(
      "latency", po::value(&latency_text)->default_value("sim"),
      "sim (the simulator) or table:FILE (encoding,latency_ms)")(
      "budget", po::value(&o.budget), "evaluations")("seed", po::value(&o.seed)->default_value(0),
                                                     "seed of the strategy")(
      "out", po::value(&out), "run directory (journal.jsonl, pareto.csv, best.*, summary.json)")(
      "resume", po::bool_switch(&o.resume), "continue the journal in --out");
  sim_sel.AddOptions(options, false);
  po::variables_map vm;
  if (!Parse(args,
             "dcnas search --space FILE --strategy evolution|rl|random|nsga2|predictor "
             "--accel tpu-v3 [--stack S --precision P --calibration C] --batch 128 --target-ms T "
             "[--w -0.07 | --hard] --accuracy surrogate:FILE|table:FILE [--latency sim|table:FILE] "
             "--budget N --seed S --out RUN_DIR [--resume]",
             "Searches a space for fast, accurate architectures: each candidate's full-size graph\n"
             "is simulated on the accelerator (or its latency read from a table), its accuracy\n"
             "predicted by the surrogate (or read from a table), and scored by MnasNet's reward\n"
             "ACC * (LAT / T)^w. Every result is journaled; --resume continues a killed run with\n"
             "the same final result. search/README.md describes the outputs.",
             options, {}, vm)) {
    return 0;
  }
  if (space_file.empty() || out.empty() || accuracy_text.empty()) {
    throw UsageError("dcnas search: --space, --accuracy and --out are required");
  }
  if (vm.count("budget") == 0) throw UsageError("dcnas search: --budget is required");
  if (vm.count("target-ms") == 0) throw UsageError("dcnas search: --target-ms is required");
  const search::Space space = search::Space::Load(space_file);
  const sim::SimSetup setup =
      sim::LoadSetup(sim_sel.accel, sim_sel.stack, sim_sel.calibration, sim_sel.Overrides());
  search::SimLatencyOptions lo;
  lo.accelerator = sim_sel.accel;
  lo.stack = sim_sel.stack;
  lo.calibration = sim_sel.calibration;
  lo.overrides = sim_sel.Overrides();
  lo.precision = sim_sel.PrecisionFor(setup.spec.kind);
  lo.batch = batch;
  lo.fusion = !sim_sel.no_fusion;
  o.graph_options.batch = batch;
  o.graph_options.dtype = models::ParseDType(lo.precision);

  std::unique_ptr<search::LatencyObjective> latency;
  const auto [latency_kind, latency_file] = SplitSource(latency_text);
  if (latency_text == "sim") {
    latency = std::make_unique<search::SimLatency>(space, setup, lo);
  } else if (latency_kind == "table" && !latency_file.empty()) {
    latency = search::MakeTableLatency(latency_file, space, FileSha256(latency_file));
  } else {
    throw UsageError("unknown --latency '" + latency_text + "' (valid: sim, table:FILE)");
  }
  const auto accuracy = MakeAccuracy(accuracy_text, space, min_tau);

  const auto status = StatusLine(false);
  const auto start = std::chrono::steady_clock::now();
  auto last = start;
  int64_t fresh = 0;
  auto rate = [&](int64_t evaluated) {
    const double s =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return s > 0 ? static_cast<double>(evaluated) / s : 0.0;
  };
  const auto result =
      search::RunSearch(space, o, *accuracy, *latency, out, [&](const search::SearchProgress& p) {
        fresh = p.evaluations - p.replayed;
        const auto now = std::chrono::steady_clock::now();
        if (now - last < std::chrono::milliseconds(250) && p.evaluations < p.budget) return;
        last = now;
        const double r = rate(fresh);
        const double eta = r > 0 ? static_cast<double>(p.budget - p.evaluations) / r : 0.0;
        status(
            std::to_string(p.evaluations) + "/" + std::to_string(p.budget) + " evaluations" +
                (p.replayed > 0 ? " (" + std::to_string(p.replayed) + " from the journal)" : "") +
                ", " + FormatFixed(r, 0) + " candidates/s, best reward " +
                FormatFixed(p.best_reward, 4) + ", ETA " + FormatFixed(eta, 0) + " s",
            p.evaluations == p.budget);
      });
  const auto& best = result.points.at(result.best);
  std::cout << "search " << o.strategy << " (seed " << o.seed << ") over " << space.name() << ": "
            << result.points.size() << " evaluations (" << result.replayed
            << " replayed from the journal), " << FormatFixed(rate(fresh), 0)
            << " candidates/s\nbest reward " << FormatFixed(best.reward, 4) << ": accuracy "
            << FormatFixed(best.accuracy, 3) << ", latency " << FormatFixed(best.latency_ms, 4)
            << " ms, " << space.ToText(best.encoding) << "\nPareto front: " << result.front.size()
            << " architectures\n-> " << out
            << "/ (journal.jsonl, pareto.csv, best.json, best.txt, summary.json)\n";
  return 0;
}

}  // namespace dcnas::cli
