#include "proxy/generate.h"

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>

#include "common/errors.h"
#include "common/process_stats.h"
#include "common/table.h"
#include "common/text.h"
#include "models/counts.h"
#include "models/torch/dataset.h"
#include "models/torch/train.h"
#include "models/torch/zero_cost.h"
#include "proxy/successive_halving.h"

namespace dcnas::proxy {
namespace {

namespace fs = std::filesystem;
namespace lt = models::libtorch;

uint64_t SplitMix(uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

}  // namespace

double WarmupEpochs(int epochs) { return std::min(1.0, 0.2 * epochs); }

namespace {

template <typename T>
T Pick(const std::vector<T>& values, std::mt19937_64& rng) {
  return values[rng() % values.size()];
}

// The activation-memory limit of a zero-cost label's run (the estimate of ZeroCostMemoryBytes, a
// rough upper bound): 16 GiB, above the 4 GiB default of `accuracy-data zero-cost`, so that
// every zoo model scores at the 16 px proxy (EfficientNet-B7's 44 px proxy estimates 4.6 GiB).
constexpr int64_t kLabelZeroCostMemoryBytes = int64_t{16} << 30;

// What a worker sends back over its pipe: one JSON object.
std::string TrainProxyImpl(const std::function<models::Graph()>& build, uint64_t seed,
                           const ProxyRecipe& recipe, const std::string& data_dir,
                           int64_t limit_eval, const lt::TrainingData& data) {
  // glibc would return LibTorch's large activation buffers to the kernel after every step and
  // fault them back in on the next one (a third of a run's CPU time in the kernel); a worker runs
  // one training, so it keeps them.
  ApplyMallocPolicy(MallocPolicy::kKeep);
  try {
    // Rows name their data by content: a worker holding other data than the recipe's refuses.
    if (recipe.recorded() && recipe.dataset != data.id()) {
      throw InputError("the recipe names dataset '" + recipe.dataset +
                       "' but the loaded data is '" + data.id() + "'");
    }
    const models::Graph graph = build();
    if (recipe.zero_cost()) {
      // A zero-cost label: the untrained network's score on one batch, calibrated to percent.
      const ScoreLabel label = ParseScoreLabel(recipe.label);
      lt::ZeroCostOptions z;
      z.batch = recipe.batch;
      z.seed = seed;
      z.threads = 1;
      z.max_memory_bytes = kLabelZeroCostMemoryBytes;
      const lt::ZeroCostScores s = lt::ComputeZeroCost(graph, z, data);
      const std::map<std::string, double> raw = {{"naswot", s.naswot},
                                                 {"synflow", s.synflow},
                                                 {"grad_norm", s.grad_norm},
                                                 {"snip", s.snip}};
      const double value = label.Apply(raw.at(label.score));
      nlohmann::json j = nlohmann::json::object();
      AddTrainedFields({.val_accuracy = value,
                        .test_accuracy = value,
                        .proxy_params = models::CountGraph(graph).params,
                        .train_time_s = s.time_s,
                        .val_curve = {}},
                       j);
      return j.dump();
    }
    lt::TrainOptions t;
    t.dataset = data.name();
    t.data_dir = data_dir;
    t.epochs = recipe.epochs;
    t.batch = recipe.batch;
    t.optimizer = lt::ParseOptimizer(recipe.optimizer);
    t.learning_rate = recipe.learning_rate;
    t.warmup_epochs = WarmupEpochs(recipe.epochs);
    t.limit_train = recipe.train_images;
    t.limit_eval = limit_eval;
    t.seed = seed;
    t.threads = 1;
    const lt::TrainResult r = lt::Train(graph, t, data, [](const std::string&, bool) {});
    nlohmann::json j = nlohmann::json::object();
    std::vector<double> curve;
    for (const lt::EpochMetrics& m : r.history) curve.push_back(m.val_accuracy * 100.0);
    AddTrainedFields({.val_accuracy = r.val_accuracy * 100.0,
                      .test_accuracy = r.test_accuracy * 100.0,
                      .proxy_params = r.params,
                      .train_time_s = r.train_time_s,
                      .val_curve = std::move(curve)},
                     j);
    return j.dump();
  } catch (const std::exception& e) {
    return nlohmann::json{{"error", e.what()}}.dump();
  }
}

// A worker's result: TrainInChild's JSON, or the executor's error (a worker that died).
TrainedResult ParseRunResultImpl(const exec::WorkResult& w) {
  TrainedResult r;
  if (!w.error.empty()) {
    r.error = w.error;
    return r;
  }
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(w.payload);
  } catch (const std::exception&) {
    r.error = "worker returned no result";
    return r;
  }
  try {
    return TrainedFromJson(j, "worker result: ");
  } catch (const InputError& e) {
    r.error = e.what();
    return r;
  }
}

}  // namespace

std::string TrainProxy(const std::function<models::Graph()>& build, uint64_t seed,
                       const ProxyRecipe& recipe, const std::string& data_dir, int64_t limit_eval,
                       const lt::TrainingData& data) {
  return TrainProxyImpl(build, seed, recipe, data_dir, limit_eval, data);
}

TrainedResult ParseProxyRunResult(const exec::WorkResult& result) {
  return ParseRunResultImpl(result);
}

std::vector<Job> PlanJobs(const space::Space& space, const GenerateOptions& o) {
  if (o.count < 1) throw InputError("--count must be at least 1");
  if (!o.plan_index.empty() && o.plan_index.size() != o.encodings.size()) {
    throw InternalError("PlanJobs: plan indices do not match the networks");
  }
  if (o.replicates < 1 || o.replicates > 100) throw InputError("--replicates must be in [1, 100]");
  std::mt19937_64 rng(o.seed);
  const ScalingGrid grid;
  std::set<std::string> seen;
  std::vector<Job> jobs;
  int archs = 0;
  int draws = 0;
  while (archs < o.count) {
    if (++draws > 100 * o.count + 1000) {
      throw InputError("space '" + space.name() + "' has fewer than " + std::to_string(o.count) +
                       " distinct architectures reachable by sampling (found " +
                       std::to_string(archs) + ")");
    }
    Job j;
    if (o.encodings.empty()) {
      j.encoding = space.Sample(rng);
    } else if (static_cast<size_t>(archs) < o.encodings.size()) {
      j.encoding = space.FromText(o.encodings[archs]);
    } else {
      throw InputError(std::to_string(o.encodings.size()) + " networks given, --count asks for " +
                       std::to_string(o.count));
    }
    if (o.scaling) {
      j.scaling.depth = Pick(grid.depth, rng);
      j.scaling.width = Pick(grid.width, rng);
      j.scaling.resolution = Pick(grid.resolution, rng);
    }
    const std::string key = space.ToText(j.encoding) + "|" + std::to_string(j.scaling.depth) + "|" +
                            std::to_string(j.scaling.width) + "|" +
                            std::to_string(j.scaling.resolution);
    if (!seen.insert(key).second) continue;
    const uint64_t index = o.plan_index.empty() ? static_cast<uint64_t>(archs)
                                                : o.plan_index.at(static_cast<size_t>(archs));
    for (int r = 0; r < o.replicates; ++r) {
      j.replicate = r;
      j.seed = SplitMix(o.seed ^ (index << 16) ^ static_cast<uint64_t>(r)) >> 1;
      jobs.push_back(j);
    }
    ++archs;
  }
  return jobs;
}

AccuracyRow DescribeJob(const space::Space& space, const Job& job, const ProxyRecipe& recipe) {
  AccuracyRow row;
  row.space = space.name();
  row.fingerprint = space.fingerprint();
  row.encoding = space.ToText(space.Canonical(job.encoding));
  row.scaling = job.scaling;
  row.recipe = recipe;
  row.seed = job.seed;
  row.replicate = job.replicate;
  return row;
}

void AddCounts(const space::Space& space, const Job& job, AccuracyRow& row) {
  const models::OpCounts full =
      models::CountGraph(space.BuildFull(job.encoding, job.scaling, models::BuildOptions{}));
  row.params = full.params;
  row.flops = full.flops;
  row.blocks = Join(space.Decode(job.encoding).blocks, " ");
}

void ValidateRecipe(const ProxyRecipe& recipe, int jobs) {
  if (jobs < 1 || jobs > 256) throw InputError("--jobs must be in [1, 256]");
  // Trained data is named by its content (DatasetId); a bare other name is a benchmark's recipe.
  if (recipe.dataset != kDefaultDataset && recipe.dataset.find('@') == std::string::npos) {
    throw InputError("recipe " + recipe.Key() + ": dataset '" + recipe.dataset +
                     "' without a content hash is a published benchmark's (accuracy-data import); "
                     "to train on it, give --dataset NAME:DIR");
  }
  if (recipe.batch < 1 || recipe.batch > 4096) throw InputError("--batch must be in [1, 4096]");
  if (recipe.zero_cost()) {
    // What WithZeroCostLabel makes: nothing of a training is set.
    const ProxyRecipe canonical = recipe.WithZeroCostLabel(recipe.label);
    if (canonical != recipe) {
      throw InputError("recipe " + recipe.Key() +
                       ": a zero-cost label trains nothing (epochs 0, images = batch)");
    }
  } else if (recipe.epochs < 1 || recipe.epochs > 1000) {
    throw InputError("--epochs must be in [1, 1000]");
  }
  if (!(recipe.learning_rate >= 0.0) || recipe.learning_rate > 10.0) {
    throw InputError("--lr must be in [0, 10] (0: the optimizer's default)");
  }
  if (recipe.resolution < 8 || recipe.resolution > 512) {
    throw InputError("--proxy-resolution must be in [8, 512]");
  }
  if (!(recipe.width > 0.0) || recipe.width > 4.0) {
    throw InputError("--proxy-width must be in (0, 4]");
  }
  if (recipe.removed_downsamples < 0 || recipe.removed_downsamples > 6) {
    throw InputError("--removed-downsamples must be in [0, 6]");
  }
  lt::ParseOptimizer(recipe.optimizer);  // an unknown optimizer fails here, not in every worker
  if (recipe.zero_cost()) return;
  if (recipe.dataset == kDefaultDataset &&
      (recipe.train_images < 1000 || recipe.train_images > 55000)) {
    throw InputError(
        "--train-images must be in [1000, 55000] (55,000 training images after the "
        "5,000-image validation split)");
  }
  // Other data: a subset larger than the training split trains on all of it.
  if (recipe.train_images < 1000 || recipe.train_images > 100000000) {
    throw InputError("--train-images must be in [1000, 100000000]");
  }
}

void TrainProxyRuns(const std::vector<ProxyRun>& runs, const ProxyRecipe& recipe, int jobs,
                    const std::string& data_dir, int64_t limit_eval,
                    const std::function<void(size_t, const TrainedResult&)>& done) {
  ValidateRecipe(recipe, jobs);
  if (runs.empty()) return;
  // Read once here (no LibTorch in the parent); the workers inherit it.
  TrainProxyRuns(runs, recipe, jobs, lt::TrainingData::Load(data_dir), data_dir, limit_eval, done);
}

void TrainProxyRuns(const std::vector<ProxyRun>& runs, const ProxyRecipe& recipe, int jobs,
                    const lt::TrainingData& data, const std::string& data_dir, int64_t limit_eval,
                    const std::function<void(size_t, const TrainedResult&)>& done) {
  ValidateRecipe(recipe, jobs);
  // Each run in a forked child: the closures in `runs` are inherited, the payload is the index.
  const auto executor = exec::MakeProcessExecutor(jobs, [&](const std::string& payload) {
    const ProxyRun& run = runs[std::stoul(payload)];
    return TrainProxy(run.build, run.seed, recipe, data_dir, limit_eval, data);
  });
  size_t next = 0;
  executor->Run(
      [&]() -> std::optional<exec::WorkItem> {
        if (next >= runs.size()) return std::nullopt;
        const size_t i = next++;
        return exec::WorkItem{i, std::to_string(i)};
      },
      [&](const exec::WorkResult& w) { done(w.index, ParseProxyRunResult(w)); });
}

exec::WorkHandler GenerateWorker(const space::Space& space, const GenerateOptions& o,
                                 const lt::TrainingData& data) {
  ValidateRecipe(o.recipe, o.jobs);
  const space::ProxySettings proxy = RecipeProxy(space, o.recipe);
  auto jobs = std::make_shared<const std::vector<Job>>(PlanJobs(space, o));
  return [&space, &data, o, proxy, jobs](const std::string& payload) {
    size_t used = 0;
    const unsigned long i = std::stoul(payload, &used);
    if (used != payload.size() || i >= jobs->size()) {
      throw InternalError("generation worker: job '" + payload + "' is not in the plan");
    }
    const Job& job = (*jobs)[i];
    return TrainProxy([&] { return space.BuildProxy(job.encoding, job.scaling, proxy); }, job.seed,
                      o.recipe, o.data_dir, o.limit_eval, data);
  };
}

exec::WorkHandler GenerateWorker(const space::Space& space, const GenerateOptions& o) {
  return WithLoadedData(
      o.data_dir, [&](const lt::TrainingData& data) { return GenerateWorker(space, o, data); });
}

exec::WorkHandler WithLoadedData(
    const std::string& data_dir,
    const std::function<exec::WorkHandler(const lt::TrainingData&)>& make) {
  auto data = std::make_shared<const lt::TrainingData>(lt::TrainingData::Load(data_dir));
  exec::WorkHandler handler = make(*data);
  return [data, handler](const std::string& payload) { return handler(payload); };
}

GenerateSummary Generate(const space::Space& space, const GenerateOptions& o,
                         const GenerateProgress& progress) {
  ValidateRecipe(o.recipe, o.jobs);
  const lt::TrainingData data = lt::TrainingData::Load(o.data_dir);
  const auto executor = exec::MakeProcessExecutor(o.jobs, GenerateWorker(space, o, data));
  return Generate(space, o, progress, *executor);
}

GenerateSummary Generate(const space::Space& space, const GenerateOptions& o,
                         const GenerateProgress& progress, exec::Executor& executor) {
  ValidateRecipe(o.recipe, o.jobs);
  if (o.out.empty()) throw InputError("--out is required");
  const auto start = std::chrono::steady_clock::now();
  GenerateSummary summary;
  const std::vector<Job> jobs = PlanJobs(space, o);
  summary.planned = jobs.size();

  std::set<std::string> done;
  if (fs::exists(o.out)) {
    if (!o.resume) {
      throw InputError(o.out + ": exists (use --resume to continue it, or another --out)");
    }
    const AccuracyData existing = ReadAccuracyData(o.out, &space, /*allow_torn_tail=*/true);
    for (size_t i = 0; i < existing.rows.size(); ++i) {
      const AccuracyRow& r = existing.rows[i];
      if (r.recipe != o.recipe) {
        // Labels of different recipes are not comparable: one file holds one recipe.
        throw InputError(
            o.out + ":" + std::to_string(i + 2) + ": recipe " + r.recipe.Key() + ", this run's " +
            o.recipe.Key() +
            " (one recipe per file: continue it with its own options, or another --out)");
      }
      done.insert(r.JobKey());
    }
  }
  AccuracyAppender appender(o.out);  // checks the header and cuts a torn last row
  std::vector<size_t> pending;
  std::vector<AccuracyRow> rows(jobs.size());
  for (size_t i = 0; i < jobs.size(); ++i) {
    rows[i] = DescribeJob(space, jobs[i], o.recipe);
    if (done.count(rows[i].JobKey())) {
      ++summary.already_done;
    } else {
      AddCounts(space, jobs[i], rows[i]);  // only for runs still to train
      pending.push_back(i);
    }
  }
  progress(std::to_string(summary.planned) + " runs planned, " +
               std::to_string(summary.already_done) + " already in " + o.out + ", " +
               std::to_string(pending.size()) + " to train with " +
               std::to_string(executor.workers()) + " worker(s) (" + executor.name() + ")",
           true);
  if (pending.empty()) return summary;

  size_t next = 0;
  executor.Run(
      [&]() -> std::optional<exec::WorkItem> {
        if (next >= pending.size()) return std::nullopt;
        const size_t k = next++;
        return exec::WorkItem{k, std::to_string(pending[k])};
      },
      [&](const exec::WorkResult& w) {
        const size_t k = w.index;
        const TrainedResult r = ParseProxyRunResult(w);
        AccuracyRow& row = rows[pending[k]];
        if (!r.error.empty()) {
          ++summary.failed;
          progress(
              "run " + std::to_string(pending[k]) + " (" + row.encoding + ") failed: " + r.error,
              true);
          return;
        }
        row.val_accuracy = r.val_accuracy;
        row.test_accuracy = r.test_accuracy;
        row.proxy_params = r.proxy_params;
        row.train_time_s = r.train_time_s;
        row.val_curve = r.val_curve;
        appender.Append(row);
        ++summary.trained;
        const double elapsed =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        const double rate = static_cast<double>(summary.trained) / elapsed;
        const size_t left = pending.size() - summary.trained - summary.failed;
        progress("[" + std::to_string(summary.already_done + summary.trained) + "/" +
                     std::to_string(summary.planned) + "] " + FormatFixed(rate * 3600.0, 1) +
                     " runs/h, ETA " + lt::FormatDuration(static_cast<double>(left) / rate) +
                     "  last: " + row.encoding + " test " + FormatFixed(row.test_accuracy, 2) +
                     "% in " + lt::FormatDuration(row.train_time_s),
                 false);
      });
  summary.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return summary;
}

std::vector<HalvingRungSummary> GenerateHalving(const space::Space& space, const GenerateOptions& o,
                                                int eta, int min_epochs,
                                                const GenerateProgress& progress) {
  ValidateRecipe(o.recipe, o.jobs);
  if (o.recipe.zero_cost()) {
    throw InputError("--halving: a zero-cost label (--label) has no epochs to halve");
  }
  if (o.scaling) throw InputError("--halving takes no --scaling (it halves over networks)");
  if (o.out.empty()) throw InputError("--out is required");
  const std::vector<int> rungs = HalvingRungs(min_epochs, o.recipe.epochs, eta);
  // The whole plan's networks, each with its plan index (its runs' seeds).
  GenerateOptions all = o;
  all.replicates = 1;
  std::vector<std::string> current;
  std::vector<size_t> index;
  for (const Job& j : PlanJobs(space, all)) {
    index.push_back(current.size());
    current.push_back(space.ToText(j.encoding));
  }
  std::vector<HalvingRungSummary> out;
  for (size_t k = 0; k < rungs.size(); ++k) {
    GenerateOptions g = o;
    g.recipe.epochs = rungs[k];
    g.out = k + 1 == rungs.size() ? o.out : RungFile(o.out, rungs[k]);
    g.encodings = current;
    g.plan_index = index;
    g.count = static_cast<int>(current.size());
    progress("rung " + std::to_string(k + 1) + " of " + std::to_string(rungs.size()) + ": " +
                 std::to_string(current.size()) + " networks for " + std::to_string(rungs[k]) +
                 " epoch(s) -> " + g.out,
             true);
    HalvingRungSummary r{rungs[k], g.out, Generate(space, g, progress)};
    out.push_back(r);
    if (r.summary.failed > 0 || k + 1 == rungs.size()) break;
    // Promote by what the rung's file holds (this run's rows and a resumed run's alike; one
    // recipe per file, as Generate checks): each network's mean over its seeds.
    const std::map<std::string, double> acc =
        MeanAccuracy(ReadAccuracyData(g.out, &space, true), "val_accuracy");
    std::vector<size_t> order(current.size());
    for (size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::sort(order.begin(), order.end(),
              [&](size_t a, size_t b) { return current[a] < current[b]; });
    std::vector<double> scores;
    for (size_t i : order) {
      const auto it = acc.find(current[i]);
      if (it == acc.end()) {
        throw InputError(g.out + ": no row of network " + current[i] + " after its rung");
      }
      scores.push_back(it->second);
    }
    std::vector<std::string> next;
    std::vector<size_t> next_index;
    for (size_t p : PromoteTop(scores, eta)) {
      next.push_back(current[order[p]]);
      next_index.push_back(index[order[p]]);
    }
    current = std::move(next);
    index = std::move(next_index);
  }
  return out;
}

}  // namespace dcnas::proxy
