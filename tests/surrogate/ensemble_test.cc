#include "surrogate/ensemble.h"

#include <unistd.h>
#include <catch2/catch.hpp>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <thread>

#include "common/errors.h"
#include "common/file_io.h"
#include "surrogate/metrics.h"
#include "surrogate/surrogate_file.h"
#include "tests/surrogate/synthetic.h"

namespace sur = dcnas::surrogate;
using sur::testing::MakeSynthetic;

namespace {

std::filesystem::path TempDir() {
  auto dir = std::filesystem::temp_directory_path() /
             ("dcnas_ensemble_test_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  return dir;
}

bool BitIdentical(const std::vector<float>& a, const std::vector<float>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0;
}

sur::EnsembleParams Params(sur::Resampling resampling) {
  sur::EnsembleParams p;
  p.members = 4;
  p.resampling = resampling;
  p.seed = 17;
  p.member.max_rounds = 300;
  p.member.early_stopping_rounds = 25;
  p.member.learning_rate = 0.1;
  return p;
}

struct Fixture {
  sur::testing::SyntheticData train = MakeSynthetic(800, 16, 0.15, 21);
  sur::testing::SyntheticData valid = MakeSynthetic(200, 16, 0.15, 22);
  sur::testing::SyntheticData test = MakeSynthetic(400, 16, 0.15, 23);
};

struct Prediction {
  std::vector<float> mean, stddev;
};

Prediction Predict(const sur::Ensemble& e, const sur::Matrix& x) {
  Prediction p{std::vector<float>(x.rows), std::vector<float>(x.rows)};
  e.Predict(x.view(), p.mean, p.stddev);
  return p;
}

}  // namespace

TEST_CASE("Bagged ensemble: mean learns, std > 0, calibration fields in [0, 1]", "[surrogate]") {
  Fixture f;
  for (auto resampling : {sur::Resampling::kBootstrap, sur::Resampling::kSubsample}) {
    const auto e = sur::Ensemble::Train(f.train.view(), f.valid.view(), Params(resampling));
    REQUIRE(e.size() == 4);
    const auto p = Predict(e, f.test.x);
    CHECK(sur::RSquared(f.test.y, p.mean) > 0.8);
    double mean_std = 0.0;
    for (float s : p.stddev) {
      CHECK(s >= 0.0f);
      mean_std += s;
    }
    CHECK(mean_std / static_cast<double>(p.stddev.size()) > 0.0);
    const auto report = sur::Evaluate(f.test.y, p.mean, p.stddev, 0.1);
    CHECK(report.calibration.within_1_std >= 0.0);
    CHECK(report.calibration.within_1_std <= 1.0);
    CHECK(report.calibration.within_2_std >= report.calibration.within_1_std);
    CHECK(report.calibration.within_2_std <= 1.0);
    CHECK(report.count == f.test.y.size());
    // Members differ (different seeds and rows) and each was early-stopped on the valid set.
    CHECK(e.members()[0].num_rounds() > 0);
    std::vector<float> members(e.size() * f.test.x.rows);
    e.PredictMembers(f.test.x.view(), members);
    CHECK(std::memcmp(members.data(), members.data() + f.test.x.rows,
                      f.test.x.rows * sizeof(float)) != 0);
  }
}

TEST_CASE("Ensemble training is deterministic for a seed", "[surrogate]") {
  Fixture f;
  auto params = Params(sur::Resampling::kBootstrap);
  params.members = 2;
  const auto a = Predict(sur::Ensemble::Train(f.train.view(), f.valid.view(), params), f.test.x);
  const auto b = Predict(sur::Ensemble::Train(f.train.view(), f.valid.view(), params), f.test.x);
  CHECK(BitIdentical(a.mean, b.mean));
  CHECK(BitIdentical(a.stddev, b.stddev));
  params.seed += 1;
  const auto c = Predict(sur::Ensemble::Train(f.train.view(), f.valid.view(), params), f.test.x);
  CHECK_FALSE(BitIdentical(a.mean, c.mean));
}

TEST_CASE("Without a validation split each member early-stops on its out-of-bag rows",
          "[surrogate]") {
  Fixture f;
  const sur::LabeledView none{{nullptr, 0, f.train.x.cols}, {}};
  for (const auto resampling : {sur::Resampling::kBootstrap, sur::Resampling::kSubsample}) {
    auto params = Params(resampling);
    params.members = 2;
    params.member.max_rounds = 2000;
    const sur::Ensemble e = sur::Ensemble::Train(f.train.view(), none, params);
    for (const auto& m : e.members()) {
      CHECK(m.history().stopped_early);
      CHECK(m.history().rounds_trained < 2000);
      CHECK_FALSE(m.history().valid_rmse.empty());
    }
    const auto a = Predict(e, f.test.x);
    CHECK(BitIdentical(a.mean,
                       Predict(sur::Ensemble::Train(f.train.view(), none, params), f.test.x).mean));
    CHECK(sur::KendallTau(f.test.y, a.mean) > 0.7);
  }
}

TEST_CASE("One ensemble predicting from several threads gives the serial answer", "[surrogate]") {
  Fixture f;
  auto params = Params(sur::Resampling::kSubsample);
  params.members = 2;
  const auto e = sur::Ensemble::Train(f.train.view(), f.valid.view(), params);
  const auto serial = Predict(e, f.test.x);
  std::vector<Prediction> results(4);
  std::vector<std::thread> threads;
  for (auto& r : results) {
    threads.emplace_back([&] {
      for (int i = 0; i < 20; ++i) r = Predict(e, f.test.x);
    });
  }
  for (auto& t : threads) t.join();
  for (const auto& r : results) CHECK(BitIdentical(r.mean, serial.mean));
}

TEST_CASE("Surrogate container round-trips with bit-identical predictions", "[surrogate]") {
  Fixture f;
  auto params = Params(sur::Resampling::kBootstrap);
  params.members = 3;
  const auto e = sur::Ensemble::Train(f.train.view(), f.valid.view(), params);
  const auto expected = Predict(e, f.test.x);
  const nlohmann::json metadata = {{"space_fingerprint", "sha256:abc"},
                                   {"feature_names", {"a", "b"}},
                                   {"params", params.ToJson()},
                                   {"quality_floor", {{"sparse_kendall_tau", 0.5}}}};
  const auto dir = TempDir();
  for (const char* name : {"surrogate.json", "surrogate.ubj"}) {
    SECTION(name) {
      const std::string path = (dir / name).string();
      sur::SaveSurrogate(path, e, metadata);
      const auto loaded = sur::LoadSurrogate(path);
      CHECK(loaded.metadata == metadata);
      REQUIRE(loaded.ensemble.size() == 3);
      for (std::size_t k = 0; k < 3; ++k) {
        CHECK(loaded.ensemble.members()[k].history().best_iteration ==
              e.members()[k].history().best_iteration);
        CHECK(loaded.ensemble.members()[k].history().rounds_trained ==
              e.members()[k].history().rounds_trained);
      }
      const auto got = Predict(loaded.ensemble, f.test.x);
      CHECK(BitIdentical(got.mean, expected.mean));
      CHECK(BitIdentical(got.stddev, expected.stddev));
      // No temporary files are left behind by the atomic write.
      int files = 0;
      for ([[maybe_unused]] const auto& entry : std::filesystem::directory_iterator(dir)) ++files;
      CHECK(files == 1);
      std::filesystem::remove(path);
    }
  }
  SECTION("other extensions are refused") {
    CHECK_THROWS_AS(sur::SaveSurrogate((dir / "s.bin").string(), e, metadata), dcnas::InputError);
    CHECK_THROWS_AS(sur::LoadSurrogate((dir / "s.yaml").string()), dcnas::InputError);
    CHECK_THROWS_AS(sur::SaveSurrogate((dir / "s.json").string(), e, nlohmann::json::array()),
                    dcnas::InputError);
  }
  std::filesystem::remove_all(dir);
}

TEST_CASE("Corrupt surrogate containers are refused naming the file and key", "[surrogate]") {
  Fixture f;
  auto params = Params(sur::Resampling::kBootstrap);
  params.members = 2;
  params.member.max_rounds = 20;
  const auto e = sur::Ensemble::Train(f.train.view(), f.valid.view(), params);
  const nlohmann::json good = sur::SurrogateToJson(e, {{"k", 1}});
  const auto dir = TempDir();
  const std::string path = (dir / "bad.json").string();
  auto check = [&](nlohmann::json doc, const std::string& key) {
    dcnas::WriteFileAtomic(path, doc.dump());
    CHECK_THROWS_AS(sur::LoadSurrogate(path), dcnas::InputError);
    CHECK_THROWS_WITH(sur::LoadSurrogate(path), Catch::Contains(path) && Catch::Contains(key));
  };
  {
    auto d = good;
    d["format"] = "xgboost";
    check(d, "format");
  }
  {
    auto d = good;
    d["version"] = 2;
    check(d, "version");
  }
  {
    auto d = good;
    d["member_count"] = 3;
    check(d, "member_count");
  }
  {
    auto d = good;
    d.erase("members");
    check(d, "members");
  }
  {
    auto d = good;
    d["extra"] = true;
    check(d, "extra: unknown key");
  }
  {
    auto d = good;
    d["metadata"] = 5;
    check(d, "metadata");
  }
  {
    auto d = good;
    d["members"][1]["model_base64"] = "!!!!";
    check(d, "members[1].model_base64");
  }
  {
    auto d = good;
    d["members"][0]["model_base64"] = sur::EncodeBase64("{\"not\": \"a model\"}");
    check(d, "members[0].model_sha256");    // the checksum no longer matches
    d["members"][0].erase("model_sha256");  // a file written before checksums
    check(d, "members[0].model_base64");
  }
  {
    auto d = good;
    d["members"][0]["model_format"] = "deprecated";
    check(d, "members[0].model_format");
  }
  {
    auto d = good;
    d["num_features"] = 3;
    check(d, "num_features");
  }
  {
    auto d = good;
    d["members"][0]["best_iteration"] = "x";
    check(d, "members[0].best_iteration");
  }
  SECTION("not JSON at all") {
    dcnas::WriteFileAtomic(path, "{\"format\": ");
    CHECK_THROWS_WITH(sur::LoadSurrogate(path), Catch::Contains(path));
    const std::string ubj = (dir / "bad.ubj").string();
    dcnas::WriteFileAtomic(ubj, "garbage");
    CHECK_THROWS_WITH(sur::LoadSurrogate(ubj), Catch::Contains(ubj) && Catch::Contains("UBJSON"));
  }
  std::filesystem::remove_all(dir);
}

TEST_CASE("Base64 round-trips every length and refuses garbage", "[surrogate]") {
  std::string bytes;
  for (int i = 0; i < 300; ++i) {
    CHECK(sur::DecodeBase64(sur::EncodeBase64(bytes)) == bytes);
    bytes += static_cast<char>(i * 37);
  }
  CHECK(sur::EncodeBase64("foobar") == "Zm9vYmFy");
  CHECK(sur::EncodeBase64("fo") == "Zm8=");
  CHECK_THROWS_AS(sur::DecodeBase64("Zm9"), dcnas::InputError);
  CHECK_THROWS_AS(sur::DecodeBase64("Zm=v"), dcnas::InputError);
  CHECK_THROWS_AS(sur::DecodeBase64("Z*9v"), dcnas::InputError);
}

TEST_CASE("EnsembleParams round-trip through JSON and refuse unknown keys", "[surrogate]") {
  auto p = Params(sur::Resampling::kSubsample);
  p.row_fraction = 0.6;
  const auto q = sur::EnsembleParams::FromJson(p.ToJson(), "ensemble");
  CHECK(q.ToJson() == p.ToJson());
  auto j = p.ToJson();
  j["resampling"] = "jackknife";
  CHECK_THROWS_WITH(sur::EnsembleParams::FromJson(j, "ensemble"),
                    Catch::Contains("ensemble.resampling"));
  j = p.ToJson();
  j["member"]["eta"] = 0.3;
  CHECK_THROWS_WITH(sur::EnsembleParams::FromJson(j, "ensemble"),
                    Catch::Contains("ensemble.member.eta"));
}
