// Surrogate prediction throughput: a 5-member bagged ensemble of 300 trees each (depth 6, no
// early stopping) on 100 one-hot features (20 slots x 5 choices, like an encoded architecture),
// predicting mean and std for batches of 1 and 4,096 candidates on one thread. The ensemble is
// trained once, before the first benchmark, on 5,000 synthetic rows.
#include <benchmark/benchmark.h>

#include <random>
#include <vector>

#include "surrogate/ensemble.h"

namespace {

namespace sur = dcnas::surrogate;

constexpr int kSlots = 20;
constexpr int kChoices = 5;
constexpr int kFeatures = kSlots * kChoices;

struct Problem {
  sur::Matrix x;
  std::vector<float> y;
};

Problem OneHot(std::size_t rows, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<double> effect(kFeatures);
  std::normal_distribution<double> n(0.0, 1.0);
  std::mt19937_64 effect_rng(12345);
  for (auto& e : effect) e = n(effect_rng);
  Problem p{sur::Matrix(rows, kFeatures), std::vector<float>(rows)};
  for (std::size_t r = 0; r < rows; ++r) {
    double y = 70.0;
    int previous = 0;
    for (int s = 0; s < kSlots; ++s) {
      const int c = static_cast<int>(rng() % kChoices);
      p.x.at(r, s * kChoices + c) = 1.0f;
      y += 0.3 * effect[s * kChoices + c] + (s > 0 && c == previous ? 0.2 : 0.0);
      previous = c;
    }
    p.y[r] = static_cast<float>(y + 0.2 * n(rng));
  }
  return p;
}

const sur::Ensemble& Model() {
  static const sur::Ensemble kEnsemble = [] {
    const Problem train = OneHot(5000, 1);
    sur::EnsembleParams params;
    params.members = 5;
    params.seed = 7;
    params.member.max_rounds = 300;
    params.member.early_stopping_rounds = 0;
    params.member.max_depth = 6;
    params.member.nthread = 1;
    return sur::Ensemble::Train({train.x.view(), train.y}, {}, params);
  }();
  return kEnsemble;
}

void EnsemblePredict(benchmark::State& state) {
  const auto& ensemble = Model();
  const auto batch = static_cast<std::size_t>(state.range(0));
  const Problem candidates = OneHot(batch, 2);
  std::vector<float> mean(batch), stddev(batch);
  for (auto _ : state) {
    ensemble.Predict(candidates.x.view(), mean, stddev);
    benchmark::DoNotOptimize(mean.data());
    benchmark::DoNotOptimize(stddev.data());
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * batch));
  state.counters["trees"] =
      static_cast<double>(ensemble.members().size() * ensemble.members().front().num_rounds());
}
BENCHMARK(EnsemblePredict)->Arg(1)->Arg(64)->Arg(4096)->Unit(benchmark::kMicrosecond);

// The same ensemble through XGBoost's own in-place predictor (XGBoosterPredictFromDense), for
// comparison with the compiled Forest above.
void EnsemblePredictXgboost(benchmark::State& state) {
  const auto& ensemble = Model();
  const auto batch = static_cast<std::size_t>(state.range(0));
  const Problem candidates = OneHot(batch, 2);
  std::vector<float> out(batch);
  for (auto _ : state) {
    for (const auto& member : ensemble.members()) {
      member.booster().Predict(candidates.x.view(), out);
      benchmark::DoNotOptimize(out.data());
    }
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * batch));
}
BENCHMARK(EnsemblePredictXgboost)->Arg(1)->Arg(4096)->Unit(benchmark::kMicrosecond);

void MemberPredict(benchmark::State& state) {
  const auto& member = Model().members().front();
  const auto batch = static_cast<std::size_t>(state.range(0));
  const Problem candidates = OneHot(batch, 3);
  std::vector<float> out(batch);
  for (auto _ : state) {
    member.Predict(candidates.x.view(), out);
    benchmark::DoNotOptimize(out.data());
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * batch));
}
BENCHMARK(MemberPredict)->Arg(1)->Arg(4096)->Unit(benchmark::kMicrosecond);

}  // namespace

BENCHMARK_MAIN();
