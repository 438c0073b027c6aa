// Label noise (the ceiling estimate on synthetic labels of known noise), stratified samples,
// learning curves in accuracy rows, and the proxy-validity report.
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <numbers>
#include <random>
#include <set>

#include "common/errors.h"
#include "common/rank_correlation.h"
#include "common/text.h"
#include "proxy/accuracy_data.h"
#include "proxy/label_noise.h"
#include "proxy/validity.h"
#include "tests/proxy/test_rows.h"

namespace dcnas::proxy {
namespace {

using testing::Networks;
using testing::Row;

namespace fs = std::filesystem;

// Network means with a long tail of weak networks (as real accuracy distributions have).
std::vector<double> SkewedMeans(size_t n, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::exponential_distribution<double> tail(1.0);
  std::vector<double> mu(n);
  for (double& m : mu) m = 92.0 - 3.0 * tail(rng);
  return mu;
}

// Replicate groups of `mu` with Gaussian seed noise `sd`.
std::vector<std::vector<double>> Trainings(const std::vector<double>& mu, int replicates, double sd,
                                           uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> e(0.0, sd);
  std::vector<std::vector<double>> groups;
  for (const double m : mu) {
    std::vector<double> g;
    for (int r = 0; r < replicates; ++r) g.push_back(m + e(rng));
    groups.push_back(g);
  }
  return groups;
}

// The true ceiling: tau between the known means and fresh labels averaging k trainings.
double TrueCeiling(const std::vector<double>& mu, int k, double sd, uint64_t seed) {
  double sum = 0.0;
  const int draws = 200;
  for (int d = 0; d < draws; ++d) {
    std::vector<double> label;
    for (const auto& g : Trainings(mu, k, sd, seed + d)) {
      double s = 0.0;
      for (const double x : g) s += x;
      label.push_back(s / k);
    }
    sum += KendallTau(mu, label);
  }
  return sum / draws;
}

TEST_CASE("the normal ceiling: Spearman-Brown and Greiner's relation by hand") {
  // ICC 0.8, one seed: (2/pi) asin(sqrt(0.8)) = 0.7048.
  CHECK(NormalTauCeiling(0.8, 1) == Approx(2.0 / std::numbers::pi * std::asin(std::sqrt(0.8))));
  CHECK(NormalTauCeiling(0.8, 1) == Approx(0.7048).margin(1e-4));
  // ICC 0.5 with 3 seeds: reliability 1.5 / 2 = 0.75.
  CHECK(NormalTauCeiling(0.5, 3) == Approx(2.0 / std::numbers::pi * std::asin(std::sqrt(0.75))));
  CHECK(NormalReplicateTau(0.5) == Approx(1.0 / 3.0));
  CHECK(NormalTauCeiling(1.0, 1) == Approx(1.0));
  CHECK(std::isnan(NormalTauCeiling(std::nan(""), 2)));
  // The ceiling against one seed is above seed-to-seed agreement, and grows with k.
  CHECK(NormalTauCeiling(0.48, 1) > NormalReplicateTau(0.48) + 0.1);
  CHECK(NormalTauCeiling(0.48, 4) > NormalTauCeiling(0.48, 1));
}

TEST_CASE("the ceiling estimated from two noisy replicates matches the known one") {
  const std::vector<double> mu = SkewedMeans(600, 11);
  for (const double sd : {0.5, 1.5}) {
    const auto groups = Trainings(mu, 2, sd, 100);
    const NoiseModel m = EstimateNoise(groups);
    INFO("seed sd " << sd);
    CHECK(m.networks == 600);
    CHECK(m.replicated == 600);
    CHECK(m.noise_sd == Approx(sd).epsilon(0.1));
    CHECK(m.spread_sd == Approx(3.0).epsilon(0.1));  // the exponential's sd times 3
    for (const int k : {1, 3}) {
      const double truth = TrueCeiling(mu, k, sd, 5000);
      INFO("k " << k << ": true ceiling " << truth);
      // The simulation keeps the means' shape, blurred by their own noise: within 0.04 of the
      // truth where the normal formula misses a tail that dense by more.
      const double simulated = SimulatedTauCeiling(groups, k);
      CHECK(simulated == Approx(truth).margin(0.04));
      CHECK(std::abs(simulated - truth) < std::abs(NormalTauCeiling(m.icc, k) - truth));
    }
    // The model's seed-to-seed tau against the measured one.
    std::vector<double> a, b;
    for (const auto& g : groups) {
      a.push_back(g[0]);
      b.push_back(g[1]);
    }
    CHECK(SimulatedReplicateTau(groups) == Approx(KendallTau(a, b)).margin(0.04));
  }
  // On skewed means the normal formula is off; on normal means it is right.
  std::mt19937_64 rng(3);
  std::normal_distribution<double> spread(80.0, 2.0);
  std::vector<double> normal_mu(600);
  for (double& m : normal_mu) m = spread(rng);
  const auto groups = Trainings(normal_mu, 2, 1.0, 7);
  const NoiseModel m = EstimateNoise(groups);
  CHECK(m.icc == Approx(0.8).margin(0.05));
  CHECK(NormalTauCeiling(m.icc, 1) == Approx(TrueCeiling(normal_mu, 1, 1.0, 9)).margin(0.03));
}

TEST_CASE("the noise model needs replicates; single trainings add to the spread only") {
  CHECK(std::isnan(EstimateNoise({{1.0}, {2.0}, {3.0}}).noise_sd));
  CHECK(std::isnan(SimulatedTauCeiling({{1.0}, {2.0}, {3.0}}, 1)));
  const NoiseModel m = EstimateNoise({{1.0, 1.2}, {2.0, 2.2}, {3.0}, {4.0}});
  CHECK(m.networks == 4);
  CHECK(m.replicated == 2);
  CHECK(m.noise_sd == Approx(std::sqrt(0.02)));
}

TEST_CASE("bootstrap intervals of Kendall tau") {
  std::vector<double> x, y;
  std::mt19937_64 rng(1);
  std::normal_distribution<double> n(0.0, 1.0);
  for (int i = 0; i < 200; ++i) {
    x.push_back(n(rng));
    y.push_back(x.back() + n(rng));
  }
  const TauInterval t = BootstrapKendallTau(x, y, 500, 0.95, 3);
  CHECK(t.tau == Approx(KendallTau(x, y)));
  CHECK(t.lo < t.tau);
  CHECK(t.hi > t.tau);
  // tau's standard error at n = 200 and tau ~ 0.5 is ~0.04: the 95% interval is ~0.15 wide.
  CHECK(t.hi - t.lo > 0.08);
  CHECK(t.hi - t.lo < 0.25);
  const TauInterval again = BootstrapKendallTau(x, y, 500, 0.95, 3);
  CHECK(again.lo == t.lo);
  CHECK(again.hi == t.hi);
  const TauInterval perfect = BootstrapKendallTau(x, x, 100);
  CHECK(perfect.lo == 1.0);
  CHECK(perfect.hi == 1.0);
  const TauInterval tiny = BootstrapKendallTau({1.0, 2.0}, {1.0, 2.0});
  CHECK(std::isnan(tiny.lo));
}

TEST_CASE("stratified samples span the accuracy range, in a shuffled order") {
  const space::Space space = space::Space::Load(testing::BenchSpacePath());
  const auto nets = Networks(space, 100);
  ProxyRecipe bench;
  bench.dataset = "cifar10";
  AccuracyData ref{"ref.csv", {}};
  for (size_t i = 0; i < nets.size(); ++i) {
    ref.rows.push_back(Row(space, nets[i], 0, 50.0 + i * 0.4, bench));
    ref.rows.push_back(Row(space, nets[i], 1, 50.0 + i * 0.4 + 0.1, bench));
  }
  const auto picked = StratifiedSample(ref, 10, 0);
  REQUIRE(picked.size() == 10);
  const auto means = MeanAccuracy(ref);
  // One network from each tenth of the range.
  std::set<int> strata;
  for (const auto& e : picked) strata.insert(static_cast<int>((means.at(e) - 50.0) / 0.4) / 10);
  CHECK(strata.size() == 10);
  // Not sorted by accuracy (shuffled), and the same for the same seed.
  bool sorted = true;
  for (size_t i = 1; i < picked.size(); ++i)
    sorted = sorted && means.at(picked[i - 1]) < means.at(picked[i]);
  CHECK_FALSE(sorted);
  CHECK(StratifiedSample(ref, 10, 0) == picked);
  CHECK(StratifiedSample(ref, 10, 1) != picked);
  CHECK(StratifiedSample(ref, 100, 0).size() == 100);
  CHECK_THROWS_AS(StratifiedSample(ref, 101, 0), InputError);
}

TEST_CASE("learning curves: written, read back, and checked") {
  const space::Space space = space::Space::Load(testing::BenchSpacePath());
  const std::string path =
      (fs::temp_directory_path() / ("dcnas-curve-" + std::to_string(::getpid()) + ".csv")).string();
  AccuracyRow r = Row(space, Networks(space, 1)[0], 0, 80.0, ProxyRecipe{});
  r.recipe.epochs = 3;
  r.val_curve = {61.5, 75.25, 80.0};
  {
    AccuracyAppender app(path);
    app.Append(r);
  }
  const auto data = ReadAccuracyData(path, &space);
  fs::remove(path);
  REQUIRE(data.rows.size() == 1);
  CHECK(data.rows[0].val_curve == r.val_curve);
  CHECK(FormatAccuracyRow(r).find(",61.5;75.25;80,\n") != std::string::npos);
  // A file written before the curve column takes rows in its own form.
  const std::string old_header = Join(CurvelessAccuracyColumns(), ",") + "\n";
  const std::string old_row = FormatAccuracyRow(r, CurvelessAccuracyColumns());
  CHECK(old_row.find("61.5") == std::string::npos);
  const auto old = ParseAccuracyData(old_header + old_row, "old.csv", &space);
  CHECK(old.rows[0].val_curve.empty());
  // A curve value that is not an accuracy names the line and column.
  std::string bad = FormatAccuracyRow(r);
  bad.replace(bad.find("75.25"), 5, "175.2");
  CHECK_THROWS_WITH(ParseAccuracyData(AccuracyHeader() + bad, "bad.csv", &space),
                    Catch::Contains("bad.csv:2") && Catch::Contains("val_curve"));
}

TEST_CASE("proxy validity: tau against the reference per label, baselines, seed noise") {
  const space::Space space = space::Space::Load(testing::BenchSpacePath());
  const auto nets = Networks(space, 40);
  ProxyRecipe bench;
  bench.dataset = "cifar10";
  ProxyRecipe proxy;
  proxy.epochs = 2;
  AccuracyData ref{"ref.csv", {}}, cand{"cand.csv", {}};
  for (size_t i = 0; i < nets.size(); ++i) {
    const double truth = 60.0 + i;
    ref.rows.push_back(Row(space, nets[i], 0, truth, bench));
    if (i >= 30) continue;  // the candidate trains a sample
    // Replicate 0 ranks exactly as the reference at the end, in reverse after epoch 1;
    // replicate 1 is the reverse throughout.
    AccuracyRow r0 = Row(space, nets[i], 0, 50.0 + i, proxy);
    r0.val_curve = {40.0 - i, 50.0 + i};
    AccuracyRow r1 = Row(space, nets[i], 1, 50.0 - i, proxy);
    r1.val_curve = {40.0, 50.0 - i};
    cand.rows.push_back(r0);
    cand.rows.push_back(r1);
  }
  const ValidityReport rep = ComputeValidity(ref, {cand}, {.draws = 200});
  REQUIRE(rep.rows.size() == 5);  // epoch 1, final 1 seed, final 2 seeds, params, flops
  CHECK(rep.rows[0].epochs == 1);
  CHECK(rep.rows[0].tau.tau == Approx(-1.0));
  CHECK(rep.rows[0].cost_s == Approx(5.0));  // half of the 10 s run
  CHECK(rep.rows[1].seeds == 1);
  CHECK(rep.rows[1].tau.tau == Approx(1.0));
  CHECK(rep.rows[1].networks == 30);
  CHECK(rep.rows[2].seeds == 2);
  CHECK(rep.rows[2].cost_s == Approx(20.0));
  CHECK(rep.rows[3].recipe == "params");
  CHECK(rep.rows[3].tau.tau == Approx(1.0));  // Row() makes params grow with accuracy
  CHECK(rep.rows[4].recipe == "flops");
  CHECK(std::isnan(rep.rows[4].tau.tau));  // all equal
  REQUIRE(rep.noise.size() == 1);
  CHECK(rep.noise[0].replicate_tau.tau == Approx(-1.0));
  CHECK(rep.ToText().find("seed noise of") != std::string::npos);
  CHECK(rep.ToCsv().find("cand.csv,") != std::string::npos);
  // The validity-cost curve: the candidate's per-epoch line named by its file, the params line
  // (FLOPs' tau is NaN: no line).
  const std::string svg = rep.ToSvg();
  CHECK(svg.find("<svg") != std::string::npos);
  CHECK(svg.find(">e1<") != std::string::npos);
  CHECK(svg.find(">cand<") != std::string::npos);
  // The seed-averaged label is constant here (tau NaN): no series for it.
  CHECK(svg.find("seeds averaged") == std::string::npos);
  CHECK(svg.find("params (free): 1.000") != std::string::npos);
  CHECK(svg.find("flops (free)") == std::string::npos);
  ValidityReport empty = rep;
  empty.rows.erase(empty.rows.begin(), empty.rows.begin() + 3);
  CHECK_THROWS_WITH(empty.ToSvg(), Catch::Contains("nothing") || Catch::Contains("no candidate"));
  // A candidate of two recipes, or of no shared network, is refused naming its file.
  AccuracyData mixed = cand;
  mixed.rows[1].recipe.epochs = 3;
  CHECK_THROWS_WITH(ComputeValidity(ref, {mixed}, {}), Catch::Contains("cand.csv"));
  AccuracyData other{"other.csv", {Row(space, nets[39], 0, 70.0, proxy)}};
  other.rows[0].encoding = nets[0];
  AccuracyData none{"none.csv", {}};
  CHECK_THROWS_WITH(ComputeValidity(ref, {none}, {}), Catch::Contains("none.csv"));
  CHECK_THROWS_WITH(ComputeValidity(ref, {other}, {}), Catch::Contains("fewer than 3"));
}

// Spearman's rho without ties by the textbook formula, 1 - 6 sum d^2 / (n (n^2 - 1)).
double Rho(const std::vector<double>& a, const std::vector<double>& b) {
  auto rank = [](const std::vector<double>& v) {
    std::vector<double> r(v.size());
    for (size_t i = 0; i < v.size(); ++i) {
      r[i] = 1;
      for (const double w : v) r[i] += w < v[i] ? 1 : 0;
    }
    return r;
  };
  const auto ra = rank(a), rb = rank(b);
  double d2 = 0;
  for (size_t i = 0; i < a.size(); ++i) d2 += (ra[i] - rb[i]) * (ra[i] - rb[i]);
  const double n = static_cast<double>(a.size());
  return 1.0 - 6.0 * d2 / (n * (n * n - 1.0));
}

TEST_CASE("partial Spearman correlation by hand") {
  const std::vector<double> x = {1, 2, 3, 4, 5, 6}, y = {2, 1, 4, 3, 6, 5}, z = {5, 1, 4, 2, 6, 3};
  const double xy = Rho(x, y), xz = Rho(x, z), yz = Rho(y, z);
  CHECK(PartialSpearman(x, y, z) ==
        Approx((xy - xz * yz) / std::sqrt((1 - xz * xz) * (1 - yz * yz))));
  // Given itself nothing is left; too few points are undefined.
  CHECK(std::isnan(PartialSpearman(x, y, x)));
  CHECK(std::isnan(PartialSpearman({1, 2, 3}, {1, 2, 3}, {3, 1, 2})));
}

TEST_CASE("zero-cost scores ranked against the reference, with the counts beside them") {
  const space::Space space = space::Space::Load(testing::BenchSpacePath());
  const auto nets = Networks(space, 30);
  ProxyRecipe bench;
  bench.dataset = "cifar10";
  AccuracyData ref{"ref.csv", {}};
  std::map<std::string, ZeroCostEntry> table;
  for (size_t i = 0; i < nets.size(); ++i) {
    ref.rows.push_back(Row(space, nets[i], 0, 60.0 + i, bench));
    ZeroCostEntry e;
    e.scores = {1.0 + i, 100.0 - i, 5.0, static_cast<double>(i % 2)};
    e.time_s = 0.5;
    table[nets[i]] = e;
  }
  const ValidityReport rep = ComputeValidity(ref, {}, {.draws = 100}, &table, "zc.csv");
  REQUIRE(rep.zero_cost.size() == 6);
  CHECK(rep.zero_cost[0].score == "synflow");
  CHECK(rep.zero_cost[0].tau.tau == Approx(1.0));
  CHECK(rep.zero_cost[1].tau.tau == Approx(-1.0));
  CHECK(std::isnan(rep.zero_cost[2].tau.tau));  // constant
  CHECK(rep.zero_cost[0].cost_s == Approx(0.5));
  CHECK(rep.zero_cost[4].score == "params");
  CHECK(std::isnan(rep.zero_cost[4].partial_given_params));
  CHECK(rep.ToText().find("zero-cost scores of zc.csv") != std::string::npos);
  std::map<std::string, ZeroCostEntry> elsewhere = {{"x", {}}};
  CHECK_THROWS_WITH(ComputeValidity(ref, {}, {}, &elsewhere, "other.csv"),
                    Catch::Contains("other.csv") && Catch::Contains("fewer than 3"));
}

}  // namespace
}  // namespace dcnas::proxy
