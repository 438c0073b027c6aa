#include "study/equal_accuracy.h"

#include <algorithm>
#include <cmath>
#include <map>

#include "common/errors.h"
#include "study/family_compare.h"

namespace dcnas::study {

std::vector<AccuracyLatency> AccuracyFront(std::vector<AccuracyLatency> points) {
  // Fastest first (ties: the more accurate first); a point joins the front when it is more
  // accurate than every faster one.
  std::sort(points.begin(), points.end(), [](const AccuracyLatency& a, const AccuracyLatency& b) {
    return a.latency_ms != b.latency_ms ? a.latency_ms < b.latency_ms : a.top1 > b.top1;
  });
  std::vector<AccuracyLatency> front;
  for (const AccuracyLatency& p : points) {
    if (front.empty() || p.top1 > front.back().top1) front.push_back(p);
  }
  return front;  // latency and top-1 both ascending
}

std::optional<double> LatencyAtTop1(const std::vector<AccuracyLatency>& front, double top1) {
  if (front.empty() || top1 < front.front().top1 || top1 > front.back().top1) return std::nullopt;
  for (size_t i = 0; i + 1 < front.size(); ++i) {
    const AccuracyLatency& a = front[i];
    const AccuracyLatency& b = front[i + 1];
    if (top1 >= a.top1 && top1 <= b.top1) {
      const double t = (top1 - a.top1) / (b.top1 - a.top1);
      return std::exp(std::log(a.latency_ms) +
                      t * (std::log(b.latency_ms) - std::log(a.latency_ms)));
    }
  }
  return front.back().latency_ms;  // a front of one point, at exactly its top-1
}

EqualAccuracy CompareAtEqualAccuracy(const std::vector<std::string>& families,
                                     const sim::SimSetup& setup, const RunOptions& options,
                                     const models::ModelRegistry& registry,
                                     const std::vector<models::PublishedTop1>& published) {
  if (families.size() < 2) {
    throw InputError("at equal accuracy: give a baseline family and at least one other");
  }
  std::map<std::string, double> top1;
  for (const auto& p : published) top1[p.model] = p.top1;
  std::vector<std::vector<std::string>> members;
  for (const std::string& f : families) {
    std::vector<std::string> names;
    // Family() refuses an unknown family, naming the closest.
    for (const models::ModelEntry* e : registry.Family(f)) names.push_back(e->name);
    members.push_back(std::move(names));
  }
  EqualAccuracy out;
  out.baseline = families[0];
  std::vector<AccuracyLatency> curve;
  const std::vector<sim::Report> base = SimulateModels(members[0], setup, options, registry);
  for (size_t i = 0; i < members[0].size(); ++i) {
    EqualAccuracyRow row;
    row.model = members[0][i];
    row.latency_ms = base[i].latency_s * 1e3;
    const auto it = top1.find(members[0][i]);
    if (it != top1.end()) {
      row.top1 = it->second;
      curve.push_back({row.model, it->second, row.latency_ms});
    }
    out.baseline_rows.push_back(std::move(row));
  }
  if (curve.size() < 2) {
    throw InputError("at equal accuracy: the baseline family '" + families[0] + "' has " +
                     std::to_string(curve.size()) +
                     " member(s) with a published top-1 (at least 2 are needed for a curve)");
  }
  out.curve = AccuracyFront(curve);
  for (size_t f = 1; f < families.size(); ++f) {
    EqualAccuracyFamily fam;
    fam.family = families[f];
    const std::vector<sim::Report> reports = SimulateModels(members[f], setup, options, registry);
    std::vector<double> speedups;
    for (size_t i = 0; i < members[f].size(); ++i) {
      EqualAccuracyRow row;
      row.model = members[f][i];
      row.latency_ms = reports[i].latency_s * 1e3;
      const auto it = top1.find(row.model);
      if (it != top1.end()) {
        row.top1 = it->second;
        row.baseline_ms = LatencyAtTop1(out.curve, it->second);
        if (row.baseline_ms) {
          row.speedup = *row.baseline_ms / row.latency_ms;
          speedups.push_back(*row.speedup);
        }
      }
      fam.rows.push_back(std::move(row));
    }
    fam.compared = speedups.size();
    if (!speedups.empty()) fam.geomean_speedup = GeometricMean(speedups);
    out.families.push_back(std::move(fam));
  }
  return out;
}

Chart EqualAccuracyChart(const EqualAccuracy& r, const std::string& title) {
  Chart chart;
  chart.title = title;
  chart.x = ChartAxis{"published ImageNet top-1 (%)", false, {}, {}};
  chart.y = ChartAxis{"latency per batch (ms)", true, {}, {}};
  const auto add = [&chart](const std::string& label, const std::vector<EqualAccuracyRow>& rows) {
    ChartSeries s;
    s.label = label;
    s.style = ChartSeries::Style::kLinePoints;
    for (const EqualAccuracyRow& row : rows) {
      if (!row.top1) continue;
      s.x.push_back(*row.top1);
      s.y.push_back(row.latency_ms);
      s.point_labels.push_back(row.model);
    }
    if (!s.x.empty()) chart.series.push_back(std::move(s));
  };
  add(r.baseline + " (baseline)", r.baseline_rows);
  for (const EqualAccuracyFamily& f : r.families) add(f.family, f.rows);
  return chart;
}

nlohmann::json EqualAccuracyToJson(const EqualAccuracy& r) {
  nlohmann::json j;
  j["baseline"] = r.baseline;
  nlohmann::json curve = nlohmann::json::array();
  for (const auto& p : r.curve) {
    curve.push_back({{"model", p.model}, {"top1", p.top1}, {"latency_ms", p.latency_ms}});
  }
  j["baseline_front"] = curve;
  nlohmann::json base = nlohmann::json::array();
  for (const auto& row : r.baseline_rows) {
    base.push_back({{"model", row.model},
                    {"top1", row.top1 ? nlohmann::json(*row.top1) : nlohmann::json(nullptr)},
                    {"latency_ms", row.latency_ms}});
  }
  j["baseline_rows"] = base;
  nlohmann::json fams = nlohmann::json::array();
  for (const auto& f : r.families) {
    nlohmann::json rows = nlohmann::json::array();
    for (const auto& row : f.rows) {
      nlohmann::json x = {{"model", row.model}, {"latency_ms", row.latency_ms}};
      x["top1"] = row.top1 ? nlohmann::json(*row.top1) : nlohmann::json(nullptr);
      x["baseline_ms_at_top1"] =
          row.baseline_ms ? nlohmann::json(*row.baseline_ms) : nlohmann::json(nullptr);
      x["speedup"] = row.speedup ? nlohmann::json(*row.speedup) : nlohmann::json(nullptr);
      rows.push_back(x);
    }
    fams.push_back({{"family", f.family},
                    {"rows", rows},
                    {"compared", f.compared},
                    {"geomean_speedup", f.geomean_speedup ? nlohmann::json(*f.geomean_speedup)
                                                          : nlohmann::json(nullptr)}});
  }
  j["families"] = fams;
  return j;
}

}  // namespace dcnas::study
