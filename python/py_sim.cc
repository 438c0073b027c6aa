// Accelerators, stacks and calibrations; simulate (inference and a training step); the report as
// records or NumPy columns; compare, sweep and roofline as the `dcnas` commands compute them.
#include <mutex>
#include <string>
#include <vector>

#include "common/data_dir.h"
#include "common/errors.h"
#include "common/table.h"
#include "common/text.h"
#include "models/zoo/published_top1.h"
#include "models/zoo/zoo.h"
#include "python/bind.h"
#include "sim/intervals.h"
#include "sim/spec.h"
#include "sim/train_step.h"
#include "study/equal_accuracy.h"
#include "study/family_compare.h"
#include "study/precision.h"
#include "study/roofline.h"
#include "study/sweep.h"

namespace dcnas::python {

Setup LoadSetup(const std::string& accelerator, const std::string& stack,
                const std::string& calibration, std::vector<Override> overrides,
                const std::string& precision, int batch, bool fusion) {
  if (batch < 1 || batch > 1048576) {
    throw InputError("batch " + std::to_string(batch) + ": expected 1..1048576");
  }
  Setup s;
  s.accelerator = accelerator;
  s.stack = stack;
  s.calibration = calibration;
  s.overrides = std::move(overrides);
  s.precision = precision;
  s.sim = sim::LoadSetup(accelerator, stack, calibration, s.overrides);
  s.sim.dtype = models::ParseDType(study::PrecisionFor(precision, s.sim.spec.kind));
  s.sim.batch = batch;
  s.sim.fusion = fusion;
  return s;
}

namespace {

using sim::Report;

constexpr double kMs = 1e3;

// A model argument: a Graph as it is, or a zoo name built at the setup's batch and dtype.
models::Graph ModelGraph(const py::handle& model, const sim::SimSetup& setup, int batch) {
  if (py::isinstance<models::Graph>(model)) return model.cast<models::Graph>();
  if (py::isinstance<py::str>(model)) {
    models::BuildOptions o = setup.GraphOptions();
    o.batch = batch;
    return models::BuiltinModels().Build(model.cast<std::string>(), o);
  }
  throw InputError("model: expected a dcnas.Graph or a zoo model name, got " + TypeName(model));
}

// A graph prepared for the simulator once (sim/prepared.h), with the Graph it points into.
struct PreparedHandle {
  py::object graph_ref;
  sim::PreparedGraph prepared;
};

// A model argument resolved while the GIL is held: a prepared graph, a Graph by reference (no
// copy), or a zoo name built here.
struct ModelRef {
  const sim::PreparedGraph* prepared = nullptr;
  const models::Graph* graph = nullptr;
  models::Graph built;
};

void Resolve(const py::handle& model, const sim::SimSetup& setup, ModelRef& ref) {
  if (py::isinstance<PreparedHandle>(model)) {
    ref.prepared = &model.cast<const PreparedHandle&>().prepared;
  } else if (py::isinstance<models::Graph>(model)) {
    ref.graph = &model.cast<const models::Graph&>();
  } else {
    ref.built = ModelGraph(model, setup, setup.batch);
    ref.graph = &ref.built;
  }
}

// Simulates a resolved model on `setup` (no GIL needed).
// The report carries the shipped prediction interval, as `dcnas sim` prints it.
Report Run(const ModelRef& ref, const sim::SimSetup& setup, bool details, sim::CostCache* cache) {
  Report r = ref.prepared != nullptr
                 ? sim::Simulate(*ref.prepared, setup.spec, setup.stack, setup.calibration,
                                 setup.Options(details), cache)
                 : sim::Simulate(*ref.graph, setup.spec, setup.stack, setup.calibration,
                                 setup.Options(details), cache);
  r.interval =
      sim::IntervalModel{&sim::ShippedErrorModel()}.Latency(setup, false, r.batch, r.latency_s);
  return r;
}

// Every model of a list, resolved (the vector is sized once: `built` graphs do not move).
std::vector<ModelRef> ResolveAll(const py::list& models_list, const sim::SimSetup& setup) {
  std::vector<ModelRef> refs(models_list.size());
  for (size_t i = 0; i < refs.size(); ++i) Resolve(models_list[i], setup, refs[i]);
  return refs;
}

// A setup with its own per-op cost cache: repeated simulations on it cost each distinct op once.
struct Simulator {
  explicit Simulator(const Setup& s) : setup(s) {}
  Setup setup;
  sim::CostCache cache;
  std::mutex lock;  // the cache is not thread-safe; calls release the GIL
};

py::dict SplitDict(const sim::TimeSplit& t) {
  py::dict d;
  d["matrix_s"] = t.matrix_s;
  d["vector_s"] = t.vector_s;
  d["memory_s"] = t.memory_s;
  d["overhead_s"] = t.overhead_s;
  d["total_s"] = t.total_s;
  return d;
}

// The five time columns of rows that carry a `time` split.
template <typename Rows>
void AddTimes(Columns& c, const Rows& rows) {
  c.AddFrom("matrix_s", rows, [](const auto& r) { return r.time.matrix_s; });
  c.AddFrom("vector_s", rows, [](const auto& r) { return r.time.vector_s; });
  c.AddFrom("memory_s", rows, [](const auto& r) { return r.time.memory_s; });
  c.AddFrom("overhead_s", rows, [](const auto& r) { return r.time.overhead_s; });
  c.AddFrom("total_s", rows, [](const auto& r) { return r.time.total_s; });
}

Columns OpColumns(const Report& r) {
  using Op = sim::OpReport;
  Columns c;
  c.AddFrom("id", r.ops, [](const Op& o) { return o.id; });
  c.AddFrom("name", r.ops, [](const Op& o) { return o.name; });
  c.AddFrom("kind", r.ops, [](const Op& o) { return o.kind; });
  c.AddFrom("detail", r.ops, [](const Op& o) { return o.detail; });
  c.AddFrom("block", r.ops, [](const Op& o) { return o.block; });
  c.AddFrom("stage", r.ops, [](const Op& o) { return o.stage; });
  c.AddFrom("kernel", r.ops, [](const Op& o) { return o.group; });
  c.AddFrom("unit", r.ops, [](const Op& o) { return o.unit; });
  c.AddFrom("flops", r.ops, [](const Op& o) { return o.flops; });
  c.AddFrom("macs", r.ops, [](const Op& o) { return o.macs; });
  c.AddFrom("matrix_utilization", r.ops, [](const Op& o) { return o.matrix_utilization; });
  AddTimes(c, r.ops);
  return c;
}

Columns KernelColumns(const Report& r) {
  using Group = sim::GroupReport;
  Columns c;
  c.AddFrom("id", r.groups, [](const Group& g) { return g.id; });
  c.AddFrom("name", r.groups, [](const Group& g) { return g.name; });
  c.AddFrom("num_ops", r.groups, [](const Group& g) { return g.op_ids.size(); });
  c.AddFrom("flops", r.groups, [](const Group& g) { return g.flops; });
  c.AddFrom("hbm_bytes", r.groups, [](const Group& g) { return g.hbm_bytes; });
  c.AddFrom("onchip_bytes", r.groups, [](const Group& g) { return g.onchip_bytes; });
  c.AddFrom("bound", r.groups,
            [](const Group& g) { return std::string(sim::cost::BoundName(g.bound)); });
  AddTimes(c, r.groups);
  return c;
}

Columns BlockColumns(const Report& r) {
  using Block = sim::BlockReport;
  Columns c;
  c.AddFrom("block", r.blocks, [](const Block& b) { return b.block; });
  c.AddFrom("stage", r.blocks, [](const Block& b) { return b.stage; });
  c.AddFrom("num_ops", r.blocks, [](const Block& b) { return b.num_ops; });
  c.AddFrom("flops", r.blocks, [](const Block& b) { return b.flops; });
  c.AddFrom("hbm_bytes", r.blocks, [](const Block& b) { return b.hbm_bytes; });
  c.AddFrom("bound", r.blocks,
            [](const Block& b) { return std::string(sim::cost::BoundName(b.bound)); });
  AddTimes(c, r.blocks);
  return c;
}

// The report's whole state, every number as computed (JSON doubles round-trip exactly), for
// pickling.
nlohmann::json SplitState(const sim::TimeSplit& t) {
  return {t.matrix_s, t.vector_s, t.memory_s, t.overhead_s, t.total_s};
}
sim::TimeSplit SplitFrom(const nlohmann::json& j) {
  return {j.at(0).get<double>(), j.at(1).get<double>(), j.at(2).get<double>(),
          j.at(3).get<double>(), j.at(4).get<double>()};
}

// A report's interval in milliseconds, as `dcnas sim --format json` writes it; None without.
py::object IntervalMs(const std::optional<sim::Interval>& interval) {
  if (!interval) return py::none();
  return ToPython(sim::IntervalToJson(*interval, kMs));
}

nlohmann::json IdentityState(const sim::RunIdentity& r) {
  nlohmann::json j = {r.tool_version,     r.model, r.resolution, r.dtype,       r.accelerator,
                      r.accelerator_file, r.stack, r.stack_file, r.calibration, r.calibration_file};
  if (r.interval) {
    const sim::Interval& i = *r.interval;
    j.push_back(nlohmann::json{i.point, i.lo80, i.hi80, i.lo95, i.hi95, i.regime, i.situation,
                               i.source, i.rows});
  }
  return j;
}
void IdentityFrom(const nlohmann::json& id, sim::RunIdentity& r) {
  r.tool_version = id.at(0);
  r.model = id.at(1);
  r.resolution = id.at(2);
  r.dtype = id.at(3);
  r.accelerator = id.at(4);
  r.accelerator_file = id.at(5);
  r.stack = id.at(6);
  r.stack_file = id.at(7);
  r.calibration = id.at(8);
  r.calibration_file = id.at(9);
  if (id.size() > 10) {
    const auto& v = id.at(10);
    r.interval = sim::Interval{v.at(0), v.at(1), v.at(2), v.at(3), v.at(4),
                               v.at(5), v.at(6), v.at(7), v.at(8)};
  }
}
nlohmann::json ReportState(const Report& r) {
  nlohmann::json j;
  j["id"] = IdentityState(r);
  j["run"] = {r.batch, r.overrides, r.extends, r.context_fingerprint, r.fusion};
  j["params"] = r.calibration_params;
  j["peaks"] = {r.peak_flops_per_s, r.clock_ghz,       r.sustained_clock_ghz,
                r.board_w,          r.hbm_bytes_per_s, r.ridge_flop_per_byte};
  j["totals"] = {r.latency_s,
                 r.throughput_img_per_s,
                 r.flops,
                 r.macs,
                 r.hbm_bytes,
                 r.compulsory_bytes,
                 r.intensity_flop_per_byte,
                 r.achieved_flops_per_s,
                 r.percent_of_peak,
                 r.num_kernels};
  j["bounds"] = r.time_by_bound_s;
  j["time"] = SplitState(r.time);
  nlohmann::json ops = nlohmann::json::array();
  for (const auto& o : r.ops) {
    ops.push_back({o.id, o.group, o.name, o.kind, o.detail, o.block, o.stage, o.unit, o.flops,
                   o.macs, o.matrix_utilization, SplitState(o.time)});
  }
  j["ops"] = ops;
  nlohmann::json groups = nlohmann::json::array();
  for (const auto& g : r.groups) {
    groups.push_back({g.id, g.name, g.op_ids, g.flops, g.hbm_bytes, g.onchip_bytes,
                      SplitState(g.time), static_cast<int>(g.bound)});
  }
  j["groups"] = groups;
  nlohmann::json blocks = nlohmann::json::array();
  for (const auto& b : r.blocks) {
    blocks.push_back({b.block, b.stage, b.num_ops, b.flops, b.hbm_bytes, SplitState(b.time),
                      static_cast<int>(b.bound)});
  }
  j["blocks"] = blocks;
  return j;
}

Report ReportFromState(const nlohmann::json& j) {
  Report r;
  IdentityFrom(j.at("id"), r);
  const auto& run = j.at("run");
  r.batch = run.at(0);
  r.overrides = run.at(1).get<std::vector<std::string>>();
  r.extends = run.at(2).get<std::vector<std::string>>();
  r.context_fingerprint = run.at(3);
  r.fusion = run.at(4);
  r.calibration_params = j.at("params").get<std::vector<std::pair<std::string, double>>>();
  const auto& p = j.at("peaks");
  r.peak_flops_per_s = p.at(0);
  r.clock_ghz = p.at(1);
  r.sustained_clock_ghz = p.at(2);
  r.board_w = p.at(3);
  r.hbm_bytes_per_s = p.at(4);
  r.ridge_flop_per_byte = p.at(5);
  const auto& t = j.at("totals");
  r.latency_s = t.at(0);
  r.throughput_img_per_s = t.at(1);
  r.flops = t.at(2);
  r.macs = t.at(3);
  r.hbm_bytes = t.at(4);
  r.compulsory_bytes = t.at(5);
  r.intensity_flop_per_byte = t.at(6);
  r.achieved_flops_per_s = t.at(7);
  r.percent_of_peak = t.at(8);
  r.num_kernels = t.at(9);
  r.time_by_bound_s = j.at("bounds").get<std::array<double, sim::kNumBounds>>();
  r.time = SplitFrom(j.at("time"));
  for (const auto& o : j.at("ops")) {
    sim::OpReport x;
    x.id = o.at(0);
    x.group = o.at(1);
    x.name = o.at(2);
    x.kind = o.at(3);
    x.detail = o.at(4);
    x.block = o.at(5);
    x.stage = o.at(6);
    x.unit = o.at(7);
    x.flops = o.at(8);
    x.macs = o.at(9);
    x.matrix_utilization = o.at(10);
    x.time = SplitFrom(o.at(11));
    r.ops.push_back(std::move(x));
  }
  for (const auto& g : j.at("groups")) {
    sim::GroupReport x;
    x.id = g.at(0);
    x.name = g.at(1);
    x.op_ids = g.at(2).get<std::vector<int>>();
    x.flops = g.at(3);
    x.hbm_bytes = g.at(4);
    x.onchip_bytes = g.at(5);
    x.time = SplitFrom(g.at(6));
    x.bound = static_cast<sim::Bound>(g.at(7).get<int>());
    r.groups.push_back(std::move(x));
  }
  for (const auto& b : j.at("blocks")) {
    sim::BlockReport x;
    x.block = b.at(0);
    x.stage = b.at(1);
    x.num_ops = b.at(2);
    x.flops = b.at(3);
    x.hbm_bytes = b.at(4);
    x.time = SplitFrom(b.at(5));
    x.bound = static_cast<sim::Bound>(b.at(6).get<int>());
    r.blocks.push_back(std::move(x));
  }
  return r;
}

// A training report's whole state (every number as computed), for pickling.
nlohmann::json PhaseState(const sim::TrainPhaseReport& p) {
  return {SplitState(p.time), p.kernels, p.flops, p.hbm_bytes};
}
sim::TrainPhaseReport PhaseFrom(const nlohmann::json& j) {
  return {SplitFrom(j.at(0)), j.at(1).get<int>(), j.at(2).get<double>(), j.at(3).get<double>()};
}

nlohmann::json TrainReportState(const sim::TrainReport& r) {
  const sim::TrainMemory& m = r.memory;
  const sim::AllReduceCost& a = r.allreduce;
  return {IdentityState(r),
          {r.optimizer, r.global_batch, r.chips, r.replicas, r.per_chip_batch, r.per_replica_batch,
           r.params},
          {PhaseState(r.forward), PhaseState(r.backward), PhaseState(r.update)},
          {a.seconds, a.intra_chip_s, a.inter_chip_s, a.algorithm, a.participants},
          {r.allreduce_bytes, r.allreduce_hidden_s, r.allreduce_exposed_s, r.step_s, r.images_per_s,
           r.step_flops, r.achieved_flops_per_s, r.percent_of_peak},
          {m.weights, m.gradients, m.optimizer, m.activations_saved, m.activations_peak, m.input,
           m.total, m.capacity}};
}

sim::TrainReport TrainReportFrom(const nlohmann::json& j) {
  sim::TrainReport r;
  IdentityFrom(j.at(0), r);
  const auto& b = j.at(1);
  r.optimizer = b.at(0);
  r.global_batch = b.at(1);
  r.chips = b.at(2);
  r.replicas = b.at(3);
  r.per_chip_batch = b.at(4);
  r.per_replica_batch = b.at(5);
  r.params = b.at(6);
  r.forward = PhaseFrom(j.at(2).at(0));
  r.backward = PhaseFrom(j.at(2).at(1));
  r.update = PhaseFrom(j.at(2).at(2));
  const auto& a = j.at(3);
  r.allreduce = {a.at(0).get<double>(), a.at(1).get<double>(), a.at(2).get<double>(),
                 a.at(3).get<std::string>(), a.at(4).get<int>()};
  const auto& t = j.at(4);
  r.allreduce_bytes = t.at(0);
  r.allreduce_hidden_s = t.at(1);
  r.allreduce_exposed_s = t.at(2);
  r.step_s = t.at(3);
  r.images_per_s = t.at(4);
  r.step_flops = t.at(5);
  r.achieved_flops_per_s = t.at(6);
  r.percent_of_peak = t.at(7);
  const auto& m = j.at(5);
  r.memory = {m.at(0).get<double>(), m.at(1).get<double>(), m.at(2).get<double>(),
              m.at(3).get<double>(), m.at(4).get<double>(), m.at(5).get<double>(),
              m.at(6).get<double>(), m.at(7).get<double>()};
  return r;
}

// Unpickles with `from`, turning a state that is not one into an InputError naming `what`.
template <typename From>
auto Unpickle(const std::string& state, const std::string& what, From from) {
  try {
    return from(nlohmann::json::parse(state));
  } catch (const nlohmann::json::exception& e) {
    throw InputError(what + " pickle: not a report's state (" + e.what() + ")");
  }
}

py::dict OverridesDict(const std::vector<Override>& overrides) {
  py::dict d;
  for (const auto& o : overrides) d[py::str(o.path)] = o.value;
  return d;
}

std::vector<std::string> NameList(const py::object& names, const std::string& what) {
  if (py::isinstance<py::str>(names)) {
    std::vector<std::string> out;
    for (std::string s : Split(names.cast<std::string>(), ',')) {
      const size_t begin = s.find_first_not_of(' ');
      if (begin == std::string::npos) continue;
      out.push_back(s.substr(begin, s.find_last_not_of(' ') + 1 - begin));
    }
    return out;
  }
  try {
    return names.cast<std::vector<std::string>>();
  } catch (const py::cast_error&) {
    throw InputError(what + ": expected a list of names or a comma-separated str");
  }
}

// The setups of a study over several accelerators, with the dtype each runs at.
std::vector<sim::SimSetup> StudySetups(const std::vector<std::string>& accels,
                                       const std::string& stack, const std::string& calibration,
                                       const std::vector<Override>& overrides) {
  std::vector<sim::SimSetup> setups;
  for (const auto& a : accels) setups.push_back(sim::LoadSetup(a, stack, calibration, overrides));
  return setups;
}

study::RunOptions StudyOptions(int batch, const std::string& precision, bool fusion) {
  if (batch < 1 || batch > 1048576) {
    throw InputError("batch " + std::to_string(batch) + ": expected 1..1048576");
  }
  study::RunOptions o;
  o.batch = batch;
  o.precision = precision;
  o.sim.fusion = fusion;
  o.sim.details = false;
  return o;
}

py::object Compare(const py::object& families, const py::object& pairs,
                   const py::object& accelerators, int batch, const std::string& stack,
                   const std::string& calibration, const py::object& overrides,
                   const std::string& precision, bool fusion) {
  const models::ModelRegistry& registry = models::BuiltinModels();
  study::Lineup lineup;
  if (!families.is_none() && !pairs.is_none()) {
    throw InputError("compare: families and pairs exclude each other (got both)");
  }
  if (!pairs.is_none()) {
    std::vector<std::pair<std::string, std::string>> p;
    for (const auto& item : pairs) {
      if (py::isinstance<py::str>(item)) {
        const std::string text = item.cast<std::string>();
        const size_t colon = text.find(':');
        if (colon == std::string::npos) throw InputError("pairs: '" + text + "' is not A:B");
        p.emplace_back(text.substr(0, colon), text.substr(colon + 1));
      } else {
        p.push_back(CastArg<std::pair<std::string, std::string>>(
            item, "pairs", "'A:B' or a pair (A, B) of names"));
      }
    }
    if (p.empty()) throw InputError("compare: pairs is empty");
    lineup = study::PairModels(p);
  } else {
    if (families.is_none()) throw InputError("compare: give families=[A, B, ...] or pairs");
    const auto names = NameList(families, "families");
    if (names.empty()) throw InputError("compare: families is empty");
    lineup = study::PairFamilyMembers(names, registry);
  }
  const auto accels = NameList(accelerators, "accelerators");
  if (accels.empty() || accels.size() > 2) {
    throw InputError("accelerators: give one accelerator, or two to compare them");
  }
  if (accels.size() == 1 && lineup.models.size() < 2) {
    throw InputError("compare: with one accelerator give at least two families");
  }
  const auto setups = StudySetups(accels, stack, calibration, OverridesFrom(overrides));
  const study::RunOptions options = StudyOptions(batch, precision, fusion);
  study::Comparison cmp;
  {
    py::gil_scoped_release release;
    cmp = study::Compare(lineup, setups, options, registry);
    study::AddIntervals(cmp, setups, batch, {&sim::ShippedErrorModel()});
  }
  std::vector<std::string> dtypes;
  for (const auto& s : setups) dtypes.push_back(study::PrecisionFor(precision, s.spec.kind));
  return ToPython(study::ComparisonToJson(cmp, setups, dtypes, batch));
}

py::object Sweep(const py::object& model, const py::dict& axes_dict, const std::string& accelerator,
                 const std::string& stack, const std::string& calibration,
                 const std::string& precision, int batch, bool fusion) {
  std::vector<study::SweepAxis> axes;
  for (const auto& [k, v] : axes_dict) {
    if (!py::isinstance<py::str>(k)) {
      throw InputError("sweep axes: keys must be str, got " + TypeName(k) + " " +
                       std::string(py::repr(k)));
    }
    const std::string key = k.cast<std::string>();
    study::SweepAxis axis{key, {}};
    if (py::isinstance<py::str>(v) || !py::isinstance<py::iterable>(v)) {
      axis.values.push_back(OverrideValue(v, key));
    } else {
      for (const auto& value : v) axis.values.push_back(OverrideValue(value, key));
    }
    if (axis.values.empty()) throw InputError("sweep axis " + key + ": no values");
    axes.push_back(std::move(axis));
  }
  if (axes.empty()) throw InputError("sweep: give at least one axis {\"key\": [v1, v2, ...]}");
  const auto grid = study::SweepGrid(axes);
  const study::SweepTarget target{accelerator, stack, calibration};
  sim::SimSetup first = sim::LoadSetup(accelerator, stack, calibration, grid.front());
  first.dtype = models::ParseDType(study::PrecisionFor(precision, first.spec.kind));
  if (batch < 1 || batch > 1048576) {
    throw InputError("batch " + std::to_string(batch) + ": expected 1..1048576");
  }
  if (py::isinstance<models::Graph>(model) && !precision.empty()) {
    throw InputError("sweep: precision cannot change a Graph's dtype (build it with dtype=)");
  }
  const models::Graph graph = ModelGraph(model, first, batch);
  sim::SimOptions so;
  so.fusion = fusion;
  so.details = false;
  std::vector<study::SweepRow> rows;
  {
    py::gil_scoped_release release;
    rows = study::Sweep(graph, target, grid, so, {&sim::ShippedErrorModel()});
  }
  return ToPython(study::SweepToJson(rows));
}

py::object Roofline(const py::object& models_arg, const py::object& accelerators, int batch,
                    const std::string& stack, const std::string& calibration,
                    const py::object& overrides, const std::string& precision, bool fusion) {
  const auto names = NameList(models_arg, "models");
  if (names.empty()) throw InputError("roofline: models is empty");
  const auto accels = NameList(accelerators, "accelerators");
  if (accels.empty()) throw InputError("roofline: accelerators is empty");
  const auto setups = StudySetups(accels, stack, calibration, OverridesFrom(overrides));
  const study::RunOptions options = StudyOptions(batch, precision, fusion);
  std::vector<study::RooflinePoint> points;
  {
    py::gil_scoped_release release;
    points = study::Roofline(names, setups, options, models::BuiltinModels());
    study::AddRooflineIntervals(points, setups, batch, {&sim::ShippedErrorModel()});
  }
  return ToPython(study::RooflineToJson(points, batch));
}

}  // namespace

void InitSim(py::module_& m) {
  m.def(
      "accelerators", [] { return sim::DataFileNames("accelerators"); },
      "Names of the shipped accelerator files (data/accelerators).");
  m.def(
      "stacks", [] { return sim::DataFileNames("stacks"); },
      "Names of the shipped software stacks (data/stacks).");
  m.def(
      "calibrations", [] { return sim::DataFileNames("calibrated"); },
      "Names of the shipped calibration profiles (data/calibrated).");

  py::class_<Setup>(m, "Setup",
                    "A simulated setup: the accelerator (silicon), the software stack and the "
                    "calibration, with overrides, at a precision, batch and fusion. Names are "
                    "shipped files (dcnas.accelerators(), ...) or YAML paths; an empty stack is "
                    "the accelerator kind's default, an empty calibration the built-in defaults. "
                    "Overrides are a dict of dotted keys: accelerator keys "
                    "({'hbm.bandwidth_gbps': 1800, 'matrix_unit.rows': 256}), 'stack.KEY' and "
                    "'calibration.KEY' (`dcnas sim --set`).")
      .def(py::init([](const std::string& a, const std::string& s, const std::string& c,
                       const py::object& overrides, const std::string& p, int batch, bool fusion) {
             return LoadSetup(a, s, c, OverridesFrom(overrides), p, batch, fusion);
           }),
           py::arg("accelerator") = "tpu-v3", py::arg("stack") = "", py::arg("calibration") = "",
           py::arg("overrides") = py::none(), py::arg("precision") = "", py::arg("batch") = 128,
           py::arg("fusion") = true)
      .def_property_readonly("accelerator", [](const Setup& s) { return s.sim.spec.name; })
      .def_property_readonly("kind", [](const Setup& s) { return s.sim.spec.kind; })
      .def_property_readonly("description", [](const Setup& s) { return s.sim.spec.description; })
      .def_property_readonly("accelerator_file", [](const Setup& s) { return s.sim.spec.file; })
      .def_property_readonly(
          "extends", [](const Setup& s) { return s.sim.spec.extends_chain; },
          "The accelerator file's `extends` chain (a what-if chip names the chip it varies).")
      .def_property_readonly("clock_ghz", [](const Setup& s) { return s.sim.spec.clock_ghz; })
      .def_property_readonly("cores", [](const Setup& s) { return s.sim.spec.cores; })
      .def_property_readonly("hbm_bandwidth_gbps",
                             [](const Setup& s) { return s.sim.spec.hbm_bandwidth_gbps; })
      .def_property_readonly("hbm_capacity_gib",
                             [](const Setup& s) { return s.sim.spec.hbm_capacity_gib; })
      .def_property_readonly("stack", [](const Setup& s) { return s.sim.stack.name; })
      .def_property_readonly("calibration", [](const Setup& s) { return s.sim.calibration.name; })
      .def_property_readonly("dtype",
                             [](const Setup& s) { return std::string(DTypeName(s.sim.dtype)); })
      .def_property_readonly("batch", [](const Setup& s) { return s.sim.batch; })
      .def_property_readonly("fusion", [](const Setup& s) { return s.sim.fusion; })
      .def_property_readonly("overrides", [](const Setup& s) { return OverridesDict(s.overrides); })
      .def(
          "replace",
          [](const Setup& s, const py::object& batch, const py::object& precision,
             const py::object& fusion, const py::object& overrides) {
            std::vector<Override> o = s.overrides;
            for (const Override& extra : OverridesFrom(overrides)) o.push_back(extra);
            return LoadSetup(s.accelerator, s.stack, s.calibration, std::move(o),
                             precision.is_none() ? s.precision : precision.cast<std::string>(),
                             batch.is_none() ? s.sim.batch : batch.cast<int>(),
                             fusion.is_none() ? s.sim.fusion : fusion.cast<bool>());
          },
          py::arg("batch") = py::none(), py::arg("precision") = py::none(),
          py::arg("fusion") = py::none(), py::arg("overrides") = py::none(),
          "A copy with another batch, precision or fusion, and more overrides (applied after "
          "this setup's): a what-if variant.")
      .def("__repr__",
           [](const Setup& s) {
             std::string text = "<dcnas.Setup " + s.sim.spec.name + " / " + s.sim.stack.name +
                                " / " + s.sim.calibration.name + ", " +
                                std::string(DTypeName(s.sim.dtype)) + ", batch " +
                                std::to_string(s.sim.batch);
             for (const auto& o : s.overrides) text += ", " + o.path + "=" + o.value;
             return text + ">";
           })
      .def(py::pickle(
          [](const Setup& s) {
            std::vector<std::pair<std::string, std::string>> o;
            for (const auto& x : s.overrides) o.emplace_back(x.path, x.value);
            return py::make_tuple(s.accelerator, s.stack, s.calibration, o, s.precision,
                                  s.sim.batch, s.sim.fusion);
          },
          [](const py::tuple& t) {
            std::vector<Override> o;
            for (const auto& [k, v] :
                 t[3].cast<std::vector<std::pair<std::string, std::string>>>()) {
              o.push_back({k, v});
            }
            return LoadSetup(t[0].cast<std::string>(), t[1].cast<std::string>(),
                             t[2].cast<std::string>(), std::move(o), t[4].cast<std::string>(),
                             t[5].cast<int>(), t[6].cast<bool>());
          }));

  py::class_<Report>(m, "Report",
                     "A simulation's result (`dcnas sim`): totals, the time by bound and by unit, "
                     "the roofline figures, and per op, kernel (fused group) and block tables.")
      .def_readonly("model", &Report::model)
      .def_readonly("accelerator", &Report::accelerator)
      .def_readonly("stack", &Report::stack)
      .def_readonly("calibration", &Report::calibration)
      .def_readonly("dtype", &Report::dtype)
      .def_readonly("batch", &Report::batch)
      .def_readonly("resolution", &Report::resolution)
      .def_readonly("fusion", &Report::fusion)
      .def_readonly("latency_s", &Report::latency_s)
      .def_property_readonly("latency_ms", [](const Report& r) { return r.latency_s * kMs; })
      .def_property_readonly(
          "interval", [](const Report& r) { return IntervalMs(r.interval); },
          "The measured latency's prediction interval (ms; lo80, hi80, lo95, hi95, regime, "
          "situation, source), from the shipped error model; None when there is none.")
      .def_readonly("throughput_img_per_s", &Report::throughput_img_per_s)
      .def_readonly("flops", &Report::flops)
      .def_readonly("macs", &Report::macs)
      .def_readonly("hbm_bytes", &Report::hbm_bytes)
      .def_readonly("compulsory_bytes", &Report::compulsory_bytes)
      .def_readonly("intensity_flop_per_byte", &Report::intensity_flop_per_byte)
      .def_readonly("achieved_flops_per_s", &Report::achieved_flops_per_s)
      .def_readonly("percent_of_peak", &Report::percent_of_peak)
      .def_readonly("peak_flops_per_s", &Report::peak_flops_per_s)
      .def_readonly("hbm_bytes_per_s", &Report::hbm_bytes_per_s)
      .def_readonly("ridge_flop_per_byte", &Report::ridge_flop_per_byte)
      .def_readonly("clock_ghz", &Report::clock_ghz)
      .def_readonly("num_kernels", &Report::num_kernels)
      .def_property_readonly("overrides", [](const Report& r) { return r.overrides; })
      .def_property_readonly(
          "time_by_bound",
          [](const Report& r) {
            py::dict d;
            for (int b = 0; b < sim::kNumBounds; ++b) {
              d[sim::cost::BoundName(static_cast<sim::Bound>(b))] =
                  r.time_by_bound_s[static_cast<size_t>(b)];
            }
            return d;
          },
          "Seconds of kernels bound by each resource: matrix, vector, memory, overhead.")
      .def_property_readonly(
          "time_by_unit", [](const Report& r) { return SplitDict(r.time); },
          "Seconds summed over kernels on each unit (matrix_s, vector_s, memory_s, overhead_s, "
          "total_s).")
      .def_property_readonly("calibration_params",
                             [](const Report& r) {
                               py::dict d;
                               for (const auto& [k, v] : r.calibration_params) d[py::str(k)] = v;
                               return d;
                             })
      .def(
          "ops", [](const Report& r) { return OpColumns(r).Records(); },
          "One record per op: id, name, kind, detail, block, stage, kernel (its fused group), "
          "unit, flops, macs, matrix_utilization and its share of the kernel's time (matrix_s, "
          "vector_s, memory_s, overhead_s, total_s). Empty when simulated with details=False.")
      .def(
          "ops_arrays", [](const Report& r) { return OpColumns(r).Arrays(); },
          "The op table as a dict of NumPy arrays (column -> array).")
      .def(
          "kernels", [](const Report& r) { return KernelColumns(r).Records(); },
          "One record per kernel (fused group): id, name, num_ops, flops, hbm_bytes, "
          "onchip_bytes, bound and its time split.")
      .def(
          "kernels_arrays", [](const Report& r) { return KernelColumns(r).Arrays(); },
          "The kernel table as NumPy arrays.")
      .def(
          "blocks", [](const Report& r) { return BlockColumns(r).Records(); },
          "One record per block: block, stage, num_ops, flops, hbm_bytes, bound, time split.")
      .def(
          "blocks_arrays", [](const Report& r) { return BlockColumns(r).Arrays(); },
          "The block table as NumPy arrays.")
      .def("to_text", &sim::ReportToText, py::arg("per_op") = false,
           "The report as `dcnas sim` prints it.")
      .def("to_json", &sim::ReportToJson, "The report as `dcnas sim --format json` prints it.")
      .def("to_csv", &sim::ReportToCsv, py::arg("per_op") = false,
           "The report as `dcnas sim --format csv` prints it.")
      .def(
          "to_dict",
          [](const Report& r) { return ToPython(nlohmann::json::parse(sim::ReportToJson(r))); },
          "The JSON report as a dict.")
      .def("__repr__",
           [](const Report& r) {
             return "<dcnas.Report " + r.model + " on " + r.accelerator + ": " +
                    FormatFixed(r.latency_s * kMs, 3) + " ms per batch of " +
                    std::to_string(r.batch) + ">";
           })
      .def(py::pickle(
          [](const Report& r) { return ReportState(r).dump(); },
          [](const std::string& state) { return Unpickle(state, "Report", &ReportFromState); }));

  py::class_<PreparedHandle>(m, "PreparedGraph",
                             "A graph flattened for the simulator once (dcnas.prepare): "
                             "simulating it again, on any setup, skips the preparation.")
      .def_property_readonly("model", [](const PreparedHandle& p) {
        return p.graph_ref.cast<const models::Graph&>().info().model;
      });
  m.def(
      "prepare",
      [](const py::object& graph) {
        if (!py::isinstance<models::Graph>(graph)) {
          throw InputError("prepare: expected a dcnas.Graph, got " + TypeName(graph));
        }
        PreparedHandle p;
        p.graph_ref = graph;
        p.prepared = sim::Prepare(graph.cast<const models::Graph&>());
        return p;
      },
      py::arg("graph"),
      "The graph flattened for the simulator (what simulate does first on every call); "
      "simulate and Simulator.simulate take it in place of the Graph.");
  m.def(
      "simulate",
      [](const py::object& model, const Setup& setup, bool details) {
        ModelRef ref;
        Resolve(model, setup.sim, ref);
        py::gil_scoped_release release;
        return Run(ref, setup.sim, details, nullptr);
      },
      py::arg("model"), py::arg("setup"), py::arg("details") = true,
      "Simulates inference of `model` (a Graph, or a zoo name built at the setup's batch and "
      "dtype) on `setup` (`dcnas sim`). details=False skips the per-op, kernel and block tables.");
  m.def(
      "simulate_many",
      [](const py::list& models_list, const Setup& setup, bool details) {
        const std::vector<ModelRef> refs = ResolveAll(models_list, setup.sim);
        std::vector<Report> reports;
        py::gil_scoped_release release;
        sim::CostCache cache;
        for (const ModelRef& ref : refs) reports.push_back(Run(ref, setup.sim, details, &cache));
        return reports;
      },
      py::arg("models"), py::arg("setup"), py::arg("details") = false,
      "Simulates a list of models on one setup with one per-op cost cache (graphs that share "
      "layers cost them once): the batch form of simulate, for loops in Python.");
  py::class_<Simulator>(m, "Simulator",
                        "A setup with its own per-op cost cache: the form for many simulations "
                        "on one setup (a warm cache costs each distinct op once, as the search "
                        "does). Thread-safe; calls release the GIL.")
      .def(py::init<const Setup&>(), py::arg("setup"))
      .def_property_readonly("setup", [](const Simulator& s) { return s.setup; })
      .def(
          "simulate",
          [](Simulator& s, const py::object& model, bool details) {
            ModelRef ref;
            Resolve(model, s.setup.sim, ref);
            py::gil_scoped_release release;
            const std::lock_guard<std::mutex> guard(s.lock);
            return Run(ref, s.setup.sim, details, &s.cache);
          },
          py::arg("model"), py::arg("details") = true, "As dcnas.simulate, with the cache.")
      .def(
          "simulate_many",
          [](Simulator& s, const py::list& models_list, bool details) {
            const std::vector<ModelRef> refs = ResolveAll(models_list, s.setup.sim);
            std::vector<Report> reports;
            py::gil_scoped_release release;
            const std::lock_guard<std::mutex> guard(s.lock);
            for (const ModelRef& ref : refs) {
              reports.push_back(Run(ref, s.setup.sim, details, &s.cache));
            }
            return reports;
          },
          py::arg("models"), py::arg("details") = false, "Simulates a list of models.");

  m.def(
      "per_chip_batch",
      [](int global_batch, int chips, const Setup& setup) {
        return sim::PerChipBatch(global_batch, chips, setup.sim.spec);
      },
      py::arg("global_batch"), py::arg("chips"), py::arg("setup"),
      "The per-chip batch of a data-parallel step: global / chips (also even over the chip's "
      "replicas).");
  m.def(
      "simulate_train",
      [](const py::object& model, const Setup& setup, const std::string& optimizer, int chips,
         bool memory_check) {
        sim::TrainOptions options;
        options.optimizer = sim::ParseOptimizer(optimizer);
        options.chips = chips;
        options.fusion = setup.sim.fusion;
        options.enforce_memory = memory_check;
        const int per_chip = sim::PerChipBatch(setup.sim.batch, chips, setup.sim.spec);
        const models::Graph graph = ModelGraph(model, setup.sim, per_chip);
        if (graph.info().batch != per_chip) {
          throw InputError("simulate_train: the graph's batch is " +
                           std::to_string(graph.info().batch) + ", the per-chip batch of " +
                           std::to_string(setup.sim.batch) + " over " + std::to_string(chips) +
                           " chip(s) is " + std::to_string(per_chip));
        }
        py::gil_scoped_release release;
        const sim::PreparedGraph prepared = sim::Prepare(graph);
        const sim::TrainGraph train = sim::BuildTrainGraph(
            prepared, options.optimizer, setup.sim.stack.rematerialize_elementwise);
        sim::TrainReport r = sim::SimulateTrainStep(train, setup.sim.spec, setup.sim.stack,
                                                    setup.sim.calibration, options);
        r.interval = sim::IntervalModel{&sim::ShippedErrorModel()}.Latency(
            setup.sim, true, r.global_batch, r.step_s);
        return r;
      },
      py::arg("model"), py::arg("setup"), py::arg("optimizer") = "sgd-momentum",
      py::arg("chips") = 1, py::arg("memory_check") = true,
      "One data-parallel training step (`dcnas sim --mode train`) of the setup's batch as the "
      "global batch over `chips` chips; a zoo name is built at the per-chip batch, a Graph must "
      "have it. Optimizers: sgd-momentum, rmsprop, adam, lars.");

  py::class_<sim::TrainReport>(m, "TrainReport",
                               "A simulated training step (`dcnas sim --mode train`).")
      .def_readonly("model", &sim::TrainReport::model)
      .def_readonly("optimizer", &sim::TrainReport::optimizer)
      .def_readonly("global_batch", &sim::TrainReport::global_batch)
      .def_readonly("chips", &sim::TrainReport::chips)
      .def_readonly("per_chip_batch", &sim::TrainReport::per_chip_batch)
      .def_readonly("step_s", &sim::TrainReport::step_s)
      .def_property_readonly(
          "interval", [](const sim::TrainReport& r) { return IntervalMs(r.interval); },
          "The step time's prediction interval (ms), as Report.interval.")
      .def_readonly("images_per_s", &sim::TrainReport::images_per_s)
      .def_readonly("percent_of_peak", &sim::TrainReport::percent_of_peak)
      .def("to_text", &sim::TrainReportToText)
      .def("to_json", &sim::TrainReportToJson)
      .def("to_dict",
           [](const sim::TrainReport& r) {
             return ToPython(nlohmann::json::parse(sim::TrainReportToJson(r)));
           })
      .def(py::pickle([](const sim::TrainReport& r) { return TrainReportState(r).dump(); },
                      [](const std::string& state) {
                        return Unpickle(state, "TrainReport", &TrainReportFrom);
                      }));

  m.def("compare", &Compare, py::arg("families") = py::none(), py::arg("pairs") = py::none(),
        py::arg("accelerators") = "tpu-v3", py::arg("batch") = 128, py::arg("stack") = "",
        py::arg("calibration") = "", py::arg("overrides") = py::none(), py::arg("precision") = "",
        py::arg("fusion") = true,
        "`dcnas compare`: family members side by side (paired by suffix), or pairs "
        "['a:b', ...], on one accelerator (speedups over the first family) or two (each family "
        "on the second against the first). Returns the command's JSON as a dict: setups, batch, "
        "rows (one per member) and geomean.");
  m.def(
      "compare_at_equal_accuracy",
      [](const py::object& families, const std::string& accelerator, int batch,
         const std::string& stack, const std::string& calibration, const py::object& overrides,
         const std::string& precision, bool fusion, const std::string& published) {
        const auto names = NameList(families, "families");
        const auto setups =
            StudySetups({accelerator}, stack, calibration, OverridesFrom(overrides));
        const study::RunOptions options = StudyOptions(batch, precision, fusion);
        const std::string path =
            published.empty() ? DataPath(models::kPublishedTop1File) : published;
        const auto table = models::ReadPublishedTop1(path);
        study::EqualAccuracy r;
        {
          py::gil_scoped_release release;
          r = study::CompareAtEqualAccuracy(names, setups.front(), options, models::BuiltinModels(),
                                            table);
        }
        return ToPython(study::EqualAccuracyToJson(r));
      },
      py::arg("families"), py::arg("accelerator") = "tpu-v3", py::arg("batch") = 128,
      py::arg("stack") = "", py::arg("calibration") = "", py::arg("overrides") = py::none(),
      py::arg("precision") = "", py::arg("fusion") = true, py::arg("published") = "",
      "`dcnas compare --at-equal-accuracy`: each member of the other families against the first "
      "family's latency at the member's published ImageNet top-1 (its accuracy-latency Pareto "
      "front, log-linear between members; published: the shipped table by default). Returns "
      "baseline, baseline_front and per family its rows (top1, latency_ms, baseline_ms_at_top1, "
      "speedup; None where there is none) and geomean_speedup.");
  m.def("sweep", &Sweep, py::arg("model"), py::arg("axes"), py::arg("accelerator") = "tpu-v3",
        py::arg("stack") = "", py::arg("calibration") = "", py::arg("precision") = "",
        py::arg("batch") = 128, py::arg("fusion") = true,
        "`dcnas sweep`: a what-if grid over override values, {'hbm.bandwidth_gbps': [900, "
        "1800], ...} (every combination, the first key slowest). Returns one record per variant: "
        "variant, model, accelerator, latency_ms, throughput_img_per_s, speedup over the first, "
        "and the % of latency bound by matrix, vector, memory and overhead.");
  m.def("roofline", &Roofline, py::arg("models"), py::arg("accelerators") = "tpu-v3",
        py::arg("batch") = 128, py::arg("stack") = "", py::arg("calibration") = "",
        py::arg("overrides") = py::none(), py::arg("precision") = "", py::arg("fusion") = true,
        "`dcnas roofline`: each zoo model on each accelerator as a roofline point: GFLOPs per "
        "image, operational intensity (fused and unfused), ridge point, achieved and peak "
        "TFLOP/s, latency. One record per (model, accelerator).");
}

}  // namespace dcnas::python
