#include "study/family_compare.h"

#include <algorithm>
#include <cmath>

#include "common/errors.h"
#include "common/text.h"
#include "study/precision.h"

namespace dcnas::study {

std::string MemberLabel(const std::string& family, const std::string& name) {
  const std::string prefix = family + "-";
  if (name.size() > prefix.size() && name.compare(0, prefix.size(), prefix) == 0) {
    return name.substr(prefix.size());
  }
  return name;  // a name that does not spell its family (resnet50, deit-ti-16, timm:...)
}

Lineup PairFamilyMembers(const std::vector<std::string>& families,
                         const models::ModelRegistry& registry) {
  const std::vector<std::string> known = registry.Families();
  for (const std::string& family : families) {
    if (std::find(known.begin(), known.end(), family) != known.end()) continue;
    // A prefixed set's family (timm/EfficientNet) is made on first use; Family names the
    // closest ones, prefixed or not, when it is not one either.
    registry.Family(family);
  }
  Lineup lineup;
  lineup.headers = families;
  lineup.models.resize(families.size());
  if (families.empty()) return lineup;
  for (const models::ModelEntry* entry : registry.Family(families[0])) {
    const std::string suffix = MemberLabel(families[0], entry->name);
    std::vector<std::string> names{entry->name};
    for (size_t c = 1; c < families.size(); ++c) {
      const std::string other = families[c] + "-" + suffix;
      if (registry.Contains(other)) names.push_back(other);
    }
    if (names.size() != families.size()) continue;
    lineup.members.push_back(suffix);
    for (size_t c = 0; c < names.size(); ++c) lineup.models[c].push_back(names[c]);
  }
  if (lineup.members.empty()) {
    throw InputError("families " + Join(families, ",") + " share no members");
  }
  return lineup;
}

Lineup PairModels(const std::vector<std::pair<std::string, std::string>>& pairs) {
  if (pairs.empty()) throw InputError("compare: --pairs names no BASELINE:CANDIDATE pair");
  Lineup lineup;
  lineup.headers = {"baseline", "candidate"};
  lineup.models.resize(2);
  for (const auto& [baseline, candidate] : pairs) {
    lineup.models[0].push_back(baseline);
    lineup.models[1].push_back(candidate);
    lineup.members.push_back(baseline + ":" + candidate);
  }
  return lineup;
}

std::vector<CompareColumn> CompareColumns(const Lineup& lineup,
                                          const std::vector<std::string>& setup_names) {
  if (setup_names.empty() || setup_names.size() > 2) {
    throw InputError("compare: give one accelerator, or two to compare them");
  }
  std::vector<CompareColumn> columns;
  for (size_t c = 0; c < lineup.models.size(); ++c) {
    if (setup_names.size() == 1) {
      CompareColumn column{.header = lineup.headers[c], .lineup_column = c};
      if (c > 0) column.baseline = 0;
      columns.push_back(column);
    } else {
      const size_t base = columns.size();
      columns.push_back(
          CompareColumn{.header = lineup.headers[c] + "@" + setup_names[0], .lineup_column = c});
      columns.push_back(CompareColumn{.header = lineup.headers[c] + "@" + setup_names[1],
                                      .lineup_column = c,
                                      .setup = 1,
                                      .baseline = base});
    }
  }
  return columns;
}

std::vector<double> Speedups(const std::vector<double>& baseline_ms,
                             const std::vector<double>& latency_ms) {
  if (baseline_ms.size() != latency_ms.size()) {
    throw InternalError("Speedups: " + std::to_string(baseline_ms.size()) + " baseline and " +
                        std::to_string(latency_ms.size()) + " latencies");
  }
  std::vector<double> out;
  out.reserve(latency_ms.size());
  for (size_t i = 0; i < latency_ms.size(); ++i) out.push_back(baseline_ms[i] / latency_ms[i]);
  return out;
}

double GeometricMean(const std::vector<double>& values) {
  if (values.empty()) throw InternalError("GeometricMean of no values");
  double log_sum = 0;
  for (double v : values) log_sum += std::log(v);
  return std::exp(log_sum / static_cast<double>(values.size()));
}

void ComputeSpeedups(std::vector<CompareColumn>& columns) {
  for (CompareColumn& column : columns) {
    if (!column.baseline) continue;
    column.speedup = Speedups(columns.at(*column.baseline).latency_ms, column.latency_ms);
    column.geomean_speedup = GeometricMean(column.speedup);
  }
}

Comparison Compare(const Lineup& lineup, const std::vector<sim::SimSetup>& setups,
                   const RunOptions& options, const models::ModelRegistry& registry) {
  for (const sim::SimSetup& setup : setups) {
    (void)models::ParseDType(PrecisionFor(options.precision, setup.spec.kind));
  }
  for (const auto& names : lineup.models) RequireKnownModels(names, registry);
  std::vector<std::string> setup_names;
  for (const sim::SimSetup& setup : setups) setup_names.push_back(setup.spec.name);
  Comparison out{lineup, CompareColumns(lineup, setup_names)};
  std::vector<sim::CostCache> caches(setups.size());
  for (CompareColumn& column : out.columns) {
    const std::vector<sim::Report> reports =
        SimulateModels(lineup.models[column.lineup_column], setups[column.setup], options, registry,
                       &caches[column.setup]);
    for (const sim::Report& r : reports) column.latency_ms.push_back(r.latency_s * 1e3);
  }
  ComputeSpeedups(out.columns);
  return out;
}

void AddIntervals(Comparison& cmp, const std::vector<sim::SimSetup>& setups, int batch,
                  const sim::IntervalModel& intervals) {
  for (auto& col : cmp.columns) {
    const sim::SimSetup& setup = setups.at(col.setup);
    col.latency_interval.clear();
    col.speedup_interval.clear();
    for (double ms : col.latency_ms) {
      col.latency_interval.push_back(intervals.Latency(setup, false, batch, ms));
    }
    if (!col.baseline) continue;
    const sim::SimSetup& base = setups.at(cmp.columns.at(*col.baseline).setup);
    const bool cross_chip = cmp.columns.at(*col.baseline).setup != col.setup;
    sim::Interval g;
    g.point = col.geomean_speedup;
    double l80 = 0, h80 = 0, l95 = 0, h95 = 0;
    for (double s : col.speedup) {
      sim::Interval i = cross_chip ? intervals.CrossChip(base, setup, false, batch, s)
                                   : intervals.CrossModel(setup, false, batch, s);
      l80 += std::log(i.lo80 / s);
      h80 += std::log(i.hi80 / s);
      l95 += std::log(i.lo95 / s);
      h95 += std::log(i.hi95 / s);
      g.regime = i.regime;
      g.situation = i.situation;
      g.source = i.source;
      g.rows = i.rows;
      col.speedup_interval.push_back(std::move(i));
    }
    const auto n = static_cast<double>(col.speedup.size());
    g.lo80 = g.point * std::exp(l80 / n);
    g.hi80 = g.point * std::exp(h80 / n);
    g.lo95 = g.point * std::exp(l95 / n);
    g.hi95 = g.point * std::exp(h95 / n);
    col.geomean_interval = g;
  }
}

nlohmann::json ComparisonToJson(const Comparison& cmp, const std::vector<sim::SimSetup>& setups,
                                const std::vector<std::string>& dtypes, int batch) {
  if (dtypes.size() != setups.size()) throw InternalError("ComparisonToJson: one dtype per setup");
  nlohmann::json j;
  nlohmann::json accel_json = nlohmann::json::array();
  for (size_t i = 0; i < setups.size(); ++i) {
    accel_json.push_back({{"accelerator", setups[i].spec.name},
                          {"stack", setups[i].stack.name},
                          {"dtype", dtypes[i]}});
  }
  j["setups"] = accel_json;
  j["batch"] = batch;
  nlohmann::json rows = nlohmann::json::array();
  for (size_t i = 0; i < cmp.lineup.members.size(); ++i) {
    nlohmann::json row;
    row["member"] = cmp.lineup.members[i];
    for (const auto& col : cmp.columns) {
      row[col.header + "_model"] = cmp.lineup.models[col.lineup_column][i];
      row[col.header + "_latency_ms"] = col.latency_ms[i];
      if (col.baseline) row[col.header + "_speedup"] = col.speedup[i];
      if (!col.latency_interval.empty()) {
        row[col.header + "_latency_interval"] = sim::IntervalToJson(col.latency_interval[i]);
      }
      if (col.baseline && !col.speedup_interval.empty()) {
        row[col.header + "_speedup_interval"] = sim::IntervalToJson(col.speedup_interval[i]);
      }
    }
    rows.push_back(row);
  }
  j["rows"] = rows;
  nlohmann::json g;
  for (const auto& col : cmp.columns) {
    if (col.baseline) g[col.header + "_speedup"] = col.geomean_speedup;
    if (col.baseline && col.geomean_interval) {
      g[col.header + "_speedup_interval"] = sim::IntervalToJson(*col.geomean_interval);
    }
  }
  j["geomean"] = g;
  return j;
}

}  // namespace dcnas::study
