#include "search/run.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <limits>
#include <set>
#include <sstream>

#include "common/errors.h"
#include "common/file_io.h"
#include "common/text.h"
#include "models/counts.h"
#include "models/graph_json.h"
#include "search/journal.h"

namespace dcnas::search {
namespace {

void Validate(const SearchOptions& o) {
  const auto names = StrategyNames();
  if (std::find(names.begin(), names.end(), o.strategy) == names.end()) {
    throw InputError("unknown strategy '" + o.strategy + "'" + DidYouMean(o.strategy, names) +
                     " (valid: " + Join(names, ", ") + ")");
  }
  if (!(o.target_ms > 0.0) || !std::isfinite(o.target_ms)) {
    throw InputError("--target-ms must be a positive latency in milliseconds (got " +
                     nlohmann::json(o.target_ms).dump() + ")");
  }
  if (o.budget < 1) {
    throw InputError("--budget must be at least 1 evaluation (got " + std::to_string(o.budget) +
                     ")");
  }
  if (!std::isfinite(o.w) || o.w > 0.0) {
    throw InputError("--w must be a finite exponent <= 0 (got " + nlohmann::json(o.w).dump() + ")");
  }
}

// The shortest text that reads back as the same double.
std::string Num(double v) { return nlohmann::json(v).dump(); }

}  // namespace

double SearchReward(const SearchOptions& options, double accuracy, double latency_ms) {
  return options.hard ? HardReward(accuracy, latency_ms, options.target_ms)
                      : MnasReward(accuracy, latency_ms, options.target_ms, options.w);
}

nlohmann::json SearchConfig(const SearchOptions& options, const AccuracyObjective& accuracy,
                            const LatencyObjective& latency) {
  nlohmann::json reward = {{"kind", options.hard ? "hard" : "mnas"},
                           {"target_ms", options.target_ms}};
  if (!options.hard) reward["w"] = options.w;
  return {{"strategy", options.strategy},  {"seed", options.seed},
          {"budget", options.budget},      {"reward", reward},
          {"accuracy", accuracy.Config()}, {"latency", latency.Config()}};
}

SearchResult RunSearch(const Space& space, const SearchOptions& options,
                       AccuracyObjective& accuracy, LatencyObjective& latency,
                       const std::string& run_dir, const ProgressFn& progress) {
  Validate(options);
  StrategyOptions so;
  so.seed = options.seed;
  if (options.strategy == "predictor") {
    std::vector<double> m, s;
    if (!accuracy.PredictWithStd({}, m, s)) {
      throw InputError(
          "strategy 'predictor' needs an accuracy with uncertainty: --accuracy surrogate:FILE");
    }
    so.predictor = [&](const std::vector<Encoding>& pool, std::vector<double>& mean,
                       std::vector<double>& std) {
      accuracy.PredictWithStd(pool, mean, std);
      for (size_t i = 0; i < pool.size(); ++i) {
        const double acc = std::max(mean[i], 1e-9);
        const double r = SearchReward(options, acc, latency.LatencyMs(pool[i]));
        mean[i] = r;
        std[i] = std[i] * r / acc;  // the accuracy's relative spread carried to the reward
      }
    };
  }
  const std::unique_ptr<Strategy> strategy = MakeStrategy(options.strategy, space, so);
  const int ask = options.strategy == "predictor" ? kPredictorAskBatch : 1;

  SearchResult result;
  result.header = JournalHeader({{"name", space.name()}, {"fingerprint", space.fingerprint()}},
                                SearchConfig(options, accuracy, latency));
  std::filesystem::create_directories(run_dir);
  const std::string path = (std::filesystem::path(run_dir) / "journal.jsonl").string();
  std::vector<JournalEntry> journaled;
  const bool exists = std::filesystem::exists(path);
  if (exists && !options.resume) {
    throw InputError(path + " exists: --resume continues it, or choose another --out");
  }
  Journal journal = exists ? Journal::Resume(path, result.header, journaled)
                           : Journal::Create(path, result.header);
  if (static_cast<int64_t>(journaled.size()) > options.budget) {
    throw InternalError(path + ": more results than the budget recorded in its header");
  }

  SearchProgress p;
  p.budget = options.budget;
  p.best_reward = -std::numeric_limits<double>::infinity();
  size_t next = 0;
  while (p.evaluations < options.budget) {
    const int n = static_cast<int>(std::min<int64_t>(ask, options.budget - p.evaluations));
    const std::vector<Candidate> candidates = strategy->Ask(n);
    if (candidates.empty()) throw InternalError("strategy asked for tells with none pending");
    for (const Candidate& c : candidates) {
      SearchPoint point{c.id, c.encoding, 0.0, 0.0, 0.0};
      const std::string text = space.ToText(c.encoding);
      if (next < journaled.size()) {
        const JournalEntry& e = journaled[next];
        if (e.id != c.id || e.encoding != text) {
          throw InputError(path + ":" + std::to_string(next + 2) +
                           ": journal does not match this configuration: the search asks for " +
                           text + " (id " + std::to_string(c.id) + "), the journal has " +
                           e.encoding + " (id " + std::to_string(e.id) + ")");
        }
        point.accuracy = e.accuracy;
        point.latency_ms = e.latency_ms;
        point.reward = e.reward;
        ++next;
        ++p.replayed;
      } else {
        point.accuracy = accuracy.Accuracy(c.encoding);
        point.latency_ms = latency.LatencyMs(c.encoding);
        point.reward = SearchReward(options, point.accuracy, point.latency_ms);
        journal.Append({c.id, text, point.accuracy, point.latency_ms, point.reward});
      }
      strategy->Tell(c,
                     {.reward = point.reward, .objectives = {point.accuracy, -point.latency_ms}});
      if (point.reward > p.best_reward) {
        p.best_reward = point.reward;
        result.best = result.points.size();
      }
      result.points.push_back(std::move(point));
      ++p.evaluations;
      if (progress) progress(p);
    }
  }
  journal.Sync();
  result.replayed = p.replayed;

  // The front over distinct encodings (the first evaluation of each).
  std::vector<size_t> distinct;
  std::vector<std::vector<double>> objectives;
  std::set<Encoding> seen;
  for (size_t i = 0; i < result.points.size(); ++i) {
    if (!seen.insert(result.points[i].encoding).second) continue;
    distinct.push_back(i);
    objectives.push_back({result.points[i].accuracy, -result.points[i].latency_ms});
  }
  for (size_t k : ParetoFront(objectives)) result.front.push_back(distinct[k]);
  std::stable_sort(result.front.begin(), result.front.end(), [&](size_t a, size_t b) {
    return result.points[a].latency_ms < result.points[b].latency_ms;
  });
  WriteSearchOutputs(space, options, result, run_dir);
  return result;
}

void WriteSearchOutputs(const Space& space, const SearchOptions& options,
                        const SearchResult& result, const std::string& run_dir) {
  const std::filesystem::path dir(run_dir);
  std::ostringstream csv;
  csv << "accuracy,latency_ms,reward,params,flops,encoding,blocks\n";
  for (size_t i : result.front) {
    const SearchPoint& p = result.points[i];
    const models::OpCounts counts = models::CountGraph(space.BuildFull(p.encoding, {}, {}));
    csv << Num(p.accuracy) << "," << Num(p.latency_ms) << "," << Num(p.reward) << ","
        << counts.params << "," << counts.flops << "," << space.ToText(p.encoding) << ","
        << Join(space.Decode(p.encoding).blocks, " ") << "\n";
  }
  WriteFileAtomic((dir / "pareto.csv").string(), csv.str());

  const SearchPoint& best = result.points.at(result.best);
  const Decoded decoded = space.Decode(best.encoding);
  const models::Graph graph = space.BuildFull(best.encoding, {}, options.graph_options);
  const models::OpCounts counts = models::CountGraph(space.BuildFull(best.encoding, {}, {}));
  WriteFileAtomic((dir / "best.json").string(), models::GraphToJsonString(graph));
  std::ostringstream txt;
  txt << "best of " << result.points.size() << " evaluations (" << options.strategy << ", seed "
      << options.seed << ") in " << space.name() << "\n"
      << "encoding   " << space.ToText(best.encoding) << " (id " << best.id << ")\n"
      << "reward     " << Num(best.reward) << "\naccuracy   " << Num(best.accuracy)
      << "\nlatency_ms " << Num(best.latency_ms) << "\nparams     " << counts.params
      << "\nflops      " << counts.flops << "\n\nops per stage:\n";
  for (size_t s = 0; s < decoded.stage_ops.size(); ++s) {
    txt << "  stage " << s + 1 << ": " << decoded.stage_ops[s] << "\n";
  }
  txt << "\nblocks:\n";
  for (const auto& b : decoded.blocks) txt << "  " << b << "\n";
  WriteFileAtomic((dir / "best.txt").string(), txt.str());

  const nlohmann::json summary = {{"format", "dcnas-search-summary"},
                                  {"space", result.header["space"]},
                                  {"config", result.header["config"]},
                                  {"evaluations", result.points.size()},
                                  {"pareto_size", result.front.size()},
                                  {"best",
                                   {{"id", best.id},
                                    {"encoding", space.ToText(best.encoding)},
                                    {"reward", best.reward},
                                    {"accuracy", best.accuracy},
                                    {"latency_ms", best.latency_ms},
                                    {"params", counts.params},
                                    {"flops", counts.flops},
                                    {"stage_ops", decoded.stage_ops},
                                    {"blocks", decoded.blocks}}}};
  WriteFileAtomic((dir / "summary.json").string(), summary.dump(1) + "\n");
}

}  // namespace dcnas::search
