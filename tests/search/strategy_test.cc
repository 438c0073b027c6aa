#include "search/strategy.h"

#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "common/errors.h"
#include "common/statistics.h"

namespace dcnas::search {
namespace {

std::string SpacePath() {
  const char* root = std::getenv("DCNAS_SOURCE_ROOT");
  return std::string(root ? root : ".") + "/data/search_spaces/dc-accelerator.yaml";
}

const space::Space& DcSpace() {
  static const space::Space space = space::Space::Load(SpacePath());
  return space;
}

// A synthetic objective with structure: the mean over choice positions of a fixed per-value
// score (uniform in [0, 1), from a seeded RNG). Two tables give two conflicting objectives.
class Synthetic {
 public:
  explicit Synthetic(const space::Space& space) {
    std::mt19937_64 rng(20240601);
    for (auto* table : {&a_, &b_}) {
      for (int count : space.choice_counts()) {
        std::vector<double> row;
        for (int v = 0; v < count; ++v) row.push_back(static_cast<double>(rng() >> 11U) / 0x1p53);
        table->push_back(row);
      }
    }
  }
  double A(const space::Encoding& e) const { return Mean(a_, e); }
  // The mean of the per-position maxima of A: no architecture scores more.
  double UpperBoundA() const {
    double sum = 0.0;
    for (const auto& row : a_) sum += *std::max_element(row.begin(), row.end());
    return sum / static_cast<double>(a_.size());
  }
  double B(const space::Encoding& e) const { return Mean(b_, e); }
  Evaluation Evaluate(const space::Encoding& e) const { return {A(e), {A(e), B(e)}}; }

 private:
  static double Mean(const std::vector<std::vector<double>>& t, const space::Encoding& e) {
    double sum = 0.0;
    for (size_t i = 0; i < e.size(); ++i) sum += t[i][static_cast<size_t>(e[i])];
    return sum / static_cast<double>(e.size());
  }
  std::vector<std::vector<double>> a_, b_;
};

const Synthetic& Objective() {
  static const Synthetic objective(DcSpace());
  return objective;
}

StrategyOptions Options(uint64_t seed) {
  StrategyOptions o;
  o.seed = seed;
  o.population = 64;  // budgets of a few hundred on a space of ~1e14 networks
  return o;
}

struct Trace {
  std::vector<Candidate> asked;
  std::vector<double> best_at;  // best reward after each checkpoint
  std::vector<std::vector<double>> objectives;
  std::vector<space::Encoding> encodings;
};

// Asks in batches of `batch`, tells each batch in reverse order (an asynchronous pool), records
// the best reward at each checkpoint.
Trace Run(const std::string& name, const StrategyOptions& options, int budget, int batch,
          const std::vector<int>& checkpoints = {}) {
  auto strategy = MakeStrategy(name, DcSpace(), options);
  Trace trace;
  double best = -1.0;
  int told = 0;
  size_t next_checkpoint = 0;
  while (told < budget) {
    const auto candidates = strategy->Ask(std::min(batch, budget - told));
    REQUIRE(!candidates.empty());
    for (auto it = candidates.rbegin(); it != candidates.rend(); ++it) {
      REQUIRE(DcSpace().IsValid(it->encoding));
      const Evaluation e = Objective().Evaluate(it->encoding);
      strategy->Tell(*it, e);
      best = std::max(best, e.reward);
      trace.objectives.push_back(e.objectives);
      trace.encodings.push_back(it->encoding);
      ++told;
      if (next_checkpoint < checkpoints.size() && told == checkpoints[next_checkpoint]) {
        trace.best_at.push_back(best);
        ++next_checkpoint;
      }
    }
    trace.asked.insert(trace.asked.end(), candidates.begin(), candidates.end());
  }
  CHECK(strategy->pending() == 0);
  CHECK(strategy->told() == static_cast<uint64_t>(budget));
  return trace;
}

// Area dominated by the points (both objectives maximised) above the reference (0, 0).
double Hypervolume2d(std::vector<std::vector<double>> points) {
  std::sort(points.begin(), points.end(), [](const auto& p, const auto& q) { return p[0] > q[0]; });
  double area = 0.0;
  double height = 0.0;
  for (const auto& p : points) {
    if (p[1] > height) {
      area += p[0] * (p[1] - height);
      height = p[1];
    }
  }
  return area;
}

TEST_CASE("every strategy is deterministic: same seed and tells, same asks") {
  for (const std::string& name : StrategyNames()) {
    INFO(name);
    const Trace a = Run(name, Options(7), 150, 6);
    const Trace b = Run(name, Options(7), 150, 6);
    const Trace c = Run(name, Options(8), 150, 6);
    REQUIRE(a.asked.size() == b.asked.size());
    for (size_t i = 0; i < a.asked.size(); ++i) {
      CHECK(a.asked[i].id == i);
      CHECK(a.asked[i].id == b.asked[i].id);
      CHECK(a.asked[i].encoding == b.asked[i].encoding);
    }
    CHECK(a.encodings != c.encodings);
  }
}

TEST_CASE("rl variants (entropy bonus, raw advantage) are deterministic too") {
  StrategyOptions o = Options(11);
  o.entropy_weight = 0.01;
  o.rl_normalize_advantage = false;
  o.learning_rate = 1.0;
  const Trace a = Run("rl", o, 120, 5);
  const Trace b = Run("rl", o, 120, 5);
  CHECK(a.encodings == b.encodings);
  CHECK(a.encodings != Run("rl", Options(11), 120, 5).encodings);
}

// Number of positions where two encodings differ.
int Distance(const space::Encoding& a, const space::Encoding& b) {
  int d = 0;
  for (size_t i = 0; i < a.size(); ++i) d += a[i] != b[i] ? 1 : 0;
  return d;
}

// The index of the member of `population` nearest to `child`.
size_t Nearest(const std::vector<space::Encoding>& population, const space::Encoding& child) {
  size_t best = 0;
  for (size_t i = 1; i < population.size(); ++i) {
    if (Distance(population[i], child) < Distance(population[best], child)) best = i;
  }
  return best;
}

TEST_CASE("evolution mutates the tournament winner and ages out the oldest") {
  StrategyOptions o = Options(4);
  o.population = 4;
  o.tournament = 4;  // the whole population: the winner is its best member
  auto strategy = MakeStrategy("evolution", DcSpace(), o);
  const auto first = strategy->Ask(4);
  REQUIRE(first.size() == 4);
  const std::vector<double> rewards = {0.9, 0.1, 0.2, 0.3};
  for (size_t i = 0; i < 4; ++i) strategy->Tell(first[i], {rewards[i], {}});
  std::vector<space::Encoding> population;
  for (const auto& c : first) population.push_back(c.encoding);

  const auto child = strategy->Ask(1).at(0);
  CHECK(Nearest(population, child.encoding) == 0);  // a mutation of the 0.9
  CHECK(Distance(child.encoding, population[0]) >= 1);
  CHECK(Distance(child.encoding, population[0]) < Distance(population[0], population[3]));
  strategy->Tell(child, {0.0, {}});  // the population is now ids 1, 2, 3 and the child
  population.erase(population.begin());
  population.push_back(child.encoding);
  const auto next = strategy->Ask(1).at(0);
  CHECK(Nearest(population, next.encoding) == 2);  // the 0.9 died: a mutation of the 0.3
}

TEST_CASE("random, evolution and predictor never ask one network twice") {
  for (const std::string name : {"random", "evolution", "predictor"}) {
    const Trace t = Run(name, Options(3), 300, 10);
    std::set<space::Encoding> distinct(t.encodings.begin(), t.encodings.end());
    CHECK(distinct.size() == t.encodings.size());
    for (const space::Encoding& e : t.encodings) CHECK(DcSpace().Canonical(e) == e);
  }
}

TEST_CASE("protocol errors throw InputError and leave the strategy unchanged") {
  auto strategy = MakeStrategy("evolution", DcSpace(), Options(1));
  const auto asked = strategy->Ask(3);
  REQUIRE(asked.size() == 3);
  const Evaluation ok{0.5, {0.5, 0.1}};
  CHECK_THROWS_AS(strategy->Tell({99, asked[0].encoding}, ok), InputError);
  CHECK_THROWS_WITH(strategy->Tell({99, asked[0].encoding}, ok), Catch::Contains("unknown id"));
  CHECK_THROWS_AS(strategy->Tell({asked[0].id, asked[1].encoding}, ok), InputError);
  CHECK_THROWS_AS(strategy->Tell(asked[0], {std::nan(""), {}}), InputError);
  CHECK_THROWS_AS(strategy->Tell(asked[0], {0.5, {INFINITY}}), InputError);
  CHECK(strategy->pending() == 3);
  CHECK(strategy->told() == 0);
  strategy->Tell(asked[1], ok);
  CHECK_THROWS_WITH(strategy->Tell(asked[1], ok), Catch::Contains("told already"));
  CHECK_THROWS_WITH(strategy->Tell(asked[0], {0.5, {0.5}}), Catch::Contains("objectives"));
  strategy->Tell(asked[0], ok);
  CHECK(strategy->pending() == 1);
  CHECK(strategy->told() == 2);
  CHECK(strategy->asked() == 3);
  CHECK_THROWS_AS(strategy->Ask(-1), InputError);
  CHECK(strategy->Ask(0).empty());

  auto nsga2 = MakeStrategy("nsga2", DcSpace(), Options(1));
  const auto c = nsga2->Ask(1);
  CHECK_THROWS_WITH(nsga2->Tell(c[0], {0.5, {}}), Catch::Contains("objectives"));
}

TEST_CASE("MakeStrategy refuses unknown names and bad options") {
  CHECK_THROWS_AS(MakeStrategy("evolutoin", DcSpace(), {}), InputError);
  CHECK_THROWS_WITH(MakeStrategy("evolutoin", DcSpace(), {}),
                    Catch::Contains("random, evolution, rl, nsga2, predictor") &&
                        Catch::Contains("did you mean: evolution"));
  CHECK(MakeStrategy("predictor", DcSpace(), {})->name() == "predictor");  // no prior needed
  StrategyOptions o;
  o.tournament = 21;
  CHECK_THROWS_WITH(MakeStrategy("evolution", DcSpace(), o),
                    Catch::Contains("--tournament 21") && Catch::Contains("--population 20"));
  o = {};
  o.start = -1;
  CHECK_THROWS_WITH(MakeStrategy("predictor", DcSpace(), o), Catch::Contains("--start -1"));
  o = {};
  o.candidates = 0;
  CHECK_THROWS_WITH(MakeStrategy("predictor", DcSpace(), o), Catch::Contains("--candidates 0"));
  o = {};
  o.model.members = 0;
  CHECK_THROWS_WITH(MakeStrategy("predictor", DcSpace(), o), Catch::Contains("--ensemble 0"));
  o = {};
  o.population = 8;  // the default tournament and start follow the population: 8 / 2, 8 / 4
  CHECK(TournamentSize(o) == 4);
  CHECK(EvolutionStart(o) == 2);
  CHECK_NOTHROW(MakeStrategy("evolution", DcSpace(), o));
  CHECK_THROWS_WITH(ParseAcquisition("ei"), Catch::Contains("--acquisition 'ei'"));
  CHECK_THROWS_WITH(ParsePredictorModel("mlp"), Catch::Contains("--model 'mlp'"));
  o = {};
  o.baseline_decay = 1.0;
  CHECK_THROWS_AS(MakeStrategy("rl", DcSpace(), o), InputError);
  o = {};
  o.population = 0;
  CHECK_THROWS_AS(MakeStrategy("nsga2", DcSpace(), o), InputError);
  for (const std::string& name : StrategyNames()) {
    CHECK(MakeStrategy(name, DcSpace(), Options(0))->name() == name);
  }
}

TEST_CASE("strategy parameters: the names each takes, set from text, refused where not taken") {
  CHECK(StrategyParameters("random").empty());
  CHECK(StrategyParameters("nsga2") == std::vector<std::string>{"population", "mutations"});
  CHECK_THROWS_WITH(StrategyParameters("evolutoin"), Catch::Contains("did you mean: evolution"));
  StrategyOptions o;
  SetStrategyParameter(o, "evolution", "population", "12");
  SetStrategyParameter(o, "evolution", "tournament", "3");
  CHECK(o.population == 12);
  CHECK(o.tournament == 3);
  SetStrategyParameter(o, "predictor", "model", "trees");
  SetStrategyParameter(o, "predictor", "acquisition", "ts");
  SetStrategyParameter(o, "predictor", "kappa", "2.5");
  SetStrategyParameter(o, "predictor", "ensemble", "4");
  CHECK(o.model.kind == PredictorModelKind::kTrees);
  CHECK(o.acquisition == Acquisition::kThompson);
  CHECK(o.kappa == 2.5);
  CHECK(o.model.members == 4);
  CHECK_THROWS_WITH(SetStrategyParameter(o, "random", "population", "3"),
                    Catch::Contains("does not apply to random") && Catch::Contains("takes none"));
  CHECK_THROWS_WITH(SetStrategyParameter(o, "nsga2", "kappa", "1"),
                    Catch::Contains("it takes population, mutations"));
  CHECK_THROWS_WITH(SetStrategyParameter(o, "evolution", "population", "2.5"),
                    Catch::Contains("expected an integer, got '2.5'"));
  CHECK_THROWS_WITH(SetStrategyParameter(o, "predictor", "kappa", "nan"),
                    Catch::Contains("expected a number, got 'nan'"));
  CHECK_THROWS_AS(SetStrategyParameter(o, "predictor", "model", "mlp"), InputError);
}

TEST_CASE("nsga2 hands out one generation and waits for its tells") {
  StrategyOptions o = Options(5);
  o.population = 10;
  auto strategy = MakeStrategy("nsga2", DcSpace(), o);
  const auto first = strategy->Ask(7);
  const auto second = strategy->Ask(7);
  CHECK(first.size() == 7);
  CHECK(second.size() == 3);
  CHECK(strategy->Ask(1).empty());
  for (const auto& c : first) strategy->Tell(c, Objective().Evaluate(c.encoding));
  CHECK(strategy->Ask(1).empty());
  for (const auto& c : second) strategy->Tell(c, Objective().Evaluate(c.encoding));
  CHECK(strategy->Ask(20).size() == 10);
}

TEST_CASE("ParetoFront and NonDominatedRanks on a hand-made example") {
  const std::vector<std::vector<double>> points = {{1, 5}, {2, 4}, {3, 3}, {2, 2},
                                                   {1, 5}, {0, 6}, {3, 1}, {1, 1}};
  CHECK(ParetoFront(points) == std::vector<size_t>{0, 1, 2, 4, 5});
  CHECK(NonDominatedRanks(points) == std::vector<int>{0, 0, 0, 1, 0, 0, 1, 2});
  CHECK(ParetoFront({}).empty());
  CHECK(ParetoFront({{1, 2, 3}}) == std::vector<size_t>{0});
  CHECK_THROWS_AS(ParetoFront({{1, 2}, {1}}), InputError);
  CHECK_THROWS_AS(ParetoFront({{1, std::nan("")}}), InputError);
}

TEST_CASE("ParetoFront of two objectives equals the pairwise definition, ties included") {
  std::mt19937_64 rng(29);
  for (int trial = 0; trial < 200; ++trial) {
    const size_t n = 1 + rng() % 60;
    const int range = 1 + static_cast<int>(rng() % 8);  // small ranges: many ties
    std::vector<std::vector<double>> two, three;
    for (size_t i = 0; i < n; ++i) {
      std::vector<double> p = {static_cast<double>(static_cast<int>(rng() % range)),
                               static_cast<double>(static_cast<int>(rng() % range)) - 0.5};
      if (rng() % 17 == 0) p[rng() % 2] = (rng() % 2 != 0 ? 1 : -1) * INFINITY;
      two.push_back(p);
      p.push_back(0.0);  // a third, equal objective: the pairwise path, the same dominance
      three.push_back(p);
    }
    CHECK(ParetoFront(two) == ParetoFront(three));
  }
}

TEST_CASE("MnasReward and HardReward closed forms") {
  CHECK(MnasReward(0.8, 10.0, 10.0) == Approx(0.8));
  CHECK(MnasReward(0.8, 20.0, 10.0, -0.07) == Approx(0.8 * std::pow(2.0, -0.07)));
  CHECK(MnasReward(0.8, 5.0, 10.0) == Approx(0.8 * std::pow(0.5, -0.07)));
  CHECK(MnasReward(0.8, 20.0, 10.0) / 0.8 == Approx(1.0 / 1.05).epsilon(0.002));
  CHECK(HardReward(0.8, 5.0, 10.0) == 0.8);
  CHECK(HardReward(0.8, 10.0, 10.0) == 0.8);
  CHECK(HardReward(0.8, 20.0, 10.0) == Approx(0.4));
  CHECK_THROWS_AS(MnasReward(0.8, 10.0, 0.0), InputError);
  CHECK_THROWS_AS(MnasReward(0.8, 10.0, -1.0), InputError);
  CHECK_THROWS_AS(MnasReward(0.8, 0.0, 10.0), InputError);
  CHECK_THROWS_AS(MnasReward(std::nan(""), 10.0, 10.0), InputError);
  CHECK_THROWS_AS(MnasReward(0.8, INFINITY, 10.0), InputError);
  CHECK_THROWS_AS(HardReward(0.8, 10.0, 0.0), InputError);
}

TEST_CASE("strategy comparison on a structured synthetic objective (10 seeds)") {
  const std::vector<int> budgets = {100, 300, 1000};
  const std::vector<std::string> names = StrategyNames();
  std::vector<std::vector<std::vector<double>>> best(names.size());  // [strategy][budget][seed]
  std::vector<std::vector<double>> hv(names.size());                 // at 1000, per seed
  std::vector<std::vector<size_t>> front(names.size());
  for (size_t s = 0; s < names.size(); ++s) {
    best[s].assign(budgets.size(), {});
    for (uint64_t seed = 1; seed <= 10; ++seed) {
      const int batch = 4;
      const Trace t = Run(names[s], Options(seed), budgets.back(), batch, budgets);
      for (size_t b = 0; b < budgets.size(); ++b) best[s][b].push_back(t.best_at[b]);
      const auto f = ParetoFront(t.objectives);
      std::vector<std::vector<double>> front_points;
      for (size_t i : f) front_points.push_back(t.objectives[i]);
      hv[s].push_back(Hypervolume2d(front_points));
      front[s].push_back(f.size());
      if (names[s] == "nsga2") {
        // The front is non-dominated and every other point is dominated by a front point.
        const auto ranks = NonDominatedRanks(t.objectives);
        for (size_t i = 0; i < t.objectives.size(); ++i) {
          const bool on_front = std::binary_search(f.begin(), f.end(), i);
          CHECK(on_front == (ranks[i] == 0));
        }
      }
    }
  }
  std::printf("strategy comparison, dc-accelerator space, synthetic additive objective\n");
  std::printf(
      "median [min, max] best reward (A) over 10 seeds (bound %.4f); median hypervolume"
      " of (A, B) at 1000\n",
      Objective().UpperBoundA());
  std::printf("%-10s %-24s %-24s %-24s %-8s\n", "strategy", "budget 100", "budget 300",
              "budget 1000", "hv 1000");
  for (size_t s = 0; s < names.size(); ++s) {
    std::printf("%-10s", names[s].c_str());
    for (size_t b = 0; b < budgets.size(); ++b) {
      const auto& v = best[s][b];
      std::printf(" %.4f [%.4f, %.4f]  ", Median(v), *std::min_element(v.begin(), v.end()),
                  *std::max_element(v.begin(), v.end()));
    }
    std::printf(" %.4f\n", Median(hv[s]));
  }
  const auto index = [&](const std::string& name) {
    return static_cast<size_t>(std::find(names.begin(), names.end(), name) - names.begin());
  };
  const double random300 = Median(best[index("random")][1]);
  CHECK(Median(best[index("evolution")][1]) > random300);
  CHECK(Median(best[index("rl")][1]) > random300);
  CHECK(Median(best[index("predictor")][1]) > random300);
  CHECK(Median(hv[index("nsga2")]) > Median(hv[index("random")]));
}

}  // namespace
}  // namespace dcnas::search
