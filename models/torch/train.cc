#include "models/torch/train.h"

#include <algorithm>
#include <chrono>
#include <cmath>
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
// The validation split comes out of the 60,000 images of Fashion-MNIST's training file.
constexpr int kTrainFileImages = 60000;

void CheckOptions(const TrainOptions& o, bool need_out_dir) {
  if (o.dataset != "fashion-mnist") {
    throw InputError("unknown dataset '" + o.dataset + "' (valid: fashion-mnist)");
  }
  if (o.epochs < 1) throw InputError("epochs must be at least 1, got " + std::to_string(o.epochs));
  if (o.batch < 2) throw InputError("batch must be at least 2, got " + std::to_string(o.batch));
  if (o.crop_pad < 0) {
    throw InputError("crop padding must be >= 0 pixels, got " + std::to_string(o.crop_pad));
  }
  if (need_out_dir && o.out_dir.empty()) {
    throw InputError("training needs an output directory (--out RUN_DIR)");
  }
  if (o.resume && o.out_dir.empty()) {
    throw InputError("resuming needs the run's output directory (--out RUN_DIR)");
  }
  if (o.validation_images < 1 || o.validation_images >= kTrainFileImages) {
    throw InputError("validation images must be in 1.." + std::to_string(kTrainFileImages - 1) +
                     ", got " + std::to_string(o.validation_images));
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

// The graph's input shape, checked for Fashion-MNIST.
Shape CheckGraph(const Graph& graph) {
  const std::vector<int> inputs = graph.Inputs();
  if (inputs.size() != 1) throw InputError("training needs a graph with exactly one input");
  const Shape in_shape = graph.op(inputs[0]).out.shape;
  if (in_shape.c != 1 && in_shape.c != 3) {
    throw InputError("graph '" + graph.info().model + "' takes " + std::to_string(in_shape.c) +
                     " input channels; Fashion-MNIST training needs 1 (or 3)");
  }
  if (in_shape.h != in_shape.w) throw InputError("training needs a square input resolution");
  return in_shape;
}

struct EvalResult {
  double loss = 0.0;
  double accuracy = 0.0;
};

EvalResult Evaluate(GraphModule& module, const PreparedImages& images, int64_t channels) {
  module->eval();
  ::torch::InferenceMode guard;
  const int64_t n = images.labels.size(0);
  double loss_sum = 0.0;
  int64_t correct = 0;
  for (int64_t start = 0; start < n; start += kEvalBatch) {
    const int64_t end = std::min(n, start + kEvalBatch);
    const Tensor x = ToChannels(images.plain.slice(0, start, end), channels);
    const Tensor y = images.labels.slice(0, start, end);
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

}  // namespace

TrainResult Train(const Graph& graph, const TrainOptions& o, const ProgressFn& progress) {
  CheckOptions(o, /*need_out_dir=*/true);
  CheckGraph(graph);
  return Train(graph, o, TrainingData::Load(o.data_dir), progress);
}

TrainResult Train(const Graph& graph, const TrainOptions& o, const TrainingData& data,
                  const ProgressFn& progress) {
  CheckOptions(o, /*need_out_dir=*/false);
  if (o.dataset != data.name()) {
    throw InputError("options name dataset '" + o.dataset + "' but the loaded data is '" +
                     data.name() + "'");
  }
  const Shape in_shape = CheckGraph(graph);
  SetThreads(o.threads);
  const double lr = o.learning_rate > 0 ? o.learning_rate : DefaultLearningRate(o.optimizer);
  const double wd = o.weight_decay >= 0 ? o.weight_decay : DefaultWeightDecay(o.optimizer);
  const int64_t resolution = in_shape.h;
  const int64_t channels = in_shape.c;

  // Data: the selected images, prepared once at the graph's resolution (shared by runs on the
  // same TrainingData); random shifts are applied before resizing, so they need the bytes.
  const bool mirrored = o.augment && o.crop_pad == 0;
  const RunImages images = data.cache().Get(data, resolution, o.validation_images, o.limit_train,
                                            o.limit_eval, mirrored);
  Tensor raw_train;
  if (o.crop_pad > 0) {
    raw_train =
        GatherImages(data.train(), SelectImages(data.train().count, data.test().count,
                                                o.validation_images, o.limit_train, o.limit_eval)
                                       .train);
  }
  const int64_t n_train = images.train.labels.size(0);
  const int64_t steps_per_epoch = n_train / o.batch;  // the last partial batch is dropped
  if (steps_per_epoch < 1) {
    throw InputError("batch " + std::to_string(o.batch) + " exceeds the " +
                     std::to_string(n_train) + " training images");
  }
  const LrSchedule schedule = LrSchedule::ForEpochs(lr, o.warmup_epochs, steps_per_epoch, o.epochs);

  ::torch::manual_seed(o.seed);
  GraphModule module(graph);
  const int64_t logits_size = graph.op(module->logits_id()).out.shape.per_image();
  if (logits_size != kFashionMnistClasses) {
    throw InputError("graph '" + graph.info().model + "' has " + std::to_string(logits_size) +
                     " outputs; Fashion-MNIST needs 10 (build it with --num-classes 10)");
  }
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

  auto loss_options = F::CrossEntropyFuncOptions().label_smoothing(o.label_smoothing);
  module->train();
  const int last_epoch = o.stop_after_epoch > 0 ? std::min(o.epochs, o.stop_after_epoch) : o.epochs;
  ProcessCounters step_counters;
  for (int epoch = first_epoch; epoch <= last_epoch; ++epoch) {
    // Per-epoch seeding makes a resumed run identical to an uninterrupted one.
    const uint64_t epoch_seed = o.seed * 1000003ULL + static_cast<uint64_t>(epoch);
    ::torch::manual_seed(epoch_seed);
    std::vector<int64_t> perm = Iota(n_train);
    std::shuffle(perm.begin(), perm.end(), std::mt19937_64(epoch_seed));
    const Tensor perm_t = ::torch::from_blob(perm.data(), {n_train}, ::torch::kLong);
    const auto start = Clock::now();
    auto last_report = start;
    double loss_sum = 0.0;
    int64_t correct = 0, seen = 0;
    double current_lr = lr;
    const ProcessCounters epoch_start = ReadProcessCounters();
    for (int64_t s = 0; s < steps_per_epoch; ++s) {
      current_lr = schedule.At((epoch - 1) * steps_per_epoch + s);
      SetLr(*optimizer, current_lr);
      const Tensor idx = perm_t.slice(0, s * o.batch, (s + 1) * o.batch);
      const Tensor x =
          PrepareBatch(images.train, raw_train, idx, resolution, channels, o.augment, o.crop_pad);
      const Tensor y = images.train.labels.index_select(0, idx);
      optimizer->zero_grad();
      const Tensor logits = module->Logits(x);
      const Tensor loss = F::cross_entropy(logits, y, loss_options);
      loss.backward();
      optimizer->step();
      const double loss_value = loss.item<double>();
      if (!std::isfinite(loss_value)) {
        throw InputError("training diverged at epoch " + std::to_string(epoch) + " step " +
                         std::to_string(s + 1) + " (loss " + std::to_string(loss_value) +
                         "); lower --lr (now " + std::to_string(lr) + ")");
      }
      loss_sum += loss_value * static_cast<double>(o.batch);
      correct += logits.argmax(1).eq(y).sum().item<int64_t>();
      seen += o.batch;
      const auto now = Clock::now();
      if (progress && now - last_report > std::chrono::seconds(1)) {
        last_report = now;
        const double t = std::chrono::duration<double>(now - start).count();
        progress(StepLine(epoch, o.epochs, static_cast<double>(s + 1) / steps_per_epoch,
                          loss_sum / seen, static_cast<double>(correct) / seen, seen / t),
                 false);
      }
    }
    const double train_time = std::chrono::duration<double>(Clock::now() - start).count();
    const ProcessCounters epoch_used = ReadProcessCounters() - epoch_start;
    step_counters.minor_faults += epoch_used.minor_faults;
    step_counters.user_s += epoch_used.user_s;
    step_counters.system_s += epoch_used.system_s;
    result.steps_run += steps_per_epoch;
    const EvalResult v = Evaluate(module, images.val, channels);
    EpochMetrics m;
    m.epoch = epoch;
    m.learning_rate = current_lr;
    m.train_loss = loss_sum / static_cast<double>(seen);
    m.train_accuracy = static_cast<double>(correct) / static_cast<double>(seen);
    m.val_loss = v.loss;
    m.val_accuracy = v.accuracy;
    m.images_per_s = static_cast<double>(seen) / train_time;
    m.epoch_time_s = std::chrono::duration<double>(Clock::now() - start).count();
    result.history.push_back(m);
    double mean_epoch = 0.0;
    for (const auto& h : result.history) mean_epoch += h.epoch_time_s;
    mean_epoch /= static_cast<double>(result.history.size());
    result.history.back().eta_s = mean_epoch * (o.epochs - epoch);

    if (run) run->SaveEpoch(module, *optimizer, result.history);
    if (progress) progress(EpochLine(result.history.back(), o.epochs), true);
  }

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
  if (result.epochs < o.epochs) return result;  // stopped early: resume continues the run
  const EvalResult t = Evaluate(module, images.test, channels);
  result.finished = true;
  result.test_loss = t.loss;
  result.test_accuracy = t.accuracy;
  if (run) run->WriteResult(result, o.threads, images.test.labels.size(0));
  return result;
}

}  // namespace dcnas::models::libtorch
