// dcnas measure: times zoo models on this machine's CPU with LibTorch.
#include <unistd.h>

#include <algorithm>
#include <ctime>
#include <filesystem>
#include <iostream>
#include <set>

#include "calibrate/csv_reader.h"
#include "cli/cli.h"
#include "common/errors.h"
#include "common/file_io.h"
#include "common/table.h"
#include "common/text.h"
#include "models/graph_json.h"
#include "models/torch/measure.h"

namespace dcnas::cli {
namespace {

namespace lt = models::libtorch;

std::vector<int> ParseBatches(const std::string& text) {
  std::vector<int> batches;
  for (const std::string& part : Split(text, ',')) {
    size_t used = 0;
    int value = 0;
    try {
      value = std::stoi(part, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used != part.size() || part.empty() || value < 1) {
      throw UsageError("--batch wants positive integers separated by commas, got '" + text + "'");
    }
    batches.push_back(value);
  }
  return batches;
}

std::string Today() {
  const std::time_t now = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&now, &tm);
  char buffer[16];
  std::strftime(buffer, sizeof buffer, "%Y-%m-%d", &tm);
  return buffer;
}

// Identity of a measured point: the same model, batch, resolution, threads and regime.
std::string PointKey(const std::string& model, const std::string& batch,
                     const std::string& resolution, const std::string& threads,
                     const std::string& regime) {
  return model + "|" + batch + "|" + resolution + "|" + threads + "|" + regime;
}

const std::vector<std::string> kColumns = {"model",
                                           "device",
                                           "stack",
                                           "precision",
                                           "batch_size",
                                           "image_size",
                                           "latency_ms",
                                           "latency_spread_ms",
                                           "throughput_img_per_s",
                                           "repeats",
                                           "regime",
                                           "source_id",
                                           "source_ref",
                                           "cpu_model",
                                           "threads",
                                           "notes"};

// --resume: the rows of an earlier run of the same command, kept in the table; returns their keys.
std::set<std::string> LoadEarlierRows(const std::string& path, Table& table) {
  std::set<std::string> keys;
  if (!std::filesystem::exists(path)) return keys;
  const auto records = calibrate::ParseCsv(ReadFile(path), path);
  if (records.empty() || records.front().fields != kColumns) {
    throw InputError(path +
                     ": --resume needs a file written by `dcnas measure` (its header differs)");
  }
  for (size_t i = 1; i < records.size(); ++i) {
    const auto& f = records[i].fields;
    if (f.size() != kColumns.size()) {
      throw InputError(path + ":" + std::to_string(records[i].line) + ": expected " +
                       std::to_string(kColumns.size()) + " fields, found " +
                       std::to_string(f.size()));
    }
    table.AddRow(f);
    auto cell = [&f](const std::string& column) {
      return f[static_cast<size_t>(std::find(kColumns.begin(), kColumns.end(), column) -
                                   kColumns.begin())];
    };
    keys.insert(PointKey(cell("model"), cell("batch_size"), cell("image_size"), cell("threads"),
                         cell("regime")));
  }
  return keys;
}

}  // namespace

int RunMeasure(const Args& args) {
  po::options_description options("options");
  std::vector<std::string> names;
  std::vector<std::string> graph_paths;
  std::string batch_text, mode_text, out, notes, save_graphs, device_name, regime;
  int resolution = 0, removed = 0, in_channels = 3, num_classes = 1000;
  double width_scale = 1.0;
  lt::MeasureOptions m;
  bool resume = false;
  options.add_options()("model", po::value(&names)->multitoken(),
                        "zoo model names (`dcnas models list`)")(
      "graph", po::value(&graph_paths)->multitoken(),
      "layer-graph JSON files to time (their own batch and resolution)")(
      "batch", po::value(&batch_text)->default_value("1,8,32"), "batch sizes, comma separated")(
      "resolution", po::value(&resolution)->default_value(0),
      "input resolution in pixels (0: each model's native one)")(
      "threads", po::value(&m.threads)->default_value(1), "LibTorch intra-op threads")(
      "repeats", po::value(&m.repeats)->default_value(5), "timed runs per point")(
      "warmup", po::value(&m.warmup)->default_value(2), "untimed runs before them")(
      "cpu-clock", po::bool_switch(&m.cpu_clock),
      "time runs by process CPU time (with --threads 1: the latency on an idle core, robust to "
      "other work on a shared machine)")(
      "mode", po::value(&mode_text)->default_value("inference"),
      "inference (forward) or train (forward, backward, SGD step)")(
      "in-channels", po::value(&in_channels)->default_value(3), "input channels of zoo models")(
      "num-classes", po::value(&num_classes)->default_value(1000), "classes of zoo models")(
      "removed-downsamples", po::value(&removed)->default_value(0),
      "proxy scaling: stride-2 stages that run at stride 1")(
      "width-scale", po::value(&width_scale)->default_value(1.0),
      "proxy scaling: channel width multiplier")(
      "device-name", po::value(&device_name)->default_value("host-cpu"),
      "device column: the accelerator file (data/accelerators/<name>.yaml) of this machine")(
      "regime", po::value(&regime)->default_value(""),
      "regime column (default host_cpu, or host_cpu_train with --mode train)")(
      "notes", po::value(&notes), "text for the notes column")(
      "save-graphs", po::value(&save_graphs),
      "write each timed zoo graph to DIR/<model>-b<batch>-r<resolution>.json")(
      "out", po::value(&out), "CSV file (rewritten atomically after every point); default stdout")(
      "resume", po::bool_switch(&resume),
      "keep the points already in --out and time only the missing ones (an interrupted run "
      "continues where it stopped)");
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
  if (names.empty() && graph_paths.empty()) throw UsageError("name at least one model or --graph");
  if (mode_text == "inference") {
    m.mode = lt::MeasureMode::kInference;
  } else if (mode_text == "train") {
    m.mode = lt::MeasureMode::kTrain;
  } else {
    throw UsageError("unknown --mode '" + mode_text + "' (valid: inference, train)");
  }
  if (resume && out.empty()) throw UsageError("--resume needs --out");
  const std::vector<int> batches = ParseBatches(batch_text);
  const auto& registry = models::BuiltinModels();
  for (const auto& name : names) (void)registry.Get(name);  // unknown names fail before timing

  // One job per (graph, batch): zoo models at every batch, graph files as they are.
  struct Job {
    std::string name;
    int batch = 0;
    std::string graph_path;
  };
  std::vector<Job> jobs;
  for (const auto& name : names) {
    for (int b : batches) jobs.push_back({name, b, ""});
  }
  for (const auto& path : graph_paths) jobs.push_back({path, 0, path});

  const std::string cpu_model = lt::CpuModelName();
  const std::string source_ref = "dcnas measure " + Today() + " on " + cpu_model;
  if (regime.empty()) {
    regime = m.mode == lt::MeasureMode::kInference ? "host_cpu" : "host_cpu_train";
  }
  Table table(kColumns);
  const std::set<std::string> done = resume ? LoadEarlierRows(out, table) : std::set<std::string>{};
  size_t skipped = 0;
  const bool terminal = isatty(STDERR_FILENO) != 0;
  for (size_t i = 0; i < jobs.size(); ++i) {
    const Job& job = jobs[i];
    models::Graph graph;
    std::string model_name = job.name;
    if (!job.graph_path.empty()) {
      graph = models::ReadGraphFile(job.graph_path);
      model_name = graph.info().model;
    } else {
      models::BuildOptions b;
      b.resolution = resolution;
      b.batch = job.batch;
      b.in_channels = in_channels;
      b.num_classes = num_classes;
      b.proxy_removed_downsamples = removed;
      b.width_scale = width_scale;
      graph = registry.Build(job.name, b);
      if (!save_graphs.empty()) {
        std::filesystem::create_directories(save_graphs);
        models::WriteGraphFile(graph, save_graphs + "/" + job.name + "-b" +
                                          std::to_string(job.batch) + "-r" +
                                          std::to_string(graph.info().resolution) + ".json");
      }
    }
    const int batch = job.batch > 0 ? job.batch : graph.info().batch;
    if (done.count(PointKey(model_name, std::to_string(batch),
                            std::to_string(graph.info().resolution), std::to_string(m.threads),
                            regime))) {
      ++skipped;
      continue;
    }
    if (terminal) {
      std::cerr << "\r\033[K[" << i + 1 << "/" << jobs.size() << "] " << model_name << " batch "
                << (job.batch > 0 ? job.batch : graph.info().batch) << std::flush;
    }
    const lt::Measurement r = lt::MeasureGraph(graph, m);
    std::string row_notes = std::string(m.cpu_clock ? "process CPU time per run; " : "") +
                            "warmup=" + std::to_string(m.warmup) + "; median of " +
                            std::to_string(m.repeats) + " runs, spread = max - min";
    if (removed > 0 || width_scale != 1.0) {
      row_notes += "; proxy removed_downsamples=" + std::to_string(removed) +
                   " width_scale=" + FormatFixed(width_scale, 3);
    }
    if (!notes.empty()) row_notes += "; " + notes;
    table.AddRow({model_name, device_name, "libtorch-cpu", "fp32", std::to_string(r.batch),
                  std::to_string(r.resolution_px), FormatFixed(r.median_ms, 3),
                  FormatFixed(r.spread_ms, 3), FormatFixed(r.throughput_img_per_s, 2),
                  std::to_string(m.repeats), regime, "dcnas_measure", source_ref, cpu_model,
                  std::to_string(r.threads), row_notes});
    if (!out.empty()) Emit(table.ToCsv(), out);
  }
  if (terminal) std::cerr << "\r\033[K";
  if (out.empty()) {
    Emit(table.ToCsv(), out);
  } else {
    std::cerr << "measured " << jobs.size() - skipped << " points";
    if (skipped > 0) std::cerr << " (" << skipped << " already in the file)";
    std::cerr << ": " << out << "\n";
  }
  return 0;
}

}  // namespace dcnas::cli
