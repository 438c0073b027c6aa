// Comparing model families side by side: members paired by suffix (b0 with b0, ...), latency of
// each, speedup over a baseline column and the geometric mean of the speedups.
#pragma once

#include <optional>
#include <string>

#include <nlohmann/json.hpp>
#include <utility>
#include <vector>

#include "models/registry.h"
#include "sim/engine.h"
#include "sim/intervals.h"
#include "study/simulate_models.h"

namespace dcnas::study {

// The models to compare: one column per family (or baseline and candidate), one row per member.
struct Lineup {
  std::vector<std::string> headers;  // column names: the families, or baseline/candidate
  std::vector<std::string> members;  // row labels: member suffixes, or "A:B"
  std::vector<std::vector<std::string>> models;  // models[column][row]: a zoo name
};

// A member's row label: its name less "FAMILY-" (efficientnet-b0 -> b0), or the whole name when it
// does not start so (resnet50 of resnet, deit-ti-16 of vit, timm:efficientnet_b0).
std::string MemberLabel(const std::string& family, const std::string& name);

// Pairs the members of `families` by their label (MemberLabel): a row for each member of the first
// family that every other family has as FAMILY-LABEL too (whole-name labels pair with nothing).
// Throws InputError for an unknown family or when no member is shared.
Lineup PairFamilyMembers(const std::vector<std::string>& families,
                         const models::ModelRegistry& registry);

// A two-column lineup (baseline, candidate), one row "A:B" per pair.
Lineup PairModels(const std::vector<std::pair<std::string, std::string>>& pairs);

// One column of a comparison: a lineup column on one setup, compared with a baseline column.
struct CompareColumn {
  std::string header;              // the lineup header, with "@ACCEL" when comparing two setups
  size_t lineup_column = 0;        // index into Lineup::models
  size_t setup = 0;                // index into the setups
  std::optional<size_t> baseline;  // the column this one is compared with; none for a baseline
  std::vector<double> latency_ms;  // per member
  std::vector<double> speedup;     // per member: baseline latency / latency (empty for a baseline)
  double geomean_speedup = 1.0;    // geometric mean of `speedup` (1 for a baseline)
  // Prediction intervals (AddIntervals; empty without): per member, of the latency and of the
  // speedup (its own interval: sim::IntervalModel::CrossChip or CrossModel), and of the geometric
  // mean (the geometric mean of the members' ends: as if every member erred alike, the widest).
  std::vector<sim::Interval> latency_interval;
  std::vector<sim::Interval> speedup_interval;
  std::optional<sim::Interval> geomean_interval;
};

// The columns for a lineup on `setup_names` (accelerator names): with one setup, every lineup
// column against the first; with two, each lineup column on the second against it on the first.
// Throws InputError for no setups or more than two.
std::vector<CompareColumn> CompareColumns(const Lineup& lineup,
                                          const std::vector<std::string>& setup_names);

// Per-member speedups baseline / latency; throws InternalError on different lengths.
std::vector<double> Speedups(const std::vector<double>& baseline_ms,
                             const std::vector<double>& latency_ms);

// exp(mean(ln x)) of positive values; throws InternalError when `values` is empty.
double GeometricMean(const std::vector<double>& values);

// Fills speedup and geomean_speedup of every column that has a baseline, from latency_ms.
void ComputeSpeedups(std::vector<CompareColumn>& columns);

// A simulated comparison.
struct Comparison {
  Lineup lineup;
  std::vector<CompareColumn> columns;
};

// Simulates every lineup column on its setup(s) (one cost cache per setup) and computes the
// speedups. Unknown model names throw InputError before anything is simulated.
Comparison Compare(const Lineup& lineup, const std::vector<sim::SimSetup>& setups,
                   const RunOptions& options, const models::ModelRegistry& registry);

// Fills the columns' intervals: a speedup of one model on two setups is a cross-chip ratio, of
// two models on one setup a cross-model ratio.
void AddIntervals(Comparison& cmp, const std::vector<sim::SimSetup>& setups, int batch,
                  const sim::IntervalModel& intervals);

// The comparison as `dcnas compare --format json` prints it: setups (accelerator, stack and
// `dtypes`, one per setup), batch, one row per member (per column: model, latency_ms and, against
// a baseline, speedup) and the geometric means.
nlohmann::json ComparisonToJson(const Comparison& cmp, const std::vector<sim::SimSetup>& setups,
                                const std::vector<std::string>& dtypes, int batch);

}  // namespace dcnas::study
