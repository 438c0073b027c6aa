// Search strategies behind one ask-tell interface, and the MnasNet reward.
//
// A strategy proposes architectures of a search space and learns from their scores; it never
// knows where the scores come from (simulator, surrogate, a table, real training):
//
//   auto strategy = search::MakeStrategy("evolution", space, {.seed = 1});
//   while (evaluated < budget) {
//     for (const search::Candidate& c : strategy->Ask(8)) {
//       const double acc = Accuracy(c.encoding), lat = Latency(c.encoding);
//       strategy->Tell(c, {.reward = search::MnasReward(acc, lat, target), .objectives = {acc,
//       -lat}});
//       ++evaluated;
//     }
//   }
//
// Protocol
// - `Ask(n)` hands out up to `n` new candidates, each with a fresh id (0, 1, 2, ... in asking
//   order) and a valid canonical encoding of the space. It returns fewer than `n` only when the
//   strategy waits for scores: `nsga2` hands out one generation and selects once the whole
//   generation is told (an empty answer means "tell first").
// - `Tell(candidate, evaluation)` reports the score of an asked candidate. Tells may come in any
//   order and long after their asks (an asynchronous worker pool keeps several candidates in
//   flight). Telling an id that was never asked or was told already, a candidate whose encoding
//   differs from the one handed out, a non-finite reward or objective, or objectives whose count
//   differs from earlier tells throws InputError and leaves the strategy unchanged.
// - Rewards and objectives are maximised. `reward` drives the single-objective strategies;
//   `objectives` (e.g. {accuracy, -latency}) drive `nsga2` and may be empty for the others.
// - Determinism: every strategy draws from one std::mt19937_64 seeded with
//   StrategyOptions::seed. The same seed and the same sequence of Ask/Tell calls (same n, same
//   tells in the same order) give the same candidates, bit for bit; this is what a journal replays
//   on resume. Ask and Tell lock one mutex, so worker threads may call them directly, but the
//   order they reach the strategy then decides the search.
// - A strategy keeps a reference to its Space: the space must outlive it.
//
// Strategies (MakeStrategy names)
// - `random`: uniform samples (Space::Sample); an encoding asked before is redrawn, up to
//   `random_retries` times, so a search does not pay twice for one network. Parameters: none.
// - `evolution`: regularized evolution (Real et al., AAAI 2019). The first `start` asks (default:
//   population / 4) are random samples of networks not asked before; afterwards each ask runs a
//   tournament of `tournament` members drawn without replacement from the population (every told
//   candidate, newest last, at most `population`), and mutates the winner in `mutations` choices
//   (Space::Mutate). A child asked before is bred again (a new tournament and mutation, up to
//   kChildRetries times), then replaced by a random network not asked before: a duplicate costs
//   nothing (run.h answers it from the earlier result) but teaches nothing either. Each tell
//   appends to the population and, once it holds more than `population`, removes its oldest
//   member (aging), so it works asynchronously: asks use whatever has been told so far (random
//   samples until the first tell). Parameters: population, tournament, mutations, start.
// - `rl`: REINFORCE over a factorized policy: one softmax per choice position, logits start at 0
//   (uniform). An ask samples every position from its softmax, canonicalises and redraws invalid
//   architectures (Space::IsValid; after `rl_max_redraws` a uniform sample). A tell moves the
//   logits of the sampled (raw, pre-canonical) indices by
//   learning_rate * A * (onehot - p) + learning_rate * entropy_weight * dH/dlogits, with the
//   advantage A = reward - baseline and the baseline an exponential moving average of the
//   rewards (decay `baseline_decay`, MnasNet's 0.95; it starts at the first reward). With
//   `rl_normalize_advantage` (the default) A is divided by a moving standard deviation of
//   reward - baseline (same decay; A = 0 while it is 0), which makes the learning rate independent
//   of the reward's scale: MnasNet-style rewards differ by a few hundredths, and unnormalised a
//   learning rate of 0.05 moves the logits by ~1e-3 per tell (on the synthetic benchmark of
//   tests/search/strategy_test.cc, rl without it is no better than random at 300 evaluations).
//   The probabilities are those of the current policy at tell time (asynchronous REINFORCE, no
//   importance weights); PPO's clipping is not implemented. Parameters (of StrategyParameters):
//   none (its policy starts uniform: random proposals come first by construction).
// - `nsga2`: NSGA-II (Deb et al., 2002) on Evaluation::objectives. Generation 0 is `population`
//   random samples; once a generation is fully told, parents and offspring are ranked by fast
//   non-dominated sorting and crowding distance and the best `population` survive; the next
//   generation is bred by binary tournaments (lower rank, then larger crowding distance), uniform
//   crossover with probability `crossover_probability` (Space::Crossover) and a mutation of
//   `mutations` choices (Space::Mutate), redrawing children evaluated before (a few tries).
//   Parameters: population (the generation size), mutations.
// - `predictor`: predictor-guided search that learns (BANANAS, White et al., AAAI 2021; NPENAS,
//   Wei et al., 2022). The first `start` asks are random networks not asked before; afterwards
//   each ask refits its own model (search/predictor_model.h: an ensemble of `ensemble` members,
//   ridge (the default), regression trees or both on the one-hot of the canonical encoding, each
//   on a bootstrap sample) on every distinct network told so far (encoding -> reward), builds
//   `candidates` candidates (mutations in 1..`mutations` choices of the `elite` best told networks,
//   taken in turn, and a tenth random samples; none asked before) and hands out the `n` best by the
//   acquisition: the upper confidence bound (`ucb`, the default: mean + kappa x std) or
//   independent Thompson sampling (`ts`: mean + std x a standard normal draw per candidate). With
//   StrategyOptions::prior (e.g. the surrogate's prediction of the reward) the model learns the
//   residual reward - prior and predicts prior + residual. It needs no uncertainty from the
//   accuracy source: any table, surrogate or training works. Parameters: start, mutations,
//   candidates, elite, ensemble, model, acquisition, kappa.
//
// MnasNet's reward (Tan et al., CVPR 2019): ACC * (LAT / T)^w, soft with w = -0.07 on both sides
// of the target T (doubling the latency costs ~5% relative accuracy), or hard: w = 0 under T and
// -1 above.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <random>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "search/predictor_model.h"
#include "space/space.h"

namespace dcnas::search {

// One proposed architecture: the id the strategy knows it by, and its canonical encoding.
struct Candidate {
  uint64_t id = 0;
  space::Encoding encoding;
};

// The score of a candidate (maximised): the scalar reward and, for Pareto search, objectives.
struct Evaluation {
  double reward = 0.0;
  std::vector<double> objectives;
};

// Scores a pool of encodings: fills `mean` and `std` (resized by the callee to the pool's size).
using PredictFn = std::function<void(const std::vector<space::Encoding>& encodings,
                                     std::vector<double>& mean, std::vector<double>& std)>;

// The predictor's acquisition: independent Thompson sampling or the upper confidence bound.
enum class Acquisition { kThompson, kUcb };
std::string AcquisitionName(Acquisition a);             // "ts", "ucb"
Acquisition ParseAcquisition(const std::string& name);  // throws InputError naming --acquisition

// Defaults tuned with `dcnas search protocol` on NAS-Bench-Macro (3,969 networks, budgets of
// ~1,000 distinct networks; search/README.md has the figures).
struct StrategyOptions {
  uint64_t seed = 0;
  int mutations = 1;  // evolution, nsga2: choices changed per mutation; predictor: at most
  // evolution, predictor: random proposals before the strategy's own (unset: evolution
  // population / 4, at least 1; predictor kPredictorStart).
  std::optional<int> start;
  // random, evolution (its random phase), nsga2 (generation 0): redraws of an encoding asked
  // before.
  int random_retries = 100;
  // evolution: population P and tournament size S (Real et al. use P = 100 and S = 25 on CIFAR
  // with 20,000 models; at budgets of ~1,000 distinct networks P = 20, S = P / 2 and P / 4 random
  // networks first find NAS-Bench-Macro's optimum in about half the networks of P = 20, S = 5,
  // P random first: search/README.md); nsga2: the generation size is `population`.
  int population = 20;
  std::optional<int> tournament;  // unset: population / 2, at least 1
  // rl
  double learning_rate = 0.05;
  double baseline_decay = 0.95;  // MnasNet's moving-average baseline
  double entropy_weight = 0.0;
  bool rl_normalize_advantage = true;  // A / moving std of (reward - baseline)
  int rl_max_redraws = 100;
  // nsga2
  double crossover_probability = 0.9;
  // predictor
  int candidates = 200;  // candidates scored per ask
  int elite = 10;        // best told networks whose mutations are candidates
  PredictorModelOptions model;
  Acquisition acquisition = Acquisition::kUcb;
  double kappa = 1.0;  // ucb
  PredictFn prior;     // optional: the prior mean and std of the reward of each encoding
};

// The tournament size evolution uses: StrategyOptions::tournament, else population / 2 (>= 1).
int TournamentSize(const StrategyOptions& options);
// The random proposals evolution starts with: StrategyOptions::start, else population / 4 (>= 1).
int EvolutionStart(const StrategyOptions& options);

// Random proposals of the predictor before its model is used, when StrategyOptions::start is unset.
inline constexpr int kPredictorStart = 10;

// The parameters (command-line option names, without "--") a strategy takes, in a fixed order:
// what `dcnas search` accepts for it and what its journal records. InputError for an unknown
// strategy (listing the valid ones).
std::vector<std::string> StrategyParameters(const std::string& name);

// Sets one of `strategy`'s parameters (a StrategyParameters name) in `options` from its text:
// integers for population, tournament, mutations, start, candidates, elite and ensemble, a number
// for kappa, a name for model and acquisition. Throws InputError naming the parameter for one the
// strategy does not take (listing those it does) or a value that does not parse; ranges are
// MakeStrategy's to check.
void SetStrategyParameter(StrategyOptions& options, const std::string& strategy,
                          const std::string& name, const std::string& value);

class Strategy {
 public:
  Strategy(const space::Space& space, const StrategyOptions& options);
  virtual ~Strategy() = default;
  Strategy(const Strategy&) = delete;
  Strategy& operator=(const Strategy&) = delete;

  virtual std::string_view name() const = 0;

  // Up to `n` new candidates (n >= 0; see the protocol above for when fewer come back).
  std::vector<Candidate> Ask(int n);
  // The score of an asked candidate; throws InputError on a protocol error (unchanged state).
  void Tell(const Candidate& candidate, const Evaluation& evaluation);

  uint64_t asked() const;
  uint64_t told() const;
  size_t pending() const;  // asked and not yet told

 protected:
  // Up to `n` encodings to hand out; the i-th gets id next_id() + i.
  virtual std::vector<space::Encoding> Propose(int n) = 0;
  // A validated tell (id known, finite values, consistent objectives).
  virtual void Observe(uint64_t id, const space::Encoding& encoding,
                       const Evaluation& evaluation) = 0;
  // Extra checks before a tell is accepted (e.g. nsga2 needs objectives); throws InputError.
  virtual void Check(const Evaluation& evaluation) const;

  const space::Space& space() const { return space_; }
  const StrategyOptions& options() const { return options_; }
  std::mt19937_64& rng() { return rng_; }
  uint64_t next_id() const { return next_id_; }

 private:
  const space::Space& space_;
  StrategyOptions options_;
  std::mt19937_64 rng_;
  mutable std::mutex mutex_;
  uint64_t next_id_ = 0;
  uint64_t told_ = 0;
  size_t objective_count_ = 0;
  bool objectives_seen_ = false;
  std::unordered_map<uint64_t, space::Encoding> pending_;
};

// The built-in strategies' names, in registry order: random, evolution, rl, nsga2, predictor.
std::vector<std::string> StrategyNames();
// The strategy called `name`; throws InputError for an unknown name (listing the valid ones and
// the closest) and for invalid options (naming the option and its value).
std::unique_ptr<Strategy> MakeStrategy(const std::string& name, const space::Space& space,
                                       const StrategyOptions& options);

// Indices (ascending) of the non-dominated points, every objective maximised: a point is dominated
// when another is at least as good in every objective and better in one (equal points are both
// kept). All points must have the same number of objectives; throws InputError otherwise or on NaN.
std::vector<size_t> ParetoFront(const std::vector<std::vector<double>>& objectives);

// Fast non-dominated sorting (Deb et al., 2002): the rank of every point (0: the Pareto front,
// 1: the front once rank 0 is removed, ...). Same input rules as ParetoFront.
std::vector<int> NonDominatedRanks(const std::vector<std::vector<double>>& objectives);

// MnasNet's soft exponent: -0.07 ~ log(1/1.05)/log(2), doubling the latency costs ~5% relative
// accuracy (Tan et al., CVPR 2019, section 3).
inline constexpr double kMnasSoftExponent = -0.07;

// ACC * (LAT / T)^w. Throws InputError for target <= 0, latency <= 0, accuracy < 0 or a
// non-finite argument.
double MnasReward(double accuracy, double latency, double target, double w = kMnasSoftExponent);
// MnasNet's hard constraint: ACC under or at the target, ACC * (LAT / T)^-1 above it.
double HardReward(double accuracy, double latency, double target);

}  // namespace dcnas::search
