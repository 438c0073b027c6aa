// Trained accuracy data generation: sample architectures from a space, train each on the
// Fashion-MNIST proxy with `dcnas train`'s trainer (models/torch/train.h), append one row per
// finished run. Built only with LibTorch.
//
// Runs happen in worker processes (fork, one LibTorch thread each, up to `jobs` at a time); the
// parent samples, schedules and appends, and never touches LibTorch. Workers die with the parent
// (PR_SET_PDEATHSIG), so a killed generation loses only the runs in flight; `resume` trains only
// the runs missing from the file. The plan (which architectures, scalings and seeds) depends
// only on the space, the seed and the count: a longer count extends a shorter one.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "exec/executor.h"
#include "models/graph.h"
#include "models/torch/dataset.h"
#include "proxy/accuracy_data.h"
#include "proxy/trained_result.h"
#include "space/space.h"

namespace dcnas::proxy {

struct GenerateOptions {
  int count = 0;  // architectures
  // Non-empty: train these networks (canonical text, count of them, in this order) instead of
  // sampling (StratifiedSample picks them over a benchmark's accuracy range).
  std::vector<std::string> encodings;
  // With `encodings`: each one's index in the plan it came from (the seeds of its runs are that
  // index's, so a network keeps its seeds in a subset: successive halving's later rungs).
  std::vector<size_t> plan_index;
  uint64_t seed = 0;
  int replicates = 1;    // trainings per architecture, with different seeds
  bool scaling = false;  // also sample compound-scaling coefficients (see ScalingGrid)
  ProxyRecipe recipe;
  int jobs = 1;     // trainings side by side
  std::string out;  // the accuracy CSV
  bool resume = false;
  std::string data_dir;    // Fashion-MNIST directory
  int64_t limit_eval = 0;  // > 0: validate and test on at most this many images (smoke tests)
};

// Learning-rate warm-up of a proxy run: 20% of its epochs, at most one epoch (the trainer's
// default of one epoch would leave a 1-2 epoch proxy without a decay phase).
double WarmupEpochs(int epochs);

// One planned run.
struct Job {
  space::Encoding encoding;
  space::Scaling scaling;
  int replicate = 0;
  uint64_t seed = 0;
};

// The coefficients sampled with `scaling`: depth, width and resolution multipliers from
// EfficientNet's phi = 0..2 range (alpha 1.2, beta 1.1, gamma 1.15 per step).
struct ScalingGrid {
  std::vector<double> depth = {1.0, 1.2, 1.4, 1.6, 1.8, 2.0};
  std::vector<double> width = {1.0, 1.1, 1.2, 1.3};
  std::vector<double> resolution = {1.0, 1.15, 1.3};
};

// The deterministic plan: `count` distinct canonical architectures (and scalings) x replicates.
std::vector<Job> PlanJobs(const space::Space& space, const GenerateOptions& options);

// The identity of a job's row (space, encoding, scaling, recipe, seed, replicate): its JobKey.
AccuracyRow DescribeJob(const space::Space& space, const Job& job, const ProxyRecipe& recipe);
// Adds the full-size params, FLOPs and block strings (built once, for runs still to train).
void AddCounts(const space::Space& space, const Job& job, AccuracyRow& row);

struct GenerateSummary {
  size_t planned = 0;
  size_t already_done = 0;
  size_t trained = 0;
  size_t failed = 0;
  double wall_s = 0.0;
};

using GenerateProgress = std::function<void(const std::string& line, bool final)>;

// Throws InputError naming the option for an impossible recipe or worker count.
void ValidateRecipe(const ProxyRecipe& recipe, int jobs);

// One proxy training of a given network: `build` runs in the worker and returns the proxy-size
// graph (Space::BuildProxy, or a zoo model built with the same proxy options).
struct ProxyRun {
  std::string label;
  std::function<models::Graph()> build;
  uint64_t seed = 0;
};
// Trains a run's proxy in this process with the recipe (one LibTorch thread) and returns the
// worker's JSON result ({"error": ...} when training failed).
std::string TrainProxy(const std::function<models::Graph()>& build, uint64_t seed,
                       const ProxyRecipe& recipe, const std::string& data_dir, int64_t limit_eval,
                       const models::libtorch::TrainingData& data);
// A worker's result (TrainProxy's JSON, or the executor's error).
TrainedResult ParseProxyRunResult(const exec::WorkResult& result);

// Trains the runs in worker processes, `jobs` at a time, with the recipe (the generation's
// trainer and settings); `done(i, result)` is called in this process as run i ends.
void TrainProxyRuns(const std::vector<ProxyRun>& runs, const ProxyRecipe& recipe, int jobs,
                    const std::string& data_dir, int64_t limit_eval,
                    const std::function<void(size_t, const TrainedResult&)>& done);
// The same with the dataset loaded once by the caller (for many calls).
void TrainProxyRuns(const std::vector<ProxyRun>& runs, const ProxyRecipe& recipe, int jobs,
                    const models::libtorch::TrainingData& data, const std::string& data_dir,
                    int64_t limit_eval,
                    const std::function<void(size_t, const TrainedResult&)>& done);

// The worker side of a generation: trains the job whose index in PlanJobs(space, options) is
// the payload, and returns its result (JSON). Every worker plans for itself; the plan is
// deterministic, so only the index travels.
exec::WorkHandler GenerateWorker(const space::Space& space, const GenerateOptions& options,
                                 const models::libtorch::TrainingData& data);
// The same over the dataset in options.data_dir, loaded once when the worker starts.
exec::WorkHandler GenerateWorker(const space::Space& space, const GenerateOptions& options);

// The handler `make` returns over the dataset in `data_dir`, loaded now and kept as long as the
// handler is (a worker that loads its data once).
exec::WorkHandler WithLoadedData(
    const std::string& data_dir,
    const std::function<exec::WorkHandler(const models::libtorch::TrainingData&)>& make);

// Successive halving (proxy/successive_halving.h): the plan's networks trained for
// `min_epochs`, the best 1/eta (by mean validation accuracy, ties to the lower encoding text)
// again for eta times the epochs, and so on up to the recipe's epochs. The top rung appends to
// options.out, each lower rung to RungFile(out, epochs); each rung resumes on its own, and the
// promotions are recomputed from the files, so a killed run continues where it stopped. Needs a
// plan without scalings; the process executor only.
struct HalvingRungSummary {
  int epochs = 0;
  std::string file;
  GenerateSummary summary;
};
std::vector<HalvingRungSummary> GenerateHalving(const space::Space& space,
                                                const GenerateOptions& options, int eta,
                                                int min_epochs, const GenerateProgress& progress);

// Runs the plan on `executor` (whose workers run GenerateWorker); this process appends the rows
// as results arrive. Throws InputError when `out` exists without `resume`, or its rows belong
// to another space.
GenerateSummary Generate(const space::Space& space, const GenerateOptions& options,
                         const GenerateProgress& progress, exec::Executor& executor);
// The same on the in-process executor (options.jobs forked workers), loading the dataset.
GenerateSummary Generate(const space::Space& space, const GenerateOptions& options,
                         const GenerateProgress& progress);

}  // namespace dcnas::proxy
