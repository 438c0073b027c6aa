#include "study/sweep.h"

#include <chrono>

#include "common/errors.h"
#include "common/progress.h"

namespace dcnas::study {

std::vector<std::vector<Override>> SweepGrid(const std::vector<SweepAxis>& axes) {
  std::vector<std::vector<Override>> variants{{}};
  for (const SweepAxis& axis : axes) {
    std::vector<std::vector<Override>> next;
    for (const auto& variant : variants) {
      for (const std::string& value : axis.values) {
        auto extended = variant;
        extended.push_back(Override{axis.key, value});
        next.push_back(std::move(extended));
      }
    }
    variants = std::move(next);
  }
  return variants;
}

std::string VariantLabel(const std::vector<Override>& variant) {
  std::string label;
  for (const Override& o : variant) label += (label.empty() ? "" : " ") + o.path + "=" + o.value;
  return label;
}

double BoundPercent(const sim::Report& report, sim::Bound bound) {
  return 100.0 * report.time_by_bound_s[static_cast<size_t>(bound)] / report.latency_s;
}

std::vector<SweepRow> Sweep(const models::Graph& graph, const SweepTarget& target,
                            const std::vector<std::vector<Override>>& grid,
                            const sim::SimOptions& options, const sim::IntervalModel& intervals,
                            const SweepProgress& progress) {
  if (grid.empty()) throw InputError("sweep: no variants (a swept key has no values)");
  std::vector<SweepRow> rows;
  std::optional<sim::SimSetup> first;
  auto last = std::chrono::steady_clock::now();
  for (const auto& variant : grid) {
    if (progress && ProgressDue(last)) progress(rows.size(), grid.size());
    const sim::SimSetup setup =
        sim::LoadSetup(target.accelerator, target.stack, target.calibration, variant);
    SweepRow row{
        .label = VariantLabel(variant),
        .overrides = variant,
        .report = sim::Simulate(graph, setup.spec, setup.stack, setup.calibration, options)};
    for (size_t b = 0; b < row.bound_pct.size(); ++b) {
      row.bound_pct[b] = BoundPercent(row.report, static_cast<sim::Bound>(b));
    }
    row.speedup = rows.empty() ? 1.0 : rows.front().report.latency_s / row.report.latency_s;
    if (intervals) {
      const int batch = row.report.batch;
      row.latency_interval = intervals.Latency(setup, false, batch, row.report.latency_s * 1e3);
      if (first) {
        row.speedup_interval = intervals.CrossChip(*first, setup, false, batch, row.speedup);
      } else {
        // The first variant against itself: exact.
        first = setup;
        sim::Interval same = *row.latency_interval;
        same.point = same.lo80 = same.hi80 = same.lo95 = same.hi95 = row.speedup;
        same.source = "the baseline itself";
        row.speedup_interval = same;
      }
    }
    rows.push_back(std::move(row));
  }
  return rows;
}

nlohmann::json SweepToJson(const std::vector<SweepRow>& rows) {
  nlohmann::json j = nlohmann::json::array();
  for (const auto& row : rows) {
    const auto& r = row.report;
    j.push_back(
        {{"variant", row.label},
         {"model", r.model},
         {"accelerator", r.accelerator},
         {"latency_ms", r.latency_s * 1e3},
         {"throughput_img_per_s", r.throughput_img_per_s},
         {"speedup", row.speedup},
         {"matrix_bound_pct", row.bound_pct[static_cast<size_t>(sim::Bound::kMatrix)]},
         {"vector_bound_pct", row.bound_pct[static_cast<size_t>(sim::Bound::kVector)]},
         {"memory_bound_pct", row.bound_pct[static_cast<size_t>(sim::Bound::kMemory)]},
         {"overhead_bound_pct", row.bound_pct[static_cast<size_t>(sim::Bound::kOverhead)]}});
    if (row.latency_interval)
      j.back()["latency_interval_ms"] = sim::IntervalToJson(*row.latency_interval);
    if (row.speedup_interval)
      j.back()["speedup_interval"] = sim::IntervalToJson(*row.speedup_interval);
  }
  return j;
}

}  // namespace dcnas::study
