#include "search/run.h"

#include <algorithm>
#include <cmath>
#include <deque>
#include <exception>
#include <filesystem>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <thread>
#include <unordered_map>

#include "common/errors.h"
#include "common/file_io.h"
#include "common/kill_point.h"
#include "common/svg_chart.h"
#include "common/table.h"
#include "common/text.h"
#include "models/counts.h"
#include "models/graph_json.h"
#include "models/zoo/zoo.h"
#include "search/journal.h"

namespace dcnas::search {
namespace {

void Validate(const SearchOptions& o) {
  const auto names = StrategyNames();
  if (std::find(names.begin(), names.end(), o.strategy) == names.end()) {
    throw InputError("unknown strategy '" + o.strategy + "'" + DidYouMean(o.strategy, names) +
                     " (valid: " + Join(names, ", ") + ")");
  }
  if (!o.accuracy_only && (!(o.target_ms > 0.0) || !std::isfinite(o.target_ms))) {
    throw InputError("--target-ms must be a positive latency in milliseconds (got " +
                     FormatShortest(o.target_ms) + ")");
  }
  if (o.accuracy_only && o.hard) {
    throw InputError(
        "--hard needs a latency: not with --latency none (the reward is the accuracy)");
  }
  if (o.budget < 1) {
    throw InputError("--budget must be at least 1 network (got " + std::to_string(o.budget) + ")");
  }
  if (o.prior && o.strategy != "predictor") {
    throw InputError("--prior applies to strategy predictor only (not " + o.strategy + ")");
  }
  if (o.in_flight < 1 || o.in_flight > 4096) {
    throw InputError("--in-flight must be 1..4096 candidates (got " + std::to_string(o.in_flight) +
                     ")");
  }
  if (o.threads < 1 || o.threads > 256) {
    throw InputError("--threads must be 1..256 (got " + std::to_string(o.threads) + ")");
  }
  if (o.asynchronous && o.executor == nullptr) {
    throw InputError("an asynchronous search needs workers (--executor mpi)");
  }
  if (!std::isfinite(o.w) || o.w > 0.0) {
    throw InputError("--w must be a finite exponent <= 0 (got " + FormatShortest(o.w) + ")");
  }
}

// The shortest text that reads back as the same double.
std::string ReferenceLabel(const Reference& r) {
  return r.model + (r.exact || r.encoding.empty() ? "" : " (counterpart)");
}

// An accuracy-only search (no latency): the accuracy of each network in evaluation order and the
// best so far (pareto.svg).
Chart AccuracyChart(const space::Space& space, const SearchOptions& options,
                    const SearchResult& result) {
  Chart chart;
  chart.title = space.name() + ": " + options.strategy + ", seed " + std::to_string(options.seed) +
                ", " + std::to_string(result.points.size()) +
                " networks (accuracy only, no latency)";
  chart.x = {.title = "distinct networks evaluated", .log = false};
  chart.y = {.title = "accuracy (%)"};
  ChartSeries all{.label = "evaluated", .color = "#b0b0b0"};
  ChartSeries best{.label = "best so far", .style = ChartSeries::Style::kLine, .color = "#d55e00"};
  double top = -std::numeric_limits<double>::infinity();
  for (size_t i = 0; i < result.points.size(); ++i) {
    all.x.push_back(static_cast<double>(i + 1));
    all.y.push_back(result.points[i].accuracy);
    top = std::max(top, result.points[i].accuracy);
    best.x.push_back(static_cast<double>(i + 1));
    best.y.push_back(top);
  }
  chart.series = {all, best};
  return chart;
}

// All evaluated points, the front, the references and the target (pareto.svg).
Chart ParetoChart(const space::Space& space, const SearchOptions& options,
                  const SearchResult& result) {
  if (options.accuracy_only) return AccuracyChart(space, options, result);
  Chart chart;
  chart.title = space.name() + ": " + options.strategy + ", seed " + std::to_string(options.seed) +
                ", " + std::to_string(result.points.size()) + " networks";
  chart.x = {.title = "simulated latency (ms per batch)", .log = true};
  chart.y = {.title = "accuracy (%)"};
  ChartSeries all{.label = "evaluated", .color = "#b0b0b0"};
  for (const SearchPoint& p : result.points) {
    all.x.push_back(p.latency_ms);
    all.y.push_back(p.accuracy);
  }
  ChartSeries front{
      .label = "Pareto front", .style = ChartSeries::Style::kLinePoints, .color = "#0072b2"};
  for (size_t i : result.front) {
    front.x.push_back(result.points[i].latency_ms);
    front.y.push_back(result.points[i].accuracy);
  }
  ChartSeries best{.label = "best reward", .color = "#d55e00"};
  best.x.push_back(result.points.at(result.best).latency_ms);
  best.y.push_back(result.points.at(result.best).accuracy);
  best.point_labels.emplace_back("best");
  chart.series = {all, front, best};
  ChartSeries refs{.label = "references", .color = "#009e73"};
  for (const Reference& r : result.references) {
    if (!r.latency_ms) continue;
    if (r.accuracy) {
      refs.x.push_back(*r.latency_ms);
      refs.y.push_back(*r.accuracy);
      refs.point_labels.push_back(ReferenceLabel(r));
    } else {
      chart.references.push_back({.vertical = true,
                                  .value = *r.latency_ms,
                                  .label = r.model + " (no accuracy)",
                                  .color = "#009e73"});
    }
  }
  if (!refs.x.empty()) chart.series.push_back(refs);
  chart.references.push_back({.vertical = true,
                              .value = options.target_ms,
                              .label = "target " + FormatShortestReal(options.target_ms) + " ms",
                              .color = "#cc79a7"});
  return chart;
}

// The intervals of a search's reported latencies, when it has them.
struct SearchIntervals {
  const sim::SimSetup* setup = nullptr;
  sim::IntervalModel model;
  explicit operator bool() const { return setup != nullptr && static_cast<bool>(model); }
  sim::Interval Latency(double ms) const { return model.Latency(*setup, false, setup->batch, ms); }
  sim::Interval Speedup(double ratio) const {
    return model.CrossModel(*setup, false, setup->batch, ratio);
  }
};

std::string IntervalText(const sim::Interval& i, int digits) {
  return "80% " + sim::FormatRange(i.lo80, i.hi80, digits) + ", 95% " +
         sim::FormatRange(i.lo95, i.hi95, digits);
}

nlohmann::json ReferencesJson(const SearchResult& result, const space::Space& space,
                              const SearchIntervals& iv) {
  nlohmann::json refs = nlohmann::json::array();
  for (const Reference& r : result.references) {
    nlohmann::json j = {{"model", r.model},      {"encoding", r.encoding},
                        {"exact", r.exact},      {"differences", r.differences},
                        {"latency_ms", nullptr}, {"accuracy", nullptr}};
    if (r.latency_ms) j["latency_ms"] = *r.latency_ms;
    if (r.latency_ms && iv)
      j["latency_interval_ms"] = sim::IntervalToJson(iv.Latency(*r.latency_ms));
    if (r.accuracy) j["accuracy"] = *r.accuracy;
    j["published_top1"] = r.published_top1 ? nlohmann::json(*r.published_top1) : nlohmann::json();
    if (!r.note.empty()) j["note"] = r.note;
    if (!r.structure.empty()) j["structure"] = StructureText(r.structure);
    for (const ReferenceComparison& c : result.comparisons) {
      if (c.model != r.model) continue;
      j["constraint_binds"] = c.binds;
      j["fastest_same_structure"] = nullptr;
      if (c.same_structure_point) {
        const SearchPoint& q = result.points[*c.same_structure_point];
        j["fastest_same_structure"] = {{"id", q.id},
                                       {"encoding", space.ToText(q.encoding)},
                                       {"accuracy", q.accuracy},
                                       {"latency_ms", q.latency_ms},
                                       {"speedup", c.same_structure_speedup}};
      }
      if (!c.point) {
        j["fastest_at_least_as_accurate"] = nullptr;
        continue;
      }
      const SearchPoint& p = result.points[*c.point];
      j["fastest_at_least_as_accurate"] = {{"id", p.id},
                                           {"encoding", space.ToText(p.encoding)},
                                           {"accuracy", p.accuracy},
                                           {"latency_ms", p.latency_ms},
                                           {"speedup", c.speedup},
                                           {"accuracy_gain", c.accuracy_gain}};
      if (iv) {
        j["fastest_at_least_as_accurate"]["speedup_interval"] =
            sim::IntervalToJson(iv.Speedup(c.speedup));
      }
    }
    refs.push_back(j);
  }
  return refs;
}

// Scores a round of candidates: latencies (and the counts the accuracy surrogate needs) on
// `threads` threads, each with its own copy of the latency objective (the first is the caller's),
// then the accuracies in one batch.
class Scorer {
 public:
  Scorer(const space::Space& space, LatencyObjective& latency, int threads,
         exec::Executor* executor)
      : space_(space), latency_(latency), executor_(executor) {
    for (int t = 1; t < threads; ++t) copies_.push_back(latency.Clone());
  }

  void Score(const std::vector<Candidate>& candidates, AccuracyObjective& accuracy,
             std::vector<double>& accuracies, std::vector<double>& latencies) {
    const size_t n = candidates.size();
    latencies.assign(n, 0.0);
    std::vector<std::optional<ArchCounts>> counts(n);
    if (executor_ != nullptr) {
      Distribute(candidates, latencies, counts);
    } else {
      Local(candidates, latencies, counts);
    }
    std::vector<space::Encoding> encodings;
    std::vector<ArchCounts> known;
    for (size_t i = 0; i < n; ++i) {
      encodings.push_back(candidates[i].encoding);
      if (counts[i]) known.push_back(*counts[i]);
    }
    if (known.size() != n) known.clear();
    accuracy.AccuracyBatch(encodings, known, accuracies);
  }

 private:
  // On the executor's workers: one job per candidate, results placed by index.
  void Distribute(const std::vector<Candidate>& candidates, std::vector<double>& latencies,
                  std::vector<std::optional<ArchCounts>>& counts) {
    size_t next = 0;
    executor_->Run(
        [&]() -> std::optional<exec::WorkItem> {
          if (next >= candidates.size()) return std::nullopt;
          const size_t i = next++;
          return exec::WorkItem{i, space_.ToText(candidates[i].encoding)};
        },
        [&](const exec::WorkResult& r) {
          if (!r.error.empty()) {
            throw InputError("candidate " + space_.ToText(candidates[r.index].encoding) +
                             ": worker " + std::to_string(r.worker) + ": " + r.error);
          }
          const nlohmann::json j = nlohmann::json::parse(r.payload);
          latencies[r.index] = j.at("latency_ms").get<double>();
          if (j.contains("params")) {
            counts[r.index] = ArchCounts{j["params"].get<double>(), j["flops"].get<double>()};
          }
        });
  }

  void Local(const std::vector<Candidate>& candidates, std::vector<double>& latencies,
             std::vector<std::optional<ArchCounts>>& counts) {
    const size_t n = candidates.size();
    const size_t workers = std::min(copies_.size() + 1, n);
    auto run = [&](size_t w) {
      LatencyObjective& objective = w == 0 ? latency_ : *copies_[w - 1];
      // Contiguous shares keep each copy's cost cache on similar networks.
      for (size_t i = n * w / workers; i < n * (w + 1) / workers; ++i) {
        latencies[i] = objective.LatencyAndCounts(candidates[i].encoding, counts[i]);
      }
    };
    if (workers <= 1) {
      if (n > 0) run(0);
    } else {
      std::vector<std::exception_ptr> errors(workers);
      {
        std::vector<std::jthread> pool;
        for (size_t w = 1; w < workers; ++w) {
          pool.emplace_back([&, w] {
            try {
              run(w);
            } catch (...) {
              errors[w] = std::current_exception();
            }
          });
        }
        try {
          run(0);
        } catch (...) {
          errors[0] = std::current_exception();
        }
      }
      for (const auto& e : errors) {
        if (e) std::rethrow_exception(e);
      }
    }
  }

  const space::Space& space_;
  LatencyObjective& latency_;
  exec::Executor* executor_;
  std::vector<std::unique_ptr<LatencyObjective>> copies_;
};

}  // namespace

exec::WorkHandler SearchWorker(const space::Space& space, LatencyObjective& latency) {
  return [&space, &latency](const std::string& payload) {
    std::optional<ArchCounts> counts;
    const double ms = latency.LatencyAndCounts(space.FromText(payload), counts);
    nlohmann::json j = {{"latency_ms", ms}};
    if (counts) {
      j["params"] = counts->params;
      j["flops"] = counts->flops;
    }
    return j.dump();
  };
}

double SearchReward(const SearchOptions& options, double accuracy, double latency_ms) {
  if (options.accuracy_only) {
    if (!std::isfinite(accuracy)) {
      throw InputError("reward: accuracy " + FormatSignificant(accuracy) + " is not finite");
    }
    return accuracy;
  }
  return options.hard ? HardReward(accuracy, latency_ms, options.target_ms)
                      : MnasReward(accuracy, latency_ms, options.target_ms, options.w);
}

nlohmann::json StrategyConfig(const std::string& strategy, const StrategyOptions& params) {
  nlohmann::json j = nlohmann::json::object();
  for (const std::string& p : StrategyParameters(strategy)) {
    if (p == "population") j[p] = params.population;
    if (p == "tournament") j[p] = TournamentSize(params);
    if (p == "mutations") j[p] = params.mutations;
    if (p == "start") {
      j[p] =
          strategy == "evolution" ? EvolutionStart(params) : params.start.value_or(kPredictorStart);
    }
    if (p == "candidates") j[p] = params.candidates;
    if (p == "elite") j[p] = params.elite;
    if (p == "ensemble") j[p] = params.model.members;
    if (p == "model") j[p] = PredictorModelName(params.model.kind);
    if (p == "acquisition") j[p] = AcquisitionName(params.acquisition);
    if (p == "kappa" && params.acquisition == Acquisition::kUcb) j[p] = params.kappa;
  }
  return j;
}

nlohmann::json SearchConfig(const SearchOptions& options, const AccuracyObjective& accuracy,
                            const LatencyObjective& latency) {
  nlohmann::json reward = {{"kind", options.hard ? "hard" : "mnas"},
                           {"target_ms", options.target_ms}};
  if (!options.hard) reward["w"] = options.w;
  if (options.accuracy_only) reward = {{"kind", "accuracy"}};
  nlohmann::json config = {{"strategy", options.strategy},
                           {"strategy_options", StrategyConfig(options.strategy, options.params)},
                           {"seed", options.seed},
                           {"budget", options.budget},
                           {"budget_counts", "distinct networks"},
                           {"in_flight", options.in_flight},
                           {"reward", reward},
                           {"accuracy", accuracy.Config()},
                           {"latency", latency.Config()}};
  if (options.prior) config["prior"] = "accuracy objective";
  if (options.asynchronous) config["asynchronous"] = true;
  return config;
}

namespace {

class NoLatency : public LatencyObjective {
 public:
  double LatencyMs(const space::Encoding& /*e*/) override { return 0.0; }
  std::unique_ptr<LatencyObjective> Clone() const override { return std::make_unique<NoLatency>(); }
  nlohmann::json Config() const override { return {{"kind", "none"}}; }
};

}  // namespace

std::unique_ptr<LatencyObjective> MakeNoLatency() { return std::make_unique<NoLatency>(); }

namespace {

// The strategy's options: the parameters and the seed, and for `predictor` with a prior the
// predicted reward and its spread from the accuracy objective's uncertainty.
StrategyOptions MakeStrategyOptions(const SearchOptions& options, AccuracyObjective& accuracy,
                                    LatencyObjective& latency) {
  StrategyOptions so = options.params;
  so.seed = options.seed;
  so.prior = nullptr;
  if (options.prior) {
    std::vector<double> m, s;
    if (!accuracy.PredictWithStd({}, m, s)) {
      throw InputError(
          "--prior needs an accuracy objective that predicts with uncertainty (--accuracy "
          "surrogate:FILE); the predictor learns from any accuracy without it");
    }
    so.prior = [&](const std::vector<space::Encoding>& pool, std::vector<double>& mean,
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
  return so;
}

void CheckReferences(const std::vector<std::string>& references) {
  for (const std::string& model : references) {
    if (!models::zoo::EfficientNetSpec(model)) {
      throw InputError("--references: '" + model +
                       "' is not an EfficientNet or EfficientNet-X model of the zoo (e.g. "
                       "efficientnet-b0, efficientnet-x-b0)");
    }
  }
}

// The run's journal: created, or with options.resume continued (its results in `journaled`,
// each checked as a fresh evaluation of this run would be: its space, its reward, its latency).
Journal OpenJournal(const space::Space& space, const std::string& path,
                    const SearchOptions& options, const nlohmann::json& header,
                    std::vector<JournalEntry>& journaled) {
  const bool exists = std::filesystem::exists(path);
  if (exists && !options.resume) {
    throw InputError(path + " exists: --resume continues it, or choose another --out");
  }
  const ReplayRules rules{.space = &space,
                          .reward =
                              [&options](double accuracy, double latency_ms) {
                                return SearchReward(options, accuracy, latency_ms);
                              },
                          .latency = !options.accuracy_only};
  Journal journal =
      exists ? Journal::Resume(path, header, rules, journaled) : Journal::Create(path, header);
  // ReplayJournal refuses a line past the header's config.budget, which equals options.budget.
  if (static_cast<int64_t>(journaled.size()) > options.budget) {
    throw InternalError(path + ": more results than the budget recorded in its header");
  }
  return journal;
}

// One search from its journal to its last tell: the strategy, the journal and the results it
// held, the points told so far and the progress (RunSearch's state, its steps as members).
struct SearchRun {
  SearchRun(const space::Space& s, const SearchOptions& o, std::unique_ptr<Strategy> strategy_in,
            nlohmann::json header, std::string path_in, const ProgressFn& progress_in)
      : space(s),
        options(o),
        strategy(std::move(strategy_in)),
        ask(o.in_flight),
        progress(progress_in),
        path(std::move(path_in)),
        result{.header = std::move(header)},
        journal(OpenJournal(s, path, o, result.header, journaled)) {
    p.budget = o.budget;
    p.best_reward = -std::numeric_limits<double>::infinity();
  }

  bool Done() const { return p.evaluations >= options.budget || !result.stopped.empty(); }

  Evaluation Tellable(const SearchPoint& point) const {
    if (options.accuracy_only) return {.reward = point.reward, .objectives = {point.accuracy}};
    return {.reward = point.reward, .objectives = {point.accuracy, -point.latency_ms}};
  }

  // One told evaluation of a network not evaluated before: the point, the strategy, the best so
  // far and the progress.
  void Record(const Candidate& c, SearchPoint point, const std::string& text) {
    strategy->Tell(c, Tellable(point));
    if (point.reward > p.best_reward) {
      p.best_reward = point.reward;
      result.best = result.points.size();
    }
    evaluated.emplace(text, result.points.size());
    result.points.push_back(std::move(point));
    ++p.evaluations;
    in_a_row = 0;
    if (progress) progress(p);
  }

  // A proposal of a network evaluated before (points[earlier]): told the same result, not charged.
  void Repeat(const Candidate& c, size_t earlier) {
    strategy->Tell(c, Tellable(result.points[earlier]));
    ++p.repeats;
    if (++in_a_row >= kMaxRepeatsInARow && result.stopped.empty()) {
      Stop(std::to_string(kMaxRepeatsInARow) +
           " proposals in a row were networks evaluated before (the strategy has converged, or "
           "the space is exhausted)");
    }
    if (progress) progress(p);
  }

  void Stop(const std::string& why) {
    result.stopped = "stopped after " + std::to_string(p.evaluations) + " of " +
                     std::to_string(options.budget) + " distinct networks (the space has about " +
                     FormatSignificant(space.CanonicalSize()) + "): " + why;
  }

  // Asynchronous search: asks until `ask` distinct new networks are out (or the budget is out);
  // repeats of evaluated networks are answered at once, repeats of one in flight when it arrives.
  void TopUp() {
    while (static_cast<int64_t>(out.size()) < ask &&
           p.evaluations + static_cast<int64_t>(out.size()) < options.budget &&
           result.stopped.empty()) {
      const int n = static_cast<int>(
          std::min<int64_t>(ask - static_cast<int64_t>(out.size()),
                            options.budget - p.evaluations - static_cast<int64_t>(out.size())));
      const std::vector<Candidate> asked = strategy->Ask(n);
      if (asked.empty()) {
        if (out.empty() && strategy->pending() == 0) {
          Stop("strategy " + options.strategy + " proposed no network");
        }
        break;
      }
      bool added = false;
      for (const Candidate& c : asked) {
        const std::string text = space.ToText(c.encoding);
        if (const auto e = evaluated.find(text); e != evaluated.end()) {
          Repeat(c, e->second);
        } else if (const auto f = flying.find(text); f != flying.end()) {
          waiting[text].push_back(c);
        } else {
          flying.emplace(text, c.id);
          out[c.id] = c;
          unsent.push_back(c);
          added = true;
        }
      }
      // Only repeats while networks are in flight: wait for their results before asking more.
      if (!added && !out.empty()) break;
    }
  }

  // A network in flight arrived: told, then the repeats that waited for it.
  void Arrived(const Candidate& c, SearchPoint point) {
    const std::string text = space.ToText(c.encoding);
    flying.erase(text);
    Record(c, std::move(point), text);
    const auto w = waiting.find(text);
    if (w != waiting.end()) {
      for (const Candidate& r : w->second) Repeat(r, evaluated.at(text));
      waiting.erase(w);
    }
    TopUp();
  }

  // Keep `ask` candidates out; replay the journal in its (arrival) order, then run.
  void RunAsynchronous(AccuracyObjective& accuracy) {
    TopUp();
    for (; next < journaled.size(); ++next) {
      const JournalEntry& e = journaled[next];
      const auto it = out.find(e.id);
      if (it == out.end() || space.ToText(it->second.encoding) != e.encoding) {
        throw InputError(path + ":" + std::to_string(next + 2) +
                         ": journal does not match this configuration: id " + std::to_string(e.id) +
                         " (" + e.encoding + ") was not among the candidates out at that point");
      }
      const Candidate c = it->second;
      out.erase(it);
      std::erase_if(unsent, [&](const Candidate& u) { return u.id == c.id; });
      ++p.replayed;
      Arrived(c, {c.id, c.encoding, e.accuracy, e.latency_ms, e.reward});
    }
    if (out.empty() && !Done()) {
      Stop("strategy " + options.strategy + " proposed no network");
      return;
    }
    RunArrivals(accuracy);
    if (!Done()) {
      throw InternalError("asynchronous search ended after " + std::to_string(p.evaluations) +
                          " of " + std::to_string(options.budget) + " networks");
    }
  }

  // The asynchronous search on the executor's workers: each result told and journaled as it
  // arrives, and replaced by a new ask.
  void RunArrivals(AccuracyObjective& accuracy) {
    std::map<size_t, Candidate> sent;  // work index -> candidate
    size_t work = 0;
    options.executor->Run(
        [&]() -> std::optional<exec::WorkItem> {
          if (unsent.empty()) return std::nullopt;
          const Candidate c = unsent.front();
          unsent.pop_front();
          sent[work] = c;
          return exec::WorkItem{work++, space.ToText(c.encoding)};
        },
        [&](const exec::WorkResult& r) {
          const Candidate c = sent.at(r.index);
          sent.erase(r.index);
          out.erase(c.id);
          if (!r.error.empty()) {
            throw InputError("candidate " + space.ToText(c.encoding) + ": worker " +
                             std::to_string(r.worker) + ": " + r.error);
          }
          const nlohmann::json j = nlohmann::json::parse(r.payload);
          std::vector<ArchCounts> counts;
          if (j.contains("params")) {
            counts.push_back({j["params"].get<double>(), j["flops"].get<double>()});
          }
          std::vector<double> acc;
          accuracy.AccuracyBatch({c.encoding}, counts, acc);
          SearchPoint point{c.id, c.encoding, acc.at(0), j.at("latency_ms").get<double>(), 0.0};
          point.reward = SearchReward(options, point.accuracy, point.latency_ms);
          journal.Append(
              {c.id, space.ToText(c.encoding), point.accuracy, point.latency_ms, point.reward});
          KillPoint("search.journaled");
          Arrived(c, std::move(point));
        });
  }

  // Rounds to the budget: each asks up to `ask` candidates, answers the repeats, replays what the
  // journal holds of the new networks, scores the rest and tells them all in asking order.
  void RunRounds(Scorer& scorer, AccuracyObjective& accuracy) {
    while (!Done()) {
      const int n = static_cast<int>(std::min<int64_t>(ask, options.budget - p.evaluations));
      const std::vector<Candidate> candidates = strategy->Ask(n);
      if (candidates.empty()) {
        if (strategy->pending() > 0) throw InternalError("strategy waits for tells in a round");
        Stop("strategy " + options.strategy + " proposed no network");
        break;
      }
      // The new networks: first proposals of networks not evaluated before.
      std::vector<std::string> texts;
      std::vector<size_t> fresh_at;
      std::set<std::string> in_round;
      for (size_t k = 0; k < candidates.size(); ++k) {
        texts.push_back(space.ToText(candidates[k].encoding));
        if (evaluated.count(texts[k]) == 0 && in_round.insert(texts[k]).second) {
          fresh_at.push_back(k);
        }
      }
      const size_t replay = std::min(fresh_at.size(), journaled.size() - next);
      CheckReplay(candidates, fresh_at, replay);
      std::vector<Candidate> fresh;
      for (size_t f = replay; f < fresh_at.size(); ++f) fresh.push_back(candidates[fresh_at[f]]);
      std::vector<double> fresh_accuracy, fresh_latency;
      scorer.Score(fresh, accuracy, fresh_accuracy, fresh_latency);
      size_t f = 0;
      for (size_t k = 0; k < candidates.size(); ++k) {
        const Candidate& c = candidates[k];
        if (const auto e = evaluated.find(texts[k]); e != evaluated.end()) {
          Repeat(c, e->second);
          continue;
        }
        SearchPoint point{c.id, c.encoding, 0.0, 0.0, 0.0};
        if (f < replay) {
          const JournalEntry& e = journaled[next];
          point.accuracy = e.accuracy;
          point.latency_ms = e.latency_ms;
          point.reward = e.reward;
          ++next;
          ++p.replayed;
        } else {
          point.accuracy = fresh_accuracy[f - replay];
          point.latency_ms = fresh_latency[f - replay];
          point.reward = SearchReward(options, point.accuracy, point.latency_ms);
          journal.Append({c.id, texts[k], point.accuracy, point.latency_ms, point.reward});
          KillPoint("search.journaled");
        }
        ++f;
        Record(c, std::move(point), texts[k]);
      }
    }
  }

  // The first `replay` new networks of a round must be the journal's next results.
  void CheckReplay(const std::vector<Candidate>& candidates, const std::vector<size_t>& fresh_at,
                   size_t replay) const {
    for (size_t f = 0; f < replay; ++f) {
      const Candidate& c = candidates[fresh_at[f]];
      const JournalEntry& e = journaled[next + f];
      const std::string text = space.ToText(c.encoding);
      if (e.id != c.id || e.encoding != text) {
        throw InputError(path + ":" + std::to_string(next + f + 2) +
                         ": journal does not match this configuration: the search asks for " +
                         text + " (id " + std::to_string(c.id) + "), the journal has " +
                         e.encoding + " (id " + std::to_string(e.id) + ")");
      }
    }
  }

  const space::Space& space;
  const SearchOptions& options;
  const std::unique_ptr<Strategy> strategy;
  const int ask;  // candidates per round, or out at once
  const ProgressFn& progress;
  const std::string path;  // of the journal
  SearchResult result;
  std::vector<JournalEntry> journaled;  // the results the journal held
  Journal journal;
  size_t next = 0;  // journaled results replayed so far
  SearchProgress p;
  std::unordered_map<std::string, size_t> evaluated;  // canonical text -> index into points
  int64_t in_a_row = 0;                               // repeats since the last new network
  // Asynchronous search: the new networks out (by id), those not yet sent to a worker, the text
  // of each in flight, and the repeats of a network in flight that wait for its result.
  std::map<uint64_t, Candidate> out;
  std::deque<Candidate> unsent;
  std::unordered_map<std::string, uint64_t> flying;
  std::unordered_map<std::string, std::vector<Candidate>> waiting;
};

// The front over distinct encodings (the first evaluation of each), by latency; the references
// and, for each, the fastest point at least as accurate.
void Conclude(const space::Space& space, const SearchOptions& options, AccuracyObjective& accuracy,
              LatencyObjective& latency, SearchResult& result) {
  std::vector<size_t> distinct;
  std::vector<std::vector<double>> objectives;
  std::set<space::Encoding> seen;
  for (size_t i = 0; i < result.points.size(); ++i) {
    if (!seen.insert(result.points[i].encoding).second) continue;
    distinct.push_back(i);
    objectives.push_back({result.points[i].accuracy, -result.points[i].latency_ms});
  }
  if (result.points.empty()) throw InternalError("a search ended with no network evaluated");
  for (size_t k : ParetoFront(objectives)) result.front.push_back(distinct[k]);
  std::stable_sort(result.front.begin(), result.front.end(), [&](size_t a, size_t b) {
    return result.points[a].latency_ms < result.points[b].latency_ms;
  });
  // References are measured by their speed: an accuracy-only search has none.
  if (options.accuracy_only) return;
  result.references = ScoreReferences(space, options.references, accuracy, latency);
  std::vector<double> accuracies, latencies;
  std::vector<std::string> structures;
  for (const SearchPoint& point : result.points) {
    accuracies.push_back(point.accuracy);
    latencies.push_back(point.latency_ms);
    structures.push_back(StructureKey(space, point.encoding));
  }
  result.comparisons = CompareWithReferences(result.references, accuracies, latencies, structures);
}

}  // namespace

SearchResult RunSearch(const space::Space& space, const SearchOptions& options,
                       AccuracyObjective& accuracy, LatencyObjective& latency,
                       const std::string& run_dir, const ProgressFn& progress) {
  Validate(options);
  const StrategyOptions so = MakeStrategyOptions(options, accuracy, latency);
  CheckReferences(options.references);
  std::unique_ptr<Strategy> strategy = MakeStrategy(options.strategy, space, so);
  nlohmann::json header =
      JournalHeader({{"name", space.name()}, {"fingerprint", space.fingerprint()}},
                    SearchConfig(options, accuracy, latency));
  std::filesystem::create_directories(run_dir);
  const std::string path = (std::filesystem::path(run_dir) / "journal.jsonl").string();
  SearchRun run(space, options, std::move(strategy), std::move(header), path, progress);

  Scorer scorer(space, latency, options.threads, options.executor);
  if (options.asynchronous) run.RunAsynchronous(accuracy);
  run.RunRounds(scorer, accuracy);
  run.journal.Sync();
  SearchResult& result = run.result;
  result.replayed = run.p.replayed;
  result.repeats = run.p.repeats;
  Conclude(space, options, accuracy, latency, result);
  WriteSearchOutputs(space, options, result, run_dir);
  return std::move(result);
}

void WriteSearchOutputs(const space::Space& space, const SearchOptions& options,
                        const SearchResult& result, const std::string& run_dir) {
  const std::filesystem::path dir(run_dir);
  // An accuracy-only search has no latency column (its front: the most accurate networks).
  const bool lat = !options.accuracy_only;
  std::ostringstream csv;
  csv << (lat ? "accuracy,latency_ms," : "accuracy,") << "reward,params,flops,encoding,blocks\n";
  for (size_t i : result.front) {
    const SearchPoint& p = result.points[i];
    const models::OpCounts counts = models::CountGraph(space.BuildFull(p.encoding, {}, {}));
    csv << FormatShortestReal(p.accuracy) << ","
        << (lat ? FormatShortestReal(p.latency_ms) + "," : "") << FormatShortestReal(p.reward)
        << "," << counts.params << "," << counts.flops << "," << space.ToText(p.encoding) << ","
        << Join(space.Decode(p.encoding).blocks, " ") << "\n";
  }
  WriteFileAtomic((dir / "pareto.csv").string(), csv.str());
  WriteFileAtomic((dir / "pareto.svg").string(), RenderSvg(ParetoChart(space, options, result)));

  const SearchPoint& best = result.points.at(result.best);
  const space::Decoded decoded = space.Decode(best.encoding);
  SearchIntervals iv;
  if (lat && options.setup != nullptr && options.intervals != nullptr) {
    iv.setup = options.setup;
    iv.model = sim::IntervalModel{options.intervals};
  }
  const models::Graph graph = space.BuildFull(
      best.encoding, {},
      options.setup != nullptr ? options.setup->GraphOptions() : models::BuildOptions{});
  const models::OpCounts counts = models::CountGraph(space.BuildFull(best.encoding, {}, {}));
  WriteFileAtomic((dir / "best.json").string(), models::GraphToJsonString(graph));
  std::ostringstream txt;
  txt << "best of " << result.points.size() << " distinct networks (" << options.strategy
      << ", seed " << options.seed << "; " << result.repeats
      << " repeat proposals answered from earlier results) in " << space.name() << "\n";
  if (!result.stopped.empty()) txt << result.stopped << "\n";
  txt << "encoding   " << space.ToText(best.encoding) << " (id " << best.id << ")\n"
      << "reward     " << FormatShortestReal(best.reward) << "\naccuracy   "
      << FormatShortestReal(best.accuracy) << "\nlatency_ms "
      << (lat ? FormatShortestReal(best.latency_ms) : "- (accuracy only: --latency none)");
  if (iv) {
    const sim::Interval i = iv.Latency(best.latency_ms);
    txt << " (" << IntervalText(i, 3) << "; held-out error of " << i.regime << ", " << i.situation
        << ")";
  }
  txt << "\nparams     " << counts.params << "\nflops      " << counts.flops
      << "\n\nops per stage:\n";
  for (size_t s = 0; s < decoded.stage_ops.size(); ++s) {
    txt << "  stage " << s + 1 << ": " << decoded.stage_ops[s] << "\n";
  }
  txt << "\nblocks:\n";
  for (const auto& b : decoded.blocks) txt << "  " << b << "\n";
  if (!result.references.empty()) txt << "\nreferences:\n";
  for (const Reference& r : result.references) {
    txt << "  " << ReferenceLabel(r) << ": latency_ms "
        << (r.latency_ms ? FormatShortestReal(*r.latency_ms) : std::string("-")) << ", accuracy "
        << (r.accuracy ? FormatShortestReal(*r.accuracy) : std::string("-"));
    if (r.published_top1) {
      txt << " (published ImageNet top-1 " << FormatShortestReal(*r.published_top1) << "%)";
    }
    if (!r.differences.empty()) txt << "; counterpart differs in " << Join(r.differences, ", ");
    if (!r.note.empty()) txt << "; " << r.note;
    txt << "\n";
    for (const ReferenceComparison& c : result.comparisons) {
      if (c.model != r.model) continue;
      if (!c.point) {
        txt << "    no evaluated point is as accurate\n";
        continue;
      }
      const SearchPoint& p = result.points[*c.point];
      txt << "    fastest point at least as accurate: " << space.ToText(p.encoding) << ", "
          << FormatShortestReal(p.latency_ms) << " ms (" << SpeedupText(c.speedup)
          << (iv ? ", speedup " + IntervalText(iv.Speedup(c.speedup), 3) : std::string())
          << "), accuracy " << FormatShortestReal(p.accuracy) << " ("
          << (c.accuracy_gain >= 0 ? "+" : "") << FormatFixed(c.accuracy_gain, 2) << " pp)\n";
    }
  }
  WriteFileAtomic((dir / "best.txt").string(), txt.str());

  nlohmann::json summary = {
      {"format", "dcnas-search-summary"},
      {"space", result.header["space"]},
      {"config", result.header["config"]},
      {"evaluations", result.points.size()},
      {"repeats", result.repeats},
      {"pareto_size", result.front.size()},
      {"best",
       {{"id", best.id},
        {"encoding", space.ToText(best.encoding)},
        {"reward", best.reward},
        {"accuracy", best.accuracy},
        {"latency_ms", lat ? nlohmann::json(best.latency_ms) : nullptr},
        {"latency_interval_ms",
         iv ? sim::IntervalToJson(iv.Latency(best.latency_ms)) : nlohmann::json()},
        {"params", counts.params},
        {"flops", counts.flops},
        {"stage_ops", decoded.stage_ops},
        {"blocks", decoded.blocks}}},
      {"references", ReferencesJson(result, space, iv)}};
  if (!result.stopped.empty()) summary["stopped"] = result.stopped;
  WriteFileAtomic((dir / "summary.json").string(), summary.dump(1) + "\n");
}

}  // namespace dcnas::search
