#include "calibrate/report.h"

#include <algorithm>
#include <cmath>
#include <iterator>
#include <map>
#include <utility>

#include "common/errors.h"
#include "common/statistics.h"

namespace dcnas::calibrate {
namespace {

std::string Percent(double fraction, int digits = 1) {
  return FormatFixed(100.0 * fraction, digits);
}

}  // namespace

std::string RankingGroup(const Measurement& row) { return std::to_string(row.batch_size); }

ErrorMetrics MetricsOf(const std::vector<PredictedRow>& rows) {
  std::vector<double> predicted;
  std::vector<double> measured;
  std::vector<std::string> labels;
  std::vector<std::string> groups;
  for (const PredictedRow& p : rows) {
    groups.push_back(RankingGroup(*p.row));
    predicted.push_back(p.predicted_ms);
    measured.push_back(p.row->latency_ms);
    labels.push_back(p.row->model + " b" + std::to_string(p.row->batch_size) + " r" +
                     std::to_string(p.row->image_size) + " " + p.row->where());
  }
  return ComputeMetrics(predicted, measured, labels, groups);
}

std::vector<NamedMetrics> MetricsByDevice(const std::vector<PredictedRow>& rows,
                                          const std::vector<std::string>& devices) {
  std::vector<NamedMetrics> out;
  for (const std::string& device : devices) {
    std::vector<PredictedRow> mine;
    std::copy_if(rows.begin(), rows.end(), std::back_inserter(mine),
                 [&device](const PredictedRow& p) { return p.row->device == device; });
    if (!mine.empty()) out.push_back({device, MetricsOf(mine)});
  }
  return out;
}

Table PredictionsTable(const std::vector<PredictedRow>& rows,
                       const std::vector<double>& held_out_ms, const std::vector<double>& lodo_ms) {
  if ((!held_out_ms.empty() && held_out_ms.size() != rows.size()) ||
      (!lodo_ms.empty() && lodo_ms.size() != rows.size())) {
    throw InternalError("held-out predictions do not match rows");
  }
  std::vector<std::string> header = {"model",      "family",           "batch_size",
                                     "image_size", "measured_ms",      "predicted_ms",
                                     "error_pct",  "held_out_lofo_ms", "source"};
  if (!lodo_ms.empty()) header.insert(header.end(), {"device", "held_out_lodo_ms"});
  Table table(header);
  for (size_t i = 0; i < rows.size(); ++i) {
    const PredictedRow& p = rows[i];
    std::vector<std::string> cells = {
        p.row->model,
        p.family,
        std::to_string(p.row->batch_size),
        std::to_string(p.row->image_size),
        FormatFixed(p.row->latency_ms, 4),
        FormatFixed(p.predicted_ms, 4),
        FormatFixed(100.0 * ((p.predicted_ms - p.row->latency_ms) / p.row->latency_ms), 1),
        held_out_ms.empty() ? "" : FormatFixed(held_out_ms[i], 4),
        p.row->where()};
    if (!lodo_ms.empty()) cells.insert(cells.end(), {p.row->device, FormatFixed(lodo_ms[i], 4)});
    table.AddRow(cells);
  }
  return table;
}

Table ResidualTable(const std::vector<PredictedRow>& rows) {
  std::map<std::pair<std::string, int>, std::vector<double>> groups;  // signed errors
  for (const PredictedRow& p : rows) {
    groups[{p.family, p.row->batch_size}].push_back((p.predicted_ms - p.row->latency_ms) /
                                                    p.row->latency_ms);
  }
  Table table({"family", "batch", "rows", "median error %", "MAPE %", "worst %"});
  table.SetRightAligned({false, true, true, true, true, true});
  for (const auto& [key, errors] : groups) {
    double mape = 0;
    double worst = 0;
    for (double e : errors) {
      mape += std::abs(e);
      if (std::abs(e) > std::abs(worst)) worst = e;
    }
    mape /= static_cast<double>(errors.size());
    table.AddRow({key.first, std::to_string(key.second), std::to_string(errors.size()),
                  Percent(Median(errors)), Percent(mape), Percent(worst)});
  }
  return table;
}

Chart ParityChart(const std::vector<PredictedRow>& rows, const std::string& title) {
  if (rows.empty()) throw InputError("parity chart: no rows");
  Chart chart;
  chart.title = title;
  chart.x.title = "measured latency per batch (ms)";
  chart.y.title = "predicted latency per batch (ms)";
  chart.x.log = true;
  chart.y.log = true;
  std::map<std::string, ChartSeries> by_family;
  double lo = rows.front().row->latency_ms;
  double hi = lo;
  for (const PredictedRow& p : rows) {
    ChartSeries& s = by_family[p.family];
    s.label = p.family;
    s.style = ChartSeries::Style::kPoints;
    s.x.push_back(p.row->latency_ms);
    s.y.push_back(p.predicted_ms);
    lo = std::min({lo, p.row->latency_ms, p.predicted_ms});
    hi = std::max({hi, p.row->latency_ms, p.predicted_ms});
  }
  lo /= 1.3;
  hi *= 1.3;
  chart.x.min = lo;
  chart.x.max = hi;
  chart.y.min = lo;
  chart.y.max = hi;
  for (auto& [family, series] : by_family) chart.series.push_back(std::move(series));
  const auto line = [&](const std::string& label, double factor, ChartSeries::Style style) {
    ChartSeries s;
    s.label = label;
    s.style = style;
    s.color = "#777777";
    s.x = {lo, hi};
    s.y = {lo * factor, hi * factor};
    chart.series.push_back(std::move(s));
  };
  line("predicted = measured", 1.0, ChartSeries::Style::kLine);
  line("+20%", 1.2, ChartSeries::Style::kDashedLine);
  line("-20%", 0.8, ChartSeries::Style::kDashedLine);
  return chart;
}

Table MetricsTable(const std::vector<NamedMetrics>& metrics) {
  Table table({"evaluation", "rows", "MAPE %", "median APE %", "within 10 %", "within 20 %",
               "Kendall tau", "worst %", "worst row"});
  table.SetRightAligned({false, true, true, true, true, true, true, true, false});
  for (const NamedMetrics& n : metrics) {
    const ErrorMetrics& m = n.metrics;
    table.AddRow({n.name, std::to_string(m.count), Percent(m.mape), Percent(m.median_ape),
                  Percent(m.within_10), Percent(m.within_20),
                  std::isnan(m.kendall_tau) ? "n/a" : FormatFixed(m.kendall_tau, 3),
                  Percent(m.worst_ape), m.worst_label});
  }
  return table;
}

}  // namespace dcnas::calibrate
