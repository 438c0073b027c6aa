// dcnas measure: times zoo models on this machine's CPU with LibTorch.
#include <filesystem>
#include <iostream>

#include "cli/cli.h"
#include "cli/host_timing.h"
#include "common/errors.h"

namespace dcnas::cli {
namespace {

namespace lt = models::libtorch;

struct MeasureArgs {
  calibrate::TimingPlan plan;
  std::string batch_text, mode_text;
  std::vector<std::string> onnx_paths;
  lt::MeasureMode mode = lt::MeasureMode::kInference;
};

void AddOptions(po::options_description& options, MeasureArgs& a) {
  calibrate::TimingPlan& p = a.plan;
  options.add_options()("model", po::value(&p.models)->multitoken(),
                        "zoo model names (`dcnas models list`)")(
      "graph", po::value(&p.graph_paths)->multitoken(),
      "layer-graph JSON files to time (their own batch and resolution)")(
      "onnx", po::value(&a.onnx_paths)->multitoken(),
      "ONNX files to time at every --batch (the model column is the file's stem)")(
      "batch", po::value(&a.batch_text)->default_value("1,8,32"), "batch sizes, comma separated")(
      "resolution", po::value(&p.build.resolution)->default_value(0),
      "input resolution in pixels (0: each model's native one)")(
      "threads", po::value(&p.threads)->default_value(1), "LibTorch intra-op threads")(
      "repeats", po::value(&p.repeats)->default_value(5), "timed runs per point")(
      "warmup", po::value(&p.warmup)->default_value(2), "untimed runs before them")(
      "device", po::value(&p.torch_device)->default_value("cpu"),
      "cpu, cuda or cuda:N: where LibTorch runs the graphs (cuda needs a LibTorch built with "
      "CUDA; each run ends with a device synchronisation)")(
      "cpu-clock", po::bool_switch(&p.cpu_clock),
      "time runs by process CPU time (with --threads 1: the latency on an idle core, robust to "
      "other work on a shared machine)")(
      "mode", po::value(&a.mode_text)->default_value("inference"),
      "inference (forward) or train (forward, backward, SGD step)")(
      "in-channels", po::value(&p.build.in_channels)->default_value(3),
      "input channels of zoo models")(
      "num-classes", po::value(&p.build.num_classes)->default_value(1000), "classes of zoo models")(
      "removed-downsamples", po::value(&p.build.proxy_removed_downsamples)->default_value(0),
      "proxy scaling: stride-2 stages that run at stride 1")(
      "width-scale", po::value(&p.build.width_scale)->default_value(1.0),
      "proxy scaling: channel width multiplier")(
      "device-name", po::value(&p.device)->default_value("host-cpu"),
      "device column: the accelerator file (data/accelerators/<name>.yaml) of this machine")(
      "regime", po::value(&p.regime)->default_value(""),
      "regime column (default host_cpu, or host_cpu_train with --mode train)")(
      "notes", po::value(&p.notes), "text for the notes column")(
      "malloc", po::value(&p.malloc_policy)->default_value("keep"),
      "keep (LibTorch's large buffers stay in the heap between runs) or system (glibc's "
      "defaults, which return them to the kernel and fault them in again every run); the "
      "notes column records the policy, the minor page faults per run and the kernel's share "
      "of CPU time")("save-graphs", po::value(&p.save_graphs),
                     "write each timed zoo graph to DIR/<model>-b<batch>-r<resolution>.json")(
      "out", po::value(&p.out),
      "CSV file (rewritten atomically after every point); default stdout")(
      "resume", po::bool_switch(&p.resume),
      "keep the points already in --out and time only the missing ones (an interrupted run "
      "continues where it stopped)");
}

// Checks the options and completes the plan: batches, the mode, the regime set from the mode when
// not given, "-" for stdout.
void Complete(MeasureArgs& a) {
  calibrate::TimingPlan& p = a.plan;
  p.batches = ParseBatches(a.batch_text);
  if (p.models.empty() && p.graph_paths.empty() && a.onnx_paths.empty()) {
    throw UsageError("name at least one model, --graph or --onnx");
  }
  if (a.mode_text == "inference") {
    a.mode = lt::MeasureMode::kInference;
  } else if (a.mode_text == "train") {
    a.mode = lt::MeasureMode::kTrain;
  } else {
    throw UsageError("unknown --mode '" + a.mode_text + "' (valid: inference, train)");
  }
  if (p.out == "-") p.out.clear();
  if (p.resume && p.out.empty()) throw UsageError("--resume needs --out");
  if (p.regime.empty()) {
    p.regime = a.mode == lt::MeasureMode::kInference ? calibrate::kRegimeHostCpu : "host_cpu_train";
  }
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
             "dcnas measure MODEL...|--graph g.json...|--onnx m.onnx... [--threads T] [--batch "
             "1,8,32] "
             "[--resolution R] [--repeats K] [--mode inference|train] --out m.csv",
             "Times models with LibTorch on this machine's CPU (fp32): warm-up runs, then K timed\n"
             "runs per (model, batch); reports the median latency and the spread (max - min) in\n"
             "the calibration measurement schema (device = --device-name, the accelerator file\n"
             "of this machine's CPU; stack libtorch-cpu; the CPU model in cpu_model).\n"
             "A progress line is shown on a terminal; --resume continues an interrupted run.",
             options, positional, vm)) {
    return 0;
  }
  Complete(a);
  const models::ModelRegistry registry = RegistryWithOnnx(a.onnx_paths);
  for (const auto& path : a.onnx_paths) {
    a.plan.models.push_back(std::filesystem::path(path).stem().string());
  }
  a.plan.registry = &registry;
  const calibrate::TimingRunResult result = TimeOnHostCpu(a.plan, a.mode);
  if (a.plan.out.empty()) Emit(result.csv, "");
  return 0;
}

}  // namespace dcnas::cli
