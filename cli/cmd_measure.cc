// dcnas measure: times zoo models on this machine's CPU with LibTorch.
#include <unistd.h>

#include <filesystem>
#include <iostream>
#include <set>

#include "calibrate/measurement.h"
#include "calibrate/profile.h"
#include "cli/cli.h"
#include "common/errors.h"
#include "common/file_io.h"
#include "common/kill_point.h"
#include "common/process_stats.h"
#include "common/table.h"
#include "common/text.h"
#include "models/graph_json.h"
#include "models/torch/measure.h"

namespace dcnas::cli {
namespace {

namespace lt = models::libtorch;

// Identity of a measured point: the same model, batch, resolution, threads and regime.
std::string PointKey(const std::string& model, const std::string& batch,
                     const std::string& resolution, const std::string& threads,
                     const std::string& regime) {
  return model + "|" + batch + "|" + resolution + "|" + threads + "|" + regime;
}

// --resume: the rows of an earlier run of the same command, kept in the table; returns their keys.
std::set<std::string> LoadEarlierRows(const std::string& path, Table& table) {
  std::set<std::string> keys;
  if (!std::filesystem::exists(path)) return keys;
  const auto rows = calibrate::ParseTimingRows(ReadFile(path), path);
  if (!rows) {
    throw InputError(path +
                     ": --resume needs a file written by `dcnas measure` (its header differs)");
  }
  for (const auto& row : *rows) {
    table.AddRow(row);
    auto cell = [&row](const char* column) { return calibrate::TimingCell(row, column); };
    keys.insert(PointKey(cell("model"), cell("batch_size"), cell("image_size"), cell("threads"),
                         cell("regime")));
  }
  return keys;
}

struct MeasureArgs {
  std::vector<std::string> names;
  std::vector<std::string> graph_paths;
  std::string batch_text, mode_text, out, notes, save_graphs, device_name, regime;
  std::string malloc_policy = "keep";
  int resolution = 0, removed = 0, in_channels = 3, num_classes = 1000;
  double width_scale = 1.0;
  lt::MeasureOptions m;
  bool resume = false;
};

void AddOptions(po::options_description& options, MeasureArgs& a) {
  options.add_options()("model", po::value(&a.names)->multitoken(),
                        "zoo model names (`dcnas models list`)")(
      "graph", po::value(&a.graph_paths)->multitoken(),
      "layer-graph JSON files to time (their own batch and resolution)")(
      "batch", po::value(&a.batch_text)->default_value("1,8,32"), "batch sizes, comma separated")(
      "resolution", po::value(&a.resolution)->default_value(0),
      "input resolution in pixels (0: each model's native one)")(
      "threads", po::value(&a.m.threads)->default_value(1), "LibTorch intra-op threads")(
      "repeats", po::value(&a.m.repeats)->default_value(5), "timed runs per point")(
      "warmup", po::value(&a.m.warmup)->default_value(2), "untimed runs before them")(
      "cpu-clock", po::bool_switch(&a.m.cpu_clock),
      "time runs by process CPU time (with --threads 1: the latency on an idle core, robust to "
      "other work on a shared machine)")(
      "mode", po::value(&a.mode_text)->default_value("inference"),
      "inference (forward) or train (forward, backward, SGD step)")(
      "in-channels", po::value(&a.in_channels)->default_value(3), "input channels of zoo models")(
      "num-classes", po::value(&a.num_classes)->default_value(1000), "classes of zoo models")(
      "removed-downsamples", po::value(&a.removed)->default_value(0),
      "proxy scaling: stride-2 stages that run at stride 1")(
      "width-scale", po::value(&a.width_scale)->default_value(1.0),
      "proxy scaling: channel width multiplier")(
      "device-name", po::value(&a.device_name)->default_value("host-cpu"),
      "device column: the accelerator file (data/accelerators/<name>.yaml) of this machine")(
      "regime", po::value(&a.regime)->default_value(""),
      "regime column (default host_cpu, or host_cpu_train with --mode train)")(
      "notes", po::value(&a.notes), "text for the notes column")(
      "malloc", po::value(&a.malloc_policy)->default_value("keep"),
      "keep (LibTorch's large buffers stay in the heap between runs) or system (glibc's "
      "defaults, which return them to the kernel and fault them in again every run); the "
      "notes column records the policy, the minor page faults per run and the kernel's share "
      "of CPU time")("save-graphs", po::value(&a.save_graphs),
                     "write each timed zoo graph to DIR/<model>-b<batch>-r<resolution>.json")(
      "out", po::value(&a.out),
      "CSV file (rewritten atomically after every point); default stdout")(
      "resume", po::bool_switch(&a.resume),
      "keep the points already in --out and time only the missing ones (an interrupted run "
      "continues where it stopped)");
}

// One job per (graph, batch): zoo models at every batch, graph files as they are.
struct Job {
  std::string name;
  int batch = 0;
  std::string graph_path;
};

std::vector<Job> JobsOf(const MeasureArgs& a, const std::vector<int>& batches) {
  std::vector<Job> jobs;
  for (const auto& name : a.names) {
    for (int b : batches) jobs.push_back({name, b, ""});
  }
  for (const auto& path : a.graph_paths) jobs.push_back({path, 0, path});
  return jobs;
}

// The graph a job times (a zoo model is built, and saved with --save-graphs).
models::Graph JobGraph(const Job& job, const MeasureArgs& a) {
  if (!job.graph_path.empty()) return models::ReadGraphFile(job.graph_path);
  models::BuildOptions b;
  b.resolution = a.resolution;
  b.batch = job.batch;
  b.in_channels = a.in_channels;
  b.num_classes = a.num_classes;
  b.proxy_removed_downsamples = a.removed;
  b.width_scale = a.width_scale;
  models::Graph graph = models::BuiltinModels().Build(job.name, b);
  if (!a.save_graphs.empty()) {
    std::filesystem::create_directories(a.save_graphs);
    models::WriteGraphFile(graph, a.save_graphs + "/" + job.name + "-b" +
                                      std::to_string(job.batch) + "-r" +
                                      std::to_string(graph.info().resolution) + ".json");
  }
  return graph;
}

std::string RowNotes(const MeasureArgs& a, const lt::Measurement& r) {
  std::string notes = std::string(a.m.cpu_clock ? "process CPU time per run; " : "") +
                      "warmup=" + std::to_string(a.m.warmup) + "; median of " +
                      std::to_string(a.m.repeats) + " runs, spread = max - min; malloc " +
                      a.malloc_policy + ": " + FormatFixed(r.minor_faults_per_run, 0) +
                      " minor page faults per run, kernel " +
                      FormatFixed(100.0 * r.kernel_cpu_share, 1) + "% of CPU time";
  if (a.removed > 0 || a.width_scale != 1.0) {
    notes += "; proxy removed_downsamples=" + std::to_string(a.removed) +
             " width_scale=" + FormatFixed(a.width_scale, 3);
  }
  if (!a.notes.empty()) notes += "; " + a.notes;
  return notes;
}

// Times the jobs not in `done`, adding a row each (and rewriting --out after each); returns how
// many were skipped.
size_t TimeJobs(const std::vector<Job>& jobs, const MeasureArgs& a,
                const std::set<std::string>& done, Table& table) {
  const std::string cpu_model = lt::CpuModelName();
  const std::string source_ref = "dcnas measure " + calibrate::TodayUtc() + " on " + cpu_model;
  size_t skipped = 0;
  const bool terminal = isatty(STDERR_FILENO) != 0;
  for (size_t i = 0; i < jobs.size(); ++i) {
    const models::Graph graph = JobGraph(jobs[i], a);
    const std::string model_name = jobs[i].graph_path.empty() ? jobs[i].name : graph.info().model;
    const int batch = jobs[i].batch > 0 ? jobs[i].batch : graph.info().batch;
    if (done.count(PointKey(model_name, std::to_string(batch),
                            std::to_string(graph.info().resolution), std::to_string(a.m.threads),
                            a.regime))) {
      ++skipped;
      continue;
    }
    if (terminal) {
      std::cerr << "\r\033[K[" << i + 1 << "/" << jobs.size() << "] " << model_name << " batch "
                << batch << std::flush;
    }
    const lt::Measurement r = lt::MeasureGraph(graph, a.m);
    table.AddRow(calibrate::TimingCells(
        {model_name, a.device_name, "libtorch-cpu", "fp32", r.batch, r.resolution_px, r.median_ms,
         r.spread_ms, r.throughput_img_per_s, a.m.repeats, a.regime, "dcnas_measure", source_ref,
         cpu_model, r.threads, RowNotes(a, r)}));
    if (!a.out.empty()) Emit(table.ToCsv(), a.out);
    KillPoint("measure.row-written");
  }
  if (terminal) std::cerr << "\r\033[K";
  return skipped;
}

}  // namespace

int RunMeasure(const Args& args) {
  po::options_description options("options");
  MeasureArgs a;
  AddOptions(options, a);
  po::positional_options_description positional;
  positional.add("model", -1);
  po::variables_map vm;
  if (!Parse(args,
             "dcnas measure MODEL...|--graph g.json... [--threads T] [--batch 1,8,32] "
             "[--resolution R] [--repeats K] [--mode inference|train] --out m.csv",
             "Times models with LibTorch on this machine's CPU (fp32): warm-up runs, then K timed\n"
             "runs per (model, batch); reports the median latency and the spread (max - min) in\n"
             "the calibration measurement schema (device = --device-name, the accelerator file\n"
             "of this machine's CPU; stack libtorch-cpu; the CPU model in cpu_model).\n"
             "A progress line is shown on a terminal; --resume continues an interrupted run.",
             options, positional, vm)) {
    return 0;
  }
  const std::vector<int> batches = ParseBatches(a.batch_text);
  if (a.names.empty() && a.graph_paths.empty()) {
    throw UsageError("name at least one model or --graph");
  }
  if (a.mode_text == "inference") {
    a.m.mode = lt::MeasureMode::kInference;
  } else if (a.mode_text == "train") {
    a.m.mode = lt::MeasureMode::kTrain;
  } else {
    throw UsageError("unknown --mode '" + a.mode_text + "' (valid: inference, train)");
  }
  if (a.resume && a.out.empty()) throw UsageError("--resume needs --out");
  ApplyMallocPolicy(ParseMallocPolicy(a.malloc_policy));
  for (const auto& name : a.names) (void)models::BuiltinModels().Get(name);  // fail before timing
  const std::vector<Job> jobs = JobsOf(a, batches);
  if (a.regime.empty()) {
    a.regime = a.m.mode == lt::MeasureMode::kInference ? "host_cpu" : "host_cpu_train";
  }
  Table table(calibrate::TimingColumns());
  const std::set<std::string> done =
      a.resume ? LoadEarlierRows(a.out, table) : std::set<std::string>{};
  const size_t skipped = TimeJobs(jobs, a, done, table);
  if (a.out.empty()) {
    Emit(table.ToCsv(), a.out);
  } else {
    std::cerr << "measured " << jobs.size() - skipped << " points";
    if (skipped > 0) std::cerr << " (" << skipped << " already in the file)";
    std::cerr << ": " << a.out << "\n";
  }
  return 0;
}

}  // namespace dcnas::cli
