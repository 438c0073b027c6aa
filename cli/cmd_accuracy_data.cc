// dcnas accuracy-data generate | zero-cost | zoo | import | stats | validity | halving |
// calibrate-score
#include <unistd.h>

#include <cmath>
#include <cstdlib>
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <vector>

#include "cli/cli.h"
#include "cli/executor_options.h"
#include "cli/recipe_options.h"
#include "common/file_io.h"
#include "common/table.h"
#include "common/text.h"
#include "exec/executor.h"
#include "proxy/accuracy_data.h"
#include "proxy/benchmark_import.h"
#include "proxy/label_noise.h"
#include "proxy/score_calibration.h"
#include "proxy/successive_halving.h"
#include "proxy/validity.h"
#include "space/space.h"
#ifdef DCNAS_WITH_TORCH
#include "models/torch/train.h"
#include "proxy/generate.h"
#include "proxy/zero_cost.h"
#include "proxy/zoo_proxy.h"
#endif

namespace dcnas::cli {
namespace {

#ifndef DCNAS_WITH_TORCH
int Generate(const Args&) {
  throw UsageError("accuracy-data generate needs LibTorch (this dcnas was built without it)");
}
int ZeroCost(const Args&) {
  throw UsageError("accuracy-data zero-cost needs LibTorch (this dcnas was built without it)");
}
int Zoo(const Args&) {
  throw UsageError("accuracy-data zoo needs LibTorch (this dcnas was built without it)");
}
#else
struct GenerateArgs {
  std::string space_file;
  std::string stratify_by;
  int halving = 0;
  int min_epochs = 1;
  std::string dataset;
  proxy::GenerateOptions g;
  RecipeArgs recipe;
  ExecutorArgs exec;
};

void AddGenerateOptions(po::options_description& options, GenerateArgs& a) {
  proxy::GenerateOptions& g = a.g;
  options.add_options()("space", po::value(&a.space_file), "search-space YAML file")(
      "count", po::value(&g.count), "architectures to sample and train")(
      "stratify-by", po::value(&a.stratify_by),
      "accuracy CSV of the space (a benchmark's, from `accuracy-data import`): instead of "
      "sampling, train --count of its networks stratified over its accuracy range (sorted by "
      "mean accuracy, --count strata of equal size, one network from each, in a shuffled order "
      "so that any prefix spans the range)")("seed", po::value(&g.seed)->default_value(0),
                                             "seed of the sampling (and of the runs)")(
      "replicates", po::value(&g.replicates)->default_value(1),
      "trainings per architecture with different seeds (2 measures the label noise)")(
      "scaling", po::bool_switch(&g.scaling),
      "also sample compound-scaling coefficients (depth, width, resolution) per architecture")(
      "out", po::value(&g.out), "accuracy CSV (appended one fsync'ed row per finished run)")(
      "resume", po::bool_switch(&g.resume), "continue an existing file: train what is missing")(
      "halving", po::value(&a.halving)->default_value(0),
      "successive halving with this eta (0: off): every network trained for --min-epochs, the "
      "best 1/eta by validation accuracy again for eta times the epochs, and so on up to "
      "--epochs; the top rung's rows go to --out, each lower rung's to OUT.e<epochs>.csv "
      "beside it (`accuracy-data halving` reports cost and agreement)")(
      "min-epochs", po::value(&a.min_epochs)->default_value(1),
      "--halving: epochs of the first rung");
  AddTrainerOptions(options, g.jobs, g.data_dir, g.limit_eval, a.dataset);
  a.exec.AddOptions(options,
                    "process (forked workers, --jobs at a time) or mpi (under mpirun: rank 0 "
                    "writes the file, the other ranks train)",
                    "--executor mpi: seconds one training may take before its worker is given up "
                    "on (0: no limit)");
  AddRecipeOptions(options, a.recipe);
}

int Generate(const Args& args) {
  po::options_description options("options");
  GenerateArgs a;
  AddGenerateOptions(options, a);
  po::variables_map vm;
  if (!Parse(args,
             "dcnas accuracy-data generate --space FILE --count N --seed S [proxy options] "
             "[--stratify-by BENCH.csv] [--replicates R] [--scaling] [--jobs K] --out data.csv "
             "[--resume] [--halving ETA --min-epochs E]",
             "Samples architectures from the space, trains each on the proxy (Fashion-MNIST, or "
             "--dataset) and "
             "appends one row per finished run. A kill loses at most the runs in flight; "
             "--resume trains only what is missing.",
             options, {}, vm)) {
    return 0;
  }
  if (a.space_file.empty()) throw UsageError("accuracy-data generate: --space is required");
  proxy::GenerateOptions& g = a.g;
  const bool mpi = a.exec.UseMpi("run the whole plan", g.jobs, "jobs");
  const space::Space space = space::Space::Load(a.space_file);
  if (!a.stratify_by.empty()) {
    if (g.scaling) throw UsageError("accuracy-data generate: --stratify-by takes no --scaling");
    g.encodings =
        proxy::StratifiedSample(proxy::ReadAccuracyData(a.stratify_by, &space), g.count, g.seed);
  }
  g.recipe = ResolveRecipe(a.recipe, space);
  ApplyDataset(a.dataset, g.data_dir, g.recipe, g.out);
  proxy::ValidateRecipe(g.recipe, g.jobs);
  const auto progress = StatusLine(/*print_updates_when_piped=*/true);
  if (vm.count("min-epochs") && !vm["min-epochs"].defaulted() && a.halving == 0) {
    throw UsageError("accuracy-data generate: --min-epochs needs --halving");
  }
  if (a.halving != 0) {
    if (mpi) throw UsageError("accuracy-data generate: --halving runs on the process executor");
    if (g.count < 1) throw UsageError("accuracy-data generate: --count must be at least 1");
    size_t failed = 0;
    for (const auto& r : proxy::GenerateHalving(space, g, a.halving, a.min_epochs, progress)) {
      std::cerr << "accuracy-data: rung of " << r.epochs << " epoch(s): " << r.summary.trained
                << " trained, " << r.summary.already_done << " already done, " << r.summary.failed
                << " failed of " << r.summary.planned << " planned -> " << r.file << "\n";
      failed += r.summary.failed;
    }
    return failed > 0 ? 1 : 0;
  }
  proxy::GenerateSummary summary;
  const auto worker = [&] { return proxy::GenerateWorker(space, g); };
  if (!RunJob(mpi, a.exec.task_timeout_s, worker, [&](exec::Executor* executor) {
        summary = executor != nullptr ? proxy::Generate(space, g, progress, *executor)
                                      : proxy::Generate(space, g, progress);
      })) {
    return 0;
  }
  std::cerr << "accuracy-data: " << summary.trained << " trained, " << summary.already_done
            << " already done, " << summary.failed << " failed of " << summary.planned
            << " planned -> " << g.out << "\n";
  return summary.failed > 0 ? 1 : 0;
}

int ZeroCost(const Args& args) {
  po::options_description options("options");
  std::string space_file;
  double max_memory_gib = 4.0;
  RecipeArgs recipe;
  proxy::ZeroCostRunOptions o;
  options.add_options()("space", po::value(&space_file), "search-space YAML file")(
      "data", po::value(&o.data), "accuracy CSV whose distinct networks are scored")(
      "out", po::value(&o.out), "zero-cost CSV (appended one fsync'ed row per network)")(
      "batch", po::value(&o.batch)->default_value(o.batch),
      "training images of the naswot, grad_norm and snip batch (the same for every network)")(
      "seed", po::value(&o.seed)->default_value(0), "seed of the initialisation")(
      "max-memory-gib", po::value(&max_memory_gib)->default_value(max_memory_gib),
      "refuse a network whose estimated activation memory exceeds this (GiB)")(
      "proxy-resolution", po::value(&recipe.proxy_resolution)->default_value(0),
      "proxy input resolution (0: the space's proxy.resolution)")(
      "proxy-width", po::value(&recipe.proxy_width)->default_value(0.0),
      "proxy width multiplier (0: the space's proxy.width)")(
      "removed-downsamples", po::value(&recipe.removed)->default_value(-1),
      "stride-2 stages run at stride 1 (-1: the space's proxy.removed_downsamples)")(
      "data-dir", po::value(&o.data_dir)->default_value(models::libtorch::kFashionMnistDir),
      "Fashion-MNIST directory")("resume", po::bool_switch(&o.resume),
                                 "continue an existing file: score what is missing")(
      "device", po::value(&o.device)->default_value("cpu"),
      "cpu, cuda or cuda:N: where LibTorch scores (cuda needs a LibTorch built with CUDA)");
  po::variables_map vm;
  if (!Parse(args,
             "dcnas accuracy-data zero-cost --space FILE --data ACC.csv --out zc.csv [--batch 64] "
             "[--seed 0] [--max-memory-gib 4] [--proxy-resolution R] [--proxy-width W] "
             "[--removed-downsamples K] [--resume]",
             "Zero-cost proxies at initialisation (synflow, naswot, grad_norm, snip; "
             "models/torch/README.md) of every distinct network of an accuracy CSV, on the proxy "
             "network the recipe builds, with one fixed batch of Fashion-MNIST training images. "
             "Columns: encoding,synflow,naswot,grad_norm,snip,proxy_params,time_s and the "
             "settings space,recipe,batch,seed. A kill loses at most the network being scored; "
             "--resume scores the rest (with the file's settings only).",
             options, {}, vm)) {
    return 0;
  }
  if (space_file.empty() || o.data.empty() || o.out.empty()) {
    throw UsageError("accuracy-data zero-cost: --space, --data and --out are required");
  }
  o.max_memory_bytes = static_cast<int64_t>(max_memory_gib * 1073741824.0);
  const space::Space space = space::Space::Load(space_file);
  o.recipe = ResolveRecipe(recipe, space);
  const auto progress = StatusLine(/*print_updates_when_piped=*/true);
  const proxy::ZeroCostSummary summary = proxy::ScoreZeroCost(space, o, progress);
  std::cerr << "accuracy-data: " << summary.scored << " scored, " << summary.already_done
            << " already done of " << summary.planned << " networks";
  if (summary.scored > 0) {
    std::cerr << " (" << FormatFixed(summary.score_time_s / static_cast<double>(summary.scored), 3)
              << " s per network)";
  }
  std::cerr << " -> " << o.out << "\n";
  return 0;
}

int Zoo(const Args& args) {
  po::options_description options("options");
  RecipeArgs recipe;
  proxy::ZooProxyOptions o;
  std::string json, dataset;
  options.add_options()("published", po::value(&o.published),
                        "published ImageNet top-1 (data/accuracy/published-imagenet.csv)")(
      "out", po::value(&o.out),
      "results CSV, appended as each model ends (a rerun continues it; one recipe and seed)")(
      "seed", po::value(&o.seed)->default_value(0), "seed of every run")(
      "draws", po::value(&o.draws)->default_value(1000), "bootstrap resamples of each tau")(
      "json", po::value(&json), "also write the report as JSON");
  AddRecipeOptions(options, recipe);
  AddTrainerOptions(options, o.jobs, o.data_dir, o.limit_eval, dataset);
  po::variables_map vm;
  if (!Parse(args,
             "dcnas accuracy-data zoo --published TOP1.csv --out RESULTS.csv [recipe options] "
             "[--label zc-...] [--jobs N] [--json OUT.json]",
             "The zoo on the proxy against ImageNet: every zoo model of the published table "
             "built at proxy size (--proxy-width, --removed-downsamples; --proxy-resolution "
             "scaled by the model's resolution / 224 and rounded to 4 px, as a scaled network's "
             "is) and labelled by the recipe (trained, or the zero-cost --label), then Kendall "
             "tau between label and published top-1 with a 95% bootstrap interval, beside "
             "full-size params and FLOPs. Proxy defaults: 16 px, width 0.25, one downsample "
             "removed (the shipped proxy's).",
             options, {}, vm)) {
    return 0;
  }
  if (o.published.empty() || o.out.empty()) {
    throw UsageError("accuracy-data zoo: --published and --out are required");
  }
  o.recipe = recipe.recipe;
  o.recipe.resolution = recipe.proxy_resolution > 0 ? recipe.proxy_resolution : 16;
  o.recipe.width = recipe.proxy_width > 0 ? recipe.proxy_width : 0.25;
  o.recipe.removed_downsamples = recipe.removed >= 0 ? recipe.removed : 1;
  o.recipe = ApplyLabel(recipe, o.recipe);
  ApplyDataset(dataset, o.data_dir, o.recipe, o.out);
  const proxy::ZooProxyReport report =
      proxy::RunZooProxy(o, [](const std::string& line) { std::cerr << line << "\n"; });
  if (!json.empty()) WriteFileAtomic(json, report.ToJson().dump(2) + "\n");
  std::cout << report.ToText();
  return report.failed.empty() ? 0 : 1;
}
#endif

std::string Value(double v, int digits) { return std::isnan(v) ? "n/a" : FormatFixed(v, digits); }

int Import(const Args& args) {
  po::options_description options("options");
  std::string format, file, space_file, out;
  options.add_options()("format", po::value(&format), "the benchmark's file format (below)")(
      "file", po::value(&file), "the benchmark's file")(
      "space", po::value(&space_file), "the search space whose networks the benchmark's keys name")(
      "out", po::value(&out), "accuracy CSV to write (atomically)");
  po::positional_options_description pos;
  pos.add("file", 1);
  std::string formats;
  for (const auto& f : proxy::BenchmarkFormats()) formats += "\n  " + f.name + ": " + f.description;
  po::variables_map vm;
  if (!Parse(
          args, "dcnas accuracy-data import --format NAME FILE --space SPACE --out data.csv",
          "Reads a published NAS benchmark into accuracy data of a space: one row per "
          "published training (replicate), each canonical network once, with the benchmark's "
          "recipe and dataset and the source (its name and the file's SHA-256). Params and "
          "FLOPs are the space's full-size network's; the trained network's parameters are "
          "compared with the benchmark's, and its multiply-accumulates with the benchmark's FLOPs "
          "(a network more than 10% from the median ratio is named). Formats:" +
              formats,
          options, pos, vm)) {
    return 0;
  }
  if (format.empty() || file.empty() || space_file.empty() || out.empty()) {
    throw UsageError("accuracy-data import: --format, FILE, --space and --out are required");
  }
  const space::Space space = space::Space::Load(space_file);
  const auto r = proxy::ImportBenchmark(format, file, space, out);
  std::cout << "imported " << r.keys << " keys: " << r.networks << " networks of space '"
            << space.name() << "', " << r.data.rows.size() << " rows (recipe " << r.recipe.Key()
            << ", source " << format << ":" << r.sha256 << ") -> " << out << "\n";
  std::cout << "params: " << r.params_differ << " of " << r.networks
            << " networks' trained-network parameter counts differ from the benchmark's";
  if (r.params_differ > 0) {
    std::cout << " (largest relative difference " << FormatFixed(100.0 * r.max_params_rel_diff, 2)
              << "% at key " << r.max_params_key << ")";
  }
  std::cout << "\n";
  std::cout << "flops: the benchmark's FLOPs are " << FormatFixed(r.flops_ratio_median, 3)
            << "x the trained networks' multiply-accumulates (median; "
            << FormatFixed(r.flops_ratio_min, 3) << "-" << FormatFixed(r.flops_ratio_max, 3)
            << "); " << r.flops_outliers << " of " << r.networks
            << " networks more than 10% from the median";
  if (r.flops_outliers > 0) {
    std::cout << " (farthest at key " << r.flops_farthest_key
              << ": a value the benchmark got wrong, or another network than its key names)";
  }
  std::cout << "\n";
  return 0;
}

int Stats(const Args& args) {
  po::options_description options("options");
  std::string file, against, space_file;
  options.add_options()("file", po::value(&file), "accuracy CSV")(
      "space", po::value(&space_file), "check the rows against this space file")(
      "against", po::value(&against),
      "a second accuracy CSV of the same architectures (e.g. a longer proxy): rank agreement");
  po::positional_options_description pos;
  pos.add("file", 1);
  po::variables_map vm;
  if (!Parse(args, "dcnas accuracy-data stats FILE [--space FILE] [--against FILE2]",
             "Label noise: Kendall tau between the replicates of the same architectures (every "
             "pair of replicate numbers, averaged), the intra-class correlation, cost per run, "
             "and the label's ceiling: the tau a perfect predictor of each architecture's mean "
             "reaches against a label of 1 seed and of the mean of the most replicates, under a "
             "normal model and simulated from the data's own spread (proxy/label_noise.h). "
             "Seed-to-seed tau is not that ceiling: it compares two noisy labels. With --against, "
             "the tau between two proxies on the architectures they share. Reads the full "
             "accuracy CSV or the plain form encoding,accuracy.",
             options, pos, vm)) {
    return 0;
  }
  if (file.empty()) throw UsageError("accuracy-data stats: missing FILE");
  std::optional<space::Space> space;
  if (!space_file.empty()) space = space::Space::Load(space_file);
  const auto data = proxy::ReadAccuracyData(file, space ? &*space : nullptr);
  if (data.rows.empty()) throw InputError(file + ": no runs (a header and nothing else)");
  const auto s = proxy::ComputeReplicateStats(data);
  Table t({"quantity", "value"});
  t.AddRow({"runs", std::to_string(data.rows.size())});
  t.AddRow({"test accuracy mean / min / max (%)", Value(s.mean_accuracy, 2) + " / " +
                                                      Value(s.min_accuracy, 2) + " / " +
                                                      Value(s.max_accuracy, 2)});
  t.AddRow({"train time per run (s)", Value(s.mean_train_time_s, 1)});
  t.AddRow({"architectures with 2+ replicates", std::to_string(s.architectures)});
  if (s.architectures > 1) {
    t.AddRow({"replicates (most) / replicate pairs",
              std::to_string(s.max_replicates) + " / " + std::to_string(s.replicate_pairs)});
    t.AddRow({"seed-to-seed Kendall tau, test", Value(s.test_tau, 3)});
    t.AddRow({"seed-to-seed Kendall tau, validation", Value(s.val_tau, 3)});
    t.AddRow({"intra-class correlation, test / validation",
              Value(s.test_icc, 3) + " / " + Value(s.val_icc, 3)});
    t.AddRow({"seed-to-seed mean |diff|, test (pp)", Value(s.mean_abs_diff_pp, 2)});
  }
  for (const std::string target : {"test_accuracy", "val_accuracy"}) {
    // The label's ceiling: what a perfect predictor of each architecture's mean reaches.
    const std::string name = target == "test_accuracy" ? "test" : "validation";
    std::map<std::string, std::vector<double>> by_arch;
    int most = 1;
    for (const auto& r : data.rows) {
      const double acc = proxy::TargetAccuracy(r, target);
      if (std::isnan(acc)) continue;
      auto& g =
          by_arch[r.encoding + "|" + r.recipe.Key() + "|" + FormatShortest(r.scaling.depth) + "|" +
                  FormatShortest(r.scaling.width) + "|" + FormatShortest(r.scaling.resolution)];
      g.push_back(acc);
      most = std::max(most, static_cast<int>(g.size()));
    }
    std::vector<std::vector<double>> groups;
    for (auto& [key, g] : by_arch) groups.push_back(std::move(g));
    const proxy::NoiseModel m = proxy::EstimateNoise(groups);
    if (std::isnan(m.noise_sd)) continue;
    t.AddRow({"noise model, " + name + ": seed sd / spread of the means sd (pp)",
              Value(m.noise_sd, 3) + " / " + Value(m.spread_sd, 3)});
    t.AddRow({"seed-to-seed tau the model predicts, " + name + " (normal / simulated)",
              Value(proxy::NormalReplicateTau(m.icc), 3) + " / " +
                  Value(proxy::SimulatedReplicateTau(groups), 3)});
    for (const int k : std::set<int>{1, most}) {
      t.AddRow(
          {"ceiling against a label of " +
               (k == 1 ? std::string("1 seed") : "the mean of " + std::to_string(k) + " seeds") +
               ", " + name + " (normal / simulated)",
           Value(proxy::NormalTauCeiling(m.icc, k), 3) + " / " +
               Value(proxy::SimulatedTauCeiling(groups, k), 3)});
    }
  }
  if (!against.empty()) {
    const auto other = proxy::ReadAccuracyData(against, space ? &*space : nullptr);
    if (other.rows.empty()) throw InputError(against + ": no runs (a header and nothing else)");
    const auto a = proxy::ComputeAgreement(data, other);
    t.AddRow({"shared architectures with " + against, std::to_string(a.architectures)});
    t.AddRow({"Kendall tau against it, test", Value(a.test_tau, 3)});
    t.AddRow({"Kendall tau against it, validation", Value(a.val_tau, 3)});
  }
  std::cout << t.ToText();
  return 0;
}

int Validity(const Args& args) {
  po::options_description options("options");
  std::vector<std::string> files;
  std::string reference, space_file, csv, json, svg, zero_cost;
  proxy::ValidityOptions o;
  options.add_options()("reference", po::value(&reference),
                        "the real labels: a benchmark's accuracy CSV (accuracy-data import)")(
      "space", po::value(&space_file), "the space of the reference and the candidates")(
      "file", po::value(&files)->multitoken(), "candidate proxies' accuracy CSVs, one recipe each")(
      "target", po::value(&o.target)->default_value("val_accuracy"),
      "the candidates' label: val_accuracy (with the per-epoch curve) or test_accuracy")(
      "draws", po::value(&o.draws)->default_value(1000), "bootstrap resamples per tau")(
      "level", po::value(&o.level)->default_value(0.95), "coverage of the intervals")(
      "seed", po::value(&o.seed)->default_value(0), "seed of the resampling")(
      "zero-cost", po::value(&zero_cost),
      "a zero-cost table (accuracy-data zero-cost): each score's tau against the reference, its "
      "partial Spearman correlation given log params and its cost, on the candidates' networks "
      "(without candidates: on every network of the table)")(
      "csv", po::value(&csv), "also write the table as CSV (one line per proxy label)")(
      "json", po::value(&json), "also write the report as JSON")(
      "svg", po::value(&svg),
      "also write the validity-cost curve: tau with its interval against the cost per network "
      "(log axis), a line per candidate through its per-epoch labels, zero-cost scores as "
      "points, params and FLOPs as lines");
  po::positional_options_description pos;
  pos.add("file", -1);
  po::variables_map vm;
  if (!Parse(args,
             "dcnas accuracy-data validity --reference BENCH.csv --space FILE CANDIDATE.csv... "
             "[--csv OUT.csv] [--json OUT.json] [--svg OUT.svg]",
             "Proxy validity against real labels: for each candidate proxy's accuracy data (one "
             "recipe per file, a sample of the reference's networks, e.g. from `accuracy-data "
             "generate --stratify-by`), Kendall tau between its label and the reference's mean "
             "accuracy, with a percentile bootstrap interval over the networks, and the training "
             "cost per network: the final label with 1..R seeds averaged and, from the "
             "validation curves, the label after each earlier epoch (read under the full "
             "schedule, not a shorter one). Free baselines: the full-size network's params and "
             "FLOPs on the same networks. Then each candidate's own seed noise.",
             options, pos, vm)) {
    return 0;
  }
  if (reference.empty() || space_file.empty() || (files.empty() && zero_cost.empty())) {
    throw UsageError(
        "accuracy-data validity: --reference, --space and a candidate file or --zero-cost "
        "needed");
  }
  if (o.target != "val_accuracy" && o.target != "test_accuracy") {
    throw UsageError(
        "accuracy-data validity: --target must be val_accuracy or test_accuracy, "
        "not '" +
        o.target + "'");
  }
  const space::Space space = space::Space::Load(space_file);
  const auto ref = proxy::ReadAccuracyData(reference, &space);
  if (ref.rows.empty()) throw InputError(reference + ": no runs (a header and nothing else)");
  std::vector<proxy::AccuracyData> candidates;
  for (const auto& f : files) candidates.push_back(proxy::ReadAccuracyData(f, &space, true));
  std::map<std::string, proxy::ZeroCostEntry> table;
  if (!zero_cost.empty()) table = proxy::ReadZeroCostTable(zero_cost, space);
  const proxy::ValidityReport report =
      proxy::ComputeValidity(ref, candidates, o, zero_cost.empty() ? nullptr : &table, zero_cost);
  const std::string chart = svg.empty() ? std::string() : report.ToSvg();  // before any write
  if (!csv.empty()) WriteFileAtomic(csv, report.ToCsv());
  if (!json.empty()) WriteFileAtomic(json, report.ToJson().dump(2) + "\n");
  if (!svg.empty()) WriteFileAtomic(svg, chart);
  std::cout << report.ToText();
  return 0;
}

int Halving(const Args& args) {
  po::options_description options("options");
  std::vector<std::string> files;
  std::string reference, space_file, full, json;
  int eta = 3;
  int draws = 1000;
  uint64_t seed = 0;
  options.add_options()("reference", po::value(&reference),
                        "the real labels: a benchmark's accuracy CSV (accuracy-data import)")(
      "space", po::value(&space_file), "the space of the reference and the rungs")(
      "rung", po::value(&files)->multitoken(),
      "the rungs' accuracy CSVs, fewest epochs first (generate --halving's OUT.e<E>.csv files, "
      "then OUT)")("eta", po::value(&eta)->default_value(3), "the halving's eta")(
      "full", po::value(&full),
      "every network of the first rung trained with the top rung's recipe: halving's agreement "
      "with full training and its cost against it")("draws", po::value(&draws)->default_value(1000),
                                                    "bootstrap resamples per tau")(
      "seed", po::value(&seed)->default_value(0), "seed of the resampling")(
      "json", po::value(&json), "also write the report as JSON");
  po::positional_options_description pos;
  pos.add("rung", -1);
  po::variables_map vm;
  if (!Parse(args,
             "dcnas accuracy-data halving --reference BENCH.csv --space FILE RUNG.csv... "
             "[--eta 3] [--full FULL.csv] [--json OUT.json]",
             "Successive halving measured: recomputes which networks each rung promoted (the "
             "best 1/eta by mean validation accuracy), and reports per rung the networks trained, "
             "their training time and their label's Kendall tau against the reference; the "
             "ranking halving leaves (rung reached, then accuracy) against the reference; and "
             "with --full, against training every network for the top rung's epochs: tau, how "
             "many of the top rung's networks are full training's best as many, and the cost "
             "ratio.",
             options, pos, vm)) {
    return 0;
  }
  if (reference.empty() || space_file.empty() || files.size() < 2) {
    throw UsageError(
        "accuracy-data halving: --reference, --space and two or more rung files needed");
  }
  const space::Space space = space::Space::Load(space_file);
  const auto ref = proxy::ReadAccuracyData(reference, &space);
  if (ref.rows.empty()) throw InputError(reference + ": no runs (a header and nothing else)");
  std::vector<proxy::AccuracyData> rungs;
  for (const auto& f : files) rungs.push_back(proxy::ReadAccuracyData(f, &space, true));
  std::optional<proxy::AccuracyData> full_data;
  if (!full.empty()) full_data = proxy::ReadAccuracyData(full, &space, true);
  const proxy::HalvingReport report =
      proxy::EvaluateHalving(rungs, eta, ref, full_data ? &*full_data : nullptr, draws, seed);
  if (!json.empty()) WriteFileAtomic(json, report.ToJson().dump(2) + "\n");
  std::cout << report.ToText();
  return 0;
}

int CalibrateScore(const Args& args) {
  po::options_description options("options");
  std::string reference, space_file, zero_cost, score, target, json;
  int draws = 1000;
  uint64_t seed = 0;
  options.add_options()("reference", po::value(&reference),
                        "the real labels: a benchmark's accuracy CSV (accuracy-data import)")(
      "space", po::value(&space_file), "the benchmark's space")(
      "zero-cost", po::value(&zero_cost),
      "the benchmark's networks' zero-cost table (accuracy-data zero-cost)")(
      "score", po::value(&score)->default_value("naswot"), "synflow, naswot, grad_norm or snip")(
      "target", po::value(&target)->default_value("auto"),
      "the reference's label: test_accuracy, val_accuracy or auto (val where every row has it)")(
      "draws", po::value(&draws)->default_value(1000), "bootstrap resamples of the tau")(
      "seed", po::value(&seed)->default_value(0), "seed of the resampling")(
      "json", po::value(&json), "also write the calibration as JSON");
  po::variables_map vm;
  if (!Parse(args,
             "dcnas accuracy-data calibrate-score --reference BENCH.csv --space FILE "
             "--zero-cost TABLE.csv [--score naswot] [--json OUT.json]",
             "A zero-cost label: fits a zero-cost score of a benchmark's networks to the "
             "benchmark's real labels by least squares (label = scale x score + offset, percent; "
             "log10 of synflow) and prints the fit, its residual sd, the score's Kendall tau "
             "against the labels with a bootstrap interval, the range it was fitted over, and the "
             "label text (zc-naswot-a..-b..) that `accuracy-data generate --label`, `search "
             "finalists --label` and `scale --recipe` take: networks then get the calibrated "
             "score of their untrained proxy network instead of a training's accuracy. Use the "
             "table's proxy settings (the recipe printed) with it.",
             options, {}, vm)) {
    return 0;
  }
  if (reference.empty() || space_file.empty() || zero_cost.empty()) {
    throw UsageError("accuracy-data calibrate-score: --reference, --space and --zero-cost needed");
  }
  const space::Space space = space::Space::Load(space_file);
  const auto ref = proxy::ReadAccuracyData(reference, &space);
  if (ref.rows.empty()) throw InputError(reference + ": no runs (a header and nothing else)");
  const auto table = proxy::ReadZeroCostTable(zero_cost, space);
  const proxy::ScoreCalibration c =
      proxy::CalibrateScore(ref, target, table, zero_cost, score, draws, seed);
  if (!json.empty()) WriteFileAtomic(json, c.ToJson().dump(2) + "\n");
  std::cout << c.ToText();
  return 0;
}

}  // namespace

int RunAccuracyData(const Args& args) {
  return RunSubcommand(
      "accuracy-data", args,
      {{"generate", "sample architectures and train them on the proxy (needs LibTorch)", Generate},
       {"zero-cost",
        "zero-cost proxies (synflow, naswot, grad_norm, snip) at initialisation (needs LibTorch)",
        ZeroCost},
       {"zoo", "the zoo on the proxy against published ImageNet top-1 (needs LibTorch)", Zoo},
       {"import", "read a published NAS benchmark (NAS-Bench-Macro) into accuracy data", Import},
       {"stats", "label noise (seed-to-seed tau, ICC) and the label's ceiling", Stats},
       {"validity", "proxy validity: Kendall tau against a benchmark's real labels, with cost",
        Validity},
       {"halving", "successive halving's cost and agreement with full training and real labels",
        Halving},
       {"calibrate-score",
        "a zero-cost label: a score fitted to a benchmark's real labels (percent)",
        CalibrateScore}},
      "Columns: proxy/README.md.");
}

}  // namespace dcnas::cli
