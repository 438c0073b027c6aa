// dcnas sweep: what-if study over --set values (each KEY=V1,V2,... ; several keys form a grid):
// latency and bound mix per variant, as a table and an SVG chart.
#include <cmath>
#include <iostream>
#include <optional>

#include <nlohmann/json.hpp>

#include "cli/cli.h"
#include "cli/sim_common.h"
#include "common/svg_chart.h"
#include "common/table.h"

namespace dcnas::cli {

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
  std::vector<std::string> keys;
  std::vector<std::vector<std::string>> values;
  for (const auto& s : sim_sel.sets) {
    const sim::Override o = sim::ParseOverride(s);
    keys.push_back(o.path);
    values.push_back(SplitList(o.value));
    if (values.back().empty()) throw UsageError("--set " + s + ": no values");
  }
  if (keys.empty()) throw UsageError("dcnas sweep: give at least one --set KEY=V1,V2,...");
  // Cartesian product of the value lists.
  std::vector<std::vector<sim::Override>> variants{{}};
  for (size_t k = 0; k < keys.size(); ++k) {
    std::vector<std::vector<sim::Override>> next;
    for (const auto& v : variants) {
      for (const auto& value : values[k]) {
        auto w = v;
        w.push_back(sim::Override{keys[k], value});
        next.push_back(w);
      }
    }
    variants = std::move(next);
  }
  struct Row {
    std::string label;
    sim::Report report;
  };
  std::vector<Row> rows;
  std::optional<models::Graph> graph;
  for (const auto& v : variants) {
    const sim::SimSetup setup =
        sim::LoadSetup(sim_sel.accel, sim_sel.stack, sim_sel.calibration, v);
    if (!graph) {
      if (selection.dtype == "auto" || !sim_sel.precision.empty()) {
        selection.dtype = sim_sel.PrecisionFor(setup.spec.kind);
      }
      graph = selection.Load();
    }
    sim::SimOptions so = sim_sel.Options();
    so.details = false;
    std::string label;
    for (const auto& o : v) label += (label.empty() ? "" : " ") + o.path + "=" + o.value;
    rows.push_back(
        Row{label, sim::Simulate(*graph, setup.spec, setup.stack, setup.calibration, so)});
  }
  const double base = rows.front().report.latency_s;
  auto pct = [](const sim::Report& r, sim::Bound b) {
    return 100.0 * r.time_by_bound_s[static_cast<size_t>(b)] / r.latency_s;
  };
  if (f == Format::kJson) {
    nlohmann::json j = nlohmann::json::array();
    for (const auto& row : rows) {
      const auto& r = row.report;
      j.push_back({{"variant", row.label},
                   {"model", r.model},
                   {"accelerator", r.accelerator},
                   {"latency_ms", r.latency_s * 1e3},
                   {"throughput_img_per_s", r.throughput_img_per_s},
                   {"speedup", base / r.latency_s},
                   {"matrix_bound_pct", pct(r, sim::Bound::kMatrix)},
                   {"vector_bound_pct", pct(r, sim::Bound::kVector)},
                   {"memory_bound_pct", pct(r, sim::Bound::kMemory)},
                   {"overhead_bound_pct", pct(r, sim::Bound::kOverhead)}});
    }
    std::cout << j.dump(1) << "\n";
  } else {
    Table t({"variant", "latency_ms", "throughput_img_per_s", "speedup", "matrix_pct", "vector_pct",
             "memory_pct", "overhead_pct"});
    t.SetRightAligned({false, true, true, true, true, true, true, true});
    for (const auto& row : rows) {
      const auto& r = row.report;
      t.AddRow(
          {row.label, FormatFixed(r.latency_s * 1e3, 3), FormatFixed(r.throughput_img_per_s, 1),
           FormatFixed(base / r.latency_s, 3), FormatFixed(pct(r, sim::Bound::kMatrix), 1),
           FormatFixed(pct(r, sim::Bound::kVector), 1), FormatFixed(pct(r, sim::Bound::kMemory), 1),
           FormatFixed(pct(r, sim::Bound::kOverhead), 1)});
    }
    if (f == Format::kText) {
      std::cout << rows.front().report.model << " on " << sim_sel.accel << ", batch "
                << rows.front().report.batch << ", " << rows.front().report.dtype << "\n";
    }
    std::cout << (f == Format::kCsv ? t.ToCsv() : t.ToText());
  }
  if (!out.empty()) {
    // One numeric key: x is its value; otherwise the variant index.
    bool numeric = keys.size() == 1;
    std::vector<double> xs;
    for (size_t i = 0; i < rows.size(); ++i) {
      auto x = static_cast<double>(i + 1);
      if (numeric) {
        try {
          x = std::stod(variants[i][0].value);
        } catch (const std::exception&) {
          numeric = false;
        }
      }
      xs.push_back(x);
    }
    if (!numeric) {
      for (size_t i = 0; i < xs.size(); ++i) xs[i] = static_cast<double>(i + 1);
    }
    bool positive = true;
    for (double x : xs) positive = positive && x > 0;
    const double spread = positive ? xs.back() / xs.front() : 1.0;
    Chart c;
    c.title = "What-if: " + rows.front().report.model + " on " + sim_sel.accel + " (batch " +
              std::to_string(rows.front().report.batch) + ")";
    c.x = ChartAxis{numeric ? keys[0] : "variant (see table)",
                    numeric && positive && (spread > 8 || spread < 0.125),
                    {},
                    {}};
    c.y = ChartAxis{"latency per batch (ms) / time by bound (ms)", false, 0.0, {}};
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
      if (!numeric) lat.point_labels.push_back(rows[i].label);
      for (size_t b = 0; b < 4; ++b) {
        parts[b].x.push_back(xs[i]);
        parts[b].y.push_back(rows[i].report.time_by_bound_s[b] * 1e3);
      }
    }
    c.series.push_back(lat);
    for (auto& p : parts) c.series.push_back(p);
    Emit(RenderSvg(c), out);
  }
  return 0;
}

}  // namespace dcnas::cli
