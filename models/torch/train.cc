#include "models/torch/train.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <memory>
#include <numeric>
#include <optional>
#include <random>

#include "common/errors.h"
#include "common/process_stats.h"
#include "models/torch/augment.h"
#include "models/torch/checkpoint.h"
#include "models/torch/input_cache.h"
#include "models/torch/lower.h"
#include "models/torch/measure.h"

namespace dcnas::models::libtorch {
namespace {

namespace F = ::torch::nn::functional;
using ::torch::Tensor;
using Clock = std::chrono::steady_clock;

constexpr int kEvalBatch = 256;

void CheckOptions(const TrainOptions& o, bool need_out_dir) {
  if (need_out_dir) ParseDatasetSpec(o.dataset);
  CheckDeviceName(o.device);
  if (o.image_size != 0 && (o.image_size < 8 || o.image_size > 1024)) {
    throw InputError("--image-size " + std::to_string(o.image_size) +
                     " must be in 8..1024 px (0: the graph's resolution)");
  }
  if (o.epochs < 1) throw InputError("epochs must be at least 1, got " + std::to_string(o.epochs));
  if (o.batch < 2) throw InputError("batch must be at least 2, got " + std::to_string(o.batch));
  if (o.crop_pad > 256) {
    throw InputError("crop padding must be at most 256 pixels, got " + std::to_string(o.crop_pad));
  }
  if (need_out_dir && o.out_dir.empty()) {
    throw InputError("training needs an output directory (--out RUN_DIR)");
  }
  if (o.resume && o.out_dir.empty()) {
    throw InputError("resuming needs the run's output directory (--out RUN_DIR)");
  }
  if (o.validation_images < 0) {
    throw InputError("validation images must be >= 0 (0: the default), got " +
                     std::to_string(o.validation_images));
  }
  if (!(o.warmup_epochs >= 0) || !std::isfinite(o.warmup_epochs) ||
      !(o.label_smoothing >= 0 && o.label_smoothing < 1)) {
    throw InputError("--warmup-epochs must be finite and >= 0, and --label-smoothing in [0, 1)");
  }
  // NaN fails every comparison, so each range is written to fail for it.
  if (!(o.learning_rate >= 0 && o.learning_rate <= 10)) {
    throw InputError("--lr " + std::to_string(o.learning_rate) +
                     " must be in [0, 10] (0: the optimizer's default)");
  }
  if (!std::isfinite(o.weight_decay) || o.weight_decay > 1) {
    throw InputError("--weight-decay " + std::to_string(o.weight_decay) +
                     " must be finite and at most 1 (< 0: the optimizer's default)");
  }
  if (o.limit_train < 0 || o.limit_eval < 0) {
    throw InputError("--limit-train and --limit-eval must be >= 0 (0: all images)");
  }
  if (o.threads < 1 || o.threads > 1024) {
    throw InputError("--threads " + std::to_string(o.threads) + " must be in 1..1024");
  }
}

// The graph's input shape, checked for a dataset of `channels` channels (one-channel images are
// repeated for a three-channel input).
Shape CheckGraph(const Graph& graph, const std::string& dataset, int channels) {
  const std::vector<int> inputs = graph.Inputs();
  if (inputs.size() != 1) throw InputError("training needs a graph with exactly one input");
  const Shape in_shape = graph.op(inputs[0]).out.shape;
  if (in_shape.c != channels && !(channels == 1 && in_shape.c == 3)) {
    throw InputError("graph '" + graph.info().model + "' takes " + std::to_string(in_shape.c) +
                     " input channels; " + dataset + " has " + std::to_string(channels) +
                     (channels == 1 ? " (a graph of 1 or 3 channels trains on it)"
                                    : " (build the graph with 3 input channels)"));
  }
  if (in_shape.h != in_shape.w) throw InputError("training needs a square input resolution");
  return in_shape;
}

struct EvalResult {
  double loss = 0.0;
  double accuracy = 0.0;
};

EvalResult Evaluate(GraphModule& module, const PreparedImages& images, int64_t channels,
                    const ::torch::Device& device) {
  module->eval();
  ::torch::InferenceMode guard;
  const int64_t n = images.labels.size(0);
  double loss_sum = 0.0;
  int64_t correct = 0;
  for (int64_t start = 0; start < n; start += kEvalBatch) {
    const int64_t end = std::min(n, start + kEvalBatch);
    const Tensor x = ToChannels(images.plain.slice(0, start, end), channels).to(device);
    const Tensor y = images.labels.slice(0, start, end).to(device);
    const Tensor logits = module->Logits(x);
    loss_sum += F::cross_entropy(logits, y, F::CrossEntropyFuncOptions().reduction(::torch::kSum))
                    .item<double>();
    correct += logits.argmax(1).eq(y).sum().item<int64_t>();
  }
  module->train();
  return {loss_sum / static_cast<double>(n), static_cast<double>(correct) / static_cast<double>(n)};
}

std::unique_ptr<::torch::optim::Optimizer> MakeOptimizer(GraphModule& module, Optimizer kind,
                                                         double lr, double weight_decay) {
  auto params = module->parameters();
  switch (kind) {
    case Optimizer::kSgd:
      return std::make_unique<::torch::optim::SGD>(
          params,
          ::torch::optim::SGDOptions(lr).momentum(0.9).nesterov(true).weight_decay(weight_decay));
    case Optimizer::kRmsProp:
      // The EfficientNet reference settings: decay 0.9, momentum 0.9, epsilon 1e-3.
      return std::make_unique<::torch::optim::RMSprop>(
          params,
          ::torch::optim::RMSpropOptions(lr).alpha(0.9).momentum(0.9).eps(1e-3).weight_decay(
              weight_decay));
    case Optimizer::kAdamW:
      return std::make_unique<::torch::optim::AdamW>(
          params, ::torch::optim::AdamWOptions(lr).weight_decay(weight_decay));
  }
  throw InternalError("unknown optimizer");
}

void SetLr(::torch::optim::Optimizer& optimizer, double lr) {
  for (auto& group : optimizer.param_groups()) group.options().set_lr(lr);
}

std::vector<int64_t> Iota(int64_t n) {
  std::vector<int64_t> v(static_cast<size_t>(n));
  std::iota(v.begin(), v.end(), 0);
  return v;
}

// The graph's logits must be the dataset's classes.
void CheckLogits(const Graph& graph, GraphModule& module, const TrainingData& data) {
  const int64_t logits_size = graph.op(module->logits_id()).out.shape.per_image();
  if (logits_size != data.classes()) {
    const std::string n = std::to_string(data.classes());
    throw InputError("graph '" + graph.info().model + "' has " + std::to_string(logits_size) +
                     " outputs; " + data.id() + " has " + n +
                     " classes (build it with --num-classes " + n + ")");
  }
}

// The data of a run: the selected images, prepared once at the graph's resolution (shared by runs
// on the same TrainingData), and the raw training images when random shifts need them (shifts
// are applied before resizing).
struct RunData {
  RunImages images;
  Tensor raw_train;
  int64_t n_train = 0;
  int64_t steps_per_epoch = 0;  // the last partial batch is dropped
};

RunData PrepareData(const TrainingData& data, const TrainOptions& o, int64_t resolution) {
  RunData d;
  const bool mirrored = o.augment && o.crop_pad == 0;
  d.images = data.cache().Get(data, resolution, o.validation_images, o.limit_train, o.limit_eval,
                              mirrored);
  if (o.crop_pad > 0) {
    d.raw_train = GatherImages(data.train(),
                               data.Select(o.validation_images, o.limit_train, o.limit_eval).train);
  }
  d.n_train = d.images.train.labels.size(0);
  d.steps_per_epoch = d.n_train / o.batch;
  if (d.steps_per_epoch < 1) {
    throw InputError("batch " + std::to_string(o.batch) + " exceeds the " +
                     std::to_string(d.n_train) + " training images");
  }
  return d;
}

// What every epoch of a run shares.
struct RunContext {
  const TrainOptions& o;
  const RunData& data;
  GraphModule& module;
  ::torch::optim::Optimizer& optimizer;
  const LrSchedule& schedule;
  double lr;  // the peak learning rate
  int64_t resolution;
  int64_t channels;
  ::torch::Device device;
  F::CrossEntropyFuncOptions loss_options;
  const ProgressFn& progress;
};

// The running sums of an epoch's training steps.
struct EpochSums {
  double loss_sum = 0.0;
  int64_t correct = 0;
  int64_t seen = 0;
  double lr = 0.0;  // of the last step
};

// One optimizer step on the batch at `step` of the epoch's permutation.
void TrainStep(const RunContext& c, const Tensor& perm, int epoch, int64_t step, EpochSums& sums) {
  const TrainOptions& o = c.o;
  sums.lr = c.schedule.At((epoch - 1) * c.data.steps_per_epoch + step);
  SetLr(c.optimizer, sums.lr);
  const Tensor idx = perm.slice(0, step * o.batch, (step + 1) * o.batch);
  const Tensor x = PrepareBatch(c.data.images.train, c.data.raw_train, idx, c.resolution,
                                c.channels, o.augment, o.crop_pad)
                       .to(c.device);
  const Tensor y = c.data.images.train.labels.index_select(0, idx).to(c.device);
  c.optimizer.zero_grad();
  const Tensor logits = c.module->Logits(x);
  const Tensor loss = F::cross_entropy(logits, y, c.loss_options);
  loss.backward();
  c.optimizer.step();
  const double loss_value = loss.item<double>();
  if (!std::isfinite(loss_value)) {
    throw InputError("training diverged at epoch " + std::to_string(epoch) + " step " +
                     std::to_string(step + 1) + " (loss " + std::to_string(loss_value) +
                     "); lower --lr (now " + std::to_string(c.lr) + ")");
  }
  sums.loss_sum += loss_value * static_cast<double>(o.batch);
  sums.correct += logits.argmax(1).eq(y).sum().item<int64_t>();
  sums.seen += o.batch;
}

// Trains one epoch and evaluates it on the validation images (eta_s left for the caller); adds
// the epoch's process counters to `counters`.
EpochMetrics TrainEpoch(const RunContext& c, int epoch, ProcessCounters& counters) {
  // Per-epoch seeding makes a resumed run identical to an uninterrupted one.
  const uint64_t epoch_seed = c.o.seed * 1000003ULL + static_cast<uint64_t>(epoch);
  ::torch::manual_seed(epoch_seed);
  std::vector<int64_t> perm = Iota(c.data.n_train);
  std::shuffle(perm.begin(), perm.end(), std::mt19937_64(epoch_seed));
  const Tensor perm_t = ::torch::from_blob(perm.data(), {c.data.n_train}, ::torch::kLong);
  const auto start = Clock::now();
  auto last_report = start;
  EpochSums sums;
  sums.lr = c.lr;
  const ProcessCounters epoch_start = ReadProcessCounters();
  for (int64_t s = 0; s < c.data.steps_per_epoch; ++s) {
    TrainStep(c, perm_t, epoch, s, sums);
    const auto now = Clock::now();
    if (c.progress && now - last_report > std::chrono::seconds(1)) {
      last_report = now;
      const double t = std::chrono::duration<double>(now - start).count();
      c.progress(StepLine(epoch, c.o.epochs, static_cast<double>(s + 1) / c.data.steps_per_epoch,
                          sums.loss_sum / sums.seen, static_cast<double>(sums.correct) / sums.seen,
                          sums.seen / t),
                 false);
    }
  }
  const double train_time = std::chrono::duration<double>(Clock::now() - start).count();
  const ProcessCounters epoch_used = ReadProcessCounters() - epoch_start;
  counters.minor_faults += epoch_used.minor_faults;
  counters.user_s += epoch_used.user_s;
  counters.system_s += epoch_used.system_s;
  const EvalResult v = Evaluate(c.module, c.data.images.val, c.channels, c.device);
  EpochMetrics m;
  m.epoch = epoch;
  m.learning_rate = sums.lr;
  m.train_loss = sums.loss_sum / static_cast<double>(sums.seen);
  m.train_accuracy = static_cast<double>(sums.correct) / static_cast<double>(sums.seen);
  m.val_loss = v.loss;
  m.val_accuracy = v.accuracy;
  m.images_per_s = static_cast<double>(sums.seen) / train_time;
  m.epoch_time_s = std::chrono::duration<double>(Clock::now() - start).count();
  return m;
}

// The run's totals from its epochs and the counters of this invocation's steps.
void Summarize(const ProcessCounters& step_counters, TrainResult& result) {
  if (result.steps_run > 0) {
    result.minor_faults_per_step =
        static_cast<double>(step_counters.minor_faults) / static_cast<double>(result.steps_run);
    const double cpu_s = step_counters.user_s + step_counters.system_s;
    result.kernel_cpu_share = cpu_s > 0 ? step_counters.system_s / cpu_s : 0.0;
  }
  result.epochs = static_cast<int>(result.history.size());
  result.val_accuracy = result.history.empty() ? 0.0 : result.history.back().val_accuracy;
  for (const auto& h : result.history) {
    result.train_time_s += h.epoch_time_s;
    result.images_per_s += h.images_per_s;
  }
  if (!result.history.empty()) result.images_per_s /= static_cast<double>(result.history.size());
}

}  // namespace

int DefaultCropPad(const TrainingData& data) {
  return data.name() == "fashion-mnist" ? 0 : data.train().rows / 8;
}

TrainResult Train(const Graph& graph, const TrainOptions& o, const ProgressFn& progress) {
  CheckOptions(o, /*need_out_dir=*/true);
  const std::vector<int> inputs = graph.Inputs();
  if (inputs.size() != 1) throw InputError("training needs a graph with exactly one input");
  ResolveDevice(o.device);
  const DatasetSpec spec = ParseDatasetSpec(o.dataset);
  DatasetLoadOptions load;
  load.image_size = o.image_size > 0 ? o.image_size : graph.op(inputs[0]).out.shape.h;
  load.cache_dir = o.cache_dir;
  if (load.cache_dir.empty()) {
    load.cache_dir = std::filesystem::absolute(o.out_dir).lexically_normal().parent_path().string();
  }
  if (progress) load.progress = [&](const std::string& line) { progress(line, false); };
  const std::string source =
      spec.name == "fashion-mnist" && spec.path.empty() ? o.data_dir : o.dataset;
  return Train(graph, o, TrainingData::Load(source, load), progress);
}

TrainResult Train(const Graph& graph, const TrainOptions& options, const TrainingData& data,
                  const ProgressFn& progress) {
  CheckOptions(options, /*need_out_dir=*/false);
  // The kind the options name ("cifar10", "cifar10:DIR"; a bare directory is Fashion-MNIST's).
  std::string kind = options.dataset.substr(0, options.dataset.find(':'));
  if (kind.find('/') != std::string::npos) kind = "fashion-mnist";
  if (kind != data.name()) {
    throw InputError("options name dataset '" + options.dataset + "' but the loaded data is '" +
                     data.name() + "'");
  }
  // The run's options as it records them: the dataset by its identity, the shifts resolved.
  TrainOptions o = options;
  o.dataset = data.id();
  if (o.crop_pad < 0) o.crop_pad = DefaultCropPad(data);
  if (o.validation_images == 0) o.validation_images = DefaultValidationImages(data.train().count);
  const Shape in_shape = CheckGraph(graph, data.id(), data.channels());
  const ::torch::Device device = ResolveDevice(o.device);
  SetThreads(o.threads);
  const double lr = o.learning_rate > 0 ? o.learning_rate : DefaultLearningRate(o.optimizer);
  const double wd = o.weight_decay >= 0 ? o.weight_decay : DefaultWeightDecay(o.optimizer);
  const RunData run_data = PrepareData(data, o, in_shape.h);
  const LrSchedule schedule =
      LrSchedule::ForEpochs(lr, o.warmup_epochs, run_data.steps_per_epoch, o.epochs);

  ::torch::manual_seed(o.seed);
  GraphModule module(graph);
  CheckLogits(graph, module, data);
  module->to(device);
  auto optimizer = MakeOptimizer(module, o.optimizer, lr, wd);

  TrainResult result;
  result.model = graph.info().model;
  result.params = CountParameters(*module);
  std::optional<RunDirectory> run;
  if (!o.out_dir.empty()) {
    run.emplace(o.out_dir, RunConfig(graph, o, lr, wd));
    result.history = run->Start(module, *optimizer, o.resume, progress);
  }
  const int first_epoch = static_cast<int>(result.history.size()) + 1;

  const RunContext context{
      o,          run_data,
      module,     *optimizer,
      schedule,   lr,
      in_shape.h, in_shape.c,
      device,     F::CrossEntropyFuncOptions().label_smoothing(o.label_smoothing),
      progress};
  module->train();
  const int last_epoch = o.stop_after_epoch > 0 ? std::min(o.epochs, o.stop_after_epoch) : o.epochs;
  ProcessCounters step_counters;
  for (int epoch = first_epoch; epoch <= last_epoch; ++epoch) {
    result.history.push_back(TrainEpoch(context, epoch, step_counters));
    result.steps_run += run_data.steps_per_epoch;
    double mean_epoch = 0.0;
    for (const auto& h : result.history) mean_epoch += h.epoch_time_s;
    mean_epoch /= static_cast<double>(result.history.size());
    result.history.back().eta_s = mean_epoch * (o.epochs - epoch);
    if (run) run->SaveEpoch(module, *optimizer, result.history);
    if (progress) progress(EpochLine(result.history.back(), o.epochs), true);
  }
  Summarize(step_counters, result);
  if (result.epochs < o.epochs) return result;  // stopped early: resume continues the run
  const EvalResult t = Evaluate(module, run_data.images.test, in_shape.c, device);
  result.finished = true;
  result.test_loss = t.loss;
  result.test_accuracy = t.accuracy;
  if (run) run->WriteResult(result, o.threads, run_data.images.test.labels.size(0));
  return result;
}

}  // namespace dcnas::models::libtorch
