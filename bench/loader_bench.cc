// The training data path's speed per format and resolution: loading (an image folder decoded,
// then read back from its tensor file), preparing (normalised and resized once per run), the
// loader alone (a training epoch's batches with flips and the dataset's shifts, as TrainStep
// draws them) and proxy training steps with that loader (2,048 images) (EfficientNet-B0 at width
// 0.25, one stride-2 stage removed, one LibTorch thread, as the proxy recipes train). Writes a
// table to stdout and, with --csv FILE, the same rows as CSV.
//
// CIFAR-10 and the image folder are written by the benchmark (synthetic images in the real
// formats: 10,000 CIFAR records; 2,000 JPEG and PNG files of 400 x 300 px); Fashion-MNIST is
// Debian's package when installed.
#include <torch/torch.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "common/process_stats.h"
#include "models/torch/augment.h"
#include "models/torch/dataset.h"
#include "models/torch/input_cache.h"
#include "models/torch/measure.h"
#include "models/torch/train.h"
#include "models/zoo/zoo.h"
#include "tests/torch/dataset_fixtures.h"

namespace lt = dcnas::models::libtorch;
namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

namespace {

double Since(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}

struct Row {
  std::string format;
  int resolution = 0;
  int64_t images = 0;
  double load_cold_img_s = 0;  // first load (image folder: decoding)
  double load_warm_img_s = 0;  // second load (image folder: the tensor file)
  double prepare_img_s = 0;    // normalise and resize the run's images once
  double loader_img_s = 0;     // batches as the training loop draws them
  double train_img_s = 0;      // training steps with that loader
};

// The folder: 2,000 images of 400 x 300 (every third a PNG) in 10 classes, 1,600 train, 400 val.
void WriteFolder(const std::string& dir) {
  namespace t = lt::testing;
  int n = 0;
  for (const auto& [split, per_class] : {std::pair<std::string, int>{"train", 160}, {"val", 40}}) {
    for (int k = 0; k < 10; ++k) {
      const std::string class_dir = dir + "/" + split + "/c" + std::to_string(k);
      fs::create_directories(class_dir);
      for (int i = 0; i < per_class; ++i, ++n) {
        const std::vector<uint8_t> rgb = t::ClassImage(k, 400, 300, static_cast<uint32_t>(n));
        if (n % 3 == 2) {
          t::WritePng(class_dir + "/" + std::to_string(i) + ".png", rgb, 400, 300);
        } else {
          t::WriteJpeg(class_dir + "/" + std::to_string(i) + ".jpg", rgb, 400, 300);
        }
      }
    }
  }
}

dcnas::models::Graph ProxyNetwork(int resolution, const lt::TrainingData& data) {
  dcnas::models::BuildOptions b;
  b.resolution = resolution;
  b.batch = 128;
  b.in_channels = data.channels() == 1 ? 1 : 3;
  b.num_classes = data.classes();
  b.width_scale = 0.25;
  b.proxy_removed_downsamples = 1;
  return dcnas::models::BuiltinModels().Build("efficientnet-b0", b);
}

// An epoch of batches of 128 (at most `limit` images) drawn as TrainStep draws them.
double LoaderImagesPerSecond(const lt::TrainingData& data, int resolution, int64_t limit) {
  const int crop_pad = lt::DefaultCropPad(data);
  const int val = lt::DefaultValidationImages(data.train().count);
  const lt::RunImages images = data.cache().Get(data, resolution, val, limit, 256, crop_pad == 0);
  ::torch::Tensor raw;
  if (crop_pad > 0) raw = lt::GatherImages(data.train(), data.Select(val, limit, 256).train);
  const int64_t n = images.train.labels.size(0);
  std::vector<int64_t> perm(static_cast<size_t>(n));
  std::iota(perm.begin(), perm.end(), 0);
  std::shuffle(perm.begin(), perm.end(), std::mt19937_64(1));
  const ::torch::Tensor perm_t = ::torch::from_blob(perm.data(), {n}, ::torch::kLong);
  ::torch::NoGradGuard no_grad;
  const auto start = Clock::now();
  int64_t seen = 0;
  for (int64_t s = 0; (s + 1) * 128 <= n; ++s) {
    const ::torch::Tensor idx = perm_t.slice(0, s * 128, (s + 1) * 128);
    const ::torch::Tensor x = lt::PrepareBatch(images.train, raw, idx, resolution,
                                               images.train.plain.size(1), true, crop_pad);
    const ::torch::Tensor y = images.train.labels.index_select(0, idx);
    if (y.size(0) != x.size(0)) throw std::runtime_error("labels and images differ");
    seen += x.size(0);
  }
  return static_cast<double>(seen) / Since(start);
}

Row Measure(const std::string& format, const std::string& spec, int resolution,
            const std::string& cache_dir, int64_t train_images) {
  Row row;
  row.format = format;
  row.resolution = resolution;
  lt::DatasetLoadOptions load;
  load.image_size = 64;
  load.cache_dir = cache_dir;
  load.threads = 2;
  for (const auto& entry : fs::directory_iterator(cache_dir)) fs::remove(entry.path());
  auto t = Clock::now();
  lt::TrainingData::Load(spec, load);
  const double cold = Since(t);
  t = Clock::now();
  const lt::TrainingData data = lt::TrainingData::Load(spec, load);
  const double warm = Since(t);
  row.images =
      data.train().count + data.test().count + (data.separate_val() ? data.val_source().count : 0);
  row.load_cold_img_s = static_cast<double>(row.images) / cold;
  row.load_warm_img_s = static_cast<double>(row.images) / warm;

  const int val = lt::DefaultValidationImages(data.train().count);
  t = Clock::now();
  const lt::RunImages prepared =
      data.cache().Get(data, resolution, val, train_images, 256, lt::DefaultCropPad(data) == 0);
  row.prepare_img_s = static_cast<double>(prepared.train.labels.size(0)) / Since(t);
  row.loader_img_s = LoaderImagesPerSecond(data, resolution, train_images);

  lt::TrainOptions o;
  o.dataset = data.name();
  o.epochs = 1;
  o.batch = 128;
  o.limit_train = std::min<int64_t>(train_images, 2048);
  o.limit_eval = 256;
  o.threads = 1;
  o.warmup_epochs = 0;
  const lt::TrainResult r = lt::Train(ProxyNetwork(resolution, data), o, data, nullptr);
  row.train_img_s = r.images_per_s;
  return row;
}

}  // namespace

int main(int argc, char** argv) {
  std::string csv;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--csv" && i + 1 < argc) {
      csv = argv[++i];
    } else {
      std::cerr << "usage: loader_bench [--csv FILE]\n";
      return a == "--help" || a == "-h" ? 0 : 2;
    }
  }
  lt::SetThreads(1);
  // As the trainers run: LibTorch's buffers stay in the heap between steps.
  dcnas::ApplyMallocPolicy(dcnas::MallocPolicy::kKeep);
  const fs::path root =
      fs::temp_directory_path() / ("dcnas_loader_bench_" + std::to_string(::getpid()));
  fs::create_directories(root / "cache");
  lt::testing::WriteCifar((root / "cifar10").string(), false, 2000, 2000);
  WriteFolder((root / "folder").string());
  std::vector<std::pair<std::string, std::string>> formats;
  if (fs::exists(std::string(lt::kFashionMnistDir) + "/t10k-labels-idx1-ubyte.gz")) {
    formats.emplace_back("fashion-mnist", "fashion-mnist");
  }
  formats.emplace_back("cifar10", "cifar10:" + (root / "cifar10").string());
  formats.emplace_back("imagefolder", "imagefolder:" + (root / "folder").string());
  std::vector<Row> rows;
  for (const auto& [format, spec] : formats) {
    for (const int resolution : {32, 64}) {
      rows.push_back(Measure(format, spec, resolution, (root / "cache").string(), 8192));
      const Row& r = rows.back();
      std::fprintf(stderr, "%s %d px done\n", r.format.c_str(), r.resolution);
    }
  }
  fs::remove_all(root);

  std::printf("%-14s %4s %8s %12s %12s %12s %12s %12s %8s\n", "format", "px", "images",
              "load cold/s", "load warm/s", "prepare/s", "loader/s", "train/s", "ratio");
  std::ofstream out;
  if (!csv.empty()) {
    out.open(csv);
    out << "format,resolution,images,load_cold_img_s,load_warm_img_s,prepare_img_s,loader_img_s,"
           "train_img_s,loader_over_train\n";
  }
  for (const Row& r : rows) {
    const double ratio = r.loader_img_s / r.train_img_s;
    std::printf("%-14s %4d %8lld %12.0f %12.0f %12.0f %12.0f %12.0f %7.1fx\n", r.format.c_str(),
                r.resolution, static_cast<long long>(r.images), r.load_cold_img_s,
                r.load_warm_img_s, r.prepare_img_s, r.loader_img_s, r.train_img_s, ratio);
    if (out) {
      out << r.format << "," << r.resolution << "," << r.images << "," << r.load_cold_img_s << ","
          << r.load_warm_img_s << "," << r.prepare_img_s << "," << r.loader_img_s << ","
          << r.train_img_s << "," << ratio << "\n";
    }
  }
  return 0;
}
