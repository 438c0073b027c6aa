// dcnas search: architecture search scored by the simulator (or a latency table) and the
// accuracy surrogate (or an accuracy table), journaled and resumable.
#include <chrono>
#include <filesystem>
#include <iostream>
#include <memory>

#include "cli/cli.h"
#include "cli/executor_options.h"
#include "cli/recipe_options.h"
#include "cli/sim_common.h"
#include "common/file_io.h"
#include "common/sha256.h"
#include "common/table.h"
#include "common/text.h"
#include "search/accuracy_factory.h"
#include "search/objectives.h"
#include "search/run.h"
#include "search/strategy_compare.h"
#include "space/space.h"
#ifdef DCNAS_WITH_TORCH
#include "models/torch/fashion_mnist.h"
#include "proxy/finalists.h"
#endif

namespace dcnas::cli {
namespace {

struct SearchArgs {
  SimSelection sim_sel;
  sim::SimSetup setup;  // loaded by MakeLatency
  std::string space_file, accuracy_text, latency_text, out;
  search::SearchOptions o;
  int batch = 128;
  search::AccuracyFactoryOptions accuracy;
  std::string references;
  int finalists = 0;
  std::string finalists_recipe;
  ExecutorArgs exec;
};

// The options of the space, the objectives and the reward that `search` and `search compare`
// share, and --out (`out_help`); the simulated setup's (SimSelection) come after each command's
// own.
void AddObjectiveOptions(po::options_description& options, SearchArgs& a,
                         const std::string& out_help) {
  search::SearchOptions& o = a.o;
  options.add_options()("space", po::value(&a.space_file), "search-space YAML file")(
      "batch", po::value(&a.batch)->default_value(a.batch), "batch size of the simulated graphs")(
      "target-ms", po::value(&o.target_ms), "latency target T of the reward (ms per batch)")(
      "w", po::value(&o.w)->default_value(o.w), "soft reward exponent: ACC * (LAT / T)^w")(
      "hard", po::bool_switch(&o.hard), "hard constraint: w = 0 under T, -1 above")(
      "accuracy", po::value(&a.accuracy_text),
      "surrogate:FILE, table:FILE (encoding,accuracy), counterpart:FILE (a surrogate of "
      "another space with the same stages, scoring each candidate's counterpart there), or "
      "train[:RECIPE] (each candidate trained on the proxy; RECIPE as in the accuracy data, "
      "e.g. r16_n5000_e2; validation accuracy)")(
      "min-surrogate-tau",
      po::value(&a.accuracy.min_surrogate_tau)->default_value(a.accuracy.min_surrogate_tau),
      "refuse a surrogate whose held-out Kendall tau is below this")(
      "latency", po::value(&a.latency_text)->default_value("sim"),
      "sim (the simulator) or table:FILE (encoding,latency_ms)")(
      "threads", po::value(&o.threads)->default_value(o.threads),
      "threads scoring a round's candidates (the result does not depend on it)")(
      "out", po::value(&a.out), out_help.c_str());
}

void AddSearchOptions(po::options_description& options, SearchArgs& a) {
  search::SearchOptions& o = a.o;
  AddObjectiveOptions(options, a,
                      "run directory (journal.jsonl, pareto.csv, best.*, summary.json)");
  options.add_options()(
      "strategy", po::value(&o.strategy)->default_value(o.strategy),
      "random, evolution, rl, nsga2 (Pareto: accuracy up, latency down) or predictor")(
      "train-jobs", po::value(&a.accuracy.train_jobs)->default_value(1),
      "--accuracy train: trainings side by side (use --in-flight >= this)")(
      "train-limit-eval", po::value(&a.accuracy.train_limit_eval)->default_value(0),
      "--accuracy train: validate on at most this many images (smoke tests)")(
      "finalists", po::value(&a.finalists)->default_value(0),
      "after the search, train the K best of the front and the references for real (`dcnas "
      "search finalists`; LibTorch builds)")(
      "finalists-recipe", po::value(&a.finalists_recipe),
      "their recipe (recipe key, e.g. r16_n5000_e8; default: the surrogate's training recipe "
      "with 4x the epochs)")("budget", po::value(&o.budget), "evaluations")(
      "seed", po::value(&o.seed)->default_value(0), "seed of the strategy")(
      "resume", po::bool_switch(&o.resume), "continue the journal in --out")(
      "in-flight", po::value(&o.in_flight)->default_value(o.in_flight),
      "candidates asked per round before any is told (asynchronous search; recorded in the "
      "journal)")("async", po::bool_switch(&o.asynchronous),
                  "--executor mpi: asynchronous search, each result told as it arrives and "
                  "replaced by a new candidate at once (no round barrier; the journal's order is "
                  "the arrival order)")(
      "references", po::value(&a.references)->default_value(Join(o.references, ",")),
      "zoo models scored beside the search (pareto.svg, best.txt, summary.json); none: no "
      "references");
  a.exec.AddOptions(options,
                    "process (this process, --threads) or mpi (under mpirun: rank 0 searches and "
                    "journals, the other ranks simulate each round's candidates; the result does "
                    "not depend on it)",
                    "--executor mpi: seconds a worker may take for one candidate (0: no limit)");
  a.sim_sel.AddOptions(options, false);
}

// `command`'s required options: --space, --accuracy, --out, then those in `more`.
void RequireOptions(const SearchArgs& a, const po::variables_map& vm, const std::string& command,
                    const std::vector<std::string>& more) {
  if (a.space_file.empty() || a.out.empty() || a.accuracy_text.empty()) {
    throw UsageError(command + ": --space, --accuracy and --out are required");
  }
  for (const std::string& name : more) {
    if (vm.count(name) == 0) throw UsageError(command + ": --" + name + " is required");
  }
}

// The latency objective (the simulator with the --accel/--stack/... setup, or a table); loads the
// setup into `a` and points the search at it.
std::unique_ptr<search::LatencyObjective> MakeLatency(SearchArgs& a, const space::Space& space) {
  a.setup = a.sim_sel.LoadSetup(a.batch);
  WarnIfOtherCpu(a.setup);
  a.o.setup = &a.setup;
  const auto [kind, file] = search::SplitObjectiveSpec(a.latency_text);
  if (a.latency_text == "sim") return std::make_unique<search::SimLatency>(space, a.setup);
  if (kind == "table" && !file.empty()) {
    return search::MakeTableLatency(file, space, Sha256Hex(ReadFile(file)));
  }
  throw UsageError("unknown --latency '" + a.latency_text + "' (valid: sim, table:FILE)");
}

// The progress line: evaluations, candidates/s (fresh evaluations only), best reward, ETA.
class SearchStatus {
 public:
  void operator()(const search::SearchProgress& p) {
    fresh_ = p.evaluations - p.replayed;
    const auto now = std::chrono::steady_clock::now();
    if (now - last_ < std::chrono::milliseconds(250) && p.evaluations < p.budget) return;
    last_ = now;
    const double r = Rate();
    const double eta = r > 0 ? static_cast<double>(p.budget - p.evaluations) / r : 0.0;
    line_(std::to_string(p.evaluations) + "/" + std::to_string(p.budget) + " evaluations" +
              (p.replayed > 0 ? " (" + std::to_string(p.replayed) + " from the journal)" : "") +
              ", " + FormatFixed(r, 0) + " candidates/s, best reward " +
              FormatFixed(p.best_reward, 4) + ", ETA " + FormatFixed(eta, 0) + " s",
          p.evaluations == p.budget);
  }
  double Rate() const {
    const double s =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
    return s > 0 ? static_cast<double>(fresh_) / s : 0.0;
  }

 private:
  std::function<void(const std::string&, bool)> line_ = StatusLine(false);
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
  std::chrono::steady_clock::time_point last_ = start_;
  int64_t fresh_ = 0;
};

// --budgets: comma-separated numbers of evaluations, each in [1, 1e9].
std::vector<int64_t> ParseBudgets(const std::string& text) {
  std::vector<int64_t> budgets;
  for (const std::string& b : SplitList(text)) {
    try {
      size_t used = 0;
      const long long v = std::stoll(b, &used);
      if (used != b.size() || v < 1 || v > 1000000000) throw std::invalid_argument(b);
      budgets.push_back(v);
    } catch (const std::exception&) {
      throw UsageError("--budgets: '" + b + "' is not a number of evaluations in [1, 1e9]");
    }
  }
  return budgets;
}

// dcnas search compare: several strategies, seeds and budgets on the same objectives.
int RunSearchCompare(const Args& args) {
  po::options_description options("options");
  SearchArgs a;
  search::CompareOptions c;
  std::string strategies = Join(c.strategies, ","), budgets = "100,300,1000";
  AddObjectiveOptions(options, a, "directory of the runs (resumed where their journals exist)");
  options.add_options()("strategies", po::value(&strategies)->default_value(strategies),
                        "comma-separated strategies")("budgets",
                                                      po::value(&budgets)->default_value(budgets),
                                                      "comma-separated budgets (evaluations)")(
      "seeds", po::value(&c.seeds)->default_value(c.seeds), "seeds per strategy and budget");
  a.sim_sel.AddOptions(options, false);
  po::variables_map vm;
  if (!Parse(args,
             "dcnas search compare --space FILE --accuracy surrogate:FILE --accel tpu-v3 "
             "--target-ms T [--strategies LIST --budgets LIST --seeds N] --out DIR",
             "Runs every strategy with every budget and seeds 0..N-1 on the same objectives\n"
             "(each run a resumable `dcnas search` of its own in DIR/STRATEGY-bBUDGET-sSEED/)\n"
             "and reports the best reward found: median, quartiles and range over the seeds\n"
             "(DIR/comparison.txt, DIR/runs.csv, DIR/comparison.svg).",
             options, {}, vm)) {
    return 0;
  }
  RequireOptions(a, vm, "dcnas search compare", {"target-ms"});
  c.strategies = SplitList(strategies);
  c.budgets = ParseBudgets(budgets);
  const space::Space space = space::Space::Load(a.space_file);
  const auto latency = MakeLatency(a, space);
  c.search = a.o;  // the reward, target, threads and the simulated setup
  const auto accuracy = search::MakeAccuracyObjective(a.accuracy_text, space, a.accuracy);
  const auto line = StatusLine(false);
  const auto result = search::CompareStrategies(
      space, c, *accuracy, *latency, a.out, [&line](size_t done, size_t total) {
        line(std::to_string(done) + "/" + std::to_string(total) + " searches", done == total);
      });
  std::cout << search::FormatComparison(result) << "-> " << a.out
            << "/ (comparison.txt, runs.csv, comparison.svg, one run directory per search)\n";
  return 0;
}

// `dcnas search --finalists K`: the finalists step on the finished run directory.
void RunFinalistsAfter(const SearchArgs& a, const space::Space& space,
                       const proxy::ProxyRecipe& recipe) {
#ifndef DCNAS_WITH_TORCH
  (void)a, (void)space, (void)recipe;
  throw UsageError("--finalists needs LibTorch (this dcnas was built without it)");
#else
  proxy::FinalistsOptions f;
  f.k = a.finalists;
  f.recipe = recipe;
  f.jobs = a.accuracy.train_jobs;
  f.limit_eval = a.accuracy.train_limit_eval;
  f.data_dir = models::libtorch::kFashionMnistDir;
  f.resume = std::filesystem::exists(std::filesystem::path(a.out) / "finalists.jsonl");
  std::cout << proxy::TrainFinalists(space, a.out, f, StatusLine(true)).text;
#endif
}

#ifdef DCNAS_WITH_TORCH
struct FinalistsArgs {
  std::string run_dir, space_file;
  proxy::FinalistsOptions f;
  RecipeArgs recipe;
  ExecutorArgs exec;
};

void AddFinalistsOptions(po::options_description& options, FinalistsArgs& a) {
  proxy::FinalistsOptions& f = a.f;
  a.recipe.recipe.epochs = search::kFinalistsDefaultEpochs;
  options.add_options()("run", po::value(&a.run_dir), "the search's run directory")(
      "space", po::value(&a.space_file), "the search's space file")(
      "k", po::value(&f.k)->default_value(f.k),
      "finalists: the best-reward architectures of the front")(
      "seed", po::value(&f.seed)->default_value(0), "training seed (the same for every run)")(
      "append-to", po::value(&f.append_to),
      "accuracy CSV of the same recipe to append the trained architectures of the space to")(
      "resume", po::bool_switch(&f.resume), "continue RUN_DIR/finalists.jsonl");
  AddTrainerOptions(options, f.jobs, f.data_dir, f.limit_eval);
  a.exec.AddOptions(options,
                    "process (forked trainers, --jobs at a time) or mpi (under mpirun: rank 0 "
                    "journals, the other ranks train)",
                    "--executor mpi: seconds one training may take (0: no limit)");
  AddRecipeOptions(options, a.recipe);
}
#endif

// dcnas search finalists: the front's best architectures and the references trained for real.
int RunSearchFinalists(const Args& args) {
#ifndef DCNAS_WITH_TORCH
  (void)args;
  throw UsageError("search finalists needs LibTorch (this dcnas was built without it)");
#else
  po::options_description options("options");
  FinalistsArgs a;
  AddFinalistsOptions(options, a);
  po::variables_map vm;
  if (!Parse(args,
             "dcnas search finalists --run RUN_DIR --space FILE [--k 5] [proxy options] "
             "[--jobs K] [--append-to data.csv] [--resume]",
             "Trains the k best-reward architectures of a search's Pareto front and its\n"
             "reference networks (EfficientNet-B0, -X-B0: the zoo networks themselves) on the\n"
             "Fashion-MNIST proxy with one recipe (by default 8 epochs, 4x the shipped accuracy\n"
             "data's), and sets the predicted accuracies against the trained ones:\n"
             "RUN_DIR/finalists.csv, finalists.txt; finalists.jsonl resumes a killed run.",
             options, {}, vm)) {
    return 0;
  }
  if (a.run_dir.empty() || a.space_file.empty()) {
    throw UsageError("search finalists: --run and --space are required");
  }
  const space::Space space = space::Space::Load(a.space_file);
  a.f.recipe = ResolveRecipe(a.recipe, space);
  const bool mpi = a.exec.UseMpi("train every finalist", a.f.jobs, "jobs");
  proxy::FinalistsReport report;
  const auto worker = [&] { return proxy::FinalistWorker(space, a.f); };
  if (!RunJob(mpi, a.exec.task_timeout_s, worker, [&](exec::Executor* executor) {
        a.f.executor = executor;
        report = proxy::TrainFinalists(space, a.run_dir, a.f, StatusLine(true));
        a.f.executor = nullptr;
      })) {
    return 0;
  }
  std::cout << report.text << "-> " << a.run_dir << "/ (finalists.csv, finalists.txt)\n";
  for (const auto& x : report.runs) {
    if (!x.trained.error.empty()) return 1;
  }
  return 0;
#endif
}

// The summary of a finished search, then (after the finalists, when asked for) each reference
// against the fastest architecture at least as accurate.
void PrintSearch(const SearchArgs& a, const space::Space& space, const search::SearchResult& result,
                 double rate) {
  const auto& best = result.points.at(result.best);
  std::cout << "search " << a.o.strategy << " (seed " << a.o.seed << ") over " << space.name()
            << ": " << result.points.size() << " evaluations (" << result.replayed
            << " replayed from the journal), " << FormatFixed(rate, 0)
            << " candidates/s\nbest reward " << FormatFixed(best.reward, 4) << ": accuracy "
            << FormatFixed(best.accuracy, 3) << ", latency " << FormatFixed(best.latency_ms, 4)
            << " ms, " << space.ToText(best.encoding) << "\nPareto front: " << result.front.size()
            << " architectures\n-> " << a.out
            << "/ (journal.jsonl, pareto.csv, pareto.svg, best.json, best.txt, summary.json)\n";
}

void PrintReferences(const search::SearchResult& result) {
  for (const search::ReferenceComparison& c : result.comparisons) {
    if (!c.point) {
      std::cout << c.model << ": no evaluated architecture is as accurate\n";
      continue;
    }
    const auto& p = result.points[*c.point];
    std::cout << c.model << ": the fastest architecture at least as accurate is "
              << SpeedupText(c.speedup) << " (" << FormatFixed(p.latency_ms, 4) << " ms, "
              << (c.accuracy_gain >= 0 ? "+" : "") << FormatFixed(c.accuracy_gain, 2) << " pp)\n";
  }
}

}  // namespace

int RunSearch(const Args& args) {
  if (!args.empty() && args[0] == "compare")
    return RunSearchCompare(Args(args.begin() + 1, args.end()));
  if (!args.empty() && args[0] == "finalists") {
    return RunSearchFinalists(Args(args.begin() + 1, args.end()));
  }
  po::options_description options("options");
  SearchArgs a;
  AddSearchOptions(options, a);
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
             "the same final result. search/README.md describes the outputs.\n"
             "`dcnas search compare --help`: strategies compared over seeds and budgets;\n"
             "`dcnas search finalists --help`: the front's best trained for real.",
             options, {}, vm)) {
    return 0;
  }
  RequireOptions(a, vm, "dcnas search", {"budget", "target-ms"});
  a.o.references.clear();
  if (a.references != "none") a.o.references = SplitList(a.references);
  const space::Space space = space::Space::Load(a.space_file);
  const auto latency = MakeLatency(a, space);
  const auto accuracy = search::MakeAccuracyObjective(a.accuracy_text, space, a.accuracy);
  if (a.finalists < 0) throw UsageError("--finalists must be >= 0");
  proxy::ProxyRecipe finalists_recipe;
  if (a.finalists > 0) {
    finalists_recipe = search::FinalistsRecipe(space, a.finalists_recipe, *accuracy);
  }
  const bool mpi = a.exec.UseMpi("run the whole search", a.o.threads, "threads");
  if (mpi && a.finalists > 0) {
    throw UsageError("--executor mpi: run `dcnas search finalists` after the search");
  }
  SearchStatus status;
  search::SearchResult result;
  const auto worker = [&] { return search::SearchWorker(space, *latency); };
  if (!RunJob(mpi, a.exec.task_timeout_s, worker, [&](exec::Executor* executor) {
        a.o.executor = executor;
        result = search::RunSearch(space, a.o, *accuracy, *latency, a.out,
                                   [&status](const search::SearchProgress& p) { status(p); });
        a.o.executor = nullptr;
      })) {
    return 0;
  }
  PrintSearch(a, space, result, status.Rate());
  if (a.finalists > 0) RunFinalistsAfter(a, space, finalists_recipe);
  PrintReferences(result);
  return 0;
}

}  // namespace dcnas::cli
