// Training a layer graph on Fashion-MNIST with LibTorch (no LibTorch headers here).
//
// Data: Debian's dataset-fashion-mnist (gzipped IDX files read with zlib). 5,000 training images,
// chosen by a fixed shuffle, are held out for validation; the test set is used once at the end.
// Recipe: cosine learning-rate schedule with linear warm-up, label smoothing, weight decay,
// random horizontal flips. With one thread and a given seed a run is deterministic, and a
// resumed run continues exactly where the checkpoint left it.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "models/graph.h"

namespace dcnas::models::libtorch {

inline constexpr const char* kFashionMnistDir = "/usr/share/datasets/fashion-mnist";

// One split of an IDX image set: `count` images of rows x cols bytes, and their labels.
struct ImageSet {
  int64_t count = 0;
  int rows = 0;
  int cols = 0;
  std::vector<uint8_t> pixels;  // count * rows * cols, row-major
  std::vector<uint8_t> labels;  // count
};

// Reads "<dir>/<split>-images-idx3-ubyte.gz" and "<dir>/<split>-labels-idx1-ubyte.gz" (split
// "train" or "t10k"). Throws InputError naming the file, with the install command when the
// dataset is absent, or the bad header field.
ImageSet ReadFashionMnist(const std::string& dir, const std::string& split);

enum class Optimizer { kSgd, kRmsProp, kAdamW };
Optimizer ParseOptimizer(const std::string& name);  // sgd, rmsprop, adamw; throws InputError
std::string OptimizerName(Optimizer optimizer);
// Default learning rate and weight decay of each optimizer (for batch 128).
double DefaultLearningRate(Optimizer optimizer);
double DefaultWeightDecay(Optimizer optimizer);

struct TrainOptions {
  std::string dataset = "fashion-mnist";
  std::string data_dir = kFashionMnistDir;
  int epochs = 10;
  int batch = 128;
  Optimizer optimizer = Optimizer::kSgd;
  double learning_rate = 0.0;  // 0: DefaultLearningRate
  double weight_decay = -1.0;  // < 0: DefaultWeightDecay
  double warmup_epochs = 1.0;
  double label_smoothing = 0.1;
  bool augment = true;  // random horizontal flips
  int crop_pad = 0;     // > 0: random shifts of up to this many pixels (pad and crop)
  int validation_images = 5000;
  int64_t limit_train = 0;  // > 0: train on at most this many images (smoke tests)
  int64_t limit_eval = 0;   // > 0: validate and test on at most this many images
  uint64_t seed = 0;
  int threads = 1;
  std::string out_dir;  // RUN_DIR: checkpoint, metrics.jsonl, result.json
  bool resume = false;
  int stop_after_epoch = 0;  // > 0: stop once this epoch is done (continue with resume)
};

struct EpochMetrics {
  int epoch = 0;               // 1-based
  double learning_rate = 0.0;  // at the end of the epoch
  double train_loss = 0.0;
  double train_accuracy = 0.0;
  double val_loss = 0.0;
  double val_accuracy = 0.0;
  double images_per_s = 0.0;  // training images per second of this epoch
  double epoch_time_s = 0.0;
  double eta_s = 0.0;  // estimated time left for the remaining epochs
};

struct TrainResult {
  std::string model;
  bool finished = false;  // false when stopped early by stop_after_epoch (no test result)
  int64_t params = 0;
  int epochs = 0;
  double test_loss = 0.0;
  double test_accuracy = 0.0;
  double val_accuracy = 0.0;
  double train_time_s = 0.0;  // sum of epoch times, across resumes
  double images_per_s = 0.0;  // mean over epochs
  std::vector<EpochMetrics> history;
};

// Reports progress: called with a short line during an epoch (`final` false, for a terminal
// status line) and once per finished epoch (`final` true).
using ProgressFn = std::function<void(const std::string& line, bool final)>;

// Trains `graph` (one input of 1 or 3 channels at any resolution; the logits op must have 10
// outputs) on Fashion-MNIST. Images are resized (bilinear) to the graph's input resolution.
// Writes out_dir/checkpoint.pt, optimizer.pt, state.json after every epoch, metrics.jsonl (one
// JSON object per epoch) and result.json at the end.
TrainResult Train(const Graph& graph, const TrainOptions& options, const ProgressFn& progress);

// "1h02m", "3m05s", "12s".
std::string FormatDuration(double seconds);

}  // namespace dcnas::models::libtorch
