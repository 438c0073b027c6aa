// Speedups at equal accuracy: how the paper reads "N x faster at comparable accuracy". A baseline
// family's members with a published ImageNet top-1 (models/zoo/published_top1.h) form its
// accuracy-latency curve; every model of the other families with a published top-1 is compared
// with the baseline's latency at the candidate's top-1, read off that curve, instead of with a
// hand-picked member.
//
// The curve is the baseline's Pareto front (a member both slower and less accurate than another
// is dropped), interpolated linearly in top-1 and logarithmically in latency between the two
// members whose top-1 bracket the candidate's. A candidate outside the front's top-1 range has no
// value (the curve is not extrapolated).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/svg_chart.h"
#include "models/registry.h"
#include "models/zoo/published_top1.h"
#include "sim/engine.h"
#include "study/simulate_models.h"

namespace dcnas::study {

// One model on the accuracy-latency plane.
struct AccuracyLatency {
  std::string model;
  double top1 = 0.0;  // percent
  double latency_ms = 0.0;
};

// The Pareto front of `points` (top-1 up, latency down), by top-1 ascending.
std::vector<AccuracyLatency> AccuracyFront(std::vector<AccuracyLatency> points);

// The latency of `front` (AccuracyFront's order) at `top1`, or nothing outside its range.
std::optional<double> LatencyAtTop1(const std::vector<AccuracyLatency>& front, double top1);

struct EqualAccuracyRow {
  std::string model;
  std::optional<double> top1;  // none: the table has no published top-1 for it
  double latency_ms = 0.0;
  std::optional<double> baseline_ms;  // the baseline curve's latency at top1
  std::optional<double> speedup;      // baseline_ms / latency_ms
};

struct EqualAccuracyFamily {
  std::string family;
  std::vector<EqualAccuracyRow> rows;     // the family's members, in zoo order
  std::optional<double> geomean_speedup;  // over the rows that have a speedup
  size_t compared = 0;                    // rows with a speedup
};

struct EqualAccuracy {
  std::string baseline;
  std::vector<EqualAccuracyRow> baseline_rows;  // every baseline member (no baseline_ms, speedup)
  std::vector<AccuracyLatency> curve;           // the baseline's front
  std::vector<EqualAccuracyFamily> families;    // the others, in the order given
};

// Simulates every member of `families` on `setup` (the first family is the baseline) and compares
// the others with it at equal published top-1. Throws InputError for an unknown family, fewer
// than two families, or a baseline with fewer than two members that have a published top-1.
EqualAccuracy CompareAtEqualAccuracy(const std::vector<std::string>& families,
                                     const sim::SimSetup& setup, const RunOptions& options,
                                     const models::ModelRegistry& registry,
                                     const std::vector<models::PublishedTop1>& published);

// As `dcnas compare --at-equal-accuracy --format json` prints it.
nlohmann::json EqualAccuracyToJson(const EqualAccuracy& result);

// The accuracy-latency chart (the paper's Figure 1 shape): each family's members with a published
// top-1 as a line of points, x the top-1, y the latency per batch (log); `title` on top.
Chart EqualAccuracyChart(const EqualAccuracy& result, const std::string& title);

}  // namespace dcnas::study
