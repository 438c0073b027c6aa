#include <catch2/catch.hpp>

#include <filesystem>

#include <nlohmann/json.hpp>

#include "common/file_io.h"
#include "models/block_string.h"
#include "models/torch/train.h"
#include "tests/torch/train_fixtures.h"

namespace dcnas::models::libtorch {
namespace {

namespace fs = std::filesystem;
using testing::HaveDataset;
using testing::TinyNetwork;

TrainOptions TinyOptions(const std::string& dir) { return testing::TinyOptions(dir, 1024); }

struct TempDir : testing::TempDir {
  explicit TempDir(const std::string& name) : testing::TempDir("dcnas_train_data_test", name) {}
};

// Everything but the timings.
void CheckSameNumbers(const TrainResult& a, const TrainResult& b) {
  CHECK(a.finished == b.finished);
  CHECK(a.params == b.params);
  REQUIRE(a.history.size() == b.history.size());
  for (size_t i = 0; i < a.history.size(); ++i) {
    CHECK(a.history[i].epoch == b.history[i].epoch);
    CHECK(a.history[i].learning_rate == b.history[i].learning_rate);
    CHECK(a.history[i].train_loss == b.history[i].train_loss);
    CHECK(a.history[i].train_accuracy == b.history[i].train_accuracy);
    CHECK(a.history[i].val_loss == b.history[i].val_loss);
    CHECK(a.history[i].val_accuracy == b.history[i].val_accuracy);
  }
  CHECK(a.val_accuracy == b.val_accuracy);
  CHECK(a.test_loss == b.test_loss);
  CHECK(a.test_accuracy == b.test_accuracy);
}

TEST_CASE("in-memory runs on loaded data equal run-directory runs") {
  if (!HaveDataset()) {
    WARN("dataset-fashion-mnist is not installed; skipping");
    return;
  }
  const TrainingData data = TrainingData::Load();
  CHECK(data.train().count == 60000);
  CHECK(data.test().count == 10000);

  SECTION("flips at 16 px, one input channel") {
    const Graph g = TinyNetwork(16, 1);
    TempDir disk("disk"), preloaded("preloaded");
    const TrainResult from_files = Train(g, TinyOptions(disk.path.string()), nullptr);
    const TrainResult in_memory = Train(g, TinyOptions(""), data, nullptr);
    CHECK(in_memory.finished);
    CHECK(in_memory.test_accuracy > 0.3);
    CheckSameNumbers(from_files, in_memory);
    const int64_t cached = data.CachedBytes();
    CHECK(cached > 0);

    // A second run reuses the cached images and changes nothing.
    const TrainResult again = Train(g, TinyOptions(""), data, nullptr);
    CheckSameNumbers(in_memory, again);
    CHECK(data.CachedBytes() == cached);

    // Loaded data with a run directory writes the same files as reading the dataset.
    const TrainResult written = Train(g, TinyOptions(preloaded.path.string()), data, nullptr);
    CheckSameNumbers(from_files, written);
    const auto a = nlohmann::json::parse(ReadFile((disk.path / "result.json").string()));
    const auto b = nlohmann::json::parse(ReadFile((preloaded.path / "result.json").string()));
    CHECK(a.at("config") == b.at("config"));
    CHECK(a.at("test_accuracy") == b.at("test_accuracy"));
    CHECK(a.at("test_images") == b.at("test_images"));

    // Another seed: other numbers.
    TrainOptions other = TinyOptions("");
    other.seed = 8;
    CHECK(Train(g, other, data, nullptr).history.at(0).train_loss !=
          in_memory.history.at(0).train_loss);
  }
  SECTION("random shifts, no flips, 3 input channels at 24 px") {
    const Graph g = TinyNetwork(24, 3);
    TempDir disk("shifted");
    TrainOptions o = TinyOptions(disk.path.string());
    o.epochs = 1;
    o.crop_pad = 2;
    o.augment = false;
    const TrainResult from_files = Train(g, o, nullptr);
    o.out_dir.clear();
    CheckSameNumbers(from_files, Train(g, o, data, nullptr));
  }
  SECTION("an in-memory run can stop early and cannot resume") {
    const Graph g = TinyNetwork(16, 1);
    TrainOptions o = TinyOptions("");
    o.stop_after_epoch = 1;
    const TrainResult part = Train(g, o, data, nullptr);
    CHECK_FALSE(part.finished);
    CHECK(part.history.size() == 1);
    o.stop_after_epoch = 0;
    o.resume = true;
    CHECK_THROWS_WITH(Train(g, o, data, nullptr), Catch::Contains("--out"));
  }
}

TEST_CASE("loaded data is checked against the options") {
  TrainingData data(ImageSet{}, ImageSet{});
  TrainOptions o = TinyOptions("");
  o.dataset = "mnist";
  CHECK_THROWS_WITH(Train(TinyNetwork(16, 1), o, data, nullptr), Catch::Contains("fashion-mnist"));
  CHECK_THROWS_WITH(TrainingData::Load("/nonexistent"),
                    Catch::Contains("apt-get install dataset-fashion-mnist"));
}

}  // namespace
}  // namespace dcnas::models::libtorch
