// dcnas sweep: what-if study over --set values (each KEY=V1,V2,... ; several keys form a grid):
// latency and bound mix per variant, as a table and an SVG chart.
#include <iostream>

#include "cli/cli.h"
#include "cli/sim_common.h"
#include "common/svg_chart.h"
#include "common/table.h"
#include "study/precision.h"
#include "study/sweep.h"

namespace dcnas::cli {
namespace {

using study::SweepRow;

std::vector<study::SweepAxis> AxesFrom(const std::vector<std::string>& sets) {
  std::vector<study::SweepAxis> axes;
  for (const auto& s : sets) {
    const Override o = ParseOverride(s);
    axes.push_back({o.path, SplitList(o.value)});
    if (axes.back().values.empty()) throw UsageError("--set " + s + ": no values");
  }
  if (axes.empty()) throw UsageError("dcnas sweep: give at least one --set KEY=V1,V2,...");
  return axes;
}

double Pct(const SweepRow& row, sim::Bound b) { return row.bound_pct[static_cast<size_t>(b)]; }

void PrintRows(const std::vector<SweepRow>& rows, Format f, const std::string& accel) {
  if (f == Format::kJson) {
    std::cout << study::SweepToJson(rows).dump(1) << "\n";
    return;
  }
  const bool with = rows.front().latency_interval.has_value();
  const bool csv = f == Format::kCsv;
  const auto append = [](std::vector<std::string>& to, std::vector<std::string> cells) {
    to.insert(to.end(), cells.begin(), cells.end());
  };
  std::vector<std::string> header{"variant", "latency_ms"};
  if (with) append(header, sim::IntervalHeader("latency_", "_ms", csv));
  header.insert(header.end(), {"throughput_img_per_s", "speedup"});
  if (with) append(header, sim::IntervalHeader("speedup_", "", csv));
  header.insert(header.end(), {"matrix_pct", "vector_pct", "memory_pct", "overhead_pct"});
  Table t(header);
  t.SetRightAligned(std::vector<bool>(header.size(), true));
  for (const auto& row : rows) {
    const auto& r = row.report;
    std::vector<std::string> cells{row.label, FormatFixed(r.latency_s * 1e3, 3)};
    if (with) append(cells, sim::IntervalCells(*row.latency_interval, 3, csv));
    cells.push_back(FormatFixed(r.throughput_img_per_s, 1));
    cells.push_back(FormatFixed(row.speedup, 3));
    if (with) append(cells, sim::IntervalCells(*row.speedup_interval, 3, csv));
    for (sim::Bound b :
         {sim::Bound::kMatrix, sim::Bound::kVector, sim::Bound::kMemory, sim::Bound::kOverhead}) {
      cells.push_back(FormatFixed(Pct(row, b), 1));
    }
    t.AddRow(cells);
  }
  if (f == Format::kText) {
    std::cout << rows.front().report.model << " on " << accel << ", batch "
              << rows.front().report.batch << ", " << rows.front().report.dtype << "\n";
  }
  std::cout << (f == Format::kCsv ? t.ToCsv() : t.ToText());
}

// x of each variant: the value of a single numeric key, else the variant's index from 1.
std::vector<double> ChartX(const std::vector<SweepRow>& rows, bool& numeric) {
  std::vector<double> xs;
  for (size_t i = 0; i < rows.size(); ++i) {
    auto x = static_cast<double>(i + 1);
    if (numeric) {
      try {
        x = std::stod(rows[i].overrides[0].value);
      } catch (const std::exception&) {
        numeric = false;
      }
    }
    xs.push_back(x);
  }
  if (!numeric) {
    for (size_t i = 0; i < xs.size(); ++i) xs[i] = static_cast<double>(i + 1);
  }
  return xs;
}

Chart SweepChart(const std::vector<SweepRow>& rows, const std::vector<study::SweepAxis>& axes,
                 const std::string& accel) {
  bool numeric = axes.size() == 1;
  const std::vector<double> xs = ChartX(rows, numeric);
  bool positive = true;
  for (double x : xs) positive = positive && x > 0;
  const double spread = positive ? xs.back() / xs.front() : 1.0;
  Chart c;
  c.title = "What-if: " + rows.front().report.model + " on " + accel + " (batch " +
            std::to_string(rows.front().report.batch) + ")";
  c.x = ChartAxis{numeric ? axes[0].key : "variant (see table)",
                  numeric && positive && (spread > 8 || spread < 0.125),
                  {},
                  {}};
  c.y = ChartAxis{rows.front().latency_interval
                      ? "latency per batch (ms; bars: 80% prediction interval) / time by bound (ms)"
                      : "latency per batch (ms) / time by bound (ms)",
                  false,
                  0.0,
                  {}};
  ChartSeries lat;
  lat.label = "latency";
  lat.style = ChartSeries::Style::kLinePoints;
  const char* names[] = {"matrix-bound time", "vector-bound time", "memory-bound time",
                         "overhead-bound time"};
  std::vector<ChartSeries> parts(4);
  for (int b = 0; b < 4; ++b) {
    parts[static_cast<size_t>(b)].label = names[b];
    parts[static_cast<size_t>(b)].style = ChartSeries::Style::kDashedLine;
  }
  for (size_t i = 0; i < rows.size(); ++i) {
    lat.x.push_back(xs[i]);
    lat.y.push_back(rows[i].report.latency_s * 1e3);
    if (rows[i].latency_interval) {
      lat.y_lo.push_back(rows[i].latency_interval->lo80);
      lat.y_hi.push_back(rows[i].latency_interval->hi80);
    }
    if (!numeric) lat.point_labels.push_back(rows[i].label);
    for (size_t b = 0; b < 4; ++b) {
      parts[b].x.push_back(xs[i]);
      parts[b].y.push_back(rows[i].report.time_by_bound_s[b] * 1e3);
    }
  }
  c.series.push_back(lat);
  for (auto& p : parts) c.series.push_back(p);
  return c;
}

}  // namespace

int RunSweep(const Args& args) {
  po::options_description options("options");
  ModelSelection selection;
  SimSelection sim_sel;
  std::string format;
  std::string out;
  po::positional_options_description positional;
  selection.AddOptions(options, positional, 128, "auto");
  options.add_options()("format", po::value(&format)->default_value("text"), "text, json or csv")(
      "out", po::value(&out), "write the chart (SVG) here");
  sim_sel.AddOptions(options, false);
  po::variables_map vm;
  if (!Parse(args,
             "dcnas sweep MODEL --accel tpu-v3 --set hbm.bandwidth_gbps=450,900,1800,3600 "
             "[--set KEY=V1,V2...] [--out sweep.svg]",
             "What-if study: simulates the model once per combination of the --set values\n"
             "(comma-separated lists; several keys form a grid) and prints latency, throughput,\n"
             "speedup over the first variant and the share of time by bound.",
             options, positional, vm)) {
    return 0;
  }
  const Format f = ParseFormat(format);
  if (!selection.HasSource()) throw UsageError("dcnas sweep: give a MODEL, --graph or --blocks");
  const std::vector<study::SweepAxis> axes = AxesFrom(sim_sel.sets);
  const auto grid = study::SweepGrid(axes);
  const study::SweepTarget target{sim_sel.accel, sim_sel.stack, sim_sel.calibration};
  const sim::SimSetup first =
      sim::LoadSetup(target.accelerator, target.stack, target.calibration, grid.front());
  WarnIfOtherCpu(first);
  sim_sel.ApplyPrecision(selection, first.spec.kind);
  sim::SimOptions so = sim_sel.Options();
  so.details = false;
  const auto status = StatusLine(/*print_updates_when_piped=*/true);
  bool shown = false;
  const std::vector<SweepRow> rows = study::Sweep(
      selection.Load(), target, grid, so, sim_sel.Intervals(),
      [&status, &shown](size_t done, size_t total) {
        status("sweep: " + std::to_string(done) + " of " + std::to_string(total) + " variants",
               false);
        shown = true;
      });
  if (shown) status("sweep: " + std::to_string(rows.size()) + " variants simulated", true);
  PrintRows(rows, f, sim_sel.accel);
  if (!out.empty()) Emit(RenderSvg(SweepChart(rows, axes, sim_sel.accel)), out);
  return 0;
}

}  // namespace dcnas::cli
