// dcnas search: architecture search scored by the simulator (or a latency table) and the
// accuracy surrogate (or an accuracy table), journaled and resumable.
#include <algorithm>
#include <chrono>
#include <filesystem>
#include <iostream>
#include <memory>
#include <optional>

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
#include "search/protocol.h"
#include "search/run.h"
#include "search/strategy_compare.h"
#include "space/space.h"
#ifdef DCNAS_WITH_TORCH
#include "models/torch/fashion_mnist.h"
#include "proxy/finalists.h"
#endif

namespace dcnas::cli {
namespace {

// The strategies' parameters (`search`, `search compare`, `search protocol`); those without a
// fixed default are read from the variables map (ApplyStrategyOptions).
struct StrategyArgs {
  search::StrategyOptions params;
  int tournament = 0;
  int start = 0;
  std::string model = "ridge";
  std::string acquisition = "ucb";
};

// The option names of StrategyArgs (search::StrategyParameters names the strategies' own).
const std::vector<std::string>& StrategyOptionNames() {
  static const std::vector<std::string> kNames = {"population",  "tournament", "mutations", "start",
                                                  "candidates",  "elite",      "ensemble",  "model",
                                                  "acquisition", "kappa"};
  return kNames;
}

void AddStrategyOptions(po::options_description& options, StrategyArgs& s) {
  search::StrategyOptions& p = s.params;
  options.add_options()("population", po::value(&p.population)->default_value(p.population),
                        "evolution: population; nsga2: generation size")(
      "tournament", po::value(&s.tournament), "evolution: tournament size (default population/2)")(
      "mutations", po::value(&p.mutations)->default_value(p.mutations),
      "evolution, nsga2: choices changed per mutation; predictor: at most this many per "
      "candidate")("start", po::value(&s.start),
                   "evolution, predictor: random proposals before the strategy's own (default: "
                   "evolution population/4, predictor 10)")(
      "candidates", po::value(&p.candidates)->default_value(p.candidates),
      "predictor: candidates scored per ask (mutations of the elite, a tenth random)")(
      "elite", po::value(&p.elite)->default_value(p.elite),
      "predictor: best told networks whose mutations are candidates")(
      "ensemble", po::value(&p.model.members)->default_value(p.model.members),
      "predictor: members of its model's ensemble")(
      "model", po::value(&s.model)->default_value(s.model),
      "predictor: ridge, trees or mixed (both; search/predictor_model.h)")(
      "acquisition", po::value(&s.acquisition)->default_value(s.acquisition),
      "predictor: ucb (mean + kappa x std) or ts (independent Thompson sampling)")(
      "kappa", po::value(&p.kappa)->default_value(p.kappa), "predictor --acquisition ucb: kappa");
}

// The parameters given, checked against the strategies run: an option none of them takes is
// refused (UsageError naming it), as are bad model and acquisition names; the ranges and the
// relations between them (tournament <= population) are MakeStrategy's.
search::StrategyOptions ApplyStrategyOptions(const po::variables_map& vm, StrategyArgs& s,
                                             const std::vector<std::string>& strategies) {
  if (vm.count("tournament") > 0) s.params.tournament = s.tournament;
  if (vm.count("start") > 0) s.params.start = s.start;
  s.params.model.kind = search::ParsePredictorModel(s.model);
  s.params.acquisition = search::ParseAcquisition(s.acquisition);
  for (const std::string& option : StrategyOptionNames()) {
    if (vm.count(option) == 0 || vm[option].defaulted()) continue;
    bool taken = false;
    for (const std::string& strategy : strategies) {
      const std::vector<std::string> own = search::StrategyParameters(strategy);
      taken = taken || std::find(own.begin(), own.end(), option) != own.end();
    }
    if (!taken) {
      throw UsageError("--" + option + " does not apply to strategy " + Join(strategies, ", ") +
                       " (strategy parameters: evolution " +
                       Join(search::StrategyParameters("evolution"), ", ") + "; nsga2 " +
                       Join(search::StrategyParameters("nsga2"), ", ") + "; predictor " +
                       Join(search::StrategyParameters("predictor"), ", ") + ")");
    }
  }
  return s.params;
}

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
  StrategyArgs strategy;
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
      "another space with the same stages, scoring each candidate's counterpart there), "
      "imagenet:FILE (published ImageNet top-1 predicted from the full-size graph by `dcnas "
      "surrogate imagenet`), or train[:RECIPE] (each candidate trained on the proxy; RECIPE as in "
      "the accuracy data, "
      "e.g. r16_n5000_e2; validation accuracy)")(
      "min-surrogate-tau",
      po::value(&a.accuracy.min_surrogate_tau)->default_value(a.accuracy.min_surrogate_tau),
      "refuse a surrogate whose held-out Kendall tau is below this")(
      "latency", po::value(&a.latency_text)->default_value("sim"),
      "sim (the simulator), table:FILE (encoding,latency_ms) or none (no latency: the reward is "
      "the accuracy; no --target-ms)")(
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
      "random, evolution, rl, nsga2 (Pareto: accuracy up, latency down) or predictor (learns a "
      "model of the reward from the results)")(
      "prior", po::bool_switch(&o.prior),
      "predictor: the accuracy objective's own prediction (a surrogate) as the prior its model "
      "corrects")("train-jobs", po::value(&a.accuracy.train_jobs)->default_value(1),
                  "--accuracy train: trainings side by side (use --in-flight >= this)")(
      "train-limit-eval", po::value(&a.accuracy.train_limit_eval)->default_value(0),
      "--accuracy train: validate on at most this many images (smoke tests)")(
      "train-dataset", po::value(&a.accuracy.train_data_dir),
      "--accuracy train: fashion-mnist[:DIR] (default), cifar10:DIR, cifar100:DIR or "
      "imagefolder:DIR; the recipe names it by content hash")(
      "train-halving", po::value(&a.accuracy.train_halving_eta)->default_value(0),
      "--accuracy train: successive halving with this eta over each round of --in-flight "
      "candidates (0: off): all trained for --train-min-epochs, the best 1/eta again for eta "
      "times the epochs, up to the recipe's; a candidate's accuracy is its label at the last "
      "rung it reached")("train-min-epochs",
                         po::value(&a.accuracy.train_min_epochs)->default_value(1),
                         "--train-halving: epochs of the first rung")(
      "finalists", po::value(&a.finalists)->default_value(0),
      "after the search, train the K best of the front and the references for real (`dcnas "
      "search finalists`; LibTorch builds)")(
      "finalists-recipe", po::value(&a.finalists_recipe),
      "their recipe (recipe key, e.g. r16_n5000_e8; default: the surrogate's training recipe "
      "with 4x the epochs)")("budget", po::value(&o.budget),
                             "distinct networks (a repeat proposal is answered from the earlier "
                             "result, not charged)")("seed", po::value(&o.seed)->default_value(0),
                                                     "seed of the strategy")(
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
  AddStrategyOptions(options, a.strategy);
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
  const bool none = a.latency_text == "none";
  for (const std::string& name : more) {
    if (name == "target-ms" && none) {
      if (vm.count(name) > 0) {
        throw UsageError(command + ": --target-ms needs a latency (not with --latency none)");
      }
      continue;
    }
    if (vm.count(name) == 0) throw UsageError(command + ": --" + name + " is required");
  }
}

// The latency objective (the simulator with the --accel/--stack/... setup, or a table); loads the
// setup into `a` and points the search at it.
std::unique_ptr<search::LatencyObjective> MakeLatency(SearchArgs& a, const space::Space& space) {
  if (a.latency_text == "none") {
    a.o.accuracy_only = true;
    a.o.setup = nullptr;
    return search::MakeNoLatency();
  }
  a.setup = a.sim_sel.LoadSetup(a.batch);
  WarnIfOtherCpu(a.setup);
  a.o.setup = &a.setup;
  const auto [kind, file] = search::SplitObjectiveSpec(a.latency_text);
  if (a.latency_text == "sim") {
    a.o.intervals = a.sim_sel.Intervals().model;
    return std::make_unique<search::SimLatency>(space, a.setup);
  }
  if (kind == "table" && !file.empty()) {
    return search::MakeTableLatency(file, space, Sha256Hex(ReadFile(file)));
  }
  throw UsageError("unknown --latency '" + a.latency_text + "' (valid: sim, table:FILE, none)");
}

// The progress line: distinct networks, repeats, candidates/s (fresh evaluations only), best
// reward, ETA.
class SearchStatus {
 public:
  void operator()(const search::SearchProgress& p) {
    fresh_ = p.evaluations - p.replayed;
    const auto now = std::chrono::steady_clock::now();
    if (now - last_ < std::chrono::milliseconds(250) && p.evaluations < p.budget) return;
    last_ = now;
    const double r = Rate();
    const double eta = r > 0 ? static_cast<double>(p.budget - p.evaluations) / r : 0.0;
    line_(std::to_string(p.evaluations) + "/" + std::to_string(p.budget) + " networks" +
              (p.replayed > 0 ? " (" + std::to_string(p.replayed) + " from the journal)" : "") +
              (p.repeats > 0 ? ", " + std::to_string(p.repeats) + " repeats" : "") + ", " +
              FormatFixed(r, 0) + " candidates/s, best reward " + FormatFixed(p.best_reward, 4) +
              ", ETA " + FormatFixed(eta, 0) + " s",
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

// --budgets: comma-separated numbers of distinct networks, each in [1, 1e9].
std::vector<int64_t> ParseBudgets(const std::string& text) {
  std::vector<int64_t> budgets;
  for (const std::string& b : SplitList(text)) {
    try {
      size_t used = 0;
      const long long v = std::stoll(b, &used);
      if (used != b.size() || v < 1 || v > 1000000000) throw std::invalid_argument(b);
      budgets.push_back(v);
    } catch (const std::exception&) {
      throw UsageError("--budgets: '" + b + "' is not a number of distinct networks in [1, 1e9]");
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
                        "comma-separated strategies")(
      "budgets", po::value(&budgets)->default_value(budgets),
      "comma-separated budgets (distinct networks)")(
      "seeds", po::value(&c.seeds)->default_value(c.seeds), "seeds per strategy and budget")(
      "in-flight", po::value(&a.o.in_flight)->default_value(a.o.in_flight),
      "candidates asked per round (as in `dcnas search`)");
  AddStrategyOptions(options, a.strategy);
  a.sim_sel.AddOptions(options, false);
  po::variables_map vm;
  if (!Parse(args,
             "dcnas search compare --space FILE --accuracy surrogate:FILE --accel tpu-v3 "
             "--target-ms T|--latency none [--strategies LIST --budgets LIST --seeds N] "
             "[strategy parameters] --out DIR",
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
  a.o.params = ApplyStrategyOptions(vm, a.strategy, c.strategies);
  const space::Space space = space::Space::Load(a.space_file);
  const auto latency = MakeLatency(a, space);
  c.search = a.o;  // the reward, target, threads, strategy parameters and the simulated setup
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

struct ProtocolArgs {
  std::string space_file, accuracy_text, out, strategies = Join(search::StrategyNames(), ",");
  search::ProtocolOptions p;
  StrategyArgs strategy;
};

void AddProtocolOptions(po::options_description& options, ProtocolArgs& a) {
  search::ProtocolOptions& p = a.p;
  p.threads = 2;
  options.add_options()("space", po::value(&a.space_file), "search-space YAML file")(
      "accuracy", po::value(&a.accuracy_text),
      "table:FILE: the benchmark's accuracies (encoding,accuracy), one per network of the space")(
      "strategies", po::value(&a.strategies)->default_value(a.strategies),
      "comma-separated strategies")("seeds", po::value(&p.seeds)->default_value(p.seeds),
                                    "runs per strategy (seeds 0..N-1)")(
      "budget", po::value(&p.budget)->default_value(p.budget), "distinct networks per run")(
      "top-fraction", po::value(&p.top_fraction)->default_value(p.top_fraction),
      "the second target: the best ceil(fraction x networks) of the table")(
      "in-flight", po::value(&p.in_flight)->default_value(p.in_flight),
      "candidates asked per round (as in `dcnas search`)")(
      "threads", po::value(&p.threads)->default_value(p.threads),
      "threads running the runs (the result does not depend on it)")(
      "out", po::value(&a.out), "directory: runs.csv, protocol.txt, summary.json, protocol.svg");
  AddStrategyOptions(options, a.strategy);
}

// dcnas search protocol: the NAS-benchmark protocol on a table of accuracies.
int RunSearchProtocol(const Args& args) {
  po::options_description options("options");
  ProtocolArgs a;
  AddProtocolOptions(options, a);
  po::variables_map vm;
  if (!Parse(args,
             "dcnas search protocol --space FILE --accuracy table:FILE [--strategies LIST "
             "--seeds 100 --budget 1000 --top-fraction 0.01] [strategy parameters] --out DIR",
             "The way NAS benchmarks are read: every strategy searches the table (reward = its\n"
             "accuracy, no latency) with seeds 0..N-1, and each run records the distinct networks\n"
             "it evaluated until the table's optimum and until the first network of its top\n"
             "fraction. Prints per strategy the median, quartiles and hit rate within the budget;\n"
             "writes DIR/runs.csv, protocol.txt, summary.json and protocol.svg (the fraction of\n"
             "runs that found each target against the networks evaluated).",
             options, {}, vm)) {
    return 0;
  }
  if (a.space_file.empty() || a.accuracy_text.empty() || a.out.empty()) {
    throw UsageError("dcnas search protocol: --space, --accuracy and --out are required");
  }
  a.p.strategies = SplitList(a.strategies);
  a.p.params = ApplyStrategyOptions(vm, a.strategy, a.p.strategies);
  const auto [kind, file] = search::SplitObjectiveSpec(a.accuracy_text);
  if (kind != "table" || file.empty()) {
    throw UsageError("--accuracy '" + a.accuracy_text +
                     "': the protocol reads a benchmark's table, table:FILE");
  }
  const space::Space space = space::Space::Load(a.space_file);
  const search::ObjectiveTable table = search::ReadAccuracyTable(file, space);
  const nlohmann::json config = {{"kind", "table"},
                                 {"file", file},
                                 {"sha256", Sha256Hex(ReadFile(file))},
                                 {"rows", table.values.size()}};
  const auto line = StatusLine(false);
  const auto start = std::chrono::steady_clock::now();
  const auto result = search::RunProtocol(space, table, a.p, [&](size_t done, size_t total) {
    const double s =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    const double rate = s > 0 ? static_cast<double>(done) / s : 0.0;
    line(std::to_string(done) + "/" + std::to_string(total) + " runs, " + FormatFixed(rate, 1) +
             " runs/s, ETA " +
             FormatFixed(rate > 0 ? static_cast<double>(total - done) / rate : 0.0, 0) + " s",
         done == total);
  });
  search::WriteProtocol(space, a.p, config, result, a.out);
  std::cout << search::FormatProtocol(result, a.p) << "-> " << a.out
            << "/ (runs.csv, protocol.txt, summary.json, protocol.svg)\n";
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
  std::string run_dir, space_file, dataset;
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
  AddTrainerOptions(options, f.jobs, f.data_dir, f.limit_eval, a.dataset);
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
             "proxy (Fashion-MNIST, or --dataset) with one recipe (by default 8 epochs, 4x the "
             "shipped accuracy\n"
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
  ApplyDataset(a.dataset, a.f.data_dir, a.f.recipe, a.run_dir + "/finalists");
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
            << ": " << result.points.size() << " distinct networks (" << result.repeats
            << " repeat proposals answered from earlier results, not charged; " << result.replayed
            << " replayed from the journal), " << FormatFixed(rate, 0) << " candidates/s\n";
  if (!result.stopped.empty()) std::cout << result.stopped << "\n";
  if (a.o.accuracy_only) {
    std::cout << "best accuracy " << FormatFixed(best.accuracy, 3) << " (no latency: --latency "
              << "none), " << space.ToText(best.encoding) << "\n";
  } else {
    std::cout << "best reward " << FormatFixed(best.reward, 4) << ": accuracy "
              << FormatFixed(best.accuracy, 3) << ", latency " << FormatFixed(best.latency_ms, 4)
              << " ms, " << space.ToText(best.encoding) << "\nPareto front: " << result.front.size()
              << " architectures\n";
  }
  std::cout << "-> " << a.out
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
              << (c.accuracy_gain >= 0 ? "+" : "") << FormatFixed(c.accuracy_gain, 2) << " pp)"
              << (c.binds ? ""
                          : "; the constraint does not bind (the fastest of all is as accurate)");
    if (c.same_structure_point) {
      std::cout << "; keeping its structure: " << SpeedupText(c.same_structure_speedup) << " ("
                << FormatFixed(result.points[*c.same_structure_point].latency_ms, 4) << " ms)";
    } else {
      std::cout << "; none evaluated keeps its structure";
    }
    std::cout << "\n";
  }
}

// `dcnas search compare|protocol|finalists ...`: the subcommand's exit code; nothing for a search.
std::optional<int> RunSearchSubcommand(const Args& args) {
  using Sub = int (*)(const Args&);
  static const std::vector<std::pair<std::string, Sub>> kSubcommands = {
      {"compare", RunSearchCompare},
      {"protocol", RunSearchProtocol},
      {"finalists", RunSearchFinalists}};
  for (const auto& [name, run] : kSubcommands) {
    if (!args.empty() && args[0] == name) return run(Args(args.begin() + 1, args.end()));
  }
  return std::nullopt;
}

}  // namespace

int RunSearch(const Args& args) {
  if (const std::optional<int> rc = RunSearchSubcommand(args)) return *rc;
  po::options_description options("options");
  SearchArgs a;
  AddSearchOptions(options, a);
  po::variables_map vm;
  if (!Parse(
          args,
          "dcnas search --space FILE --strategy evolution|rl|random|nsga2|predictor "
          "[--population P --tournament S --mutations K --start N ...] "
          "--accel tpu-v3 [--stack S --precision P --calibration C] --batch 128 --target-ms T "
          "[--w -0.07 | --hard] --accuracy surrogate:FILE|table:FILE "
          "[--latency sim|table:FILE|none] --budget N --seed S --out RUN_DIR [--resume]",
          "Searches a space for fast, accurate architectures: each candidate's full-size graph\n"
          "is simulated on the accelerator (or its latency read from a table), its accuracy\n"
          "predicted by the surrogate (or read from a table), and scored by MnasNet's reward\n"
          "ACC * (LAT / T)^w (--latency none: the accuracy alone). The budget counts distinct\n"
          "networks: a network proposed again is answered from its first result, not charged.\n"
          "Every result is journaled; --resume continues a killed run with the same final\n"
          "result. search/README.md describes the outputs and the strategies' parameters.\n"
          "`dcnas search compare --help`: strategies compared over seeds and budgets;\n"
          "`dcnas search protocol --help`: the NAS-benchmark protocol on a table of accuracies;\n"
          "`dcnas search finalists --help`: the front's best trained for real.",
          options, {}, vm)) {
    return 0;
  }
  RequireOptions(a, vm, "dcnas search", {"budget", "target-ms"});
  a.o.params = ApplyStrategyOptions(vm, a.strategy, {a.o.strategy});
  a.o.references.clear();
  if (a.references != "none") a.o.references = SplitList(a.references);
  if (a.accuracy.train_halving_eta != 0) {
    if (search::SplitObjectiveSpec(a.accuracy_text).kind != "train") {
      throw UsageError("dcnas search: --train-halving needs --accuracy train[:RECIPE]");
    }
    if (a.o.in_flight < a.accuracy.train_halving_eta) {
      throw UsageError("dcnas search: --train-halving " +
                       std::to_string(a.accuracy.train_halving_eta) +
                       " halves each round: give --in-flight of at least that (it is " +
                       std::to_string(a.o.in_flight) + ")");
    }
  } else if (!vm["train-min-epochs"].defaulted()) {
    throw UsageError("dcnas search: --train-min-epochs needs --train-halving");
  }
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
