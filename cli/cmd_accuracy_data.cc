// dcnas accuracy-data generate | stats
#include <unistd.h>

#include <cstdlib>
#include <iostream>
#include <optional>

#include "cli/cli.h"
#include "cli/executor_options.h"
#include "cli/recipe_options.h"
#include "common/table.h"
#include "exec/executor.h"
#include "proxy/accuracy_data.h"
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
             "Label noise and proxy validity: Kendall tau between replicates 0 and 1 of the same "
             "architectures (the noise ceiling), cost per run, and with --against the tau "
             "between two proxies on the architectures they share.",
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
  t.AddRow({"test accuracy mean / min / max (%)", FormatFixed(s.mean_accuracy, 2) + " / " +
                                                      FormatFixed(s.min_accuracy, 2) + " / " +
                                                      FormatFixed(s.max_accuracy, 2)});
  t.AddRow({"train time per run (s)", FormatFixed(s.mean_train_time_s, 1)});
  t.AddRow({"architectures with 2 replicates", std::to_string(s.architectures)});
  if (s.architectures > 1) {
    t.AddRow({"seed-to-seed Kendall tau, test", FormatFixed(s.test_tau, 3)});
    t.AddRow({"seed-to-seed Kendall tau, validation", FormatFixed(s.val_tau, 3)});
    t.AddRow({"seed-to-seed mean |diff|, test (pp)", FormatFixed(s.mean_abs_diff_pp, 2)});
  }
  if (!against.empty()) {
    const auto other = proxy::ReadAccuracyData(against, space ? &*space : nullptr);
    if (other.rows.empty()) throw InputError(against + ": no runs (a header and nothing else)");
    const auto a = proxy::ComputeAgreement(data, other);
    t.AddRow({"shared architectures with " + against, std::to_string(a.architectures)});
    t.AddRow({"Kendall tau against it, test", FormatFixed(a.test_tau, 3)});
    t.AddRow({"Kendall tau against it, validation", FormatFixed(a.val_tau, 3)});
  }
  std::cout << t.ToText();
  return 0;
}

}  // namespace

int RunAccuracyData(const Args& args) {
  return RunSubcommand(
      "accuracy-data", args,
      {{"generate", "sample architectures and train them on the proxy (needs LibTorch)", Generate},
       {"stats", "label noise (seed-to-seed tau) and proxy validity of accuracy data", Stats}},
      "Columns: proxy/README.md.");
}

}  // namespace dcnas::cli
