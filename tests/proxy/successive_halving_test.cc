// Successive halving's rules (rungs, promotion, rung files) and its report, on rung files built
// by hand where every promotion and figure is known.
#include <catch2/catch.hpp>
#include <cmath>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "common/errors.h"
#include "proxy/accuracy_data.h"
#include "proxy/successive_halving.h"
#include "tests/proxy/test_rows.h"

namespace dcnas::proxy {
namespace {

using testing::Networks;
using testing::Row;

TEST_CASE("halving rungs multiply by eta and end at the full budget") {
  CHECK(HalvingRungs(1, 9, 3) == std::vector<int>{1, 3, 9});
  CHECK(HalvingRungs(1, 10, 3) == std::vector<int>{1, 3, 9, 10});
  CHECK(HalvingRungs(1, 3, 2) == std::vector<int>{1, 2, 3});
  CHECK(HalvingRungs(2, 8, 4) == std::vector<int>{2, 8});
  CHECK(HalvingRungs(1, 2, 16) == std::vector<int>{1, 2});
  CHECK_THROWS_WITH(HalvingRungs(1, 9, 1), Catch::Contains("--halving: eta must be in [2, 16]"));
  CHECK_THROWS_WITH(HalvingRungs(0, 9, 3), Catch::Contains("--min-epochs must be at least 1"));
  CHECK_THROWS_WITH(HalvingRungs(3, 3, 3, "--train-halving", "--train-min-epochs"),
                    Catch::Contains("--train-min-epochs 3 leaves nothing to halve"));
}

TEST_CASE("promotion keeps the best ceil(n / eta), ties to the lower index, in index order") {
  CHECK(PromoteTop({5, 1, 9, 3, 7}, 2) == std::vector<size_t>{0, 2, 4});
  CHECK(PromoteTop({5, 1, 9, 3, 7}, 3) == std::vector<size_t>{2, 4});
  CHECK(PromoteTop({5, 1, 9, 3, 7}, 16) == std::vector<size_t>{2});
  CHECK(PromoteTop({4, 4, 4, 4}, 2) == std::vector<size_t>{0, 1});
  CHECK(PromoteTop({}, 3).empty());
  CHECK(PromoteTop({2.0}, 3) == std::vector<size_t>{0});
}

TEST_CASE("rung files sit beside the top rung's") {
  CHECK(RungFile("out/r28-e9.csv", 1) == "out/r28-e9.e1.csv");
  CHECK(RungFile("data.csv", 3) == "data.e3.csv");
  CHECK(RungFile("dir/data", 3) == "dir/data.e3.csv");
  CHECK(HalvingRank(1, 10.0) > HalvingRank(0, 99.0));
  CHECK(HalvingRank(2, 50.0) > HalvingRank(2, 49.0));
}

// Nine networks: the reference ranks them 0 (worst) .. 8 (best); the 1-epoch rung ranks them
// the same except that network 8 looks worst; the 3-epoch rung and full training rank them as the
// reference does.
struct Fixture {
  space::Space space = space::Space::Load(testing::BenchSpacePath());
  std::vector<std::string> nets = Networks(space, 9);
  ProxyRecipe e1, e3;
  AccuracyData reference, rung0, rung1, full;
  Fixture() {
    e1.epochs = 1;
    e3.epochs = 3;
    ProxyRecipe bench;
    bench.dataset = "cifar10";
    bench.epochs = 50;
    reference.file = "bench.csv";
    rung0.file = "h.e1.csv";
    rung1.file = "h.csv";
    full.file = "full.csv";
    for (size_t i = 0; i < nets.size(); ++i) {
      const auto acc = static_cast<double>(i);
      reference.rows.push_back(Row(space, nets[i], 0, 80.0 + acc, bench));
      reference.rows.back().val_accuracy = std::nan("");
      rung0.rows.push_back(Row(space, nets[i], 0, i == 8 ? 1.0 : 10.0 + acc, e1));
      full.rows.push_back(Row(space, nets[i], 0, 50.0 + acc, e3));
      full.rows.back().train_time_s = 30.0;
    }
  }
};

TEST_CASE("the halving report recomputes the promotions and measures cost and agreement") {
  Fixture f;
  // eta 3: the 1-epoch rung promotes networks 5, 6 and 7 (8 looks worst there).
  for (size_t i : {5, 6, 7}) {
    f.rung1.rows.push_back(Row(f.space, f.nets[i], 0, 50.0 + static_cast<double>(i), f.e3));
    f.rung1.rows.back().train_time_s = 30.0;
  }
  const HalvingReport r = EvaluateHalving({f.rung0, f.rung1}, 3, f.reference, &f.full, 200, 1);
  REQUIRE(r.rungs.size() == 2);
  CHECK(r.networks == 9);
  CHECK(r.rungs[0].networks == 9);
  CHECK(r.rungs[1].networks == 3);
  CHECK(r.rungs[0].cost_s == Approx(90.0));
  CHECK(r.rungs[1].cost_s == Approx(90.0));
  CHECK(r.cost_s == Approx(180.0));
  CHECK(r.full_cost_s == Approx(270.0));
  CHECK(r.rungs[1].tau_reference.tau == Approx(1.0));
  CHECK(r.best == f.nets[7]);
  CHECK(r.best_reference_rank == 2);  // network 8 is better, and halving dropped it
  CHECK(r.top_overlap == 2);          // full training's best 3 are 6, 7, 8
  CHECK(r.full_best_rank == 9);       // network 8 ranks last in halving's ranking
  // The full ranking against halving's: only the pairs with network 8 disagree (8 of 36).
  CHECK(r.tau_full.tau == Approx((28.0 - 8.0) / 36.0));
  CHECK(r.tau_full_vs_ref.tau == Approx(1.0));
  const nlohmann::json j = r.ToJson();
  CHECK(j["full"]["cost_ratio"].get<double>() == Approx(180.0 / 270.0));
  CHECK(r.ToText().find("top 3 shared 2") != std::string::npos);
}

TEST_CASE("the halving report refuses rung files that cannot be a halving") {
  Fixture f;
  // A promoted network without its row in the next rung: named with the file.
  f.rung1.rows.push_back(Row(f.space, f.nets[5], 0, 55.0, f.e3));
  CHECK_THROWS_WITH(EvaluateHalving({f.rung0, f.rung1}, 3, f.reference, nullptr),
                    Catch::Contains("h.csv: network ") &&
                        Catch::Contains("was promoted to this rung (3 epochs)"));
  // Rungs of different recipes beyond the epochs.
  ProxyRecipe other = f.e3;
  other.resolution = 28;
  AccuracyData wrong = f.full;
  for (AccuracyRow& row : wrong.rows) row.recipe = other;
  CHECK_THROWS_WITH(EvaluateHalving({f.rung0, wrong}, 3, f.reference, nullptr),
                    Catch::Contains("the rungs may differ in epochs only"));
  // Epochs that do not rise.
  CHECK_THROWS_WITH(EvaluateHalving({f.full, f.rung0}, 3, f.reference, nullptr),
                    Catch::Contains("not more than the rung before"));
  // A full file of another recipe than the top rung.
  CHECK_THROWS_WITH(
      EvaluateHalving({f.rung0, f.full}, 3, f.reference, &f.rung0),
      Catch::Contains("h.e1.csv: recipe") && Catch::Contains("full training is the top rung"));
  CHECK_THROWS_WITH(EvaluateHalving({f.rung0}, 3, f.reference, nullptr),
                    Catch::Contains("at least two rungs"));
  CHECK_THROWS_WITH(EvaluateHalving({f.rung0, f.full}, 1, f.reference, nullptr),
                    Catch::Contains("--eta must be in [2, 16]"));
}

}  // namespace
}  // namespace dcnas::proxy
