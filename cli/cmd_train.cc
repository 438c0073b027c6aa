// dcnas train: trains a layer graph on Fashion-MNIST with LibTorch.
#include <unistd.h>

#include <filesystem>
#include <iostream>

#include "cli/cli.h"
#include "common/process_stats.h"
#include "common/table.h"
#include "models/block_string.h"
#include "models/counts.h"
#include "models/graph_json.h"
#include "models/torch/image_datasets.h"
#include "models/torch/train.h"

namespace dcnas::cli {
namespace {

namespace lt = models::libtorch;

// Proxy scaling defaults (--proxy): the Fashion-MNIST acceptance runs in models/torch/README.md
// use these settings.
constexpr int kProxyResolution = 32;
constexpr int kProxyRemovedDownsamples = 1;
constexpr double kProxyWidthScale = 0.25;

// What the command line says besides the trainer's own options.
struct TrainArgs {
  std::string model, graph_path, optimizer, out;
  std::vector<std::string> blocks;
  double width = 1.0, depth = 1.0, width_scale = 0.0;
  std::string malloc_policy = "keep";
  int resolution = 0, removed = -1;
  bool proxy = false, no_augment = false;
  lt::TrainOptions t;
};

void AddTrainOptions(po::options_description& options, TrainArgs& a) {
  lt::TrainOptions& t = a.t;
  options.add_options()("model", po::value(&a.model), "zoo model name (`dcnas models list`)")(
      "graph", po::value(&a.graph_path), "train the layer graph in this JSON file instead")(
      "blocks", po::value(&a.blocks)->multitoken(),
      "train an EfficientNet-style network from block strings instead")(
      "width", po::value(&a.width)->default_value(1.0), "width coefficient for --blocks")(
      "depth", po::value(&a.depth)->default_value(1.0), "depth coefficient for --blocks")(
      "dataset", po::value(&t.dataset)->default_value("fashion-mnist"),
      "fashion-mnist[:DIR] (Debian's package), cifar10:DIR and cifar100:DIR (the binary "
      "releases), imagefolder:DIR (DIR/train/<class>/*.jpg|png with DIR/val/..., DIR/test/ or "
      "both; without val/ the validation images are carved from train/ by class)")(
      "data-dir", po::value(&t.data_dir)->default_value(lt::kFashionMnistDir),
      "Fashion-MNIST's directory of gzipped IDX files (same as --dataset fashion-mnist:DIR)")(
      "image-size", po::value(&t.image_size)->default_value(0),
      "imagefolder: the size images are decoded and cached at (0: the input resolution)")(
      "cache-dir", po::value(&t.cache_dir),
      "imagefolder: where the decoded images' tensor file goes (default: beside RUN_DIR)")(
      "device", po::value(&t.device)->default_value("cpu"),
      "cpu, cuda or cuda:N (needs a LibTorch built with CUDA)")(
      "epochs", po::value(&t.epochs)->default_value(10), "training epochs")(
      "resolution", po::value(&a.resolution)->default_value(0),
      "input resolution in pixels (images are resized; default 32 with --proxy, else the "
      "dataset's: 28 Fashion-MNIST, 32 CIFAR, 64 image folders)")(
      "batch", po::value(&t.batch)->default_value(128), "training batch size")(
      "optimizer", po::value(&a.optimizer)->default_value("sgd"), "sgd, rmsprop or adamw")(
      "lr", po::value(&t.learning_rate)->default_value(0.0),
      "peak learning rate (0: sgd 0.1, rmsprop 0.008, adamw 0.002)")(
      "weight-decay", po::value(&t.weight_decay)->default_value(-1.0),
      "weight decay (< 0: sgd 5e-5, rmsprop 1e-5, adamw 0.05)")(
      "warmup-epochs", po::value(&t.warmup_epochs)->default_value(1.0),
      "linear learning-rate warm-up before the cosine decay")(
      "label-smoothing", po::value(&t.label_smoothing)->default_value(0.1), "label smoothing")(
      "no-augment", po::bool_switch(&a.no_augment), "no random horizontal flips")(
      "crop-pad", po::value(&t.crop_pad)->default_value(-1),
      "random shifts: pad the stored images by N pixels, crop back at a random offset (0: off; "
      "-1: the dataset's default, 1/8 of the image side for CIFAR and image folders, off for "
      "Fashion-MNIST)")("seed", po::value(&t.seed)->default_value(0),
                        "random seed (initialisation, order, flips)")(
      "threads", po::value(&t.threads)->default_value(1),
      "LibTorch threads (a run is deterministic with 1)")(
      "limit-train", po::value(&t.limit_train)->default_value(0),
      "train on at most N images (0: all; 55,000 for Fashion-MNIST)")(
      "validation-images", po::value(&t.validation_images)->default_value(0),
      "images held out of the training file for validation (0: 5,000, or a tenth of a file of "
      "fewer than 50,000; image folders use val/ where they have one, else carve these from "
      "train/ by class)")("limit-eval", po::value(&t.limit_eval)->default_value(0),
                          "validate and test on at most N images each (0: all)")(
      "proxy", po::bool_switch(&a.proxy),
      "proxy scaling for 28-32 px inputs: resolution 32, 1 removed stride-2 stage, width x0.25")(
      "removed-downsamples", po::value(&a.removed)->default_value(-1),
      "stride-2 stages run at stride 1 (default 1 with --proxy, else 0)")(
      "width-scale", po::value(&a.width_scale)->default_value(0.0),
      "multiplies channel widths (default 0.25 with --proxy, else 1)")(
      "out", po::value(&a.out), "run directory: checkpoint, metrics.jsonl, result.json")(
      "resume", po::bool_switch(&t.resume), "continue the run in --out from its last checkpoint")(
      "stop-after-epoch", po::value(&t.stop_after_epoch)->default_value(0),
      "stop once this epoch is done (train in parts with --resume)")(
      "malloc", po::value(&a.malloc_policy)->default_value("keep"),
      "keep (LibTorch's large buffers stay in the heap between steps) or system (glibc's "
      "defaults: returned to the kernel and faulted in again every step); the summary gives "
      "the minor page faults per step either way");
}

// The graph the command trains: --graph as it is, or a zoo model / --blocks network built with
// the dataset's input channels and classes and the proxy settings.
models::Graph BuildTrainGraph(const TrainArgs& a, models::BuildOptions& build) {
  const int sources =
      (a.model.empty() ? 0 : 1) + (a.graph_path.empty() ? 0 : 1) + (a.blocks.empty() ? 0 : 1);
  if (sources != 1) throw UsageError("give exactly one of: a model name, --graph, --blocks");
  const std::string source = a.t.dataset == "fashion-mnist" ? a.t.data_dir : a.t.dataset;
  const lt::DatasetShape shape = lt::PeekDataset(source);
  build.resolution =
      a.resolution > 0 ? a.resolution : (a.proxy ? kProxyResolution : shape.image_size);
  build.batch = a.t.batch;
  build.num_classes = shape.classes;
  build.in_channels = shape.channels;
  build.proxy_removed_downsamples =
      a.removed >= 0 ? a.removed : (a.proxy ? kProxyRemovedDownsamples : 0);
  build.width_scale = a.width_scale > 0 ? a.width_scale : (a.proxy ? kProxyWidthScale : 1.0);
  if (!a.graph_path.empty()) {
    if (a.resolution > 0 || a.proxy || a.removed >= 0 || a.width_scale > 0) {
      throw UsageError(
          "--graph trains the graph as it is: --resolution, --proxy, "
          "--removed-downsamples and --width-scale apply to zoo models and --blocks");
    }
    return models::ReadGraphFile(a.graph_path);
  }
  if (!a.blocks.empty()) {
    if (!(a.width > 0) || !(a.depth > 0)) throw UsageError("--width and --depth must be positive");
    models::BlockNetworkSpec spec;
    spec.blocks = models::ParseBlockStrings(a.blocks);
    spec.width = a.width;
    spec.depth = a.depth;
    return models::BuildBlockNetwork("blocks", spec, build);
  }
  return models::BuiltinModels().Build(a.model, build);
}

}  // namespace

int RunTrain(const Args& args) {
  po::options_description options("options");
  TrainArgs a;
  AddTrainOptions(options, a);
  po::positional_options_description positional;
  positional.add("model", 1);
  po::variables_map vm;
  if (!Parse(
          args,
          "dcnas train MODEL|--graph g.json|--blocks S... [--dataset NAME[:DIR]] "
          "[--epochs E] [--resolution R] [--batch B] [--optimizer sgd|rmsprop|adamw] [--lr L] "
          "[--seed S] [--proxy] [--device cpu|cuda[:N]] --out RUN_DIR [--resume]",
          "Trains a model with LibTorch on Fashion-MNIST (default), CIFAR-10/100 or a folder of\n"
          "JPEG/PNG images: 5,000 training images held out for validation (an image folder's\n"
          "val/ instead, if it has one), cosine learning rate with warm-up, label smoothing, "
          "weight decay,\n"
          "random flips (and shifts for CIFAR and image folders), inputs normalised with the\n"
          "training split's per-channel statistics. An image folder is decoded once and kept as\n"
          "a tensor file beside RUN_DIR (--cache-dir), reused until the folder changes.\n"
          "Prints a line per epoch (loss, accuracy, images/s, ETA), writes RUN_DIR/metrics.jsonl,\n"
          "a checkpoint per epoch (--resume continues it) and RUN_DIR/result.json with the\n"
          "test accuracy. Zoo models and --blocks networks are built with the dataset's input\n"
          "channels and classes; --proxy shrinks them for 28-32 px inputs.",
          options, positional, vm)) {
    return 0;
  }
  lt::TrainOptions& t = a.t;
  if (a.out.empty()) throw UsageError("dcnas train needs --out RUN_DIR");
  t.out_dir = a.out;
  t.optimizer = lt::ParseOptimizer(a.optimizer);
  t.augment = !a.no_augment;
  if (t.crop_pad < -1 || t.crop_pad > 64) {
    throw UsageError("--crop-pad wants 0..64 pixels (-1: the dataset's default)");
  }
  ApplyMallocPolicy(ParseMallocPolicy(a.malloc_policy));
  models::BuildOptions build;
  const models::Graph graph = BuildTrainGraph(a, build);

  // The run directory records the exact graph it trains.
  std::filesystem::create_directories(a.out);
  models::WriteGraphFile(graph, a.out + "/graph.json");
  std::cerr << "training " << graph.info().model << ": " << models::CountGraph(graph).params
            << " parameters, " << build.resolution << " px, " << t.dataset << ", batch " << t.batch
            << ", " << t.epochs << " epochs, " << a.optimizer << ", " << t.threads
            << " thread(s)\n";
  const lt::TrainResult r = lt::Train(graph, t, StatusLine(/*print_updates_when_piped=*/false));
  if (!r.finished) {
    std::cout << r.model << ": stopped after epoch " << r.epochs << " of " << t.epochs
              << "; continue with --resume --out " << a.out << "\n";
    return 0;
  }
  std::cout << r.model << ": test accuracy " << 100.0 * r.test_accuracy << "% after " << r.epochs
            << " epochs (" << lt::FormatDuration(r.train_time_s) << " of training, "
            << static_cast<int64_t>(r.images_per_s) << " img/s); " << a.out << "/result.json\n";
  std::cerr << "malloc " << a.malloc_policy << ": " << static_cast<int64_t>(r.minor_faults_per_step)
            << " minor page faults per step, kernel " << FormatFixed(100.0 * r.kernel_cpu_share, 1)
            << "% of CPU time (" << r.steps_run << " steps)\n";
  return 0;
}

}  // namespace dcnas::cli
