#include "search/protocol.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <exception>
#include <filesystem>
#include <limits>
#include <mutex>
#include <sstream>
#include <thread>
#include <unordered_map>

#include "common/errors.h"
#include "common/file_io.h"
#include "common/statistics.h"
#include "common/svg_chart.h"
#include "common/table.h"
#include "common/text.h"
#include "search/run.h"

namespace dcnas::search {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

void Validate(const ProtocolOptions& o, const space::Space& space) {
  if (o.strategies.empty()) throw InputError("--strategies: no strategy given");
  if (o.seeds < 1) throw InputError("--seeds " + std::to_string(o.seeds) + ": must be >= 1");
  if (o.budget < 1) throw InputError("--budget " + std::to_string(o.budget) + ": must be >= 1");
  if (!(o.top_fraction > 0.0 && o.top_fraction <= 1.0)) {
    throw InputError("--top-fraction " + FormatSignificant(o.top_fraction) + ": must be in (0, 1]");
  }
  if (o.in_flight < 1) {
    throw InputError("--in-flight " + std::to_string(o.in_flight) + ": must be >= 1");
  }
  if (o.threads < 1) throw InputError("--threads " + std::to_string(o.threads) + ": must be >= 1");
  for (const std::string& s : o.strategies) MakeStrategy(s, space, o.params);  // names, options
}

// One run: the strategy with `seed` against the table until the optimum, the budget or a stop.
ProtocolRun RunOne(const space::Space& space, const ObjectiveTable& table,
                   const ProtocolTargets& targets, const ProtocolOptions& o,
                   const std::string& name, uint64_t seed) {
  StrategyOptions params = o.params;
  params.seed = seed;
  params.prior = nullptr;
  const std::unique_ptr<Strategy> strategy = MakeStrategy(name, space, params);
  ProtocolRun run{.strategy = name, .seed = seed};
  std::unordered_map<std::string, double> evaluated;  // canonical text -> accuracy
  int64_t in_a_row = 0;
  while (run.evaluated < o.budget && !run.found_optimum() && run.stopped.empty()) {
    const int n = static_cast<int>(std::min<int64_t>(o.in_flight, o.budget - run.evaluated));
    const std::vector<Candidate> asked = strategy->Ask(n);
    if (asked.empty()) {
      run.stopped = "strategy " + name + " proposed no network";
      break;
    }
    for (const Candidate& c : asked) {
      const std::string text = space.ToText(c.encoding);
      auto it = evaluated.find(text);
      if (it != evaluated.end()) {
        ++run.repeats;
        if (++in_a_row >= kMaxRepeatsInARow) {
          run.stopped = std::to_string(kMaxRepeatsInARow) +
                        " proposals in a row were networks evaluated before";
        }
      } else {
        const auto row = table.values.find(text);
        if (row == table.values.end()) {
          throw InputError(table.file + ": no accuracy for architecture " + text +
                           " (proposed by " + name + ", seed " + std::to_string(seed) +
                           "; the table must cover every network of the space)");
        }
        it = evaluated.emplace(text, row->second).first;
        in_a_row = 0;
        ++run.evaluated;
        if (run.to_top == 0 && row->second >= targets.top_threshold) run.to_top = run.evaluated;
        if (run.to_optimum == 0 && row->second >= targets.optimum) run.to_optimum = run.evaluated;
      }
      strategy->Tell(c, {.reward = it->second, .objectives = {it->second}});
    }
  }
  if (run.found_optimum()) run.stopped.clear();
  return run;
}

// Quantile (type 7, common/statistics.h) of a sample with +infinity for the misses: past the
// budget as soon as it would interpolate toward a miss (Quantile itself would give NaN there).
double QuantileWithMisses(std::vector<double> values, double q) {
  std::sort(values.begin(), values.end());
  const double pos = q * static_cast<double>(values.size() - 1);
  const auto lo = static_cast<size_t>(pos);
  const size_t hi = std::min(lo + 1, values.size() - 1);
  if (!std::isfinite(values[lo])) return kInf;
  if (pos == static_cast<double>(lo) || values[hi] == values[lo]) return values[lo];
  return std::isfinite(values[hi]) ? Quantile(values, q) : kInf;
}

ProtocolStat Stat(const std::vector<double>& hits, double total) {
  ProtocolStat s;
  s.median = QuantileWithMisses(hits, 0.5);
  s.q1 = QuantileWithMisses(hits, 0.25);
  s.q3 = QuantileWithMisses(hits, 0.75);
  s.hit_rate = static_cast<double>(std::count_if(hits.begin(), hits.end(),
                                                 [](double v) { return std::isfinite(v); })) /
               total;
  return s;
}

// "112" or "-" (past the budget).
std::string Count(double v) { return std::isfinite(v) ? FormatFixed(v, 0) : "-"; }

std::string StatText(const ProtocolStat& s) {
  return Count(s.median) + " [" + Count(s.q1) + ", " + Count(s.q3) + "], " +
         FormatFixed(100.0 * s.hit_rate, 0) + "%";
}

// The fraction of runs that found a target within x distinct networks, as a step line.
ChartSeries FoundCurve(const std::vector<int64_t>& hits, size_t runs, int64_t budget,
                       const std::string& label, ChartSeries::Style style,
                       const std::string& color) {
  ChartSeries series{.label = label, .style = style, .color = color};
  std::vector<int64_t> sorted;
  for (int64_t h : hits) {
    if (h > 0) sorted.push_back(h);
  }
  std::sort(sorted.begin(), sorted.end());
  double fraction = 0.0;
  series.x.push_back(1.0);
  series.y.push_back(0.0);
  for (size_t i = 0; i < sorted.size(); ++i) {
    if (i + 1 < sorted.size() && sorted[i + 1] == sorted[i]) continue;
    const auto x = static_cast<double>(sorted[i]);
    series.x.push_back(x);
    series.y.push_back(fraction);
    fraction = static_cast<double>(i + 1) / static_cast<double>(runs);
    series.x.push_back(x);
    series.y.push_back(fraction);
  }
  series.x.push_back(static_cast<double>(budget));
  series.y.push_back(fraction);
  return series;
}

}  // namespace

ProtocolTargets FindTargets(const space::Space& space, const ObjectiveTable& table,
                            double top_fraction) {
  if (table.values.empty()) throw InputError(table.file + ": no rows");
  std::vector<double> values;
  values.reserve(table.values.size());
  size_t invalid = 0;
  std::string example;
  for (const auto& [text, v] : table.values) {
    values.push_back(v);
    if (!space.IsValid(space.FromText(text))) {
      if (invalid++ == 0 || text < example) example = text;
    }
  }
  if (invalid > 0) {
    std::string why;
    try {
      space.Decode(space.FromText(example));
    } catch (const InputError& e) {
      why = std::string(": ") + e.what();
    }
    throw InputError(table.file + ": " + std::to_string(invalid) + " of " +
                     std::to_string(table.values.size()) + " networks are not valid in space " +
                     space.name() + " (" + space.file() + "), e.g. " + example + why +
                     "; no search can reach them");
  }
  std::sort(values.begin(), values.end(), std::greater<>());
  ProtocolTargets t;
  t.networks = values.size();
  t.optimum = values.front();
  t.optimum_networks = static_cast<size_t>(std::count(values.begin(), values.end(), t.optimum));
  const auto k = std::clamp<size_t>(
      static_cast<size_t>(std::ceil(top_fraction * static_cast<double>(values.size()) - 1e-9)), 1,
      values.size());
  t.top_threshold = values[k - 1];
  t.top_networks = static_cast<size_t>(
      std::count_if(values.begin(), values.end(), [&](double v) { return v >= t.top_threshold; }));
  return t;
}

ProtocolResult RunProtocol(const space::Space& space, const ObjectiveTable& table,
                           const ProtocolOptions& options,
                           const std::function<void(size_t, size_t)>& progress) {
  Validate(options, space);
  ProtocolResult result;
  result.targets = FindTargets(space, table, options.top_fraction);
  const size_t total = options.strategies.size() * static_cast<size_t>(options.seeds);
  result.runs.resize(total);
  std::atomic<size_t> next{0};
  std::mutex mutex;
  size_t done = 0;
  std::vector<std::exception_ptr> errors(total);
  auto work = [&] {
    for (size_t i = next++; i < total; i = next++) {
      try {
        const std::string& name = options.strategies[i / static_cast<size_t>(options.seeds)];
        const auto seed = static_cast<uint64_t>(i % static_cast<size_t>(options.seeds));
        result.runs[i] = RunOne(space, table, result.targets, options, name, seed);
      } catch (...) {
        errors[i] = std::current_exception();
        next = total;  // stop handing out runs
      }
      const std::lock_guard<std::mutex> lock(mutex);
      ++done;
      if (progress) progress(done, total);
    }
  };
  {
    std::vector<std::jthread> pool;
    for (int t = 1; t < std::min<int>(options.threads, static_cast<int>(total)); ++t) {
      pool.emplace_back(work);
    }
    work();
  }
  for (const auto& e : errors) {
    if (e) std::rethrow_exception(e);  // the first failed run's error, by run order
  }
  for (size_t s = 0; s < options.strategies.size(); ++s) {
    std::vector<double> optimum, top;
    double repeats = 0.0;
    for (int seed = 0; seed < options.seeds; ++seed) {
      const ProtocolRun& r = result.runs[s * static_cast<size_t>(options.seeds) + seed];
      optimum.push_back(r.found_optimum() ? static_cast<double>(r.to_optimum) : kInf);
      top.push_back(r.found_top() ? static_cast<double>(r.to_top) : kInf);
      repeats += static_cast<double>(r.repeats);
    }
    const auto n = static_cast<double>(options.seeds);
    result.cells.push_back({options.strategies[s], Stat(optimum, n), Stat(top, n), repeats / n});
  }
  return result;
}

std::string FormatProtocol(const ProtocolResult& result, const ProtocolOptions& options) {
  const ProtocolTargets& t = result.targets;
  const std::string top = FormatSignificant(100.0 * options.top_fraction) + "%";
  std::ostringstream out;
  out << "NAS-benchmark protocol: " << t.networks << " networks in the table; optimum "
      << FormatSignificant(t.optimum) << " (" << t.optimum_networks << " network"
      << (t.optimum_networks == 1 ? "" : "s") << "), top " << top << ": " << t.top_networks
      << " networks (accuracy >= " << FormatSignificant(t.top_threshold) << ")\n"
      << options.seeds << " seeds per strategy, budget " << options.budget << " distinct networks, "
      << options.in_flight << " in flight\n"
      << "distinct networks evaluated until the target: median [first quartile, third quartile], "
         "runs that found it within the budget ('-': past the budget)\n";
  Table table({"strategy", "optimum", "top " + top, "repeats per run"});
  for (const ProtocolCell& c : result.cells) {
    table.AddRow(
        {c.strategy, StatText(c.optimum), StatText(c.top), FormatFixed(c.mean_repeats, 0)});
  }
  out << table.ToText();
  return out.str();
}

void WriteProtocol(const space::Space& space, const ProtocolOptions& options,
                   const nlohmann::json& table_config, const ProtocolResult& result,
                   const std::string& dir) {
  const std::filesystem::path d(dir);
  std::filesystem::create_directories(d);
  std::ostringstream csv;
  csv << "strategy,seed,to_optimum,to_top,found_optimum,found_top,evaluated,repeats\n";
  for (const ProtocolRun& r : result.runs) {
    csv << r.strategy << "," << r.seed << "," << r.to_optimum << "," << r.to_top << ","
        << (r.found_optimum() ? 1 : 0) << "," << (r.found_top() ? 1 : 0) << "," << r.evaluated
        << "," << r.repeats << "\n";
  }
  WriteFileAtomic((d / "runs.csv").string(), csv.str());
  WriteFileAtomic((d / "protocol.txt").string(), FormatProtocol(result, options));

  const ProtocolTargets& t = result.targets;
  auto stat = [](const ProtocolStat& s) {
    auto v = [](double x) { return std::isfinite(x) ? nlohmann::json(x) : nlohmann::json(); };
    return nlohmann::json{
        {"median", v(s.median)}, {"q1", v(s.q1)}, {"q3", v(s.q3)}, {"hit_rate", s.hit_rate}};
  };
  nlohmann::json strategies = nlohmann::json::array();
  for (const ProtocolCell& c : result.cells) {
    strategies.push_back({{"strategy", c.strategy},
                          {"parameters", StrategyConfig(c.strategy, options.params)},
                          {"to_optimum", stat(c.optimum)},
                          {"to_top", stat(c.top)},
                          {"mean_repeats", c.mean_repeats}});
  }
  const nlohmann::json summary = {
      {"format", "dcnas-search-protocol"},
      {"space", {{"name", space.name()}, {"fingerprint", space.fingerprint()}}},
      {"accuracy", table_config},
      {"targets",
       {{"networks", t.networks},
        {"optimum", t.optimum},
        {"optimum_networks", t.optimum_networks},
        {"top_fraction", options.top_fraction},
        {"top_threshold", t.top_threshold},
        {"top_networks", t.top_networks}}},
      {"seeds", options.seeds},
      {"budget", options.budget},
      {"budget_counts", "distinct networks"},
      {"in_flight", options.in_flight},
      {"reward", "accuracy"},
      {"strategies", strategies}};
  WriteFileAtomic((d / "summary.json").string(), summary.dump(1) + "\n");

  static const std::vector<std::string> kColors = {"#0072b2", "#d55e00", "#009e73", "#cc79a7",
                                                   "#e69f00", "#56b4e9", "#000000", "#f0e442"};
  Chart chart;
  chart.title = space.name() + ": runs that found the target (" + std::to_string(options.seeds) +
                " seeds per strategy)";
  chart.x = {.title = "distinct networks evaluated",
             .log = true,
             .min = 1.0,
             .max = static_cast<double>(options.budget)};
  chart.y = {.title = "fraction of runs that found it", .min = 0.0, .max = 1.0};
  const std::string top = FormatSignificant(100.0 * options.top_fraction) + "%";
  for (size_t s = 0; s < options.strategies.size(); ++s) {
    std::vector<int64_t> optimum, first_top;
    for (const ProtocolRun& r : result.runs) {
      if (r.strategy != options.strategies[s]) continue;
      optimum.push_back(r.to_optimum);
      first_top.push_back(r.to_top);
    }
    const std::string& color = kColors[s % kColors.size()];
    const auto runs = static_cast<size_t>(options.seeds);
    chart.series.push_back(FoundCurve(optimum, runs, options.budget,
                                      options.strategies[s] + ": optimum",
                                      ChartSeries::Style::kLine, color));
    chart.series.push_back(FoundCurve(first_top, runs, options.budget,
                                      options.strategies[s] + ": top " + top,
                                      ChartSeries::Style::kDashedLine, color));
  }
  WriteFileAtomic((d / "protocol.svg").string(), RenderSvg(chart));
}

}  // namespace dcnas::search
