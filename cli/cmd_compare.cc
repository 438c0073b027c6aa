// dcnas compare: side-by-side latency of model families on one accelerator, members paired by
// their suffix (b0, b1, ...), with speedups over the first family and their geometric mean.
#include <iostream>

#include "cli/cli.h"
#include "cli/sim_common.h"
#include "common/data_dir.h"
#include "common/svg_chart.h"
#include "common/table.h"
#include "models/zoo/published_top1.h"
#include "study/equal_accuracy.h"
#include "study/family_compare.h"

namespace dcnas::cli {
namespace {

study::Lineup LineupFrom(const std::string& families_text, const std::string& pairs_text,
                         const models::ModelRegistry& registry) {
  if (!pairs_text.empty() && !families_text.empty()) {
    throw UsageError("dcnas compare: --family and --pairs exclude each other (got both)");
  }
  if (!pairs_text.empty()) {
    std::vector<std::pair<std::string, std::string>> pairs;
    for (const auto& pair : SplitList(pairs_text)) {
      const size_t colon = pair.find(':');
      if (colon == std::string::npos) throw UsageError("--pairs: '" + pair + "' is not A:B");
      pairs.emplace_back(pair.substr(0, colon), pair.substr(colon + 1));
    }
    return study::PairModels(pairs);
  }
  const auto families = SplitList(families_text);
  if (families.empty()) throw UsageError("dcnas compare: give --family A[,B...] or --pairs");
  return study::PairFamilyMembers(families, registry);
}

void PrintJson(const study::Comparison& cmp, const std::vector<sim::SimSetup>& setups,
               const SimSelection& sim_sel, int batch) {
  std::vector<std::string> dtypes;
  for (const auto& s : setups) dtypes.push_back(sim_sel.PrecisionFor(s.spec.kind));
  std::cout << study::ComparisonToJson(cmp, setups, dtypes, batch).dump(1) << "\n";
}

// Text: latency and speedup with their 80% intervals; CSV: the 80% and 95% ends as columns.
Table ComparisonTable(const study::Comparison& cmp, bool csv) {
  const bool with = !cmp.columns.empty() && !cmp.columns.front().latency_interval.empty();
  const auto append = [](std::vector<std::string>& to, std::vector<std::string> cells) {
    to.insert(to.end(), cells.begin(), cells.end());
  };
  std::vector<std::string> header{"member"};
  for (const auto& col : cmp.columns) {
    header.push_back(col.header);
    header.emplace_back("latency_ms");
    if (with) append(header, sim::IntervalHeader("latency_", "_ms", csv));
    if (col.baseline) {
      header.emplace_back("speedup");
      if (with) append(header, sim::IntervalHeader("speedup_", "", csv));
    }
  }
  Table t(header);
  for (size_t i = 0; i < cmp.lineup.members.size(); ++i) {
    std::vector<std::string> row{cmp.lineup.members[i]};
    for (const auto& col : cmp.columns) {
      row.push_back(cmp.lineup.models[col.lineup_column][i]);
      row.push_back(FormatFixed(col.latency_ms[i], 3));
      if (with) append(row, sim::IntervalCells(col.latency_interval[i], csv ? 4 : 2, csv));
      if (col.baseline) {
        row.push_back(FormatFixed(col.speedup[i], 3) + (csv ? "" : "x"));
        if (with) append(row, sim::IntervalCells(col.speedup_interval[i], 3, csv));
      }
    }
    t.AddRow(row);
  }
  std::vector<std::string> g{"geomean"};
  for (const auto& col : cmp.columns) {
    g.emplace_back("");
    g.emplace_back("");
    if (with) g.resize(g.size() + sim::IntervalHeader("", "", csv).size());
    if (col.baseline) {
      g.push_back(FormatFixed(col.geomean_speedup, 3) + (csv ? "" : "x"));
      if (with && col.geomean_interval)
        append(g, sim::IntervalCells(*col.geomean_interval, 3, csv));
    }
  }
  t.AddRow(g);
  return t;
}

Chart LatencyChart(const study::Comparison& cmp, const std::string& setup_text, int batch) {
  Chart chart;
  chart.title = "Latency on " + setup_text + " at batch " + std::to_string(batch);
  chart.x = ChartAxis{"family member (index)", false, {}, {}};
  chart.y = ChartAxis{cmp.columns.empty() || cmp.columns.front().latency_interval.empty()
                          ? "latency per batch (ms)"
                          : "latency per batch (ms), bars: 80% prediction interval",
                      true,
                      {},
                      {}};
  for (const auto& col : cmp.columns) {
    ChartSeries s;
    s.label = col.header;
    s.style = ChartSeries::Style::kLinePoints;
    for (size_t i = 0; i < cmp.lineup.members.size(); ++i) {
      s.x.push_back(static_cast<double>(i));
      s.y.push_back(col.latency_ms[i]);
      s.point_labels.push_back(cmp.lineup.members[i]);
      if (!col.latency_interval.empty()) {
        s.y_lo.push_back(col.latency_interval[i].lo80);
        s.y_hi.push_back(col.latency_interval[i].hi80);
      }
    }
    chart.series.push_back(s);
  }
  return chart;
}

// `--at-equal-accuracy`: the families' members against the baseline's accuracy-latency curve.
int RunAtEqualAccuracy(const std::string& families_text, const std::string& published_path,
                       const SimSelection& sim_sel, int batch, Format f, const std::string& out) {
  const auto families = SplitList(families_text);
  const std::string path =
      published_path.empty() ? DataPath(models::kPublishedTop1File) : published_path;
  const sim::SimSetup setup = sim_sel.LoadSetups({sim_sel.accel}).front();
  const study::EqualAccuracy r =
      study::CompareAtEqualAccuracy(families, setup, sim_sel.StudyOptions(batch),
                                    models::BuiltinModels(), models::ReadPublishedTop1(path));
  if (!out.empty()) {
    Emit(RenderSvg(study::EqualAccuracyChart(r, "Latency against published ImageNet top-1 on " +
                                                    setup.spec.name + " / " + setup.stack.name +
                                                    " " + sim_sel.PrecisionFor(setup.spec.kind) +
                                                    ", batch " + std::to_string(batch))),
         out);
  }
  if (f == Format::kJson) {
    nlohmann::json j = study::EqualAccuracyToJson(r);
    j["accelerator"] = setup.spec.name;
    j["stack"] = setup.stack.name;
    j["dtype"] = sim_sel.PrecisionFor(setup.spec.kind);
    j["batch"] = batch;
    j["published"] = path;
    std::cout << j.dump(1) << "\n";
    return 0;
  }
  Table t({"family", "model", "top1", "latency_ms", "baseline_ms_at_top1", "speedup"});
  t.SetRightAligned({false, false, true, true, true, true});
  const auto opt = [](const std::optional<double>& v, int digits, const std::string& suffix) {
    return v ? FormatFixed(*v, digits) + suffix : std::string("-");
  };
  for (const auto& fam : r.families) {
    for (const auto& row : fam.rows) {
      t.AddRow({fam.family, row.model, opt(row.top1, 1, ""), FormatFixed(row.latency_ms, 3),
                opt(row.baseline_ms, 3, ""), opt(row.speedup, 3, "x")});
    }
    t.AddRow({fam.family, "geomean (" + std::to_string(fam.compared) + " compared)", "", "", "",
              opt(fam.geomean_speedup, 3, "x")});
  }
  if (f == Format::kText) {
    std::cout << "on " << setup.spec.name << " / " << setup.stack.name << " "
              << sim_sel.PrecisionFor(setup.spec.kind) << ", batch " << batch << "; speedup = the "
              << r.baseline
              << " curve's latency at the model's published top-1 / the model's latency\n"
              << "baseline front:";
    for (const auto& p : r.curve) {
      std::cout << " " << p.model << " (" << FormatFixed(p.top1, 1) << "%, "
                << FormatFixed(p.latency_ms, 3) << " ms)";
    }
    std::cout << "\npublished top-1: " << path << "\n";
  }
  std::cout << (f == Format::kCsv ? t.ToCsv() : t.ToText());
  return 0;
}

}  // namespace

int RunCompare(const Args& args) {
  po::options_description options("options");
  SimSelection sim_sel;
  std::string families_text;
  std::string pairs_text;
  std::string format;
  std::string out;
  std::vector<std::string> onnx_paths;
  int batch = 128;
  bool at_equal_accuracy = false;
  std::string published;
  options.add_options()(
      "family", po::value(&families_text),
      "comma-separated families (`dcnas models list`); the first is the baseline")(
      "pairs", po::value(&pairs_text),
      "instead of --family: comma-separated BASELINE:CANDIDATE model pairs")(
      "onnx", po::value(&onnx_paths)->multitoken(),
      "ONNX files: each is a model named by its file's stem, for --pairs (family onnx)")(
      "batch", po::value(&batch)->default_value(128), "batch size")(
      "format", po::value(&format)->default_value("text"), "text, json or csv")(
      "out", po::value(&out),
      "write a latency chart (SVG) here; with --at-equal-accuracy, latency against published "
      "top-1")(
      "at-equal-accuracy", po::bool_switch(&at_equal_accuracy),
      "compare each member of the other families with the first family's latency at the "
      "member's published ImageNet top-1, read off the first family's accuracy-latency curve "
      "(its Pareto front, log-linear between members), instead of pairing members by suffix")(
      "published", po::value(&published),
      "--at-equal-accuracy: the published top-1 table (default: the shipped "
      "data/accuracy/published-imagenet.csv)");
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
  if (at_equal_accuracy) {
    if (!pairs_text.empty() || !onnx_paths.empty()) {
      throw UsageError("--at-equal-accuracy takes --family (not --pairs or --onnx)");
    }
    if (SplitList(sim_sel.accel).size() != 1) {
      throw UsageError("--at-equal-accuracy: give one accelerator");
    }
    return RunAtEqualAccuracy(families_text, published, sim_sel, batch, f, out);
  }
  if (!published.empty()) throw UsageError("--published applies to --at-equal-accuracy only");
  const models::ModelRegistry registry = RegistryWithOnnx(onnx_paths);
  const study::Lineup lineup = LineupFrom(families_text, pairs_text, registry);
  const auto accels = SplitList(sim_sel.accel);
  if (accels.empty() || accels.size() > 2) {
    throw UsageError("--accel: give one accelerator, or two to compare them (A,B)");
  }
  if (accels.size() == 1 && lineup.models.size() < 2) {
    throw UsageError("dcnas compare: with one accelerator give at least two families");
  }
  const std::vector<sim::SimSetup> setups = sim_sel.LoadSetups(accels);
  study::Comparison cmp = study::Compare(lineup, setups, sim_sel.StudyOptions(batch), registry);
  if (const sim::IntervalModel im = sim_sel.Intervals())
    study::AddIntervals(cmp, setups, batch, im);
  std::string setup_text;
  for (const auto& s : setups) {
    setup_text += (setup_text.empty() ? "" : " and ") + s.spec.name + " / " + s.stack.name + " " +
                  sim_sel.PrecisionFor(s.spec.kind);
  }
  if (f == Format::kJson) {
    PrintJson(cmp, setups, sim_sel, batch);
  } else {
    if (f == Format::kText) {
      std::cout << "on " << setup_text << ", batch " << batch
                << "; speedup = baseline latency / latency\n";
      if (!cmp.columns.empty() && !cmp.columns.front().latency_interval.empty()) {
        std::cout << "intervals: 80% of measurements fall inside, from the simulator's held-out "
                     "error (calibrate/README.md); a speedup's own, its two errors correlated\n";
      }
    }
    const Table t = ComparisonTable(cmp, f == Format::kCsv);
    std::cout << (f == Format::kCsv ? t.ToCsv() : t.ToText());
  }
  if (!out.empty()) Emit(RenderSvg(LatencyChart(cmp, setup_text, batch)), out);
  return 0;
}

}  // namespace dcnas::cli
