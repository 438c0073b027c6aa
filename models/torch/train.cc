#include "models/torch/train.h"

#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <memory>
#include <numeric>
#include <random>
#include <sstream>

#include <nlohmann/json.hpp>

#include "common/errors.h"
#include "common/file_io.h"
#include "models/counts.h"
#include "models/torch/lower.h"
#include "models/torch/measure.h"

namespace dcnas::models::libtorch {
namespace {

namespace F = ::torch::nn::functional;
namespace fs = std::filesystem;
using ::torch::Tensor;
using Clock = std::chrono::steady_clock;

// Fashion-MNIST pixel statistics of the training set (mean and standard deviation of x / 255).
constexpr double kPixelMean = 0.2860;
constexpr double kPixelStd = 0.3530;
// The validation split is drawn with a fixed seed so that runs with different seeds compare on
// the same held-out images.
constexpr uint64_t kSplitSeed = 20210601;
constexpr int kEvalBatch = 256;
constexpr int kNumClasses = 10;

class GzFile {
 public:
  explicit GzFile(const std::string& path) : path_(path), file_(gzopen(path.c_str(), "rb")) {
    if (file_ == nullptr) {
      throw InputError("cannot open " + path +
                       ": Fashion-MNIST is not installed (apt-get install dataset-fashion-mnist)");
    }
  }
  ~GzFile() { gzclose(file_); }
  GzFile(const GzFile&) = delete;
  GzFile& operator=(const GzFile&) = delete;

  void Read(void* data, size_t bytes) {
    size_t done = 0;
    while (done < bytes) {
      const unsigned chunk = static_cast<unsigned>(std::min<size_t>(bytes - done, 1u << 30));
      const int got = gzread(file_, static_cast<char*>(data) + done, chunk);
      if (got <= 0) {
        throw InputError(path_ + ": truncated or corrupt gzip data after " + std::to_string(done) +
                         " of " + std::to_string(bytes) + " bytes");
      }
      done += static_cast<size_t>(got);
    }
  }
  uint32_t ReadBigEndian32() {
    unsigned char b[4];
    Read(b, 4);
    return (uint32_t{b[0]} << 24) | (uint32_t{b[1]} << 16) | (uint32_t{b[2]} << 8) | b[3];
  }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
  gzFile file_;
};

void Expect(const GzFile& f, const char* field, uint32_t got, uint32_t want) {
  if (got != want) {
    throw InputError(f.path() + ": IDX header field '" + field + "' is " + std::to_string(got) +
                     ", expected " + std::to_string(want));
  }
}

// Learning rate at `step` (0-based) of `total` steps: linear warm-up, then cosine decay to 0.
double ScheduledLr(double base, int64_t step, int64_t warmup, int64_t total) {
  if (step < warmup) return base * static_cast<double>(step + 1) / static_cast<double>(warmup);
  const double span = static_cast<double>(std::max<int64_t>(total - warmup, 1));
  const double progress = std::min(1.0, static_cast<double>(step - warmup) / span);
  return base * 0.5 * (1.0 + std::cos(M_PI * progress));
}

struct Split {
  Tensor images;  // uint8 [N, 1, 28, 28]
  Tensor labels;  // int64 [N]
};

Split ToSplit(const ImageSet& set, const std::vector<int64_t>& indices) {
  const auto n = static_cast<int64_t>(indices.size());
  const int64_t pixels = static_cast<int64_t>(set.rows) * set.cols;
  Tensor images = ::torch::empty({n, 1, set.rows, set.cols}, ::torch::kUInt8);
  Tensor labels = ::torch::empty({n}, ::torch::kLong);
  uint8_t* dst = images.data_ptr<uint8_t>();
  int64_t* lab = labels.data_ptr<int64_t>();
  for (int64_t i = 0; i < n; ++i) {
    const int64_t src = indices[static_cast<size_t>(i)];
    std::copy_n(set.pixels.data() + src * pixels, pixels, dst + i * pixels);
    lab[i] = set.labels[static_cast<size_t>(src)];
  }
  return {images, labels};
}

std::vector<int64_t> Iota(int64_t n) {
  std::vector<int64_t> v(static_cast<size_t>(n));
  std::iota(v.begin(), v.end(), 0);
  return v;
}

// Converts a uint8 batch to the network's input: normalised floats at the graph's resolution
// and channel count, optionally flipped left-right per image and shifted by up to crop_pad
// pixels in each direction (padded with black, then cropped back to the original size).
Tensor Prepare(const Tensor& batch, int64_t resolution, int64_t channels, bool flip,
               int64_t crop_pad) {
  Tensor x = (batch.to(::torch::kFloat) / 255.0 - kPixelMean) / kPixelStd;
  if (flip) {
    const Tensor mask = (::torch::rand({x.size(0), 1, 1, 1}) < 0.5);
    x = ::torch::where(mask, x.flip({3}), x);
  }
  if (crop_pad > 0) {
    const int64_t n = x.size(0), h = x.size(2), w = x.size(3);
    const Tensor padded = F::pad(
        x,
        F::PadFuncOptions({crop_pad, crop_pad, crop_pad, crop_pad}).value(-kPixelMean / kPixelStd));
    const Tensor offsets = ::torch::randint(0, 2 * crop_pad + 1, {n, 2}, ::torch::kLong);
    const auto offset = offsets.accessor<int64_t, 2>();
    std::vector<Tensor> crops;
    crops.reserve(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i) {
      crops.push_back(padded[i].narrow(1, offset[i][0], h).narrow(2, offset[i][1], w));
    }
    x = ::torch::stack(crops);
  }
  if (x.size(2) != resolution || x.size(3) != resolution) {
    x = F::interpolate(x, F::InterpolateFuncOptions()
                              .size(std::vector<int64_t>{resolution, resolution})
                              .mode(::torch::kBilinear)
                              .align_corners(false));
  }
  if (channels != 1) x = x.expand({x.size(0), channels, resolution, resolution}).contiguous();
  return x;
}

struct EvalResult {
  double loss = 0.0;
  double accuracy = 0.0;
};

EvalResult Evaluate(GraphModule& module, const Split& split, int64_t resolution, int64_t channels) {
  module->eval();
  ::torch::InferenceMode guard;
  const int64_t n = split.labels.size(0);
  double loss_sum = 0.0;
  int64_t correct = 0;
  for (int64_t start = 0; start < n; start += kEvalBatch) {
    const int64_t end = std::min(n, start + kEvalBatch);
    const Tensor x = Prepare(split.images.slice(0, start, end), resolution, channels, false, 0);
    const Tensor y = split.labels.slice(0, start, end);
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

nlohmann::json MetricsJson(const EpochMetrics& m) {
  return {{"epoch", m.epoch},
          {"lr", m.learning_rate},
          {"train_loss", m.train_loss},
          {"train_accuracy", m.train_accuracy},
          {"val_loss", m.val_loss},
          {"val_accuracy", m.val_accuracy},
          {"images_per_s", m.images_per_s},
          {"epoch_time_s", m.epoch_time_s}};
}

EpochMetrics MetricsFromJson(const nlohmann::json& j) {
  EpochMetrics m;
  m.epoch = j.at("epoch").get<int>();
  m.learning_rate = j.at("lr").get<double>();
  m.train_loss = j.at("train_loss").get<double>();
  m.train_accuracy = j.at("train_accuracy").get<double>();
  m.val_loss = j.at("val_loss").get<double>();
  m.val_accuracy = j.at("val_accuracy").get<double>();
  m.images_per_s = j.at("images_per_s").get<double>();
  m.epoch_time_s = j.at("epoch_time_s").get<double>();
  return m;
}

// The settings a checkpoint must share with a resumed run.
nlohmann::json RunConfig(const Graph& graph, const TrainOptions& o, double lr, double wd) {
  nlohmann::json config = {{"model", graph.info().model},
                           {"resolution_px", graph.op(graph.Inputs().at(0)).out.shape.h},
                           {"params", CountGraph(graph).params},
                           {"dataset", o.dataset},
                           {"epochs", o.epochs},
                           {"batch", o.batch},
                           {"optimizer", OptimizerName(o.optimizer)},
                           {"lr", lr},
                           {"weight_decay", wd},
                           {"warmup_epochs", o.warmup_epochs},
                           {"label_smoothing", o.label_smoothing},
                           {"augment", o.augment},
                           {"validation_images", o.validation_images},
                           {"limit_train", o.limit_train},
                           {"limit_eval", o.limit_eval},
                           {"seed", o.seed}};
  if (o.crop_pad > 0) config["crop_pad"] = o.crop_pad;  // absent = 0 (runs made before it existed)
  return config;
}

std::string Percent(double fraction) {
  std::ostringstream s;
  s.setf(std::ios::fixed);
  s.precision(2);
  s << 100.0 * fraction << "%";
  return s.str();
}

std::string Fixed(double value, int digits) {
  std::ostringstream s;
  s.setf(std::ios::fixed);
  s.precision(digits);
  s << value;
  return s.str();
}

// Saves with torch::save to a temporary name, then renames (a crash never leaves half a file).
template <typename T>
void SaveAtomic(const T& value, const fs::path& path) {
  const fs::path tmp = path.string() + ".tmp";
  ::torch::save(value, tmp.string());
  fs::rename(tmp, path);
}

}  // namespace

ImageSet ReadFashionMnist(const std::string& dir, const std::string& split) {
  GzFile images(dir + "/" + split + "-images-idx3-ubyte.gz");
  GzFile labels(dir + "/" + split + "-labels-idx1-ubyte.gz");
  Expect(images, "magic", images.ReadBigEndian32(), 2051);
  Expect(labels, "magic", labels.ReadBigEndian32(), 2049);
  ImageSet set;
  const uint32_t count = images.ReadBigEndian32();
  set.rows = static_cast<int>(images.ReadBigEndian32());
  set.cols = static_cast<int>(images.ReadBigEndian32());
  Expect(labels, "count", labels.ReadBigEndian32(), count);
  if (count == 0 || set.rows <= 0 || set.cols <= 0 || set.rows > 4096 || set.cols > 4096) {
    throw InputError(images.path() + ": implausible IDX header (" + std::to_string(count) +
                     " images of " + std::to_string(set.rows) + "x" + std::to_string(set.cols) +
                     ")");
  }
  set.count = count;
  set.pixels.resize(static_cast<size_t>(count) * set.rows * set.cols);
  images.Read(set.pixels.data(), set.pixels.size());
  set.labels.resize(count);
  labels.Read(set.labels.data(), set.labels.size());
  for (size_t i = 0; i < set.labels.size(); ++i) {
    if (set.labels[i] >= kNumClasses) {
      throw InputError(labels.path() + ": label " + std::to_string(set.labels[i]) + " of item " +
                       std::to_string(i) + " is not a class 0..9");
    }
  }
  return set;
}

Optimizer ParseOptimizer(const std::string& name) {
  if (name == "sgd") return Optimizer::kSgd;
  if (name == "rmsprop") return Optimizer::kRmsProp;
  if (name == "adamw") return Optimizer::kAdamW;
  throw InputError("unknown optimizer '" + name + "' (valid: sgd, rmsprop, adamw)");
}

std::string OptimizerName(Optimizer optimizer) {
  switch (optimizer) {
    case Optimizer::kSgd:
      return "sgd";
    case Optimizer::kRmsProp:
      return "rmsprop";
    case Optimizer::kAdamW:
      return "adamw";
  }
  throw InternalError("unknown optimizer");
}

double DefaultLearningRate(Optimizer optimizer) {
  switch (optimizer) {
    case Optimizer::kSgd:
      return 0.1;
    case Optimizer::kRmsProp:
      return 0.008;  // 0.016 per 256 images (EfficientNet reference)
    case Optimizer::kAdamW:
      return 0.002;
  }
  throw InternalError("unknown optimizer");
}

double DefaultWeightDecay(Optimizer optimizer) {
  switch (optimizer) {
    case Optimizer::kSgd:
      return 5e-5;
    case Optimizer::kRmsProp:
      return 1e-5;  // EfficientNet reference
    case Optimizer::kAdamW:
      return 0.05;
  }
  throw InternalError("unknown optimizer");
}

std::string FormatDuration(double seconds) {
  const auto total = static_cast<int64_t>(std::llround(std::max(0.0, seconds)));
  const int64_t h = total / 3600, m = (total % 3600) / 60, s = total % 60;
  char buffer[32];
  if (h > 0) {
    std::snprintf(buffer, sizeof buffer, "%lldh%02lldm", static_cast<long long>(h),
                  static_cast<long long>(m));
  } else if (m > 0) {
    std::snprintf(buffer, sizeof buffer, "%lldm%02llds", static_cast<long long>(m),
                  static_cast<long long>(s));
  } else {
    std::snprintf(buffer, sizeof buffer, "%llds", static_cast<long long>(s));
  }
  return buffer;
}

TrainResult Train(const Graph& graph, const TrainOptions& o, const ProgressFn& progress) {
  if (o.dataset != "fashion-mnist") {
    throw InputError("unknown dataset '" + o.dataset + "' (valid: fashion-mnist)");
  }
  if (o.epochs < 1) throw InputError("epochs must be at least 1, got " + std::to_string(o.epochs));
  if (o.batch < 2) throw InputError("batch must be at least 2, got " + std::to_string(o.batch));
  if (o.crop_pad < 0) {
    throw InputError("crop padding must be >= 0 pixels, got " + std::to_string(o.crop_pad));
  }
  if (o.out_dir.empty()) throw InputError("training needs an output directory (--out RUN_DIR)");
  if (o.validation_images < 1 || o.validation_images >= 60000) {
    throw InputError("validation images must be in 1..59999, got " +
                     std::to_string(o.validation_images));
  }
  if (!(o.warmup_epochs >= 0) || !(o.label_smoothing >= 0 && o.label_smoothing < 1)) {
    throw InputError("warm-up epochs must be >= 0 and label smoothing in [0, 1)");
  }
  const std::vector<int> inputs = graph.Inputs();
  if (inputs.size() != 1) throw InputError("training needs a graph with exactly one input");
  const Shape in_shape = graph.op(inputs[0]).out.shape;
  if (in_shape.c != 1 && in_shape.c != 3) {
    throw InputError("graph '" + graph.info().model + "' takes " + std::to_string(in_shape.c) +
                     " input channels; Fashion-MNIST training needs 1 (or 3)");
  }
  if (in_shape.h != in_shape.w) throw InputError("training needs a square input resolution");
  SetThreads(o.threads);
  const double lr = o.learning_rate > 0 ? o.learning_rate : DefaultLearningRate(o.optimizer);
  const double wd = o.weight_decay >= 0 ? o.weight_decay : DefaultWeightDecay(o.optimizer);

  // Data: a fixed train/validation split of the 60,000 training images.
  const ImageSet train_set = ReadFashionMnist(o.data_dir, "train");
  const ImageSet test_set = ReadFashionMnist(o.data_dir, "t10k");
  std::vector<int64_t> order = Iota(train_set.count);
  std::shuffle(order.begin(), order.end(), std::mt19937_64(kSplitSeed));
  std::vector<int64_t> val_idx(order.end() - o.validation_images, order.end());
  std::vector<int64_t> train_idx(order.begin(), order.end() - o.validation_images);
  std::vector<int64_t> test_idx = Iota(test_set.count);
  if (o.limit_train > 0 && o.limit_train < static_cast<int64_t>(train_idx.size())) {
    train_idx.resize(static_cast<size_t>(o.limit_train));
  }
  if (o.limit_eval > 0) {
    if (o.limit_eval < static_cast<int64_t>(val_idx.size())) {
      val_idx.resize(static_cast<size_t>(o.limit_eval));
    }
    if (o.limit_eval < static_cast<int64_t>(test_idx.size())) {
      test_idx.resize(static_cast<size_t>(o.limit_eval));
    }
  }
  const Split train = ToSplit(train_set, train_idx);
  const Split val = ToSplit(train_set, val_idx);
  const Split test = ToSplit(test_set, test_idx);
  const int64_t n_train = train.labels.size(0);
  const int64_t steps_per_epoch = n_train / o.batch;  // the last partial batch is dropped
  if (steps_per_epoch < 1) {
    throw InputError("batch " + std::to_string(o.batch) + " exceeds the " +
                     std::to_string(n_train) + " training images");
  }
  const int64_t total_steps = steps_per_epoch * o.epochs;
  const auto warmup_steps = static_cast<int64_t>(std::llround(o.warmup_epochs * steps_per_epoch));

  ::torch::manual_seed(o.seed);
  GraphModule module(graph);
  const int64_t logits_size = graph.op(module->logits_id()).out.shape.per_image();
  if (logits_size != kNumClasses) {
    throw InputError("graph '" + graph.info().model + "' has " + std::to_string(logits_size) +
                     " outputs; Fashion-MNIST needs 10 (build it with --num-classes 10)");
  }
  auto optimizer = MakeOptimizer(module, o.optimizer, lr, wd);

  // Run directory and resume.
  const fs::path dir(o.out_dir);
  fs::create_directories(dir);
  const fs::path state_path = dir / "state.json";
  const fs::path metrics_path = dir / "metrics.jsonl";
  const nlohmann::json config = RunConfig(graph, o, lr, wd);
  TrainResult result;
  result.model = graph.info().model;
  result.params = CountParameters(*module);
  int first_epoch = 1;
  if (fs::exists(state_path)) {
    if (!o.resume) {
      throw InputError(o.out_dir +
                       " already holds a run (state.json); pass --resume to continue "
                       "it or choose another --out");
    }
    const nlohmann::json state = nlohmann::json::parse(ReadFile(state_path.string()));
    if (state.at("config") != config) {
      throw InputError(state_path.string() + ": the checkpoint was made with other settings: " +
                       state.at("config").dump() + " (this run: " + config.dump() + ")");
    }
    ::torch::load(module, (dir / "checkpoint.pt").string());
    ::torch::load(*optimizer, (dir / "optimizer.pt").string());
    first_epoch = state.at("epochs_done").get<int>() + 1;
    for (const auto& m : state.at("history")) result.history.push_back(MetricsFromJson(m));
  } else if (o.resume && progress) {
    progress("no checkpoint in " + o.out_dir + ": starting from scratch", true);
  }
  // metrics.jsonl holds exactly the finished epochs.
  {
    std::string lines;
    for (const auto& m : result.history) lines += MetricsJson(m).dump() + "\n";
    WriteFileAtomic(metrics_path.string(), lines);
  }

  const int64_t resolution = in_shape.h;
  const int64_t channels = in_shape.c;
  auto loss_options = F::CrossEntropyFuncOptions().label_smoothing(o.label_smoothing);
  module->train();
  const int last_epoch = o.stop_after_epoch > 0 ? std::min(o.epochs, o.stop_after_epoch) : o.epochs;
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
    for (int64_t s = 0; s < steps_per_epoch; ++s) {
      const int64_t step = (epoch - 1) * steps_per_epoch + s;
      current_lr = ScheduledLr(lr, step, warmup_steps, total_steps);
      SetLr(*optimizer, current_lr);
      const Tensor idx = perm_t.slice(0, s * o.batch, (s + 1) * o.batch);
      const Tensor x =
          Prepare(train.images.index_select(0, idx), resolution, channels, o.augment, o.crop_pad);
      const Tensor y = train.labels.index_select(0, idx);
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
        progress("epoch " + std::to_string(epoch) + "/" + std::to_string(o.epochs) + " " +
                     Fixed(100.0 * static_cast<double>(s + 1) / steps_per_epoch, 0) + "%  loss " +
                     Fixed(loss_sum / seen, 4) + "  acc " +
                     Percent(static_cast<double>(correct) / seen) + "  " + Fixed(seen / t, 0) +
                     " img/s",
                 false);
      }
    }
    const double train_time = std::chrono::duration<double>(Clock::now() - start).count();
    const EvalResult v = Evaluate(module, val, resolution, channels);
    const double epoch_time = std::chrono::duration<double>(Clock::now() - start).count();
    EpochMetrics m;
    m.epoch = epoch;
    m.learning_rate = current_lr;
    m.train_loss = loss_sum / static_cast<double>(seen);
    m.train_accuracy = static_cast<double>(correct) / static_cast<double>(seen);
    m.val_loss = v.loss;
    m.val_accuracy = v.accuracy;
    m.images_per_s = static_cast<double>(seen) / train_time;
    m.epoch_time_s = epoch_time;
    double mean_epoch = 0.0;
    result.history.push_back(m);
    for (const auto& h : result.history) mean_epoch += h.epoch_time_s;
    mean_epoch /= static_cast<double>(result.history.size());
    m.eta_s = mean_epoch * (o.epochs - epoch);
    result.history.back().eta_s = m.eta_s;

    // Checkpoint, then metrics (a crash between the two only repeats this epoch's line).
    SaveAtomic(module, dir / "checkpoint.pt");
    SaveAtomic(*optimizer, dir / "optimizer.pt");
    nlohmann::json history = nlohmann::json::array();
    for (const auto& h : result.history) history.push_back(MetricsJson(h));
    WriteFileAtomic(
        state_path.string(),
        nlohmann::json{{"config", config}, {"epochs_done", epoch}, {"history", history}}.dump(1) +
            "\n");
    {
      std::string lines;
      for (const auto& h : result.history) lines += MetricsJson(h).dump() + "\n";
      WriteFileAtomic(metrics_path.string(), lines);
    }
    if (progress) {
      progress("epoch " + std::to_string(epoch) + "/" + std::to_string(o.epochs) + "  loss " +
                   Fixed(m.train_loss, 4) + "  acc " + Percent(m.train_accuracy) + "  val_loss " +
                   Fixed(m.val_loss, 4) + "  val_acc " + Percent(m.val_accuracy) + "  " +
                   Fixed(m.images_per_s, 0) + " img/s  " + FormatDuration(epoch_time) + "  ETA " +
                   FormatDuration(m.eta_s),
               true);
    }
  }

  result.epochs = static_cast<int>(result.history.size());
  result.val_accuracy = result.history.empty() ? 0.0 : result.history.back().val_accuracy;
  for (const auto& h : result.history) {
    result.train_time_s += h.epoch_time_s;
    result.images_per_s += h.images_per_s;
  }
  if (!result.history.empty()) result.images_per_s /= static_cast<double>(result.history.size());
  if (result.epochs < o.epochs) return result;  // stopped early: resume continues the run
  const EvalResult t = Evaluate(module, test, resolution, channels);
  result.finished = true;
  result.test_loss = t.loss;
  result.test_accuracy = t.accuracy;
  nlohmann::json j = {{"model", result.model},
                      {"params", result.params},
                      {"config", config},
                      {"threads", o.threads},
                      {"epochs", result.epochs},
                      {"test_images", test.labels.size(0)},
                      {"test_loss", result.test_loss},
                      {"test_accuracy", result.test_accuracy},
                      {"val_accuracy", result.val_accuracy},
                      {"train_time_s", result.train_time_s},
                      {"images_per_s", result.images_per_s}};
  WriteFileAtomic((dir / "result.json").string(), j.dump(1) + "\n");
  return result;
}

}  // namespace dcnas::models::libtorch
