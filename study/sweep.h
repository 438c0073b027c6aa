// What-if sweeps: the grid of accelerator/stack/calibration overrides (every combination of each
// key's values) and one simulation per variant, with speedups and the share of time by bound.
#pragma once

#include <array>
#include <functional>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>
#include <vector>

#include "common/override.h"
#include "models/graph.h"
#include "sim/engine.h"
#include "sim/intervals.h"

namespace dcnas::study {

// One swept key and the values it takes, in order.
struct SweepAxis {
  std::string key;
  std::vector<std::string> values;
};

// Every combination of the axes' values (the first axis varies slowest); one variant, a list of
// overrides in axis order, per combination. No axes give one empty variant.
std::vector<std::vector<Override>> SweepGrid(const std::vector<SweepAxis>& axes);

// "key=value key=value": a variant's label.
std::string VariantLabel(const std::vector<Override>& variant);

// One simulated variant.
struct SweepRow {
  std::string label;
  std::vector<Override> overrides;
  sim::Report report;
  double speedup = 1.0;                             // first variant's latency / this latency
  std::array<double, sim::kNumBounds> bound_pct{};  // % of latency by sim::Bound
  // Prediction intervals (Sweep with an error model): the latency's (ms), and the speedup's over
  // the first variant.
  std::optional<sim::Interval> latency_interval;
  std::optional<sim::Interval> speedup_interval;
};

// Where the variants' setups come from: names or paths, as for sim::LoadSetup.
struct SweepTarget {
  std::string accelerator;
  std::string stack;
  std::string calibration;
};

// Progress of a sweep: variants done, of total (called every few seconds on a long sweep).
using SweepProgress = std::function<void(size_t done, size_t total)>;

// Simulates `graph` once per variant of `grid` on `target` with that variant's overrides; with
// `intervals`, each row's latency interval and its speedup's over the first variant (a what-if
// against its own chip: sim::IntervalModel::CrossChip). Throws InputError for an empty grid or a
// bad override.
std::vector<SweepRow> Sweep(const models::Graph& graph, const SweepTarget& target,
                            const std::vector<std::vector<Override>>& grid,
                            const sim::SimOptions& options,
                            const sim::IntervalModel& intervals = {},
                            const SweepProgress& progress = {});

// The share of a report's latency bound by `bound`, in percent.
double BoundPercent(const sim::Report& report, sim::Bound bound);

// The rows as `dcnas sweep --format json` prints them: one object per variant (variant, model,
// accelerator, latency_ms, throughput_img_per_s, speedup, <bound>_bound_pct).
nlohmann::json SweepToJson(const std::vector<SweepRow>& rows);

}  // namespace dcnas::study
