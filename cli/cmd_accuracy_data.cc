// dcnas accuracy-data generate | import | stats
#include <unistd.h>

#include <cmath>
#include <cstdlib>
#include <iostream>
#include <optional>

#include "cli/cli.h"
#include "cli/executor_options.h"
#include "cli/recipe_options.h"
#include "common/table.h"
#include "exec/executor.h"
#include "proxy/accuracy_data.h"
#include "proxy/benchmark_import.h"
#include "space/space.h"
#ifdef DCNAS_WITH_TORCH
#include "models/torch/train.h"
#include "proxy/generate.h"
#endif

namespace dcnas::cli {
namespace {

#ifndef DCNAS_WITH_TORCH
int Generate(const Args&) {
  throw UsageError("accuracy-data generate needs LibTorch (this dcnas was built without it)");
}
#else
struct GenerateArgs {
  std::string space_file;
  proxy::GenerateOptions g;
  RecipeArgs recipe;
  ExecutorArgs exec;
};

void AddGenerateOptions(po::options_description& options, GenerateArgs& a) {
  proxy::GenerateOptions& g = a.g;
  options.add_options()("space", po::value(&a.space_file), "search-space YAML file")(
      "count", po::value(&g.count), "architectures to sample and train")(
      "seed", po::value(&g.seed)->default_value(0), "seed of the sampling (and of the runs)")(
      "replicates", po::value(&g.replicates)->default_value(1),
      "trainings per architecture with different seeds (2 measures the label noise)")(
      "scaling", po::bool_switch(&g.scaling),
      "also sample compound-scaling coefficients (depth, width, resolution) per architecture")(
      "out", po::value(&g.out), "accuracy CSV (appended one fsync'ed row per finished run)")(
      "resume", po::bool_switch(&g.resume), "continue an existing file: train what is missing");
  AddTrainerOptions(options, g.jobs, g.data_dir, g.limit_eval);
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
             "[--replicates R] [--scaling] [--jobs K] --out data.csv [--resume]",
             "Samples architectures from the space, trains each on the Fashion-MNIST proxy and "
             "appends one row per finished run. A kill loses at most the runs in flight; "
             "--resume trains only what is missing.",
             options, {}, vm)) {
    return 0;
  }
  if (a.space_file.empty()) throw UsageError("accuracy-data generate: --space is required");
  proxy::GenerateOptions& g = a.g;
  const bool mpi = a.exec.UseMpi("run the whole plan", g.jobs, "jobs");
  const space::Space space = space::Space::Load(a.space_file);
  g.recipe = ResolveRecipe(a.recipe, space);
  proxy::ValidateRecipe(g.recipe, g.jobs);
  const auto progress = StatusLine(/*print_updates_when_piped=*/true);
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
  if (!Parse(args, "dcnas accuracy-data import --format NAME FILE --space SPACE --out data.csv",
             "Reads a published NAS benchmark into accuracy data of a space: one row per "
             "published training (replicate), each canonical network once, with the benchmark's "
             "recipe and dataset and the source (its name and the file's SHA-256). Params and "
             "FLOPs are the space's full-size network's; the trained network's parameters are "
             "compared with the benchmark's. Formats:" +
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
             "Label noise and proxy validity: Kendall tau between the replicates of the same "
             "architectures (every pair of replicate numbers, averaged: the noise ceiling), the "
             "intra-class correlation, cost per run, and with --against the tau between two "
             "proxies on the architectures they share. Reads the full accuracy CSV or the plain "
             "form encoding,accuracy.",
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

}  // namespace

int RunAccuracyData(const Args& args) {
  return RunSubcommand(
      "accuracy-data", args,
      {{"generate", "sample architectures and train them on the proxy (needs LibTorch)", Generate},
       {"import", "read a published NAS benchmark (NAS-Bench-Macro) into accuracy data", Import},
       {"stats", "label noise (seed-to-seed tau, ICC) and proxy validity of accuracy data", Stats}},
      "Columns: proxy/README.md.");
}

}  // namespace dcnas::cli
