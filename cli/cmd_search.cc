// dcnas search: architecture search scored by the simulator (or a latency table) and the
// accuracy surrogate (or an accuracy table), journaled and resumable.
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <memory>
#include <optional>

#include "cli/cli.h"
#include "cli/recipe_options.h"
#include "cli/sim_common.h"
#include "common/file_io.h"
#include "common/sha256.h"
#include "common/table.h"
#include "common/text.h"
#include "exec/executor.h"
#include "search/objectives.h"
#include "search/run.h"
#include "search/strategy_compare.h"
#include "space/space.h"
#ifdef DCNAS_WITH_MPI
#include "exec/mpi_executor.h"
#endif
#ifdef DCNAS_WITH_XGBOOST
#include "search/surrogate_objective.h"
#endif
#ifdef DCNAS_WITH_TORCH
#include "models/torch/dataset.h"
#include "proxy/finalists.h"
#include "search/train_objective.h"
#endif

namespace dcnas::cli {
namespace {

// "kind:FILE" -> {kind, FILE}; a bare word -> {word, ""}.
std::pair<std::string, std::string> SplitSource(const std::string& text) {
  const size_t colon = text.find(':');
  if (colon == std::string::npos) return {text, ""};
  return {text.substr(0, colon), text.substr(colon + 1)};
}

std::string FileSha256(const std::string& path) { return Sha256Hex(ReadFile(path)); }

// How `--accuracy train[:RECIPE]` trains (search::ProxyRecipe::WithKey over the space's proxy).
struct TrainArgs {
  int jobs = 1;
  uint64_t seed = 0;
  int64_t limit_eval = 0;
};

std::unique_ptr<search::AccuracyObjective> MakeAccuracy(const std::string& text,
                                                        const space::Space& space, double min_tau,
                                                        const TrainArgs& train) {
  const auto [kind, file] = SplitSource(text);
  if (kind == "train") {
#ifdef DCNAS_WITH_TORCH
    search::TrainAccuracyOptions t;
    t.recipe.resolution = space.proxy().resolution;
    t.recipe.width = space.proxy().width;
    t.recipe.removed_downsamples = space.proxy().removed_downsamples;
    if (!file.empty()) t.recipe = t.recipe.WithKey(file);
    t.jobs = train.jobs;
    t.seed = train.seed;
    t.limit_eval = train.limit_eval;
    t.data_dir = models::libtorch::kFashionMnistDir;
    return search::MakeTrainAccuracy(space, t);
#else
    (void)train;
    throw UsageError("--accuracy train needs LibTorch (this dcnas was built without it)");
#endif
  }
  if ((kind == "table" || kind == "surrogate") && file.empty()) {
    throw UsageError("--accuracy " + kind + ": needs a file (" + kind + ":FILE)");
  }
  if (kind == "table") return search::MakeTableAccuracy(file, space, FileSha256(file));
  if (kind == "counterpart" && file.empty()) {
    throw UsageError("--accuracy counterpart: needs a surrogate file (counterpart:FILE)");
  }
  if (kind == "surrogate" || kind == "counterpart") {
#ifdef DCNAS_WITH_XGBOOST
    if (kind == "counterpart") {
      return search::MakeCounterpartSurrogateAccuracy(file, space, min_tau, FileSha256(file));
    }
    return search::MakeSurrogateAccuracy(file, space, min_tau, FileSha256(file));
#else
    (void)min_tau;
    throw UsageError("--accuracy surrogate: this dcnas was built without XGBoost");
#endif
  }
  throw UsageError("unknown --accuracy '" + text +
                   "' (valid: surrogate:FILE, counterpart:FILE, table:FILE, train[:RECIPE])");
}

struct SearchArgs {
  SimSelection sim_sel;
  sim::SimSetup setup;  // loaded by MakeLatency
  std::string space_file, accuracy_text, latency_text, out;
  search::SearchOptions o;
  int batch = 128;
  double min_tau = 0.5;
  std::string references;
  TrainArgs train;
  int finalists = 0;
  std::string finalists_recipe;
  std::string executor = "process";
  double task_timeout_s = 0.0;
};

void AddSearchOptions(po::options_description& options, SearchArgs& a) {
  search::SearchOptions& o = a.o;
  options.add_options()("space", po::value(&a.space_file), "search-space YAML file")(
      "strategy", po::value(&o.strategy)->default_value(o.strategy),
      "random, evolution, rl, nsga2 (Pareto: accuracy up, latency down) or predictor")(
      "batch", po::value(&a.batch)->default_value(a.batch), "batch size of the simulated graphs")(
      "target-ms", po::value(&o.target_ms), "latency target T of the reward (ms per batch)")(
      "w", po::value(&o.w)->default_value(o.w), "soft reward exponent: ACC * (LAT / T)^w")(
      "hard", po::bool_switch(&o.hard), "hard constraint: w = 0 under T, -1 above")(
      "accuracy", po::value(&a.accuracy_text),
      "surrogate:FILE, table:FILE (encoding,accuracy), counterpart:FILE (a surrogate of "
      "another space with the same stages, scoring each candidate's counterpart there), or "
      "train[:RECIPE] (each candidate trained on the proxy; RECIPE as in the accuracy data, "
      "e.g. r16_n5000_e2; validation accuracy)")(
      "train-jobs", po::value(&a.train.jobs)->default_value(1),
      "--accuracy train: trainings side by side (use --in-flight >= this)")(
      "train-limit-eval", po::value(&a.train.limit_eval)->default_value(0),
      "--accuracy train: validate on at most this many images (smoke tests)")(
      "finalists", po::value(&a.finalists)->default_value(0),
      "after the search, train the K best of the front and the references for real (`dcnas "
      "search finalists`; LibTorch builds)")(
      "finalists-recipe", po::value(&a.finalists_recipe),
      "their recipe (recipe key, e.g. r16_n5000_e8; default: the surrogate's training recipe "
      "with 4x the epochs)")("min-surrogate-tau", po::value(&a.min_tau)->default_value(a.min_tau),
                             "refuse a surrogate whose held-out Kendall tau is below this")(
      "latency", po::value(&a.latency_text)->default_value("sim"),
      "sim (the simulator) or table:FILE (encoding,latency_ms)")(
      "budget", po::value(&o.budget), "evaluations")("seed", po::value(&o.seed)->default_value(0),
                                                     "seed of the strategy")(
      "out", po::value(&a.out), "run directory (journal.jsonl, pareto.csv, best.*, summary.json)")(
      "resume", po::bool_switch(&o.resume), "continue the journal in --out")(
      "in-flight", po::value(&o.in_flight)->default_value(o.in_flight),
      "candidates asked per round before any is told (asynchronous search; recorded in the "
      "journal)")("threads", po::value(&o.threads)->default_value(o.threads),
                  "threads scoring a round's candidates (the result does not depend on it)")(
      "executor", po::value(&a.executor)->default_value(a.executor),
      "process (this process, --threads) or mpi (under mpirun: rank 0 searches and journals, "
      "the other ranks simulate each round's candidates; the result does not depend on it)")(
      "async", po::bool_switch(&o.asynchronous),
      "--executor mpi: asynchronous search, each result told as it arrives and replaced by a "
      "new candidate at once (no round barrier; the journal's order is the arrival order)")(
      "task-timeout", po::value(&a.task_timeout_s)->default_value(0.0),
      "--executor mpi: seconds a worker may take for one candidate (0: no limit)")(
      "references", po::value(&a.references)->default_value(Join(o.references, ",")),
      "zoo models scored beside the search (pareto.svg, best.txt, summary.json); none: no "
      "references");
  a.sim_sel.AddOptions(options, false);
}

// The latency objective (the simulator with the --accel/--stack/... setup, or a table); loads the
// setup into `a` and points the search at it.
std::unique_ptr<search::LatencyObjective> MakeLatency(SearchArgs& a, const space::Space& space) {
  a.setup = a.sim_sel.LoadSetup(a.batch);
  WarnIfOtherCpu(a.setup);
  a.o.setup = &a.setup;
  const auto [kind, file] = SplitSource(a.latency_text);
  if (a.latency_text == "sim") return std::make_unique<search::SimLatency>(space, a.setup);
  if (kind == "table" && !file.empty()) {
    return search::MakeTableLatency(file, space, FileSha256(file));
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

// dcnas search compare: several strategies, seeds and budgets on the same objectives.
int RunSearchCompare(const Args& args) {
  po::options_description options("options");
  SearchArgs a;
  search::CompareOptions c;
  std::string strategies = Join(c.strategies, ","), budgets = "100,300,1000";
  options.add_options()("space", po::value(&a.space_file), "search-space YAML file")(
      "strategies", po::value(&strategies)->default_value(strategies),
      "comma-separated strategies")("budgets", po::value(&budgets)->default_value(budgets),
                                    "comma-separated budgets (evaluations)")(
      "seeds", po::value(&c.seeds)->default_value(c.seeds), "seeds per strategy and budget")(
      "batch", po::value(&a.batch)->default_value(a.batch), "batch size of the simulated graphs")(
      "target-ms", po::value(&c.search.target_ms), "latency target T of the reward (ms per batch)")(
      "w", po::value(&c.search.w)->default_value(c.search.w),
      "soft reward exponent: ACC * (LAT / T)^w")("hard", po::bool_switch(&c.search.hard),
                                                 "hard constraint: w = 0 under T, -1 above")(
      "accuracy", po::value(&a.accuracy_text), "surrogate:FILE, table:FILE (encoding,accuracy)")(
      "min-surrogate-tau", po::value(&a.min_tau)->default_value(a.min_tau),
      "refuse a surrogate whose held-out Kendall tau is below this")(
      "latency", po::value(&a.latency_text)->default_value("sim"),
      "sim (the simulator) or table:FILE (encoding,latency_ms)")(
      "threads", po::value(&c.search.threads)->default_value(1),
      "threads scoring candidates (the result does not depend on it)")(
      "out", po::value(&a.out), "directory of the runs (resumed where their journals exist)");
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
  if (a.space_file.empty() || a.out.empty() || a.accuracy_text.empty()) {
    throw UsageError("dcnas search compare: --space, --accuracy and --out are required");
  }
  if (vm.count("target-ms") == 0) throw UsageError("dcnas search compare: --target-ms is required");
  c.strategies = SplitList(strategies);
  c.budgets.clear();
  for (const std::string& b : SplitList(budgets)) {
    try {
      size_t used = 0;
      const long long v = std::stoll(b, &used);
      if (used != b.size() || v < 1 || v > 1000000000) throw std::invalid_argument(b);
      c.budgets.push_back(v);
    } catch (const std::exception&) {
      throw UsageError("--budgets: '" + b + "' is not a number of evaluations in [1, 1e9]");
    }
  }
  const space::Space space = space::Space::Load(a.space_file);
  const auto latency = MakeLatency(a, space);
  c.search.setup = a.o.setup;
  const auto accuracy = MakeAccuracy(a.accuracy_text, space, a.min_tau, a.train);
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
                       const nlohmann::json& accuracy_config) {
#ifndef DCNAS_WITH_TORCH
  (void)a, (void)space, (void)accuracy_config;
  throw UsageError("--finalists needs LibTorch (this dcnas was built without it)");
#else
  proxy::FinalistsOptions f;
  f.k = a.finalists;
  f.jobs = a.train.jobs;
  f.limit_eval = a.train.limit_eval;
  f.data_dir = models::libtorch::kFashionMnistDir;
  f.resume = std::filesystem::exists(std::filesystem::path(a.out) / "finalists.jsonl");
  proxy::ProxyRecipe base;
  base.resolution = space.proxy().resolution;
  base.width = space.proxy().width;
  base.removed_downsamples = space.proxy().removed_downsamples;
  if (!a.finalists_recipe.empty()) {
    f.recipe = base.WithKey(a.finalists_recipe);
  } else if (accuracy_config.contains("recipe")) {
    f.recipe = base.WithKey(accuracy_config["recipe"].get<std::string>());
    f.recipe.epochs *= 4;
  } else {
    throw UsageError(
        "--finalists: give --finalists-recipe (the accuracy objective records no training "
        "recipe)");
  }
  const auto report = proxy::TrainFinalists(space, a.out, f, StatusLine(true));
  std::cout << report.text;
#endif
}

// dcnas search finalists: the front's best architectures and the references trained for real.
int RunSearchFinalists(const Args& args) {
#ifndef DCNAS_WITH_TORCH
  (void)args;
  throw UsageError("search finalists needs LibTorch (this dcnas was built without it)");
#else
  po::options_description options("options");
  std::string run_dir, space_file;
  proxy::FinalistsOptions f;
  RecipeArgs recipe;
  recipe.recipe.epochs = 8;
  std::string executor = "process";
  double timeout_s = 0.0;
  options.add_options()("run", po::value(&run_dir), "the search's run directory")(
      "space", po::value(&space_file), "the search's space file")(
      "k", po::value(&f.k)->default_value(f.k),
      "finalists: the best-reward architectures of the front")(
      "seed", po::value(&f.seed)->default_value(0), "training seed (the same for every run)")(
      "jobs", po::value(&f.jobs)->default_value(1),
      "trainings side by side (worker processes, one LibTorch thread each)")(
      "data-dir", po::value(&f.data_dir)->default_value(models::libtorch::kFashionMnistDir),
      "Fashion-MNIST directory")("limit-eval", po::value(&f.limit_eval)->default_value(0),
                                 "validate and test on at most this many images (smoke tests)")(
      "append-to", po::value(&f.append_to),
      "accuracy CSV of the same recipe to append the trained architectures of the space to")(
      "resume", po::bool_switch(&f.resume), "continue RUN_DIR/finalists.jsonl")(
      "executor", po::value(&executor)->default_value(executor),
      "process (forked trainers, --jobs at a time) or mpi (under mpirun: rank 0 journals, the "
      "other ranks train)")("task-timeout", po::value(&timeout_s)->default_value(0.0),
                            "--executor mpi: seconds one training may take (0: no limit)");
  AddRecipeOptions(options, recipe);
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
  if (run_dir.empty() || space_file.empty()) {
    throw UsageError("search finalists: --run and --space are required");
  }
  const space::Space space = space::Space::Load(space_file);
  f.recipe = ResolveRecipe(recipe, space);
  proxy::FinalistsReport report;
  if (UseMpiExecutor(executor, "train every finalist")) {
#ifdef DCNAS_WITH_MPI
    if (f.jobs != 1) throw UsageError("--executor mpi: the workers are the MPI ranks; drop --jobs");
    std::optional<models::libtorch::TrainingData> data;  // workers only
    const bool master = exec::RunMasterWorker(
        timeout_s,
        [&] {
          data.emplace(models::libtorch::TrainingData::Load(f.data_dir));
          return proxy::FinalistWorker(space, f, *data);
        },
        [&](exec::Executor& mpi_executor) {
          f.executor = &mpi_executor;
          report = proxy::TrainFinalists(space, run_dir, f, StatusLine(true));
          f.executor = nullptr;
        });
    if (!master) return 0;
#endif
  } else {
    report = proxy::TrainFinalists(space, run_dir, f, StatusLine(true));
  }
  std::cout << report.text << "-> " << run_dir << "/ (finalists.csv, finalists.txt)\n";
  for (const auto& x : report.runs) {
    if (!x.trained.error.empty()) return 1;
  }
  return 0;
#endif
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
  if (a.space_file.empty() || a.out.empty() || a.accuracy_text.empty()) {
    throw UsageError("dcnas search: --space, --accuracy and --out are required");
  }
  if (vm.count("budget") == 0) throw UsageError("dcnas search: --budget is required");
  if (vm.count("target-ms") == 0) throw UsageError("dcnas search: --target-ms is required");
  a.o.references.clear();
  if (a.references != "none") a.o.references = SplitList(a.references);
  const space::Space space = space::Space::Load(a.space_file);
  const auto latency = MakeLatency(a, space);
  const auto accuracy = MakeAccuracy(a.accuracy_text, space, a.min_tau, a.train);
  if (a.finalists < 0) throw UsageError("--finalists must be >= 0");
  if (a.finalists > 0 && a.finalists_recipe.empty() && !accuracy->Config().contains("recipe")) {
    throw UsageError(
        "--finalists: give --finalists-recipe (the accuracy objective records no training "
        "recipe)");
  }
  SearchStatus status;
  search::SearchResult result;
  if (UseMpiExecutor(a.executor, "run the whole search")) {
#ifdef DCNAS_WITH_MPI
    if (a.o.threads != 1)
      throw UsageError("--executor mpi: the workers are the MPI ranks; drop --threads");
    if (a.finalists > 0)
      throw UsageError("--executor mpi: run `dcnas search finalists` after the search");
    const bool master = exec::RunMasterWorker(
        a.task_timeout_s, [&] { return search::SearchWorker(space, *latency); },
        [&](exec::Executor& mpi_executor) {
          a.o.executor = &mpi_executor;
          result = search::RunSearch(space, a.o, *accuracy, *latency, a.out,
                                     [&status](const search::SearchProgress& p) { status(p); });
          a.o.executor = nullptr;
        });
    if (!master) return 0;
#endif
  } else {
    result = search::RunSearch(space, a.o, *accuracy, *latency, a.out,
                               [&status](const search::SearchProgress& p) { status(p); });
  }
  const auto& best = result.points.at(result.best);
  std::cout << "search " << a.o.strategy << " (seed " << a.o.seed << ") over " << space.name()
            << ": " << result.points.size() << " evaluations (" << result.replayed
            << " replayed from the journal), " << FormatFixed(status.Rate(), 0)
            << " candidates/s\nbest reward " << FormatFixed(best.reward, 4) << ": accuracy "
            << FormatFixed(best.accuracy, 3) << ", latency " << FormatFixed(best.latency_ms, 4)
            << " ms, " << space.ToText(best.encoding) << "\nPareto front: " << result.front.size()
            << " architectures\n-> " << a.out
            << "/ (journal.jsonl, pareto.csv, pareto.svg, best.json, best.txt, summary.json)\n";
  if (a.finalists > 0) RunFinalistsAfter(a, space, accuracy->Config());
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
  return 0;
}

}  // namespace dcnas::cli
