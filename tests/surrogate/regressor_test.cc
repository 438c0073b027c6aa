#include "surrogate/regressor.h"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>

#include "common/errors.h"
#include "surrogate/metrics.h"
#include "surrogate/xgboost.h"
#include "tests/surrogate/synthetic.h"

namespace sur = dcnas::surrogate;
using sur::testing::MakeSynthetic;

namespace {

std::filesystem::path TempDir() {
  auto dir = std::filesystem::temp_directory_path() /
             ("dcnas_surrogate_test_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  return dir;
}

bool BitIdentical(const std::vector<float>& a, const std::vector<float>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0;
}

sur::RegressorParams FastParams() {
  sur::RegressorParams p;
  p.max_rounds = 400;
  p.early_stopping_rounds = 30;
  p.learning_rate = 0.1;
  return p;
}

}  // namespace

TEST_CASE("Regressor learns a synthetic function (held-out R^2 > 0.8)", "[surrogate]") {
  const auto train = MakeSynthetic(1000, 20, 0.1, 1);
  const auto valid = MakeSynthetic(200, 20, 0.1, 2);
  const auto test = MakeSynthetic(500, 20, 0.1, 3);
  const auto reg = sur::Regressor::Train(train.view(), valid.view(), FastParams());
  const auto pred = reg.Predict(test.x.view());
  const double r2 = sur::RSquared(test.y, pred);
  INFO("test R^2 = " << r2);
  CHECK(r2 > 0.8);
  CHECK(reg.num_features() == 20);
  CHECK(reg.num_rounds() == reg.history().best_iteration + 1);
}

TEST_CASE("Early stopping stops after `patience` rounds without improvement", "[surrogate]") {
  // Labels unrelated to the features: validation RMSE stops improving within a few rounds.
  auto train = MakeSynthetic(400, 10, 0.0, 4);
  auto valid = MakeSynthetic(100, 10, 0.0, 5);
  std::mt19937_64 rng(6);
  std::normal_distribution<float> n(0.0f, 1.0f);
  for (auto& v : train.y) v = n(rng);
  for (auto& v : valid.y) v = n(rng);
  auto params = FastParams();
  params.max_rounds = 1000;
  params.early_stopping_rounds = 20;
  const auto reg = sur::Regressor::Train(train.view(), valid.view(), params);
  const auto& h = reg.history();
  CHECK(h.stopped_early);
  CHECK(h.rounds_trained == h.best_iteration + 1 + params.early_stopping_rounds);
  CHECK(h.rounds_trained < params.max_rounds);
  REQUIRE(h.valid_rmse.size() == static_cast<std::size_t>(h.rounds_trained));
  for (double r : h.valid_rmse) CHECK(r >= h.best_valid_rmse);
  CHECK(h.valid_rmse[h.best_iteration] == h.best_valid_rmse);
  // The kept model holds exactly the rounds up to the best one.
  CHECK(reg.num_rounds() == h.best_iteration + 1);
}

TEST_CASE("Without early stopping every round is kept", "[surrogate]") {
  const auto train = MakeSynthetic(200, 5, 0.1, 7);
  auto params = FastParams();
  params.max_rounds = 25;
  params.early_stopping_rounds = 0;
  const auto reg = sur::Regressor::Train(train.view(), {}, params);
  CHECK(reg.num_rounds() == 25);
  CHECK_FALSE(reg.history().stopped_early);
}

TEST_CASE("Predicting with iteration_end equals predicting with a sliced booster", "[surrogate]") {
  const auto train = MakeSynthetic(300, 8, 0.1, 8);
  const auto test = MakeSynthetic(50, 8, 0.1, 9);
  sur::DMatrix d(train.x.view(), train.y);
  const sur::DMatrix* cache[] = {&d};
  sur::Booster b(cache);
  b.SetParam("verbosity", "0");
  b.SetParam("tree_method", "hist");
  b.SetParam("nthread", "1");
  for (int i = 0; i < 20; ++i) b.UpdateOneIter(i, d);
  CHECK(b.BoostedRounds() == 20);
  std::vector<float> partial(test.x.rows), sliced(test.x.rows), full(test.x.rows);
  b.Predict(test.x.view(), partial, 7);
  b.Predict(test.x.view(), full);
  b.Slice(0, 7).Predict(test.x.view(), sliced);
  CHECK(BitIdentical(partial, sliced));
  CHECK_FALSE(BitIdentical(partial, full));
}

TEST_CASE("Model files (.json, .ubj) and buffers give bit-identical predictions", "[surrogate]") {
  const auto train = MakeSynthetic(500, 12, 0.1, 10);
  const auto valid = MakeSynthetic(100, 12, 0.1, 11);
  const auto test = MakeSynthetic(300, 12, 0.1, 12);
  const auto reg = sur::Regressor::Train(train.view(), valid.view(), FastParams());
  const auto expected = reg.Predict(test.x.view());
  const auto dir = TempDir();
  for (const char* name : {"model.json", "model.ubj"}) {
    SECTION(name) {
      const std::string path = (dir / name).string();
      reg.Save(path);
      const auto loaded = sur::Regressor::Load(path);
      CHECK(BitIdentical(loaded.Predict(test.x.view()), expected));
      CHECK(loaded.history().best_iteration == reg.history().best_iteration);
      CHECK(loaded.num_rounds() == reg.num_rounds());
    }
  }
  SECTION("buffers") {
    for (auto format : {sur::ModelFormat::kJson, sur::ModelFormat::kUbj}) {
      const auto loaded = sur::Regressor::FromBuffer(reg.SaveToBuffer(format));
      CHECK(BitIdentical(loaded.Predict(test.x.view()), expected));
    }
  }
  std::filesystem::remove_all(dir);
}

TEST_CASE("Model files with other extensions are refused", "[surrogate]") {
  const auto train = MakeSynthetic(100, 4, 0.1, 13);
  auto params = FastParams();
  params.early_stopping_rounds = 0;
  params.max_rounds = 5;
  const auto reg = sur::Regressor::Train(train.view(), {}, params);
  const auto dir = TempDir();
  for (const char* name : {"model.bin", "model.model", "model", "model.JSON"}) {
    const std::string path = (dir / name).string();
    CHECK_THROWS_AS(reg.Save(path), dcnas::InputError);
    CHECK_THROWS_WITH(reg.Save(path), Catch::Contains(path) && Catch::Contains("extension"));
    CHECK_FALSE(std::filesystem::exists(path));
    CHECK_THROWS_AS(sur::Regressor::Load(path), dcnas::InputError);
  }
  std::filesystem::remove_all(dir);
}

TEST_CASE("XGBoost failures become exceptions carrying XGBoost's message", "[surrogate]") {
  CHECK_THROWS_AS(sur::Booster::FromBuffer("not a model"), sur::XgboostError);
  CHECK_THROWS_WITH(sur::Booster::FromBuffer("not a model"),
                    Catch::StartsWith("XGBoosterLoadModelFromBuffer: "));
  // XGBoost checks parameters lazily, when the first round configures the learner.
  const auto train = MakeSynthetic(50, 3, 0.1, 16);
  sur::DMatrix d(train.x.view(), train.y);
  const sur::DMatrix* cache[] = {&d};
  sur::Booster b(cache);
  b.SetParam("tree_method", "no-such-method");
  CHECK_THROWS_WITH(b.UpdateOneIter(0, d), Catch::StartsWith("XGBoosterUpdateOneIter: ") &&
                                               Catch::Contains("no-such-method") &&
                                               !Catch::Contains("Stack trace"));
  const auto dir = TempDir();
  const std::string path = (dir / "garbage.json").string();
  { std::ofstream(path) << "{\"learner\": 3}"; }
  CHECK_THROWS_WITH(sur::Regressor::Load(path), Catch::Contains(path));
  std::filesystem::remove_all(dir);
}

TEST_CASE("Training input errors are InputErrors", "[surrogate]") {
  const auto train = MakeSynthetic(100, 4, 0.1, 14);
  const auto valid = MakeSynthetic(20, 5, 0.1, 15);
  CHECK_THROWS_AS(sur::Regressor::Train(train.view(), valid.view(), FastParams()),
                  dcnas::InputError);
  CHECK_THROWS_AS(sur::Regressor::Train(train.view(), {}, FastParams()), dcnas::InputError);
  const std::vector<float> short_labels(10, 1.0f);
  CHECK_THROWS_AS(sur::Regressor::Train({train.x.view(), short_labels}, {}, sur::RegressorParams{}),
                  dcnas::InputError);
  const auto reg = [&] {
    auto p = FastParams();
    p.early_stopping_rounds = 0;
    p.max_rounds = 3;
    return sur::Regressor::Train(train.view(), {}, p);
  }();
  CHECK_THROWS_WITH(reg.Predict(valid.x.view()), Catch::Contains("expects 4 features"));
}

TEST_CASE("RegressorParams round-trip through JSON and refuse unknown keys", "[surrogate]") {
  sur::RegressorParams p;
  p.max_depth = 8;
  p.base_score = 71.5;
  p.seed = 42;
  const auto q = sur::RegressorParams::FromJson(p.ToJson(), "params");
  CHECK(q.ToJson() == p.ToJson());
  auto j = p.ToJson();
  j["max_dpeth"] = 3;
  CHECK_THROWS_WITH(sur::RegressorParams::FromJson(j, "params"),
                    Catch::Contains("params.max_dpeth"));
  j = p.ToJson();
  j["max_depth"] = "six";
  CHECK_THROWS_WITH(sur::RegressorParams::FromJson(j, "params"),
                    Catch::Contains("params.max_depth"));
}
