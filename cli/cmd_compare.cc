// dcnas compare: side-by-side latency of model families on one accelerator, members paired by
// their suffix (b0, b1, ...), with speedups over the first family and their geometric mean.
#include <algorithm>
#include <cmath>
#include <iostream>

#include <nlohmann/json.hpp>

#include "cli/cli.h"
#include "cli/sim_common.h"
#include "common/svg_chart.h"
#include "common/table.h"
#include "common/text.h"

namespace dcnas::cli {

int RunCompare(const Args& args) {
  po::options_description options("options");
  SimSelection sim_sel;
  std::string families_text;
  std::string pairs_text;
  std::string format;
  std::string out;
  int batch = 128;
  options.add_options()(
      "family", po::value(&families_text),
      "comma-separated families (`dcnas models list`); the first is the baseline")(
      "pairs", po::value(&pairs_text),
      "instead of --family: comma-separated BASELINE:CANDIDATE model pairs")(
      "batch", po::value(&batch)->default_value(128), "batch size")(
      "format", po::value(&format)->default_value("text"), "text, json or csv")(
      "out", po::value(&out), "write a latency chart (SVG) here");
  sim_sel.AddOptions(options, false);
  po::variables_map vm;
  if (!Parse(
          args,
          "dcnas compare --family efficientnet,efficientnet-x-tpu --accel tpu-v3 "
          "[--batch 128] | --pairs a:b,c:d --accel v100 | --family F[,G] --accel tpu-v2,tpu-v3",
          "Simulates family members side by side (paired by suffix: b0 with b0, ...) and prints\n"
          "each latency, the speedup of every family over the first (baseline latency /\n"
          "latency) and the geometric mean of the speedups. With two accelerators, each family\n"
          "is compared across them instead (speedup of the second over the first).",
          options, {}, vm)) {
    return 0;
  }
  const Format f = ParseFormat(format);
  if (batch < 1) throw UsageError("--batch must be >= 1");
  const auto& registry = models::BuiltinModels();
  // columns[c][row] = model name
  std::vector<std::string> headers;
  std::vector<std::string> row_labels;
  std::vector<std::vector<std::string>> columns;
  if (!pairs_text.empty()) {
    headers = {"baseline", "candidate"};
    columns.resize(2);
    for (const auto& pair : SplitList(pairs_text)) {
      const size_t colon = pair.find(':');
      if (colon == std::string::npos) throw UsageError("--pairs: '" + pair + "' is not A:B");
      columns[0].push_back(pair.substr(0, colon));
      columns[1].push_back(pair.substr(colon + 1));
      row_labels.push_back(pair);
    }
  } else {
    headers = SplitList(families_text);
    if (headers.empty()) throw UsageError("dcnas compare: give --family A[,B...] or --pairs");
    const auto known = registry.Families();
    for (const auto& fam : headers) {
      if (std::find(known.begin(), known.end(), fam) == known.end()) {
        throw InputError("unknown family '" + fam + "'" + DidYouMean(fam, known));
      }
    }
    for (const auto* e : registry.Family(headers[0])) {
      const std::string suffix = e->name.substr(headers[0].size() + 1);
      std::vector<std::string> names{e->name};
      for (size_t c = 1; c < headers.size(); ++c) {
        const std::string other = headers[c] + "-" + suffix;
        if (registry.Contains(other)) names.push_back(other);
      }
      if (names.size() != headers.size()) continue;
      row_labels.push_back(suffix);
      if (columns.empty()) columns.resize(headers.size());
      for (size_t c = 0; c < names.size(); ++c) columns[c].push_back(names[c]);
    }
    if (row_labels.empty()) throw InputError("families " + families_text + " share no members");
  }
  // Columns: every (family, accelerator); speedups compare each column with its baseline column.
  const auto accels = SplitList(sim_sel.accel);
  if (accels.empty() || accels.size() > 2) {
    throw UsageError("--accel: give one accelerator, or two to compare them (A,B)");
  }
  if (accels.size() == 1 && columns.size() < 2) {
    throw UsageError("dcnas compare: with one accelerator give at least two families");
  }
  std::vector<sim::SimSetup> setups;
  for (const auto& a : accels) {
    setups.push_back(sim::LoadSetup(a, sim_sel.stack, sim_sel.calibration, sim_sel.Overrides()));
  }
  struct Column {
    std::string header;
    size_t models = 0;  // index into columns
    size_t setup = 0;
    int baseline = -1;  // column this one is compared with
  };
  std::vector<Column> cols;
  if (accels.size() == 1) {
    for (size_t c = 0; c < columns.size(); ++c) {
      cols.push_back(Column{headers[c], c, 0, c == 0 ? -1 : 0});
    }
  } else {
    for (size_t c = 0; c < columns.size(); ++c) {
      const int base = static_cast<int>(cols.size());
      cols.push_back(Column{headers[c] + "@" + setups[0].spec.name, c, 0, -1});
      cols.push_back(Column{headers[c] + "@" + setups[1].spec.name, c, 1, base});
    }
  }
  std::vector<sim::CostCache> caches(setups.size());
  std::vector<std::vector<double>> latency_ms(cols.size());
  for (size_t c = 0; c < cols.size(); ++c) {
    const sim::SimSetup& setup = setups[cols[c].setup];
    const models::DType dtype = models::ParseDType(sim_sel.PrecisionFor(setup.spec.kind));
    for (const auto& name : columns[cols[c].models]) {
      models::BuildOptions bo;
      bo.batch = batch;
      bo.dtype = dtype;
      sim::SimOptions so = sim_sel.Options();
      so.details = false;
      const sim::Report r = sim::Simulate(registry.Build(name, bo), setup.spec, setup.stack,
                                          setup.calibration, so, &caches[cols[c].setup]);
      latency_ms[c].push_back(r.latency_s * 1e3);
    }
  }
  auto speedup = [&](size_t c, size_t i) {
    return latency_ms[static_cast<size_t>(cols[c].baseline)][i] / latency_ms[c][i];
  };
  std::vector<double> geomean(cols.size(), 1.0);
  for (size_t c = 0; c < cols.size(); ++c) {
    if (cols[c].baseline < 0) continue;
    double log_sum = 0;
    for (size_t i = 0; i < row_labels.size(); ++i) log_sum += std::log(speedup(c, i));
    geomean[c] = std::exp(log_sum / static_cast<double>(row_labels.size()));
  }
  std::string setup_text;
  for (const auto& s : setups) {
    setup_text += (setup_text.empty() ? "" : " and ") + s.spec.name + " / " + s.stack.name + " " +
                  sim_sel.PrecisionFor(s.spec.kind);
  }
  if (f == Format::kJson) {
    nlohmann::json j;
    nlohmann::json accel_json = nlohmann::json::array();
    for (const auto& s : setups) {
      accel_json.push_back({{"accelerator", s.spec.name},
                            {"stack", s.stack.name},
                            {"dtype", sim_sel.PrecisionFor(s.spec.kind)}});
    }
    j["setups"] = accel_json;
    j["batch"] = batch;
    nlohmann::json rows = nlohmann::json::array();
    for (size_t i = 0; i < row_labels.size(); ++i) {
      nlohmann::json row;
      row["member"] = row_labels[i];
      for (size_t c = 0; c < cols.size(); ++c) {
        row[cols[c].header + "_model"] = columns[cols[c].models][i];
        row[cols[c].header + "_latency_ms"] = latency_ms[c][i];
        if (cols[c].baseline >= 0) row[cols[c].header + "_speedup"] = speedup(c, i);
      }
      rows.push_back(row);
    }
    j["rows"] = rows;
    nlohmann::json g;
    for (size_t c = 0; c < cols.size(); ++c) {
      if (cols[c].baseline >= 0) g[cols[c].header + "_speedup"] = geomean[c];
    }
    j["geomean"] = g;
    std::cout << j.dump(1) << "\n";
  } else {
    std::vector<std::string> header{"member"};
    for (const auto& col : cols) {
      header.push_back(col.header);
      header.emplace_back("latency_ms");
      if (col.baseline >= 0) header.emplace_back("speedup");
    }
    Table t(header);
    for (size_t i = 0; i < row_labels.size(); ++i) {
      std::vector<std::string> row{row_labels[i]};
      for (size_t c = 0; c < cols.size(); ++c) {
        row.push_back(columns[cols[c].models][i]);
        row.push_back(FormatFixed(latency_ms[c][i], 3));
        if (cols[c].baseline >= 0) row.push_back(FormatFixed(speedup(c, i), 3) + "x");
      }
      t.AddRow(row);
    }
    std::vector<std::string> g{"geomean"};
    for (size_t c = 0; c < cols.size(); ++c) {
      g.emplace_back("");
      g.emplace_back("");
      if (cols[c].baseline >= 0) g.push_back(FormatFixed(geomean[c], 3) + "x");
    }
    t.AddRow(g);
    if (f == Format::kText) {
      std::cout << "on " << setup_text << ", batch " << batch
                << "; speedup = baseline latency / latency\n";
    }
    std::cout << (f == Format::kCsv ? t.ToCsv() : t.ToText());
  }
  if (!out.empty()) {
    Chart chart;
    chart.title = "Latency on " + setup_text + " at batch " + std::to_string(batch);
    chart.x = ChartAxis{"family member (index)", false, {}, {}};
    chart.y = ChartAxis{"latency per batch (ms)", true, {}, {}};
    for (size_t c = 0; c < cols.size(); ++c) {
      ChartSeries s;
      s.label = cols[c].header;
      s.style = ChartSeries::Style::kLinePoints;
      for (size_t i = 0; i < row_labels.size(); ++i) {
        s.x.push_back(static_cast<double>(i));
        s.y.push_back(latency_ms[c][i]);
        s.point_labels.push_back(row_labels[i]);
      }
      chart.series.push_back(s);
    }
    Emit(RenderSvg(chart), out);
  }
  return 0;
}

}  // namespace dcnas::cli
