// The NAS-benchmark protocol (`dcnas search protocol`): how a tabular benchmark such as
// NAS-Bench-Macro (Su et al., CVPR 2021) or NAS-Bench-101/201 is read. Every strategy searches the
// table with many seeds, the reward being the table's accuracy (no latency), and each run records
// how many distinct networks it evaluated until it found the table's optimum and until it found
// the first network of the table's top fraction (1%): medians, quartiles and hit rates within the
// budget per strategy, and the fraction of runs that found each target against the networks
// evaluated (an SVG chart).
//
// The runs are in memory (no journal) and use search/run.h's budget semantics: the budget counts
// distinct networks, a repeat proposal is told its earlier result and not charged, and a strategy
// that proposes only repeats kMaxRepeatsInARow times in a row ends its run. A run ends as soon as
// it has found the optimum (the first network of the top fraction is found by then too): what it
// would evaluate afterwards cannot change its record. Runs are spread over `threads` threads and
// each is a function of its strategy and seed only, so the result does not depend on the thread
// count.
#pragma once

#include <cstdint>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "search/objectives.h"
#include "search/strategy.h"
#include "space/space.h"

namespace dcnas::search {

struct ProtocolOptions {
  std::vector<std::string> strategies = StrategyNames();
  int seeds = 100;             // seeds 0 .. seeds-1 per strategy
  int64_t budget = 1000;       // distinct networks per run
  double top_fraction = 0.01;  // the second target: the best ceil(fraction x networks)
  int in_flight = 1;           // candidates asked per round (as SearchOptions::in_flight)
  StrategyOptions params;      // the strategies' parameters (each takes its own; seed per run)
  int threads = 1;
};

// The targets in a table: its best accuracy and the accuracy of its ceil(fraction x networks)-th
// best network (every network at least as accurate is in the top). Throws InputError naming the
// file when a row is a network the space cannot build (Space::IsValid: e.g. a kernel larger than
// its feature map at the space's resolution): no strategy could reach it, and a target there
// would be unreachable.
struct ProtocolTargets {
  size_t networks = 0;  // distinct canonical networks in the table
  double optimum = 0.0;
  size_t optimum_networks = 0;  // networks with the optimum's accuracy
  double top_threshold = 0.0;
  size_t top_networks = 0;  // networks at or above the threshold
};
ProtocolTargets FindTargets(const space::Space& space, const ObjectiveTable& table,
                            double top_fraction);

struct ProtocolRun {
  std::string strategy;
  uint64_t seed = 0;
  int64_t to_optimum = 0;  // distinct networks evaluated until the optimum; 0 when not found
  int64_t to_top = 0;      // ... until the first network of the top fraction; 0 when not found
  int64_t evaluated = 0;   // distinct networks the run evaluated
  int64_t repeats = 0;     // repeat proposals (not charged)
  std::string stopped;     // why it ended before the budget without the optimum; empty otherwise
  bool found_optimum() const { return to_optimum > 0; }
  bool found_top() const { return to_top > 0; }
};

// Order statistics of one target over a strategy's runs (type-7 quantiles); a run that missed the
// target counts as +infinity, and a quantile that would interpolate toward a miss is +infinity
// (past the budget).
struct ProtocolStat {
  double median = 0.0, q1 = 0.0, q3 = 0.0;
  double hit_rate = 0.0;  // runs that found the target within the budget
};

struct ProtocolCell {
  std::string strategy;
  ProtocolStat optimum, top;
  double mean_repeats = 0.0;
};

// NOLINTNEXTLINE(bugprone-exception-escape): clang-tidy 14 flags the implicit members of json.
struct ProtocolResult {
  ProtocolTargets targets;
  std::vector<ProtocolRun> runs;  // strategy, then seed order
  std::vector<ProtocolCell> cells;
};

// Runs the protocol on the table (its accuracies are the reward). Throws InputError for bad
// options (naming the option and value), a strategy proposing a network the table lacks (naming
// it and the file). `progress(done, total)` is called after each run, from the runs' threads but
// never concurrently.
ProtocolResult RunProtocol(const space::Space& space, const ObjectiveTable& table,
                           const ProtocolOptions& options,
                           const std::function<void(size_t, size_t)>& progress = {});

// The text table: per strategy, median [q1, q3] and hit rate for both targets.
std::string FormatProtocol(const ProtocolResult& result, const ProtocolOptions& options);

// Writes DIR/runs.csv, DIR/protocol.txt, DIR/summary.json and DIR/protocol.svg (atomically).
// `table_config` describes the table (file, SHA-256, rows) in summary.json.
void WriteProtocol(const space::Space& space, const ProtocolOptions& options,
                   const nlohmann::json& table_config, const ProtocolResult& result,
                   const std::string& dir);

}  // namespace dcnas::search
