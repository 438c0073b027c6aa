// The predictor strategy's model learns from each result, the strategy beats random search on a
// synthetic benchmark, and RunSearch's budget counts distinct networks (repeats are answered from
// the earlier result, not charged, and a strategy that only repeats stops).
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <set>
#include <string>
#include <vector>

#include <unistd.h>

#include "common/errors.h"
#include "common/statistics.h"
#include "search/predictor_model.h"
#include "search/run.h"
#include "search/strategy.h"

namespace dcnas::search {
namespace {

const space::Space& DcSpace() {
  static const space::Space space = space::Space::Load(
      std::string(std::getenv("DCNAS_SOURCE_ROOT") ? std::getenv("DCNAS_SOURCE_ROOT") : ".") +
      "/data/search_spaces/dc-accelerator.yaml");
  return space;
}

// A space of `networks` = 4 or 16 networks (block x activation in one or two stages).
space::Space TinySpace(bool two_stages) {
  std::string yaml = R"(format: dcnas-search-space
version: 1
name: tiny
description: a tiny space for the repeat tests
sources: ["tests/search/predictor_test.cc"]
network: {resolution: 64, stem_filters: 16, head_filters: 64, activation: relu,
          se_coefficient: 4, dropout: 0.2}
proxy: {resolution: 32, in_channels: 1, num_classes: 10, removed_downsamples: 1, width: 0.25}
defaults: {block: mbconv, kernel: 3, expand: 4, se: 0, activation: relu, repeats_delta: 0,
           filters_multiplier: 1.0}
stages:
  - {stride: 1, filters: 16, repeats: 1, choices: {block: [mbconv, fused], activation: [relu, swish]}}
)";
  if (two_stages) {
    yaml +=
        "  - {stride: 2, filters: 24, repeats: 1, choices: {block: [mbconv, fused], "
        "activation: [relu, swish]}}\n";
  }
  return space::Space::Parse(yaml, "tiny.yaml");
}

// A synthetic benchmark with interactions: per-position effects plus a bonus for pairs of
// neighbouring positions, fixed by a seeded RNG.
class Benchmark {
 public:
  explicit Benchmark(const space::Space& space) {
    std::mt19937_64 rng(77);
    auto unit = [&rng] { return static_cast<double>(rng() >> 11U) / 0x1p53; };
    for (int count : space.choice_counts()) {
      std::vector<double> row;
      for (int v = 0; v < count; ++v) row.push_back(unit());
      effect_.push_back(row);
      pair_.push_back(unit() * 0.5);
    }
  }
  double operator()(const space::Encoding& e) const {
    double s = 0.0;
    for (size_t i = 0; i < e.size(); ++i) {
      s += effect_[i][static_cast<size_t>(e[i])];
      if (i + 1 < e.size() && e[i] == e[i + 1]) s += pair_[i];
    }
    return s;
  }

 private:
  std::vector<std::vector<double>> effect_;
  std::vector<double> pair_;
};

// The best score a strategy finds in `budget` tells, one ask at a time.
double BestOf(const std::string& name, uint64_t seed, int budget, const Benchmark& f) {
  StrategyOptions o;
  o.seed = seed;
  auto strategy = MakeStrategy(name, DcSpace(), o);
  double best = -1.0;
  for (int i = 0; i < budget; ++i) {
    const Candidate c = strategy->Ask(1).at(0);
    const double y = f(c.encoding);
    best = std::max(best, y);
    strategy->Tell(c, {y, {y}});
  }
  return best;
}

TEST_CASE("the predictor's model moves its prediction toward each told result") {
  const Benchmark f(DcSpace());
  for (const PredictorModelKind kind :
       {PredictorModelKind::kRidge, PredictorModelKind::kTrees, PredictorModelKind::kMixed}) {
    INFO(PredictorModelName(kind));
    PredictorModel model(DcSpace(), {.kind = kind, .members = 10});
    std::mt19937_64 rng(5);
    std::vector<space::Encoding> x;
    std::vector<double> y;
    for (int i = 0; i < 40; ++i) {
      x.push_back(DcSpace().Sample(rng));
      y.push_back(f(x.back()));
    }
    double mean = 1.0, sd = 1.0;
    model.Predict(x[0], mean, sd);
    CHECK(mean == 0.0);  // not fitted yet
    CHECK_FALSE(model.fitted());
    model.Fit(x, y, rng);
    const space::Encoding probe = DcSpace().Sample(rng);
    double before = 0.0;
    model.Predict(probe, before, sd);
    CHECK(sd >= 0.0);
    // Tell the probe a reward far above anything seen: its prediction moves toward it.
    const double told = 100.0;
    x.push_back(probe);
    y.push_back(told);
    model.Fit(x, y, rng);
    double after = 0.0;
    model.Predict(probe, after, sd);
    CHECK(after > before + 1.0);
    CHECK(std::abs(after - told) < std::abs(before - told));
  }
}

TEST_CASE("the predictor learns: ranks held-out networks and beats random on a benchmark") {
  const Benchmark f(DcSpace());
  PredictorModel model(DcSpace(), {});
  std::mt19937_64 rng(9);
  std::vector<space::Encoding> x;
  std::vector<double> y;
  for (int i = 0; i < 200; ++i) {
    x.push_back(DcSpace().Sample(rng));
    y.push_back(f(x.back()));
  }
  model.Fit(x, y, rng);
  // Pairs of held-out networks ordered as their true scores: far better than chance (0.5).
  int concordant = 0, pairs = 0;
  for (int i = 0; i < 200; ++i) {
    const space::Encoding a = DcSpace().Sample(rng), b = DcSpace().Sample(rng);
    double ma = 0.0, mb = 0.0, sd = 0.0;
    model.Predict(a, ma, sd);
    model.Predict(b, mb, sd);
    if (f(a) == f(b)) continue;
    ++pairs;
    concordant += (ma > mb) == (f(a) > f(b)) ? 1 : 0;
  }
  CHECK(static_cast<double>(concordant) / pairs > 0.75);

  std::vector<double> predictor, random;
  for (uint64_t seed = 0; seed < 10; ++seed) {
    predictor.push_back(BestOf("predictor", seed, 100, f));
    random.push_back(BestOf("random", seed, 100, f));
  }
  std::printf(
      "synthetic benchmark, best of 100 (median of 10 seeds): predictor %.4f, random %.4f\n",
      Median(predictor), Median(random));
  CHECK(Median(predictor) > Median(random));
  CHECK(*std::min_element(predictor.begin(), predictor.end()) > Median(random));
}

TEST_CASE("the predictor is seeded: same seed, same run; another seed, another run") {
  const Benchmark f(DcSpace());
  auto trace = [&](uint64_t seed) {
    StrategyOptions o;
    o.seed = seed;
    o.acquisition = Acquisition::kUcb;
    auto strategy = MakeStrategy("predictor", DcSpace(), o);
    std::vector<space::Encoding> asked;
    for (int i = 0; i < 40; ++i) {
      for (const Candidate& c : strategy->Ask(2)) {
        asked.push_back(c.encoding);
        strategy->Tell(c, {f(c.encoding), {}});
      }
    }
    return asked;
  };
  CHECK(trace(3) == trace(3));
  CHECK(trace(3) != trace(4));
}

// An accuracy objective that counts its calls.
class CountingAccuracy : public AccuracyObjective {
 public:
  explicit CountingAccuracy(const space::Space& space) : space_(space) {}
  double Accuracy(const space::Encoding& e) override {
    ++calls;
    return 50.0 + static_cast<double>(std::hash<std::string>()(space_.ToText(e)) % 1000) / 100.0;
  }
  nlohmann::json Config() const override { return {{"kind", "counting"}}; }
  int calls = 0;

 private:
  const space::Space& space_;
};

std::string TempDir(const std::string& name) {
  const auto dir = std::filesystem::temp_directory_path() /
                   ("dcnas-predictor-test-" + std::to_string(::getpid()) + "-" + name);
  std::filesystem::remove_all(dir);
  return dir.string();
}

TEST_CASE("the budget counts distinct networks: repeats are answered, not charged") {
  const space::Space tiny = TinySpace(true);  // 16 networks
  REQUIRE(tiny.CanonicalSize() == 16);
  for (const std::string strategy : {"random", "evolution", "rl", "nsga2", "predictor"}) {
    INFO(strategy);
    CountingAccuracy accuracy(tiny);
    const auto latency = MakeNoLatency();
    SearchOptions o;
    o.strategy = strategy;
    o.accuracy_only = true;
    o.budget = 12;
    o.references = {};
    o.params.population = 4;
    o.seed = 2;
    const std::string dir = TempDir(strategy);
    int64_t last_repeats = 0;
    const SearchResult r = RunSearch(tiny, o, accuracy, *latency, dir,
                                     [&](const SearchProgress& p) { last_repeats = p.repeats; });
    std::set<space::Encoding> distinct;
    for (const SearchPoint& p : r.points) distinct.insert(p.encoding);
    CHECK(r.points.size() == 12);
    CHECK(distinct.size() == 12);
    CHECK(accuracy.calls == 12);  // no objective call for a repeat
    CHECK(r.stopped.empty());
    CHECK(last_repeats == r.repeats);
    std::ifstream journal(dir + "/journal.jsonl");
    int lines = 0;
    for (std::string line; std::getline(journal, line);) ++lines;
    CHECK(lines == 13);  // the header and one line per distinct network
    std::filesystem::remove_all(dir);
  }
}

TEST_CASE("a strategy that proposes only networks evaluated before stops, outputs written") {
  const space::Space tiny = TinySpace(false);  // 4 networks
  CountingAccuracy accuracy(tiny);
  const auto latency = MakeNoLatency();
  SearchOptions o;
  o.strategy = "random";
  o.accuracy_only = true;
  o.budget = 10;
  o.references = {};
  const std::string dir = TempDir("stop");
  const SearchResult r = RunSearch(tiny, o, accuracy, *latency, dir);
  CHECK(r.points.size() == 4);
  CHECK(accuracy.calls == 4);
  CHECK(r.repeats >= kMaxRepeatsInARow);
  CHECK_THAT(r.stopped, Catch::Contains("stopped after 4 of 10 distinct networks") &&
                            Catch::Contains("evaluated before"));
  for (const char* f : {"summary.json", "best.txt", "pareto.csv", "pareto.svg"}) {
    CHECK(std::filesystem::exists(std::filesystem::path(dir) / f));
  }
  // A resume re-derives the repeats and ends the same way.
  o.resume = true;
  CountingAccuracy again(tiny);
  const SearchResult resumed = RunSearch(tiny, o, again, *latency, dir);
  CHECK(again.calls == 0);
  CHECK(resumed.replayed == 4);
  CHECK(resumed.repeats == r.repeats);
  CHECK(resumed.stopped == r.stopped);
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace dcnas::search
