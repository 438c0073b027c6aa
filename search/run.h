// One architecture search end to end: a strategy (search/strategy.h) asks, the objectives
// (search/objectives.h) score, the reward combines accuracy and latency, and every told result is
// journaled (search/journal.h) so a killed search resumes where it stopped with the same result.
//
//   RUN_DIR/journal.jsonl   header (space, configuration) + one line per evaluation
//   RUN_DIR/pareto.csv      the Pareto front (accuracy up, latency down) of all evaluated points
//   RUN_DIR/pareto.svg      every evaluated point, the front, the reference networks and the target
//   RUN_DIR/best.json       the best-reward architecture's layer graph (models/graph_json.h)
//   RUN_DIR/best.txt        its encoding, scores, the op each stage chose and its block strings
//   RUN_DIR/summary.json    configuration, evaluations (distinct networks), repeats, the best
//                           architecture, the front's size,
//                           the references (search/references.h) and the fastest point at least
//                           as accurate as each
//
// Each round asks `in_flight` candidates, scores them (on `threads` threads) and tells them in
// asking order, so the search depends only on the seed, `in_flight`, the strategy's parameters and
// the scores: a resume re-creates the strategy, re-asks and re-tells the journaled results in
// order (each re-asked encoding must equal the journaled one), then continues to the budget.
//
// The budget counts distinct networks. A proposal whose canonical encoding was evaluated before in
// this run (or earlier in the same round) is a repeat: it is answered from the earlier result (the
// strategy is told the same accuracy, latency and reward; no objective is called), not charged to
// the budget, not journaled, and counted (SearchResult::repeats, SearchProgress::repeats,
// summary.json's "repeats"). A resume re-derives the repeats: the strategy re-asks them and they
// are answered from the results replayed so far, exactly as in the first run, so the journal holds
// one line per distinct network and a run killed anywhere resumes to the uninterrupted result. The
// journal's header says so (version 2, config.budget_counts "distinct networks"): a journal of the
// version-1 semantics (every evaluation charged) is refused. A strategy that proposes only
// networks evaluated before, kMaxRepeatsInARow times in a row (a tiny space exhausted, a
// population converged), or nothing at all, ends the search early: SearchResult::stopped says why,
// and the outputs are written as for a finished run.
#pragma once

#include <cstdint>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "exec/executor.h"
#include "search/objectives.h"
#include "search/references.h"
#include "search/strategy.h"
#include "sim/engine.h"
#include "sim/intervals.h"
#include "space/space.h"

namespace dcnas::search {

struct SearchOptions {
  std::string strategy = "evolution";  // a MakeStrategy name
  uint64_t seed = 0;
  // The strategy's parameters (those of StrategyParameters(strategy) go into the journal's
  // configuration); the seed is `seed`, and the prior is set by RunSearch (`prior`).
  StrategyOptions params;
  // predictor: the accuracy objective's own prediction (PredictWithStd: the surrogate) and the
  // latency, as the reward, is the prior its model learns the residual of.
  bool prior = false;
  int64_t budget = 0;  // distinct networks
  double target_ms = 0.0;
  double w = kMnasSoftExponent;  // MnasReward's exponent (soft reward)
  bool hard = false;             // HardReward instead
  // Reward = accuracy, no latency (`--latency none`: a NoLatency objective; target_ms, w and
  // hard unused).
  bool accuracy_only = false;
  bool resume = false;  // continue RUN_DIR/journal.jsonl
  // Candidates asked per round before any of them is told (asynchronous search; part of the
  // configuration, as it changes the search).
  int in_flight = 1;
  // Threads that score a round's candidates side by side (each with its own latency objective):
  // the result does not depend on it.
  int threads = 1;
  // The simulated setup, when there is one: best.json's graph is built at its batch and precision
  // (without one, at batch 1 and fp32).
  const sim::SimSetup* setup = nullptr;
  // Prediction intervals of the simulated latencies in best.txt and summary.json (with `setup`;
  // null: none, as for a table of measured latencies).
  const sim::ErrorModel* intervals = nullptr;
  // Zoo models scored beside the search (search/references.h); not part of the journal.
  std::vector<std::string> references = DefaultReferences();
  // Where latencies are computed: null, here on `threads` threads; else on the executor's
  // workers (SearchWorker), a round's candidates spread over them. The accuracies of a round are
  // predicted here in one batch either way, so the journal does not depend on it.
  exec::Executor* executor = nullptr;
  // Asynchronous search (needs `executor`): `in_flight` candidates are always out; each result
  // is told, journaled and replaced by a new ask as soon as it arrives, in arrival order (no
  // round barrier). The journal's order is then the arrival order, so the search depends on
  // timing; a resume replays that order and is exact. Recorded in the configuration.
  bool asynchronous = false;
};

// Proposals in a row, all of networks evaluated before, after which a search stops early.
inline constexpr int64_t kMaxRepeatsInARow = 10000;

struct SearchPoint {
  uint64_t id = 0;
  space::Encoding encoding;
  double accuracy = 0.0;
  double latency_ms = 0.0;
  double reward = 0.0;
};

struct SearchProgress {
  int64_t evaluations = 0;  // distinct networks told so far, replayed ones included
  int64_t replayed = 0;     // taken from the journal
  int64_t repeats = 0;      // proposals answered from an earlier result (not charged)
  int64_t budget = 0;
  double best_reward = 0.0;
};
using ProgressFn = std::function<void(const SearchProgress&)>;

// NOLINTNEXTLINE(bugprone-exception-escape): clang-tidy 14 flags the implicit members of json.
struct SearchResult {
  nlohmann::json header;            // the journal's header (space and configuration)
  std::vector<SearchPoint> points;  // every distinct network evaluated, in telling order
  int64_t replayed = 0;
  int64_t repeats = 0;        // proposals of networks evaluated before (told, not charged)
  std::string stopped;        // why the search ended before its budget; empty when it did not
  size_t best = 0;            // index into points: highest reward, earliest on ties
  std::vector<size_t> front;  // indices into points: the Pareto front, distinct encodings,
                              // by latency ascending
  std::vector<Reference> references;
  std::vector<ReferenceComparison> comparisons;  // points: indices into `points`
};

// The reward of one scored architecture under `options` (MnasReward or HardReward).
double SearchReward(const SearchOptions& options, double accuracy, double latency_ms);

// The configuration recorded in the journal: strategy, its parameters, seed, budget (and what it
// counts), reward, objectives.
nlohmann::json SearchConfig(const SearchOptions& options, const AccuracyObjective& accuracy,
                            const LatencyObjective& latency);

// The worker side of a distributed search: simulates the candidate whose encoding text is the
// payload and returns its latency and full-size counts (JSON).
exec::WorkHandler SearchWorker(const space::Space& space, LatencyObjective& latency);

// The latency objective of an accuracy-only search (SearchOptions::accuracy_only): no latency
// (LatencyMs is 0, no model timings), configuration {"kind": "none"}.
std::unique_ptr<LatencyObjective> MakeNoLatency();

// The strategy's parameters as recorded in the configuration (those it takes, effective values).
nlohmann::json StrategyConfig(const std::string& strategy, const StrategyOptions& params);

// Runs (or with options.resume continues) the search in `run_dir` (created if missing) and
// writes its outputs. Throws InputError for a bad option (unknown strategy, target <= 0, budget
// < 1, a strategy parameter out of range), a journal that exists without resume, or one of another
// space, configuration or journal version.
SearchResult RunSearch(const space::Space& space, const SearchOptions& options,
                       AccuracyObjective& accuracy, LatencyObjective& latency,
                       const std::string& run_dir, const ProgressFn& progress = {});

// Writes pareto.csv, pareto.svg, best.json, best.txt and summary.json (atomically) for a result.
void WriteSearchOutputs(const space::Space& space, const SearchOptions& options,
                        const SearchResult& result, const std::string& run_dir);

}  // namespace dcnas::search
