// Strategy comparison: the same objectives searched by several strategies, each with several
// seeds and budgets, every search a resumable run of its own (search/run.h) under one directory.
// Budgets count distinct networks (search/run.h). Reports the best reward each found: per strategy
// and budget the median, the quartiles and the range over the seeds, as a CSV of the runs, a text
// table and an SVG chart.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "search/objectives.h"
#include "search/run.h"
#include "space/space.h"

namespace dcnas::search {

struct CompareOptions {
  std::vector<std::string> strategies = {"random", "evolution", "rl", "nsga2", "predictor"};
  std::vector<int64_t> budgets = {100, 300, 1000};
  int seeds = 10;  // seeds 0 .. seeds-1
  // reward, target, in_flight, threads, strategy parameters (strategy/seed/budget set here; each
  // strategy takes its own parameters, StrategyParameters)
  SearchOptions search;
};

struct CompareRun {
  std::string strategy;
  int64_t budget = 0;
  uint64_t seed = 0;
  double best_reward = 0.0;
  double best_accuracy = 0.0;
  double best_latency_ms = 0.0;
  int64_t evaluated = 0;  // distinct networks (fewer than the budget when the run stopped early)
  int64_t repeats = 0;    // repeat proposals, answered from earlier results (not charged)
};

struct CompareCell {
  std::string strategy;
  int64_t budget = 0;
  double median = 0.0, q1 = 0.0, q3 = 0.0, min = 0.0, max = 0.0;
};

struct CompareResult {
  std::vector<CompareRun> runs;    // strategy, budget, seed order
  std::vector<CompareCell> cells;  // strategy, budget order
};

// Runs (or, for runs whose journal exists, resumes) every search under `dir`
// (dir/STRATEGY-bBUDGET-sSEED/) and writes dir/runs.csv, dir/comparison.txt and
// dir/comparison.svg. `progress` is called after each run with (done, total).
CompareResult CompareStrategies(const space::Space& space, const CompareOptions& options,
                                AccuracyObjective& accuracy, LatencyObjective& latency,
                                const std::string& dir,
                                const std::function<void(size_t, size_t)>& progress = {});

// The text table: rows per strategy, columns per budget ("median [q1, q3] (min..max)").
std::string FormatComparison(const CompareResult& result);

}  // namespace dcnas::search
