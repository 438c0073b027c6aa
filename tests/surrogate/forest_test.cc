#include "surrogate/forest.h"

#include <catch2/catch.hpp>

#include <cmath>
#include <cstring>
#include <random>
#include <thread>

#include "common/errors.h"
#include "surrogate/regressor.h"
#include "tests/surrogate/synthetic.h"

namespace sur = dcnas::surrogate;
using sur::testing::MakeSynthetic;

namespace {

bool BitIdentical(const std::vector<float>& a, const std::vector<float>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0;
}

std::vector<float> BoosterPredict(const sur::Regressor& r, const sur::Matrix& x) {
  std::vector<float> out(x.rows);
  r.booster().Predict(x.view(), out);
  return out;
}

}  // namespace

TEST_CASE("Forest predictions are bit-identical to XGBoost's", "[surrogate]") {
  auto train = MakeSynthetic(600, 15, 0.2, 41);
  // Missing values in training give the trees real default directions.
  std::mt19937_64 rng(42);
  for (auto& v : train.x.values) {
    if (rng() % 10 == 0) v = NAN;
  }
  const auto valid = MakeSynthetic(100, 15, 0.2, 43);
  for (int depth : {1, 3, 6, 9}) {
    sur::RegressorParams p;
    p.max_depth = depth;
    p.max_rounds = 120;
    p.early_stopping_rounds = 0;
    p.learning_rate = 0.2;
    const auto reg = sur::Regressor::Train(train.view(), valid.view(), p);
    CHECK(reg.forest().num_trees() == 120);
    // 1,000 rows: several full blocks and a partial one; with and without missing values.
    auto test = MakeSynthetic(1000, 15, 0.2, 44);
    CHECK(BitIdentical(reg.Predict(test.x.view()), BoosterPredict(reg, test.x)));
    for (std::size_t i = 0; i < test.x.values.size(); i += 7) test.x.values[i] = NAN;
    CHECK(BitIdentical(reg.Predict(test.x.view()), BoosterPredict(reg, test.x)));
    // Batches under eight rows take the one-row path.
    for (std::size_t n : {1u, 2u, 5u, 7u}) {
      const std::vector<std::size_t> rows = [n] {
        std::vector<std::size_t> r;
        for (std::size_t i = 0; i < n; ++i) r.push_back(i * 3);
        return r;
      }();
      const auto few = sur::SelectRows(test.x.view(), rows);
      CHECK(BitIdentical(reg.Predict(few.view()), BoosterPredict(reg, few)));
      const auto few_finite = sur::SelectRows(MakeSynthetic(30, 15, 0.2, 47).x.view(), rows);
      CHECK(BitIdentical(reg.Predict(few_finite.view()), BoosterPredict(reg, few_finite)));
    }
    // Values exactly on split conditions go right, as in XGBoost (x < split goes left).
    sur::Matrix grid(64, 15);
    for (std::size_t r = 0; r < 64; ++r) {
      for (std::size_t c = 0; c < 15; ++c) grid.at(r, c) = static_cast<float>((r * 7 + c) % 8) / 8;
    }
    CHECK(BitIdentical(reg.Predict(grid.view()), BoosterPredict(reg, grid)));
  }
}

TEST_CASE("Forest refuses what it cannot compile", "[surrogate]") {
  CHECK_THROWS_AS(sur::Forest::FromUbj("garbage"), dcnas::InputError);
  const auto train = MakeSynthetic(100, 3, 0.1, 45);
  sur::DMatrix d(train.x.view(), train.y);
  const sur::DMatrix* cache[] = {&d};
  sur::Booster b(cache);
  b.SetParam("verbosity", "0");
  b.SetParam("objective", "reg:absoluteerror");
  b.UpdateOneIter(0, d);
  CHECK_THROWS_WITH(sur::Forest::FromBooster(b), Catch::Contains("reg:absoluteerror"));
  sur::RegressorParams p;
  p.max_rounds = 3;
  p.early_stopping_rounds = 0;
  const auto reg = sur::Regressor::Train(train.view(), {}, p);
  const auto wrong = MakeSynthetic(5, 4, 0.1, 46);
  std::vector<float> out(5);
  CHECK_THROWS_AS(reg.forest().Predict(wrong.x.view(), out), dcnas::InputError);
}

TEST_CASE("One booster predicting from several threads is serialised, not corrupted",
          "[surrogate]") {
  const auto train = MakeSynthetic(300, 6, 0.1, 48);
  sur::RegressorParams p;
  p.max_rounds = 50;
  p.early_stopping_rounds = 0;
  const auto reg = sur::Regressor::Train(train.view(), {}, p);
  std::vector<sur::testing::SyntheticData> inputs;
  std::vector<std::vector<float>> expected;
  for (std::uint64_t s = 0; s < 4; ++s) {
    inputs.push_back(MakeSynthetic(200 + 50 * s, 6, 0.1, 50 + s));
    expected.push_back(BoosterPredict(reg, inputs.back().x));
  }
  std::vector<int> mismatches(4, 0);
  std::vector<std::thread> threads;
  for (std::size_t t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 50; ++i) {
        mismatches[t] += BitIdentical(BoosterPredict(reg, inputs[t].x), expected[t]) ? 0 : 1;
      }
    });
  }
  for (auto& th : threads) th.join();
  for (int m : mismatches) CHECK(m == 0);
}
