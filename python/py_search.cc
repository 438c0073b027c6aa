// Search: spaces, strategies as ask/tell objects, rewards, the simulator's latency objective, a
// whole journaled search (`dcnas search`) and compound scaling (`dcnas scale`).
#include <cmath>
#include <filesystem>
#include <mutex>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "common/errors.h"
#include "common/file_io.h"
#include "common/sha256.h"
#include "common/table.h"
#include "common/text.h"
#include "lacs/scale_plan.h"
#include "python/bind.h"
#include "search/accuracy_factory.h"
#include "search/objectives.h"
#include "search/references.h"
#include "search/run.h"
#include "search/strategy.h"
#include "sim/intervals.h"
#include "sim/spec.h"

namespace dcnas::python {

const SpaceHandle& SpaceOf(const py::handle& value, const std::string& what) {
  if (!py::isinstance<SpaceHandle>(value)) {
    throw InputError(what + ": expected a dcnas.Space, got " + TypeName(value));
  }
  return value.cast<const SpaceHandle&>();
}

space::Encoding EncodingFrom(const space::Space& space, const py::handle& encoding) {
  if (py::isinstance<py::str>(encoding)) return space.FromText(encoding.cast<std::string>());
  space::Encoding e;
  try {
    e = encoding.cast<space::Encoding>();
  } catch (const py::cast_error&) {
    throw InputError("encoding: expected a sequence of ints or the space's text form, got " +
                     TypeName(encoding));
  }
  (void)space.Canonical(e);  // checks the length and every choice's range
  return e;
}

std::vector<space::Encoding> EncodingsFrom(const space::Space& space, const py::handle& encodings) {
  std::vector<space::Encoding> out;
  if (py::isinstance<py::str>(encodings)) {
    throw InputError("encodings: expected a list of encodings, got one str");
  }
  // A 2-D NumPy array of ints is a list of rows too.
  for (const auto& e : encodings) out.push_back(EncodingFrom(space, e));
  return out;
}

std::vector<space::Scaling> ScalingsFrom(const py::handle& scalings, size_t count) {
  if (scalings.is_none()) return std::vector<space::Scaling>(count);
  std::vector<space::Scaling> out;
  for (const auto& s : scalings) {
    const auto t = CastArg<std::tuple<double, double, double>>(
        s, "scalings[" + std::to_string(out.size()) + "]", "(depth, width, resolution)");
    out.push_back({std::get<0>(t), std::get<1>(t), std::get<2>(t)});
  }
  if (out.size() != count) {
    throw InputError("scalings: " + std::to_string(out.size()) + " given for " +
                     std::to_string(count) + " encodings");
  }
  return out;
}

namespace {

struct Rng {
  std::mt19937_64 engine;
};

// A strategy and the space it proposes from (kept alive with it).
struct StrategyHandle {
  py::object space_ref;
  std::unique_ptr<search::Strategy> strategy;
};

// The simulator's latency objective and the space it costs (kept alive with it).
// An objective over a space: the space (kept alive with it), and a lock, as the objectives'
// caches and boosters are not shared between threads.
struct SpaceObjective {
  py::object space_ref;
  const space::Space* space = nullptr;
  std::unique_ptr<std::mutex> lock = std::make_unique<std::mutex>();

  void Bind(const py::object& space_arg, const std::string& what) {
    space_ref = space_arg;
    space = &SpaceOf(space_arg, what).space;
  }
  // The canonical form of each encoding given (checked against the space).
  std::vector<space::Encoding> Canonicals(const py::handle& encodings) const {
    std::vector<space::Encoding> list = EncodingsFrom(*space, encodings);
    for (auto& e : list) e = space->Canonical(e);
    return list;
  }
};

struct LatencyHandle : SpaceObjective {
  std::unique_ptr<search::SimLatency> latency;
};

// A search's accuracy objective and the space it scores (kept alive with it).
struct AccuracyHandle : SpaceObjective {
  std::unique_ptr<search::AccuracyObjective> accuracy;
};

// Strategy parameters given as Python keyword arguments.
search::StrategyOptions StrategyOptionsFrom(const std::string& strategy, uint64_t seed,
                                            const py::dict& params) {
  search::StrategyOptions o;
  o.seed = seed;
  for (const auto& [k, v] : params) {
    if (!py::isinstance<py::str>(k)) {
      throw InputError("strategy parameters: names must be str, got " + TypeName(k) + " " +
                       std::string(py::repr(k)));
    }
    const std::string name = k.cast<std::string>();
    search::SetStrategyParameter(o, strategy, name, OverrideValue(v, name));
  }
  return o;
}

// The space's YAML: a shipped name (data/search_spaces/NAME.yaml) or a path.
SpaceHandle LoadSpace(const std::string& name_or_path) {
  const std::string path = sim::ResolveDataFile("search_spaces", name_or_path, "search space");
  const std::string yaml = ReadFile(path);
  return {space::Space::Parse(yaml, path), yaml};
}

// Accuracy from a Python function of an encoding (list of ints) returning percent.
class PythonAccuracy : public search::AccuracyObjective {
 public:
  explicit PythonAccuracy(py::function fn) : fn_(std::move(fn)) {}
  double Accuracy(const space::Encoding& e) override {
    py::gil_scoped_acquire gil;
    const py::object value = fn_(py::cast(e));
    std::string about = "encoding [";
    for (size_t i = 0; i < e.size(); ++i) about += (i ? "," : "") + std::to_string(e[i]);
    return AccuracyFrom(value, fn_, about + "]");
  }
  nlohmann::json Config() const override {
    py::gil_scoped_acquire gil;
    return {{"kind", "python"}, {"function", CallableName(fn_)}};
  }

 private:
  py::function fn_;
};

py::dict ProgressDict(const search::SearchProgress& p) {
  py::dict d;
  d["evaluations"] = p.evaluations;
  d["replayed"] = p.replayed;
  d["repeats"] = p.repeats;
  d["budget"] = p.budget;
  d["best_reward"] = p.best_reward;
  return d;
}

py::object RunSearch(const SpaceHandle& sh, const std::string& out, int64_t budget,
                     const py::object& accuracy, const py::object& latency,
                     const py::object& target_ms, const std::string& strategy,
                     const py::object& seed_arg, int in_flight, int threads, bool hard, double w,
                     bool prior, const py::object& references, bool resume,
                     double min_surrogate_tau, const py::object& progress, const py::dict& params) {
  const space::Space& space = sh.space;
  const uint64_t seed = SeedFrom(seed_arg, "seed");
  search::SearchOptions o;
  o.strategy = strategy;
  o.seed = seed;
  o.params = StrategyOptionsFrom(strategy, seed, params);
  o.prior = prior;
  o.budget = budget;
  o.hard = hard;
  o.w = w;
  o.resume = resume;
  o.in_flight = in_flight;
  o.threads = threads;
  if (!references.is_none()) {
    if (py::isinstance<py::str>(references)) {
      throw InputError("references: expected a list of zoo model names ([] for none), got a str");
    }
    o.references =
        CastArg<std::vector<std::string>>(references, "references", "a list of zoo model names");
  }
  std::unique_ptr<search::AccuracyObjective> acc;
  if (py::isinstance<py::str>(accuracy)) {
    search::AccuracyFactoryOptions f;
    f.min_surrogate_tau = min_surrogate_tau;
    acc = search::MakeAccuracyObjective(accuracy.cast<std::string>(), space, f);
  } else if (py::isinstance<py::function>(accuracy)) {
    acc = std::make_unique<PythonAccuracy>(accuracy.cast<py::function>());
  } else {
    throw InputError(
        "accuracy: expected 'surrogate:FILE', 'table:FILE', 'counterpart:FILE', 'imagenet:FILE', "
        "'train[:RECIPE]' or a function of an encoding, got " +
        TypeName(accuracy));
  }
  std::unique_ptr<search::LatencyObjective> lat;
  sim::SimSetup setup;
  if (latency.is_none()) {
    if (!target_ms.is_none()) throw InputError("run_search: target_ms needs a latency");
    o.accuracy_only = true;
    lat = search::MakeNoLatency();
  } else {
    if (target_ms.is_none()) throw InputError("run_search: target_ms is required with a latency");
    o.target_ms = CastArg<double>(target_ms, "target_ms", "a number of milliseconds");
    if (py::isinstance<Setup>(latency)) {
      setup = latency.cast<const Setup&>().sim;
      o.setup = &setup;
      o.intervals = &sim::ShippedErrorModel();
      lat = std::make_unique<search::SimLatency>(space, setup);
    } else if (py::isinstance<py::str>(latency)) {
      const auto spec = search::SplitObjectiveSpec(latency.cast<std::string>());
      if (spec.kind != "table" || spec.argument.empty()) {
        throw InputError("latency: expected a dcnas.Setup, 'table:FILE' or None, got '" +
                         latency.cast<std::string>() + "'");
      }
      lat = search::MakeTableLatency(spec.argument, space, Sha256Hex(ReadFile(spec.argument)));
    } else {
      throw InputError("latency: expected a dcnas.Setup, 'table:FILE' or None, got " +
                       TypeName(latency));
    }
  }
  // Progress goes to the caller's function, and a Ctrl-C stops the search there (its journal
  // keeps every result told so far: resume=True continues it).
  const search::ProgressFn on_progress = [&progress](const search::SearchProgress& p) {
    py::gil_scoped_acquire gil;
    if (PyErr_CheckSignals() != 0) throw py::error_already_set();
    if (!progress.is_none()) progress(ProgressDict(p));
  };
  search::SearchResult result;
  {
    py::gil_scoped_release release;
    result = search::RunSearch(space, o, *acc, *lat, out, on_progress);
  }
  using Point = search::SearchPoint;
  Columns c;
  c.AddFrom("id", result.points, [](const Point& p) { return p.id; });
  c.AddFrom("encoding", result.points,
            [&space](const Point& p) { return space.ToText(p.encoding); });
  c.AddFrom("accuracy", result.points, [](const Point& p) { return p.accuracy; });
  c.AddFrom("latency_ms", result.points, [](const Point& p) { return p.latency_ms; });
  c.AddFrom("reward", result.points, [](const Point& p) { return p.reward; });
  py::dict d = ToPython(nlohmann::json::parse(ReadFile(out + "/summary.json"))).cast<py::dict>();
  d["points"] = c.Records();
  d["best_index"] = result.best;
  d["front_indices"] = result.front;
  return std::move(d);
}

// Proxy accuracy of a scaling from a Python function of the proxy graph.
class PythonProxyAccuracy : public lacs::ProxyAccuracy {
 public:
  PythonProxyAccuracy(py::function fn, const lacs::ScalePlan& plan)
      : fn_(std::move(fn)), plan_(plan) {}
  std::vector<std::optional<proxy::TrainedResult>> Evaluate(
      const std::vector<lacs::ProxyRequest>& requests) override {
    std::vector<std::optional<proxy::TrainedResult>> out;
    py::gil_scoped_acquire gil;
    for (const auto& r : requests) {
      const models::Graph g = Build(r);
      const py::object value = fn_(g);
      if (value.is_none()) {
        out.emplace_back();
        continue;
      }
      proxy::TrainedResult t;
      t.val_accuracy = t.test_accuracy = AccuracyFrom(value, fn_, "proxy network " + r.label);
      t.proxy_params = models::CountGraph(g).params;
      out.emplace_back(t);
    }
    return out;
  }
  nlohmann::json Config() const override {
    py::gil_scoped_acquire gil;
    return {{"kind", "python"}, {"function", CallableName(fn_)}, {"recipe", plan_.recipe.Key()}};
  }
  std::string NetworkKey(const lacs::ProxyRequest& request) const override {
    return lacs::ProxyGraphKey(Build(request));
  }

 private:
  models::Graph Build(const lacs::ProxyRequest& r) const {
    return lacs::BuildProxyNetwork(r, plan_.recipe, plan_.in_channels, plan_.num_classes);
  }
  py::function fn_;
  const lacs::ScalePlan& plan_;
};

}  // namespace

void InitSearch(py::module_& m) {
  py::class_<Rng>(m, "Rng",
                  "The random engine of space sampling, mutation and crossover "
                  "(std::mt19937_64): the same seed gives the same draws as the C++ library.")
      .def(py::init([](const py::object& seed) {
             return Rng{std::mt19937_64(SeedFrom(seed, "Rng seed"))};
           }),
           py::arg("seed") = 0);

  py::class_<SpaceHandle>(m, "Space",
                          "A search space (space/README.md): stages and their choices. An "
                          "architecture is an encoding, one index per searchable choice.")
      .def_static("load", &LoadSpace, py::arg("name_or_path"),
                  "A shipped space by name (dc-accelerator, mnasnet, nas-bench-macro, ...) or a "
                  "YAML path.")
      .def_static(
          "parse",
          [](const std::string& yaml, const std::string& file) {
            return SpaceHandle{space::Space::Parse(yaml, file), yaml};
          },
          py::arg("yaml"), py::arg("file") = "<string>", "A space from YAML text.")
      .def_property_readonly("name", [](const SpaceHandle& s) { return s.space.name(); })
      .def_property_readonly("description",
                             [](const SpaceHandle& s) { return s.space.description(); })
      .def_property_readonly("file", [](const SpaceHandle& s) { return s.space.file(); })
      .def_property_readonly("fingerprint",
                             [](const SpaceHandle& s) { return s.space.fingerprint(); })
      .def_property_readonly("vector_length",
                             [](const SpaceHandle& s) { return s.space.vector_length(); })
      .def_property_readonly("choice_counts",
                             [](const SpaceHandle& s) { return s.space.choice_counts(); })
      .def_property_readonly("choice_names",
                             [](const SpaceHandle& s) { return s.space.choice_names(); })
      .def_property_readonly("raw_size", [](const SpaceHandle& s) { return s.space.RawSize(); })
      .def_property_readonly("canonical_size",
                             [](const SpaceHandle& s) { return s.space.CanonicalSize(); })
      .def(
          "sample", [](const SpaceHandle& s, Rng& rng) { return s.space.Sample(rng.engine); },
          py::arg("rng"), "A valid canonical encoding, uniform over raw encodings.")
      .def(
          "mutate",
          [](const SpaceHandle& s, const py::object& e, int k, Rng& rng) {
            return s.space.Mutate(EncodingFrom(s.space, e), k, rng.engine);
          },
          py::arg("encoding"), py::arg("k"), py::arg("rng"),
          "`k` distinct choices changed; valid and canonical.")
      .def(
          "crossover",
          [](const SpaceHandle& s, const py::object& a, const py::object& b, Rng& rng) {
            return s.space.Crossover(EncodingFrom(s.space, a), EncodingFrom(s.space, b),
                                     rng.engine);
          },
          py::arg("a"), py::arg("b"), py::arg("rng"), "Uniform crossover; valid and canonical.")
      .def(
          "canonical",
          [](const SpaceHandle& s, const py::object& e) {
            return s.space.Canonical(EncodingFrom(s.space, e));
          },
          py::arg("encoding"),
          "The canonical encoding: the same network, don't-care choices zeroed, skipped layers "
          "at the stage's end.")
      .def(
          "is_valid",
          [](const SpaceHandle& s, const py::object& e) {
            return s.space.IsValid(EncodingFrom(s.space, e));
          },
          py::arg("encoding"))
      .def(
          "to_text",
          [](const SpaceHandle& s, const py::object& e) {
            return s.space.ToText(EncodingFrom(s.space, e));
          },
          py::arg("encoding"), "The text form ('1.0.2_0.1_...', as journals and CSVs write it).")
      .def(
          "from_text",
          [](const SpaceHandle& s, const std::string& t) { return s.space.FromText(t); },
          py::arg("text"))
      .def(
          "decode",
          [](const SpaceHandle& s, const py::object& e) {
            const space::Decoded d = s.space.Decode(EncodingFrom(s.space, e));
            py::dict out;
            out["blocks"] = d.blocks;
            out["block_stages"] = d.block_stages;
            out["stage_ops"] = d.stage_ops;
            out["layers"] = d.layers;
            return out;
          },
          py::arg("encoding"),
          "The network: its block strings, each block's stage, the op each stage chose and the "
          "number of layers.")
      .def(
          "build_full",
          [](const SpaceHandle& s, const py::object& e,
             const std::tuple<double, double, double>& sc, int batch, const std::string& dtype) {
            models::BuildOptions o;
            o.batch = batch;
            o.dtype = models::ParseDType(dtype);
            return s.space.BuildFull(EncodingFrom(s.space, e),
                                     {std::get<0>(sc), std::get<1>(sc), std::get<2>(sc)}, o);
          },
          py::arg("encoding"), py::arg("scaling") = std::make_tuple(1.0, 1.0, 1.0),
          py::arg("batch") = 1, py::arg("dtype") = "fp32",
          "The full-size graph (what the simulator costs), with compound scaling (depth, width, "
          "resolution).")
      .def(
          "build_proxy",
          [](const SpaceHandle& s, const py::object& e,
             const std::tuple<double, double, double>& sc) {
            return s.space.BuildProxy(EncodingFrom(s.space, e),
                                      {std::get<0>(sc), std::get<1>(sc), std::get<2>(sc)});
          },
          py::arg("encoding"), py::arg("scaling") = std::make_tuple(1.0, 1.0, 1.0),
          "The proxy-size graph the space's proxy settings train.")
      .def("__repr__",
           [](const SpaceHandle& s) {
             return "<dcnas.Space " + s.space.name() + ": " +
                    std::to_string(s.space.vector_length()) + " choices>";
           })
      .def(py::pickle(
          [](const SpaceHandle& s) { return py::make_tuple(s.yaml, s.space.file()); },
          [](const py::tuple& t) {
            const auto yaml = t[0].cast<std::string>();
            return SpaceHandle{space::Space::Parse(yaml, t[1].cast<std::string>()), yaml};
          }));

  py::class_<search::Candidate>(m, "Candidate", "An asked architecture: its id and encoding.")
      .def_readonly("id", &search::Candidate::id)
      .def_readonly("encoding", &search::Candidate::encoding)
      .def("__repr__", [](const search::Candidate& c) {
        std::string e;
        for (int v : c.encoding) e += (e.empty() ? "" : ", ") + std::to_string(v);
        return "<dcnas.Candidate " + std::to_string(c.id) + ": [" + e + "]>";
      });

  m.def("strategy_names", &search::StrategyNames, "random, evolution, rl, nsga2, predictor.");
  m.def("strategy_parameters", &search::StrategyParameters, py::arg("strategy"),
        "The parameters a strategy takes (as keyword arguments of Strategy and run_search).");
  py::class_<StrategyHandle>(m, "Strategy",
                             "A search strategy behind the ask/tell protocol (search/strategy.h): "
                             "ask(n) hands out candidates, tell(candidate, reward, objectives) "
                             "reports their scores (maximised). The same seed and the same "
                             "asks and tells give the same candidates as the C++ library.")
      .def(py::init([](const std::string& name, const py::object& space, const py::object& seed,
                       const py::kwargs& params) {
             const SpaceHandle& sh = SpaceOf(space, "Strategy space");
             StrategyHandle h;
             h.space_ref = space;
             h.strategy = search::MakeStrategy(
                 name, sh.space,
                 StrategyOptionsFrom(name, SeedFrom(seed, "Strategy seed"), params));
             return h;
           }),
           py::arg("name"), py::arg("space"), py::arg("seed") = 0,
           "Strategy parameters as keywords: population, tournament, mutations, start "
           "(evolution); population, mutations (nsga2); start, mutations, candidates, elite, "
           "ensemble, model, acquisition, kappa (predictor).")
      .def_property_readonly(
          "name", [](const StrategyHandle& h) { return std::string(h.strategy->name()); })
      .def(
          "ask", [](StrategyHandle& h, int n) { return h.strategy->Ask(n); }, py::arg("n") = 1,
          "Up to n new candidates (fewer only when the strategy waits for tells: nsga2 between "
          "generations).")
      .def(
          "tell",
          [](StrategyHandle& h, const search::Candidate& c, double reward,
             const std::vector<double>& objectives) {
            h.strategy->Tell(c, {reward, objectives});
          },
          py::arg("candidate"), py::arg("reward"), py::arg("objectives") = std::vector<double>{},
          "The score of an asked candidate: the reward (single-objective strategies) and the "
          "objectives (nsga2, e.g. [accuracy, -latency]), all maximised.")
      .def_property_readonly("asked", [](const StrategyHandle& h) { return h.strategy->asked(); })
      .def_property_readonly("told", [](const StrategyHandle& h) { return h.strategy->told(); })
      .def_property_readonly("pending",
                             [](const StrategyHandle& h) { return h.strategy->pending(); });

  m.def("mnas_reward", &search::MnasReward, py::arg("accuracy"), py::arg("latency"),
        py::arg("target"), py::arg("w") = search::kMnasSoftExponent,
        "MnasNet's soft reward ACC * (LAT / T)^w.");
  m.def("hard_reward", &search::HardReward, py::arg("accuracy"), py::arg("latency"),
        py::arg("target"), "MnasNet's hard constraint: ACC under T, ACC * (LAT / T)^-1 above.");
  m.def("pareto_front", &search::ParetoFront, py::arg("objectives"),
        "Indices of the non-dominated points (every objective maximised).");
  m.def("non_dominated_ranks", &search::NonDominatedRanks, py::arg("objectives"),
        "Each point's non-domination rank (0: the front).");

  py::class_<LatencyHandle>(m, "SimLatency",
                            "The search's latency objective: each architecture's full-size "
                            "network simulated on the setup block by block, with block and op "
                            "cost caches shared across calls (what `dcnas search` uses).")
      .def(py::init([](const py::object& space, const Setup& setup) {
             LatencyHandle h;
             h.Bind(space, "SimLatency space");
             h.latency = std::make_unique<search::SimLatency>(*h.space, setup.sim);
             return h;
           }),
           py::arg("space"), py::arg("setup"))
      .def(
          "latency_ms",
          [](LatencyHandle& h, const py::object& e) {
            const space::Encoding enc = h.space->Canonical(EncodingFrom(*h.space, e));
            py::gil_scoped_release release;
            const std::lock_guard<std::mutex> guard(*h.lock);
            return h.latency->LatencyMs(enc);
          },
          py::arg("encoding"), "Milliseconds per batch of the setup's batch.")
      .def(
          "latency_and_counts",
          [](LatencyHandle& h, const py::object& e) {
            const space::Encoding enc = h.space->Canonical(EncodingFrom(*h.space, e));
            std::optional<search::ArchCounts> counts;
            double ms = 0.0;
            {
              py::gil_scoped_release release;
              const std::lock_guard<std::mutex> guard(*h.lock);
              ms = h.latency->LatencyAndCounts(enc, counts);
            }
            if (!counts) throw InternalError("SimLatency gave no counts");
            return py::make_tuple(ms, py::make_tuple(counts->params, counts->flops));
          },
          py::arg("encoding"),
          "(milliseconds, (params, flops)): the latency and the full-size network's counts at "
          "batch 1, which SearchAccuracy.accuracy_many takes so that the surrogate need not build "
          "the network again (what `dcnas search` does).")
      .def(
          "latency_ms_many",
          [](LatencyHandle& h, const py::object& encodings) {
            const std::vector<space::Encoding> list = h.Canonicals(encodings);
            std::vector<double> out(list.size());
            {
              py::gil_scoped_release release;
              const std::lock_guard<std::mutex> guard(*h.lock);
              for (size_t i = 0; i < list.size(); ++i) out[i] = h.latency->LatencyMs(list[i]);
            }
            return py::array_t<double>(static_cast<py::ssize_t>(out.size()), out.data());
          },
          py::arg("encodings"), "The batch form: a NumPy array of latencies.");

  py::class_<AccuracyHandle>(m, "SearchAccuracy",
                             "The accuracy objective of a search, named as `dcnas search "
                             "--accuracy` names it: 'surrogate:FILE', 'table:FILE', "
                             "'counterpart:FILE', 'imagenet:FILE' or 'train[:RECIPE]'. Percent.")
      .def(py::init([](const std::string& spec, const py::object& space, double min_tau) {
             AccuracyHandle h;
             h.Bind(space, "SearchAccuracy space");
             search::AccuracyFactoryOptions f;
             f.min_surrogate_tau = min_tau;
             h.accuracy = search::MakeAccuracyObjective(spec, *h.space, f);
             return h;
           }),
           py::arg("spec"), py::arg("space"), py::arg("min_surrogate_tau") = 0.5)
      .def(
          "accuracy",
          [](AccuracyHandle& h, const py::object& e) {
            const space::Encoding enc = h.space->Canonical(EncodingFrom(*h.space, e));
            py::gil_scoped_release release;
            const std::lock_guard<std::mutex> guard(*h.lock);
            return h.accuracy->Accuracy(enc);
          },
          py::arg("encoding"))
      .def(
          "accuracy_many",
          [](AccuracyHandle& h, const py::object& encodings, const py::object& counts) {
            const std::vector<space::Encoding> list = h.Canonicals(encodings);
            std::vector<search::ArchCounts> c;
            if (!counts.is_none()) {
              for (const auto& item : counts) {
                const std::string what = "counts[" + std::to_string(c.size()) + "]";
                const auto t = CastArg<std::pair<double, double>>(item, what, "(params, flops)");
                if (!(std::isfinite(t.first) && t.first >= 0 && std::isfinite(t.second) &&
                      t.second >= 0)) {
                  throw InputError(what + ": params and flops must be finite and >= 0, got (" +
                                   FormatShortest(t.first) + ", " + FormatShortest(t.second) + ")");
                }
                c.push_back({t.first, t.second});
              }
              if (c.size() != list.size()) {
                throw InputError("counts: " + std::to_string(c.size()) + " given for " +
                                 std::to_string(list.size()) + " encodings");
              }
            }
            std::vector<double> out;
            {
              py::gil_scoped_release release;
              const std::lock_guard<std::mutex> guard(*h.lock);
              h.accuracy->AccuracyBatch(list, c, out);
            }
            return py::array_t<double>(static_cast<py::ssize_t>(out.size()), out.data());
          },
          py::arg("encodings"), py::arg("counts") = py::none(),
          "The accuracies of a batch; `counts` (params, flops) per encoding, from "
          "SimLatency.latency_and_counts, spare the surrogate building each network.")
      .def_property_readonly(
          "config", [](const AccuracyHandle& h) { return ToPython(h.accuracy->Config()); });

  m.def("run_search", &RunSearch, py::arg("space"), py::arg("out"), py::arg("budget"),
        py::arg("accuracy"), py::arg("latency") = py::none(), py::arg("target_ms") = py::none(),
        py::arg("strategy") = "evolution", py::arg("seed") = 0, py::arg("in_flight") = 1,
        py::arg("threads") = 1, py::arg("hard") = false, py::arg("w") = search::kMnasSoftExponent,
        py::arg("prior") = false, py::arg("references") = py::none(), py::arg("resume") = false,
        py::arg("min_surrogate_tau") = 0.5, py::arg("progress") = py::none(),
        py::arg("params") = py::dict(),
        "`dcnas search`: a whole journaled search in `out` (journal.jsonl, pareto.csv/svg, "
        "best.json/txt, summary.json). accuracy: 'surrogate:FILE', 'table:FILE', "
        "'counterpart:FILE', 'imagenet:FILE', 'train[:RECIPE]' or a function of an encoding "
        "returning percent; "
        "latency: a dcnas.Setup (the simulator), 'table:FILE' or None (reward = accuracy). "
        "params: the strategy's parameters. Returns summary.json as a dict with the evaluated "
        "points as records.");

  m.def(
      "scale",
      [](const std::string& model, const std::string& blocks, const std::string& run_dir,
         const std::string& space_file, const Setup& setup, const std::string& out,
         const std::string& mode, const std::string& grid, int phi, int members, int train_members,
         const py::object& accuracy, const std::string& recipe, const py::object& seed,
         const std::string& trained_file, bool train, bool references, const std::string& name,
         int base_resolution, const py::object& progress) {
        lacs::ScaleRequest r;
        r.model = model;
        r.blocks = blocks;
        r.run_dir = run_dir;
        r.space_file = space_file;
        r.mode = mode;
        r.grid = grid;
        r.options.budget.phi = phi;
        r.options.members = members;
        r.options.train_members = train_members;
        r.recipe_key = recipe;
        r.seed = SeedFrom(seed, "seed");
        r.trained_file = trained_file;
        r.train = train;
        r.references = references ? "auto" : "none";
        r.name = name;
        r.out = out;
        r.base_resolution = base_resolution;
        const lacs::ScalePlan plan = lacs::PlanScale(r);
        lacs::NetworkSimulator simulator(setup.sim);
        const lacs::ScaleProgress on_progress = [&progress](const std::string& line) {
          py::gil_scoped_acquire gil;
          if (PyErr_CheckSignals() != 0) throw py::error_already_set();  // Ctrl-C
          if (!progress.is_none()) progress(line);
        };
        lacs::ScaleRun run;
        if (accuracy.is_none()) {
          py::gil_scoped_release release;
          run = lacs::RunScalePlan(plan, simulator, on_progress);
        } else {
          PythonProxyAccuracy acc(accuracy.cast<py::function>(), plan);
          py::gil_scoped_release release;
          run = lacs::RunScale(plan.base, plan.family, plan.modes, plan.options,
                               plan.request.references == "auto", simulator, acc, out, on_progress);
        }
        py::dict d;
        d["text"] = run.text;
        py::list families;
        for (const auto& f : run.families) {
          const std::string dir =
              run.families.size() == 1 ? out : out + "/" + lacs::ModeName(f.options.mode);
          families.append(ToPython(nlohmann::json::parse(ReadFile(dir + "/family.json"))));
        }
        d["families"] = families;
        if (run.comparison) d["comparison"] = run.comparison->text;
        return d;
      },
      py::arg("model") = "", py::arg("blocks") = "", py::arg("run_dir") = "",
      py::arg("space_file") = "", py::arg("setup"), py::arg("out"), py::arg("mode") = "lacs",
      py::arg("grid") = "", py::arg("phi") = 1, py::arg("members") = 7,
      py::arg("train_members") = 2, py::arg("accuracy") = py::none(),
      py::arg("recipe") = "r16_n5000_e2", py::arg("seed") = 0, py::arg("trained_file") = "",
      py::arg("train") = true, py::arg("references") = true, py::arg("name") = "",
      py::arg("base_resolution") = 224, py::arg("progress") = py::none(),
      "`dcnas scale`: latency-aware compound scaling (LACS) of a base (a zoo EfficientNet/-X "
      "`model`, `blocks`, or a search `run_dir` with its `space_file`) into a family on `setup`, "
      "written to `out`. The proxy accuracy of grid points and members is trained (LibTorch "
      "builds), read from the trained file, or, with `accuracy`, a function of the proxy graph "
      "(a dcnas.Graph) returning percent (None: not trained). Returns each family's "
      "family.json as a dict, the tables as text and, for mode 'both', the comparison.");
}

}  // namespace dcnas::python
