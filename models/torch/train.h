// Training a layer graph on an image dataset with LibTorch (no LibTorch headers here).
//
// Data: a dataset spec (image_datasets.h): Debian's dataset-fashion-mnist by default, CIFAR-10/100
// binary files, or an image folder. 5,000 training images, chosen by a fixed shuffle, are held out
// for validation (an image folder's val/ instead); the test set is used once at the end. Recipe:
// cosine learning-rate schedule with linear warm-up (schedule.h), label smoothing, weight decay,
// random horizontal flips and random shifts (pad and crop; by default for CIFAR and image folders,
// not for Fashion-MNIST), inputs normalised with the training split's statistics (augment.h). With
// one thread and a given seed a run is deterministic, and a resumed run continues exactly where the
// checkpoint left it.
//
// One run per process: Train(graph, options, progress) reads the dataset and writes a run
// directory. Many runs in one process (accuracy data for a surrogate): load a TrainingData once
// and call Train(graph, options, data, progress) per run, with out_dir empty to keep the run in
// memory; runs at the same resolution share the resized images. Runs set LibTorch's global
// generator and thread count, so for reproducible numbers run them one after another.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "models/graph.h"
#include "models/torch/dataset.h"
#include "models/torch/fashion_mnist.h"
#include "models/torch/format.h"
#include "models/torch/measure.h"
#include "models/torch/schedule.h"

namespace dcnas::models::libtorch {

struct TrainOptions {
  // A dataset spec, "NAME[:PATH]" (ParseDatasetSpec); plain "fashion-mnist" reads data_dir.
  std::string dataset = "fashion-mnist";
  std::string data_dir = kFashionMnistDir;
  // Image folders: the stored image size (0: the graph's resolution) and the tensor file's
  // directory ("": beside the run, the parent of out_dir; else DatasetLoadOptions' default).
  int image_size = 0;
  std::string cache_dir;
  // "cpu", "cuda" or "cuda:N" (a LibTorch built with CUDA; InputError otherwise).
  std::string device = "cpu";
  int epochs = 10;
  int batch = 128;
  Optimizer optimizer = Optimizer::kSgd;
  double learning_rate = 0.0;  // 0: DefaultLearningRate
  double weight_decay = -1.0;  // < 0: DefaultWeightDecay
  double warmup_epochs = 1.0;
  double label_smoothing = 0.1;
  bool augment = true;  // random horizontal flips
  // > 0: random shifts of up to this many pixels of the stored images (pad and crop); 0: none;
  // < 0: the dataset's default (DefaultCropPad).
  int crop_pad = -1;
  // Held out of the training file for validation; 0: DefaultValidationImages (5,000 for
  // Fashion-MNIST and CIFAR). Ignored for image folders (their val/).
  int validation_images = 0;
  // > 0: train on the first limit_train images of the training split. The split's order is a
  // fixed shuffle independent of `seed` (SelectImages), so runs with different seeds train on
  // the same images, in a seed-dependent order with seed-dependent initialisation and flips.
  int64_t limit_train = 0;
  int64_t limit_eval = 0;  // > 0: validate and test on the first this many images of each
  uint64_t seed = 0;
  int threads = 1;
  // RUN_DIR: checkpoint, metrics.jsonl, result.json. Empty (only with a TrainingData): the run
  // writes nothing and lives in memory.
  std::string out_dir;
  bool resume = false;       // needs out_dir
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
  // The training steps of this invocation (not of earlier resumed parts): how many, the minor
  // page faults per step and the kernel's share of the process's CPU time during them
  // (common/process_stats.h).
  int64_t steps_run = 0;
  double minor_faults_per_step = 0.0;
  double kernel_cpu_share = 0.0;
};

// Reports progress: called with a short line during an epoch (`final` false, for a terminal
// status line) and once per finished epoch (`final` true).
using ProgressFn = std::function<void(const std::string& line, bool final)>;

// The shifts a dataset gets by default: an eighth of its image side for CIFAR and image folders
// (4 px at 32 px, the usual CIFAR recipe), none for Fashion-MNIST.
int DefaultCropPad(const TrainingData& data);

// Trains `graph` (one input of 1 or 3 channels at any resolution, 3 for a 3-channel dataset; the
// logits op must have the dataset's classes) on the dataset options.dataset names. Images are
// resized (bilinear) to the graph's input resolution. Needs out_dir: writes out_dir/epoch-NNNN/
// (checkpoint.pt, optimizer.pt) and state.json after every epoch, metrics.jsonl (one JSON object
// per epoch) and result.json at the end (RunDirectory in checkpoint.h). Throws InputError on bad
// options before reading any file.
TrainResult Train(const Graph& graph, const TrainOptions& options, const ProgressFn& progress);

// The same run on an already loaded dataset (options.data_dir is not read; options.dataset
// must name its kind, "cifar10" or "cifar10:DIR" for a CIFAR-10 load). With out_dir set it writes
// the run directory as above; with out_dir empty it writes no file and returns the same numbers as
// the run-directory run with the same options. Either way it equals Train(graph, options, progress)
// bit for bit (with one thread).
TrainResult Train(const Graph& graph, const TrainOptions& options, const TrainingData& data,
                  const ProgressFn& progress);

}  // namespace dcnas::models::libtorch
