#include "models/torch/train.h"

#include <catch2/catch.hpp>

#include <filesystem>

#include <nlohmann/json.hpp>

#include "common/file_io.h"
#include "common/statistics.h"
#include "models/block_string.h"
#include "models/torch/measure.h"
#include "tests/torch/train_fixtures.h"

namespace dcnas::models::libtorch {
namespace {

namespace fs = std::filesystem;
using testing::HaveDataset;
using testing::TinyNetwork;

TrainOptions TinyOptions(const std::string& dir) { return testing::TinyOptions(dir, 2048); }

struct TempDir : testing::TempDir {
  explicit TempDir(const std::string& name) : testing::TempDir("dcnas_train_test", name) {}
};

TEST_CASE("the Fashion-MNIST reader reads Debian's gzipped IDX files") {
  if (!HaveDataset()) {
    WARN("dataset-fashion-mnist is not installed; skipping");
    return;
  }
  const ImageSet test = ReadFashionMnist(kFashionMnistDir, "t10k");
  CHECK(test.count == 10000);
  CHECK(test.rows == 28);
  CHECK(test.cols == 28);
  CHECK(test.pixels.size() == 10000u * 28 * 28);
  const std::vector<uint8_t> first(test.labels.begin(), test.labels.begin() + 10);
  CHECK(first == std::vector<uint8_t>{9, 2, 1, 1, 6, 1, 4, 6, 5, 7});
}

TEST_CASE("a missing dataset names the file and the package to install") {
  CHECK_THROWS_WITH(ReadFashionMnist("/nonexistent", "train"),
                    Catch::Contains("/nonexistent/train-images-idx3-ubyte.gz") &&
                        Catch::Contains("apt-get install dataset-fashion-mnist"));
}

TEST_CASE("options are checked") {
  CHECK_THROWS_WITH(ParseOptimizer("adam"), Catch::Contains("sgd, rmsprop, adamw"));
  TrainOptions o = TinyOptions("");
  CHECK_THROWS_WITH(Train(TinyNetwork(), o, nullptr), Catch::Contains("--out"));
  o.out_dir = "/tmp/unused";
  o.dataset = "mnist";
  CHECK_THROWS_WITH(Train(TinyNetwork(), o, nullptr), Catch::Contains("fashion-mnist"));
  o.dataset = "fashion-mnist";
  o.crop_pad = 300;
  CHECK_THROWS_WITH(Train(TinyNetwork(), o, nullptr), Catch::Contains("crop padding"));
  o.crop_pad = -1;
  o.device = "gpu";
  CHECK_THROWS_WITH(Train(TinyNetwork(), o, nullptr), Catch::Contains("--device 'gpu'"));
  if (CudaDeviceCount() == 0) {
    o.device = "cuda:0";
    CHECK_THROWS_WITH(Train(TinyNetwork(), o, nullptr),
                      Catch::Contains("this LibTorch has no CUDA device"));
  }
  o.device = "cpu";
  o.validation_images = -1;
  CHECK_THROWS_WITH(Train(TinyNetwork(), o, nullptr), Catch::Contains("validation images"));
  CHECK_FALSE(std::filesystem::exists("/tmp/unused"));
}

TEST_CASE("random shifts change the training images, deterministically") {
  if (!HaveDataset()) {
    WARN("dataset-fashion-mnist is not installed; skipping");
    return;
  }
  const Graph g = TinyNetwork();
  TempDir plain("plain"), shifted("shifted"), again("again");
  auto one_epoch = [&](const TempDir& dir, int crop_pad) {
    TrainOptions o = TinyOptions(dir.path.string());
    o.epochs = 1;
    o.crop_pad = crop_pad;
    return Train(g, o, nullptr);
  };
  const TrainResult r0 = one_epoch(plain, 0);
  const TrainResult r2 = one_epoch(shifted, 2);
  const TrainResult r2b = one_epoch(again, 2);
  CHECK(r2.history.at(0).train_loss != r0.history.at(0).train_loss);
  CHECK(r2.history.at(0).train_loss == r2b.history.at(0).train_loss);
  CHECK(r2.test_accuracy == r2b.test_accuracy);
  CHECK(r2.test_accuracy > 0.3);  // shifted images still train the network
  const auto state = nlohmann::json::parse(ReadFile((shifted.path / "state.json").string()));
  CHECK(state.at("config").at("crop_pad").get<int>() == 2);
  const auto plain_state = nlohmann::json::parse(ReadFile((plain.path / "state.json").string()));
  CHECK_FALSE(plain_state.at("config").contains("crop_pad"));
}

TEST_CASE("training writes metrics, checkpoints and the result, deterministically") {
  if (!HaveDataset()) {
    WARN("dataset-fashion-mnist is not installed; skipping");
    return;
  }
  const Graph g = TinyNetwork();
  TempDir a("a"), b("b");
  int final_lines = 0;
  const TrainResult ra = Train(g, TinyOptions(a.path.string()),
                               [&](const std::string&, bool f) { final_lines += f ? 1 : 0; });
  CHECK(ra.finished);
  CHECK(final_lines == 2);
  REQUIRE(ra.history.size() == 2);
  CHECK(ra.history[1].train_loss < ra.history[0].train_loss);
  CHECK(ra.test_accuracy > 0.4);  // far above chance (0.1) after 4,096 images
  CHECK(fs::exists(a.path / "epoch-0002" / "checkpoint.pt"));
  CHECK_FALSE(fs::exists(a.path / "epoch-0001"));  // superseded checkpoints are removed
  const auto result = nlohmann::json::parse(ReadFile((a.path / "result.json").string()));
  CHECK(result.at("test_accuracy").get<double>() == ra.test_accuracy);
  CHECK(result.at("test_images").get<int>() == 256);
  const std::string metrics = ReadFile((a.path / "metrics.jsonl").string());
  CHECK(std::count(metrics.begin(), metrics.end(), '\n') == 2);

  SECTION("an existing run is not overwritten without --resume") {
    CHECK_THROWS_WITH(Train(g, TinyOptions(a.path.string()), nullptr), Catch::Contains("--resume"));
  }
  SECTION("a run stopped after epoch 1 and resumed equals the uninterrupted run") {
    TrainOptions o = TinyOptions(b.path.string());
    o.stop_after_epoch = 1;
    const TrainResult part = Train(g, o, nullptr);
    CHECK_FALSE(part.finished);
    CHECK(part.history.size() == 1);
    CHECK_FALSE(fs::exists(b.path / "result.json"));
    // A kill inside the next epoch's save leaves a partial epoch-0002.tmp (and, had it come
    // between the rename and state.json, a whole epoch-0002 that state.json does not name yet):
    // the resume continues from epoch 1 and removes both.
    fs::create_directories(b.path / "epoch-0002.tmp");
    WriteFileAtomic((b.path / "epoch-0002.tmp" / "checkpoint.pt").string(), "torn");
    fs::create_directories(b.path / "epoch-0002");
    WriteFileAtomic((b.path / "epoch-0002" / "checkpoint.pt").string(), "not named yet");
    o.stop_after_epoch = 0;
    o.resume = true;
    const TrainResult rb = Train(g, o, nullptr);
    CHECK_FALSE(fs::exists(b.path / "epoch-0002.tmp"));
    CHECK(fs::exists(b.path / "epoch-0002" / "optimizer.pt"));  // rewritten by the resumed run
    REQUIRE(rb.history.size() == 2);
    for (size_t i = 0; i < 2; ++i) {
      CHECK(rb.history[i].train_loss == ra.history[i].train_loss);
      CHECK(rb.history[i].val_accuracy == ra.history[i].val_accuracy);
    }
    CHECK(rb.test_accuracy == ra.test_accuracy);
    CHECK(rb.test_loss == ra.test_loss);
  }
  SECTION("resuming with other settings is refused") {
    TrainOptions o = TinyOptions(a.path.string());
    o.resume = true;
    o.batch = 32;
    CHECK_THROWS_WITH(Train(g, o, nullptr), Catch::Contains("other settings"));
  }
}

TEST_CASE("measurement summarises timed runs by median and spread") {
  CHECK(Median({3.0, 1.0, 2.0}) == 2.0);
  CHECK(Median({4.0, 1.0, 2.0, 3.0}) == 2.5);
  CHECK(Spread({3.0, 1.0, 2.5}) == 2.0);
  CHECK_FALSE(CpuModelName().empty());
  MeasureOptions o;
  o.repeats = 3;
  o.warmup = 1;
  for (MeasureMode mode : {MeasureMode::kInference, MeasureMode::kTrain}) {
    o.mode = mode;
    const Measurement m = MeasureGraph(TinyNetwork(), o);
    CHECK(m.samples_ms.size() == 3);
    CHECK(m.median_ms > 0);
    CHECK(m.spread_ms >= 0);
    CHECK(m.batch == 1);
    CHECK(m.resolution_px == 16);
    CHECK(m.throughput_img_per_s == Approx(1000.0 / m.median_ms));
  }
  o.repeats = 0;
  CHECK_THROWS_WITH(MeasureGraph(TinyNetwork(), o), Catch::Contains("repeats"));
}

}  // namespace
}  // namespace dcnas::models::libtorch
