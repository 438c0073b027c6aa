// One architecture search end to end: a strategy (search/strategy.h) asks, the objectives
// (search/objectives.h) score, the reward combines accuracy and latency, and every told result is
// journaled (search/journal.h) so a killed search resumes where it stopped with the same result.
//
//   RUN_DIR/journal.jsonl   header (space, configuration) + one line per evaluation
//   RUN_DIR/pareto.csv      the Pareto front (accuracy up, latency down) of all evaluated points
//   RUN_DIR/pareto.svg      every evaluated point, the front, the reference networks and the target
//   RUN_DIR/best.json       the best-reward architecture's layer graph (models/graph_json.h)
//   RUN_DIR/best.txt        its encoding, scores, the op each stage chose and its block strings
//   RUN_DIR/summary.json    configuration, evaluations, the best architecture, the front's size,
//                           the references (search/references.h) and the fastest point at least
//                           as accurate as each
//
// Each round asks `in_flight` candidates (32 for `predictor`, whose asks score a whole pool),
// scores them (on `threads` threads) and tells them in asking order, so the search depends only
// on the seed, `in_flight` and the scores:
// a resume re-creates the strategy, re-asks and re-tells the journaled results in order (each
// re-asked encoding must equal the journaled one), then continues to the budget.
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
#include "space/space.h"

namespace dcnas::search {

struct SearchOptions {
  std::string strategy = "evolution";  // a MakeStrategy name
  uint64_t seed = 0;
  int64_t budget = 0;  // evaluations
  double target_ms = 0.0;
  double w = kMnasSoftExponent;  // MnasReward's exponent (soft reward)
  bool hard = false;             // HardReward instead
  bool resume = false;           // continue RUN_DIR/journal.jsonl
  // Candidates asked per round before any of them is told (asynchronous search; part of the
  // configuration, as it changes the search). `predictor` asks kPredictorAskBatch regardless.
  int in_flight = 1;
  // Threads that score a round's candidates side by side (each with its own latency objective):
  // the result does not depend on it.
  int threads = 1;
  // The simulated setup, when there is one: best.json's graph is built at its batch and precision
  // (without one, at batch 1 and fp32).
  const sim::SimSetup* setup = nullptr;
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

// Asks per round of the predictor strategy (each round scores a pool of StrategyOptions::pool_size
// candidates).
inline constexpr int kPredictorAskBatch = 32;

struct SearchPoint {
  uint64_t id = 0;
  space::Encoding encoding;
  double accuracy = 0.0;
  double latency_ms = 0.0;
  double reward = 0.0;
};

struct SearchProgress {
  int64_t evaluations = 0;  // told so far, replayed ones included
  int64_t replayed = 0;     // taken from the journal
  int64_t budget = 0;
  double best_reward = 0.0;
};
using ProgressFn = std::function<void(const SearchProgress&)>;

// NOLINTNEXTLINE(bugprone-exception-escape): clang-tidy 14 flags the implicit members of json.
struct SearchResult {
  nlohmann::json header;            // the journal's header (space and configuration)
  std::vector<SearchPoint> points;  // every evaluation, in telling order
  int64_t replayed = 0;
  size_t best = 0;            // index into points: highest reward, earliest on ties
  std::vector<size_t> front;  // indices into points: the Pareto front, distinct encodings,
                              // by latency ascending
  std::vector<Reference> references;
  std::vector<ReferenceComparison> comparisons;  // points: indices into `points`
};

// The reward of one scored architecture under `options` (MnasReward or HardReward).
double SearchReward(const SearchOptions& options, double accuracy, double latency_ms);

// The configuration recorded in the journal: strategy, seed, budget, reward, objectives.
nlohmann::json SearchConfig(const SearchOptions& options, const AccuracyObjective& accuracy,
                            const LatencyObjective& latency);

// The worker side of a distributed search: simulates the candidate whose encoding text is the
// payload and returns its latency and full-size counts (JSON).
exec::WorkHandler SearchWorker(const space::Space& space, LatencyObjective& latency);

// Runs (or with options.resume continues) the search in `run_dir` (created if missing) and
// writes its outputs. Throws InputError for a bad option (unknown strategy, target <= 0, budget
// < 1), a journal that exists without resume, or one of another space or configuration.
SearchResult RunSearch(const space::Space& space, const SearchOptions& options,
                       AccuracyObjective& accuracy, LatencyObjective& latency,
                       const std::string& run_dir, const ProgressFn& progress = {});

// Writes pareto.csv, pareto.svg, best.json, best.txt and summary.json (atomically) for a result.
void WriteSearchOutputs(const space::Space& space, const SearchOptions& options,
                        const SearchResult& result, const std::string& run_dir);

}  // namespace dcnas::search
