#include "search/strategy_compare.h"

#include <algorithm>
#include <filesystem>
#include <sstream>

#include "common/errors.h"
#include "common/file_io.h"
#include "common/statistics.h"
#include "common/svg_chart.h"
#include "common/table.h"

namespace dcnas::search {
namespace {}  // namespace

CompareResult CompareStrategies(const space::Space& space, const CompareOptions& options,
                                AccuracyObjective& accuracy, LatencyObjective& latency,
                                const std::string& dir,
                                const std::function<void(size_t, size_t)>& progress) {
  if (options.strategies.empty() || options.budgets.empty() || options.seeds < 1) {
    throw InputError("a comparison needs at least one strategy, one budget and one seed");
  }
  const size_t total =
      options.strategies.size() * options.budgets.size() * static_cast<size_t>(options.seeds);
  CompareResult result;
  std::filesystem::create_directories(dir);
  for (const std::string& strategy : options.strategies) {
    for (int64_t budget : options.budgets) {
      std::vector<double> best;
      for (int seed = 0; seed < options.seeds; ++seed) {
        SearchOptions o = options.search;
        o.strategy = strategy;
        o.budget = budget;
        o.seed = static_cast<uint64_t>(seed);
        o.references.clear();
        const std::string run_dir =
            (std::filesystem::path(dir) /
             (strategy + "-b" + std::to_string(budget) + "-s" + std::to_string(seed)))
                .string();
        o.resume = std::filesystem::exists(std::filesystem::path(run_dir) / "journal.jsonl");
        const SearchResult r = RunSearch(space, o, accuracy, latency, run_dir);
        const SearchPoint& b = r.points.at(r.best);
        result.runs.push_back({strategy, budget, o.seed, b.reward, b.accuracy, b.latency_ms,
                               static_cast<int64_t>(r.points.size()), r.repeats});
        best.push_back(b.reward);
        if (progress) progress(result.runs.size(), total);
      }
      result.cells.push_back({strategy, budget, Quantile(best, 0.5), Quantile(best, 0.25),
                              Quantile(best, 0.75), *std::min_element(best.begin(), best.end()),
                              *std::max_element(best.begin(), best.end())});
    }
  }

  std::ostringstream csv;
  csv << "strategy,budget,seed,best_reward,best_accuracy,best_latency_ms,evaluated,repeats\n";
  for (const CompareRun& r : result.runs) {
    csv << r.strategy << "," << r.budget << "," << r.seed << ","
        << FormatShortestReal(r.best_reward) << "," << FormatShortestReal(r.best_accuracy) << ","
        << FormatShortestReal(r.best_latency_ms) << "," << r.evaluated << "," << r.repeats << "\n";
  }
  const std::filesystem::path d(dir);
  WriteFileAtomic((d / "runs.csv").string(), csv.str());
  WriteFileAtomic((d / "comparison.txt").string(), FormatComparison(result));

  Chart chart;
  chart.title =
      space.name() + ": best reward found, median over " + std::to_string(options.seeds) + " seeds";
  chart.x = {.title = "budget (distinct networks)", .log = true};
  chart.y = {.title = options.search.accuracy_only ? "best accuracy (%, no latency)"
                                                   : "best reward ACC * (LAT / T)^w"};
  for (const std::string& strategy : options.strategies) {
    ChartSeries median{.label = strategy + " median", .style = ChartSeries::Style::kLinePoints};
    for (const CompareCell& c : result.cells) {
      if (c.strategy != strategy) continue;
      median.x.push_back(static_cast<double>(c.budget));
      median.y.push_back(c.median);
    }
    chart.series.push_back(median);
  }
  WriteFileAtomic((d / "comparison.svg").string(), RenderSvg(chart));
  return result;
}

std::string FormatComparison(const CompareResult& result) {
  std::vector<int64_t> budgets;
  std::vector<std::string> strategies;
  for (const CompareCell& c : result.cells) {
    if (std::find(budgets.begin(), budgets.end(), c.budget) == budgets.end()) {
      budgets.push_back(c.budget);
    }
    if (std::find(strategies.begin(), strategies.end(), c.strategy) == strategies.end()) {
      strategies.push_back(c.strategy);
    }
  }
  std::vector<std::string> header = {"strategy"};
  for (int64_t b : budgets) header.push_back("budget " + std::to_string(b));
  Table t(header);
  for (const std::string& s : strategies) {
    std::vector<std::string> row = {s};
    for (int64_t b : budgets) {
      for (const CompareCell& c : result.cells) {
        if (c.strategy != s || c.budget != b) continue;
        row.push_back(FormatFixed(c.median, 4) + " [" + FormatFixed(c.q1, 4) + ", " +
                      FormatFixed(c.q3, 4) + "] (" + FormatFixed(c.min, 4) + ".." +
                      FormatFixed(c.max, 4) + ")");
      }
    }
    t.AddRow(row);
  }
  std::ostringstream out;
  out << "best reward: median [first quartile, third quartile] (min..max) over seeds\n"
      << t.ToText();
  return out.str();
}

}  // namespace dcnas::search
