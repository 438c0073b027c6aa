#include "calibrate/timing_run.h"

#include <filesystem>
#include <set>

#include "calibrate/profile.h"
#include "common/errors.h"
#include "common/file_io.h"
#include "common/kill_point.h"
#include "common/table.h"
#include "common/text.h"
#include "models/graph_json.h"
#include "models/zoo/zoo.h"

namespace dcnas::calibrate {
namespace {

// Identity of a measured point: the same model, batch, resolution, threads and regime.
std::string PointKey(const std::string& model, const std::string& batch,
                     const std::string& resolution, const std::string& threads,
                     const std::string& regime) {
  return model + "|" + batch + "|" + resolution + "|" + threads + "|" + regime;
}

// The rows of an earlier run of the same plan, kept in the table; returns their keys.
std::set<std::string> LoadEarlierRows(const std::string& path, Table& table) {
  std::set<std::string> keys;
  if (!std::filesystem::exists(path)) return keys;
  const auto rows = ParseTimingRows(ReadFile(path), path);
  if (!rows) {
    throw InputError(path +
                     ": --resume needs a file written by `dcnas measure` (its header differs)");
  }
  for (const auto& row : *rows) {
    table.AddRow(row);
    auto cell = [&row](const char* column) { return TimingCell(row, column); };
    keys.insert(PointKey(cell("model"), cell("batch_size"), cell("image_size"), cell("threads"),
                         cell("regime")));
  }
  return keys;
}

// One point per (graph, batch): zoo models at every batch, graph files as they are.
struct Job {
  std::string name;
  int batch = 0;
  std::string graph_path;
};

std::vector<Job> JobsOf(const TimingPlan& plan) {
  std::vector<Job> jobs;
  for (const auto& name : plan.models) {
    for (int b : plan.batches) jobs.push_back({name, b, ""});
  }
  for (const auto& path : plan.graph_paths) jobs.push_back({path, 0, path});
  return jobs;
}

// The graph a job times (a zoo model is built, and saved with save_graphs).
models::Graph JobGraph(const Job& job, const TimingPlan& plan) {
  if (!job.graph_path.empty()) {
    models::Graph graph = models::ReadGraphFile(job.graph_path);
    if (graph.size() == 1) {
      throw InputError(job.graph_path + ": the graph has only its input op: nothing to measure");
    }
    return graph;
  }
  models::BuildOptions b = plan.build;
  b.batch = job.batch;
  const models::ModelRegistry& registry =
      plan.registry != nullptr ? *plan.registry : models::BuiltinModels();
  models::Graph graph = registry.Build(job.name, b);
  if (!plan.save_graphs.empty()) {
    std::filesystem::create_directories(plan.save_graphs);
    models::WriteGraphFile(graph, plan.save_graphs + "/" + job.name + "-b" +
                                      std::to_string(job.batch) + "-r" +
                                      std::to_string(graph.info().resolution) + ".json");
  }
  return graph;
}

std::string RowNotes(const TimingPlan& plan, const TimedPoint& r) {
  std::string notes = std::string(plan.cpu_clock ? "process CPU time per run; " : "") +
                      "warmup=" + std::to_string(plan.warmup) + "; median of " +
                      std::to_string(plan.repeats) + " runs, spread = max - min; malloc " +
                      plan.malloc_policy + ": " + FormatFixed(r.minor_faults_per_run, 0) +
                      " minor page faults per run, kernel " +
                      FormatFixed(100.0 * r.kernel_cpu_share, 1) + "% of CPU time";
  const int removed = plan.build.proxy_removed_downsamples;
  const double width_scale = plan.build.width_scale;
  if (removed > 0 || width_scale != 1.0) {
    notes += "; proxy removed_downsamples=" + std::to_string(removed) +
             " width_scale=" + FormatFixed(width_scale, 3);
  }
  if (!plan.notes.empty()) notes += "; " + plan.notes;
  return notes;
}

}  // namespace

TimingRunResult RunTimings(const TimingPlan& plan, const PointTimer& timer,
                           const TimingProgress& progress) {
  const models::ModelRegistry& registry =
      plan.registry != nullptr ? *plan.registry : models::BuiltinModels();
  for (const auto& name : plan.models) (void)registry.Get(name);  // before timing
  const std::vector<Job> jobs = JobsOf(plan);
  Table table(TimingColumns());
  const std::set<std::string> done =
      plan.resume ? LoadEarlierRows(plan.out, table) : std::set<std::string>{};
  const std::string source_ref = "dcnas measure " + TodayUtc() + " on " + plan.cpu_model;
  TimingRunResult result;
  result.points = jobs.size();
  for (size_t i = 0; i < jobs.size(); ++i) {
    const models::Graph graph = JobGraph(jobs[i], plan);
    const std::string model_name = jobs[i].graph_path.empty() ? jobs[i].name : graph.info().model;
    const int batch = jobs[i].batch > 0 ? jobs[i].batch : graph.info().batch;
    if (done.count(PointKey(model_name, std::to_string(batch),
                            std::to_string(graph.info().resolution), std::to_string(plan.threads),
                            plan.regime))) {
      ++result.skipped;
      continue;
    }
    if (progress) progress(i, jobs.size(), model_name, batch);
    const TimedPoint r = timer(graph);
    table.AddRow(TimingCells({model_name, plan.device, kHostTimingStack, kHostTimingPrecision,
                              r.batch, r.resolution_px, r.median_ms, r.spread_ms,
                              r.throughput_img_per_s, plan.repeats, plan.regime, "dcnas_measure",
                              source_ref, plan.cpu_model, r.threads, RowNotes(plan, r)}));
    if (!plan.out.empty()) WriteFileAtomic(plan.out, table.ToCsv());
    KillPoint("measure.row-written");
  }
  result.csv = table.ToCsv();
  return result;
}

}  // namespace dcnas::calibrate
