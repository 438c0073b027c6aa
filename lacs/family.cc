#include "lacs/family.h"

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <limits>
#include <map>
#include <sstream>

#include "common/errors.h"
#include "common/file_io.h"
#include "common/progress.h"
#include "common/sha256.h"
#include "common/svg_chart.h"
#include "common/table.h"
#include "common/text.h"
#include "models/counts.h"
#include "models/graph_json.h"
#include "models/zoo/published_top1.h"
#include "models/zoo/zoo.h"
#include "search/journal.h"
#include "search/strategy.h"
#include "space/space.h"

namespace dcnas::lacs {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

std::string Coef(const Coefficients& c) {
  return "depth " + FormatFixed(c.depth, 3) + ", width " + FormatFixed(c.width, 3) +
         ", resolution " + FormatFixed(c.resolution, 3);
}

json CoefJson(const Coefficients& c) {
  return {{"depth", c.depth}, {"width", c.width}, {"resolution", c.resolution}};
}

json TupleJson(const MemberTuple& t) {
  return {{"width", t.width}, {"depth", t.depth}, {"resolution", t.resolution}};
}

json MeasuredJson(const Measured& m) {
  return {{"latency_ms", m.latency_ms},
          {"params", m.params},
          {"flops", m.flops},
          {"activations", m.activations}};
}

json TrainedJson(const std::optional<proxy::TrainedResult>& r) {
  if (!r) return nullptr;
  return {{"val_accuracy", r->val_accuracy},
          {"test_accuracy", r->test_accuracy},
          {"train_time_s", r->train_time_s},
          {"proxy_params", r->proxy_params}};
}

std::string Acc(const std::optional<proxy::TrainedResult>& r) {
  return r ? FormatFixed(r->val_accuracy, 2) : std::string("-");
}

// A field of a family's setup ("?" when it has none: a family built by hand).
std::string SetupField(const Family& f, const char* key) {
  if (!f.setup.is_object() || !f.setup.contains(key)) return "?";
  const json& v = f.setup.at(key);
  return v.is_string() ? v.get<std::string>() : v.dump();
}

int ProxyResolutionFor(int proxy_base, int resolution, int base_resolution) {
  space::Scaling s;
  s.resolution = static_cast<double>(resolution) / static_cast<double>(base_resolution);
  return space::Space::ProxyResolution(proxy_base, s);
}

}  // namespace

Mode ParseMode(const std::string& text) {
  if (text == "lacs") return Mode::kLacs;
  if (text == "flops") return Mode::kFlops;
  throw InputError("unknown --mode '" + text + "' (valid: lacs, flops, both)");
}

std::string ModeName(Mode mode) { return mode == Mode::kLacs ? "lacs" : "flops"; }

BaseNetwork ZooBase(const std::string& model) {
  const std::optional<models::BlockNetworkSpec> spec = models::zoo::EfficientNetSpec(model);
  if (!spec) {
    const auto& names = models::BuiltinModels().Names();
    std::vector<std::string> block_networks;
    for (const std::string& n : names) {
      if (models::zoo::EfficientNetSpec(n)) block_networks.push_back(n);
    }
    throw InputError("'" + model +
                     "' is not a block network of the zoo (scaling needs block strings)" +
                     DidYouMean(model, block_networks));
  }
  return {model, *spec};
}

BaseNetwork BlocksBase(const std::string& blocks, int resolution) {
  std::string text = blocks;
  std::replace(text.begin(), text.end(), ',', ' ');
  std::istringstream in(text);
  BaseNetwork b;
  b.name = "blocks";
  for (std::string s; in >> s;) {
    try {
      b.spec.blocks.push_back(models::ParseBlockString(s));
    } catch (const InputError& e) {
      throw InputError("--blocks: '" + s + "': " + e.what());
    }
  }
  if (b.spec.blocks.empty()) throw InputError("--blocks: no block strings");
  if (resolution < 32 || resolution > 4096) {
    throw InputError("--base-resolution " + std::to_string(resolution) + " is outside 32..4096");
  }
  b.spec.resolution = resolution;
  return b;
}

BaseNetwork RunBase(const std::string& run_dir, const std::string& space_file) {
  const std::string path = (fs::path(run_dir) / "summary.json").string();
  if (!fs::exists(path)) {
    throw InputError(path + ": missing (--run takes the directory of a finished `dcnas search`)");
  }
  json j;
  try {
    j = json::parse(ReadFile(path));
  } catch (const json::exception& e) {
    throw InputError(path + ": not JSON: " + e.what());
  }
  const space::Space space = space::Space::Load(space_file);
  try {
    const std::string fingerprint = j.at("space").at("fingerprint");
    if (fingerprint != space.fingerprint()) {
      throw InputError(path + ": searched in space '" + j.at("space").value("name", "?") +
                       "' (fingerprint " + fingerprint + "), not " + space_file + " (" +
                       space.fingerprint() + "): give the run's space with --space");
    }
    const std::string encoding = j.at("best").at("encoding");
    BaseNetwork b;
    b.name = fs::path(run_dir).filename().string();
    if (b.name.empty()) b.name = fs::path(run_dir).parent_path().filename().string();
    b.spec = space.NetworkSpec(space.FromText(encoding));
    return b;
  } catch (const json::exception& e) {
    throw InputError(path + ": not a summary of `dcnas search`: " + e.what());
  }
}

NetworkSimulator::NetworkSimulator(sim::SimSetup setup) : setup_(std::move(setup)) {
  if (setup_.batch < 1 || setup_.batch > 65536) {
    throw InputError("--batch " + std::to_string(setup_.batch) + " is outside 1..65536");
  }
}

models::Graph NetworkSimulator::Build(const std::string& name,
                                      const models::BlockNetworkSpec& spec) const {
  return models::BuildBlockNetwork(name, spec, setup_.GraphOptions());
}

Measured NetworkSimulator::Run(const models::Graph& graph) {
  const sim::Report r = sim::Simulate(graph, setup_.spec, setup_.stack, setup_.calibration,
                                      setup_.Options(), &cache_);
  const models::OpCounts c = models::CountGraph(graph);
  Measured m;
  m.latency_ms = r.latency_s * 1e3;
  m.params = static_cast<double>(c.params);
  m.flops = static_cast<double>(c.flops) / setup_.batch;
  m.activations = ActivationsPerImage(graph);
  return m;
}

Measured NetworkSimulator::Measure(const std::string& name, const models::BlockNetworkSpec& spec) {
  return Run(Build(name, spec));
}

Measured NetworkSimulator::MeasureZoo(const std::string& model) {
  return Run(models::BuiltinModels().Build(model, setup_.GraphOptions()));
}

json NetworkSimulator::Config() const {
  return {{"accelerator", setup_.spec.name},
          {"kind", setup_.spec.kind},
          {"stack", setup_.stack.name},
          {"calibration", setup_.calibration.name},
          {"precision", models::DTypeName(setup_.dtype)},
          {"batch", setup_.batch},
          {"fusion", setup_.fusion}};
}

models::Graph BuildProxyNetwork(const ProxyRequest& request, const proxy::ProxyRecipe& recipe,
                                int in_channels, int num_classes) {
  models::BuildOptions o;
  o.resolution = request.proxy_resolution;
  o.in_channels = in_channels;
  o.num_classes = num_classes;
  o.proxy_removed_downsamples = recipe.removed_downsamples;
  o.width_scale = recipe.width;
  return models::BuildBlockNetwork(request.label, request.spec, o);
}

std::string ProxyGraphKey(const models::Graph& proxy_graph) {
  json j = models::GraphToJson(proxy_graph);
  j["info"].erase("model");
  // Op names carry the model name only through info; the ops are the network.
  return Sha256Hex(j.dump()).substr(0, 24);
}

std::string StoreKey(const std::string& graph_key, const proxy::ProxyRecipe& recipe, uint64_t seed,
                     int64_t limit_eval) {
  std::string key = graph_key + "|" + recipe.Key() + "|seed" + std::to_string(seed);
  if (limit_eval > 0) key += "|eval" + std::to_string(limit_eval);
  return key;
}

TrainedStore::TrainedStore(std::string path)
    : log_(AppendLog::Open(path, {.create_directories = true})) {
  // What Add writes (and "error", refused below with its own message).
  static constexpr std::array<const char*, 9> kKeys = {
      "config",        "error",        "key",          "label",    "proxy_params",
      "test_accuracy", "train_time_s", "val_accuracy", "val_curve"};
  std::map<std::string, size_t> key_lines;  // key -> line
  const std::vector<std::string>& lines = log_.lines();
  for (size_t i = 0; i < lines.size(); ++i) {
    if (lines[i].empty()) continue;
    const std::string where = log_.Where(i + 1);
    const json j = search::ParseJsonLine(lines[i], where, "not JSON");
    const auto key = j.is_object() ? j.find("key") : j.end();
    if (!j.is_object() || key == j.end() || !key->is_string()) {
      throw InputError(where + "not a trained-accuracy line: missing 'key'");
    }
    for (const auto& item : j.items()) {
      const std::string& name = item.key();
      if (std::none_of(kKeys.begin(), kKeys.end(), [&name](const char* k) { return name == k; })) {
        throw InputError(where + "unknown key " + json(name).dump() +
                         " (a trained-accuracy line has config, key, label, proxy_params, "
                         "test_accuracy, train_time_s, val_accuracy, val_curve)");
      }
    }
    if (const auto label = j.find("label"); label != j.end() && !label->is_string()) {
      throw InputError(where + "key 'label' is " + label->dump() + ": not a string");
    }
    if (const auto config = j.find("config"); config != j.end() && !config->is_object()) {
      throw InputError(where + "key 'config' is " + config->dump() + ": not an object");
    }
    const proxy::TrainedResult r = proxy::TrainedFromJson(j, where);
    if (!r.error.empty()) throw InputError(where + "a trained-accuracy line holds no error");
    const std::string k = key->get<std::string>();
    const auto [it, added] = results_.emplace(k, r);
    if (added) {
      key_lines[k] = i + 1;
    } else if (!(it->second == r)) {
      throw InputError(where + "key " + json(k).dump() + " was stored on line " +
                       std::to_string(key_lines[k]) + " with other results (val_accuracy " +
                       json(it->second.val_accuracy).dump() + ", test_accuracy " +
                       json(it->second.test_accuracy).dump() + " there, " +
                       json(r.val_accuracy).dump() + ", " + json(r.test_accuracy).dump() +
                       " here): one network, one training");
    }
  }
}

std::optional<proxy::TrainedResult> TrainedStore::Find(const std::string& key) const {
  const auto it = results_.find(key);
  if (it == results_.end()) return std::nullopt;
  return it->second;
}

void TrainedStore::Add(const std::string& key, const std::string& label, const json& config,
                       const proxy::TrainedResult& r) {
  json line = {{"key", key}, {"label", label}, {"config", config}};
  proxy::AddTrainedFields(r, line);
  log_.Append(line.dump());
  results_[key] = r;
}

StoredAccuracy::StoredAccuracy(std::shared_ptr<TrainedStore> store, proxy::ProxyRecipe recipe,
                               uint64_t seed, int64_t limit_eval, int in_channels, int num_classes)
    : store_(std::move(store)),
      recipe_(std::move(recipe)),
      seed_(seed),
      limit_eval_(limit_eval),
      in_channels_(in_channels),
      num_classes_(num_classes) {}

std::vector<std::optional<proxy::TrainedResult>> StoredAccuracy::Evaluate(
    const std::vector<ProxyRequest>& requests) {
  std::vector<std::optional<proxy::TrainedResult>> out;
  out.reserve(requests.size());
  for (const ProxyRequest& r : requests) {
    const models::Graph g = BuildProxyNetwork(r, recipe_, in_channels_, num_classes_);
    out.push_back(store_->Find(StoreKey(ProxyGraphKey(g), recipe_, seed_, limit_eval_)));
  }
  return out;
}

std::string StoredAccuracy::NetworkKey(const ProxyRequest& request) const {
  return ProxyGraphKey(BuildProxyNetwork(request, recipe_, in_channels_, num_classes_));
}

json StoredAccuracy::Config() const {
  return {{"kind", "stored"},
          {"file", store_->path()},
          {"recipe", recipe_.Key()},
          {"seed", seed_},
          {"limit_eval", limit_eval_}};
}

void ValidateScaleOptions(const ScaleOptions& o) {
  ValidateBudget(o.budget);
  if (o.grid.depth.empty() || o.grid.width.empty() || o.grid.resolution.empty()) {
    throw InputError("--grid: every axis needs at least one value");
  }
  for (const auto* axis : {&o.grid.depth, &o.grid.width, &o.grid.resolution}) {
    for (double v : *axis) {
      if (!std::isfinite(v) || v <= 0.0) {
        throw InputError("--grid: coefficient " + FormatSignificant(v) +
                         " must be a finite number above 0");
      }
    }
  }
  if (o.members < 0 || o.members > 12) {
    throw InputError("--members " + std::to_string(o.members) + " is outside 0..12");
  }
  if (o.train_members < 0 || o.train_members > o.members) {
    throw InputError("--train-members " + std::to_string(o.train_members) + " is outside 0.." +
                     std::to_string(o.members) + " (--members)");
  }
  if (o.resolution_multiple != 8 && o.resolution_multiple != 16 && o.resolution_multiple != 4 &&
      o.resolution_multiple != 1) {
    throw InputError("--resolution-multiple " + std::to_string(o.resolution_multiple) +
                     " must be 1, 4, 8 or 16");
  }
  if (!std::isfinite(o.w) || o.w > 0.0 || o.w < -2.0) {
    throw InputError("--w " + FormatSignificant(o.w) + " must be in [-2, 0]");
  }
  if (o.proxy_resolution < 8) {
    throw InputError("the proxy resolution " + std::to_string(o.proxy_resolution) + " is below 8");
  }
}

namespace {

// Scores every point of the grid: its member tuple at phi = 1, simulated, and its cost ratio.
std::vector<GridPoint> ScoreGrid(const BaseNetwork& base, const std::string& family_name,
                                 const ScaleOptions& options, NetworkSimulator& simulator,
                                 const Measured& base_m, const ScaleProgress& progress) {
  std::vector<GridPoint> grid;
  const size_t total =
      options.grid.depth.size() * options.grid.width.size() * options.grid.resolution.size();
  // A line every few seconds on a long grid (~0.3 ms a point for EfficientNet-X-B0 on tpu-v3).
  auto last = std::chrono::steady_clock::now();
  for (double d : options.grid.depth) {
    for (double w : options.grid.width) {
      for (double r : options.grid.resolution) {
        GridPoint p;
        p.c = {d, w, r};
        p.tuple = MemberAt(p.c, 1, base.spec.resolution, options.resolution_multiple);
        const models::BlockNetworkSpec spec = ScaleSpec(base.spec, p.tuple);
        p.measured = simulator.Measure(family_name + "-grid", spec);
        p.flops_ratio = p.measured.flops / base_m.flops;
        p.cost_ratio = options.mode == Mode::kLacs ? p.measured.latency_ms / base_m.latency_ms
                                                   : FlopsCost(p.c);
        p.candidate = options.budget.Meets(p.cost_ratio);
        grid.push_back(p);
        if (ProgressDue(last)) {
          progress("scoring the grid: " + std::to_string(grid.size()) + " of " +
                   std::to_string(total) + " points");
        }
      }
    }
  }
  return grid;
}

// The budget surface: per (depth, width), the index of the candidate nearest the target. Throws
// InputError naming the nearest point when no point meets the budget.
std::map<std::pair<double, double>, size_t> BudgetSurface(const std::vector<GridPoint>& grid,
                                                          const ScaleOptions& options) {
  const double target = options.budget.Target();
  std::map<std::pair<double, double>, size_t> surface;
  for (size_t i = 0; i < grid.size(); ++i) {
    const GridPoint& p = grid[i];
    if (!p.candidate) continue;
    const auto key = std::make_pair(p.c.depth, p.c.width);
    const auto it = surface.find(key);
    if (it == surface.end() || std::abs(p.cost_ratio / target - 1.0) <
                                   std::abs(grid[it->second].cost_ratio / target - 1.0)) {
      surface[key] = i;
    }
  }
  if (!surface.empty()) return surface;
  size_t nearest = 0;
  for (size_t i = 1; i < grid.size(); ++i) {
    if (std::abs(std::log(grid[i].cost_ratio / target)) <
        std::abs(std::log(grid[nearest].cost_ratio / target))) {
      nearest = i;
    }
  }
  const GridPoint& n = grid[nearest];
  throw InputError("--grid " + FormatGrid(options.grid) + ": no point meets the " +
                   ModeName(options.mode) + " budget " + FormatSignificant(target) + "x +- " +
                   FormatSignificant(options.budget.tolerance * 100) + "% (phi " +
                   std::to_string(options.budget.phi) + "); the nearest, " + Coef(n.c) +
                   ", costs " + FormatFixed(n.cost_ratio, 3) +
                   "x: widen the grid or the --tolerance");
}

// Trains the candidates of the surface (its indices into f.grid), scores them by the mode's
// objective, and sets f.best to the best (the faster of equals).
void TrainSurface(Family& f, const std::vector<size_t>& surface, ProxyAccuracy& accuracy,
                  const ScaleProgress& progress) {
  const ScaleOptions& options = f.options;
  const int base_res = f.base.spec.resolution;
  std::vector<ProxyRequest> requests;
  for (size_t i : surface) {
    GridPoint& p = f.grid[i];
    p.surface = true;
    requests.push_back(
        {f.name + "-d" + FormatSignificant(p.c.depth) + "-w" + FormatSignificant(p.c.width) + "-r" +
             FormatSignificant(p.c.resolution),
         ScaleSpec(f.base.spec, p.tuple),
         ProxyResolutionFor(options.proxy_resolution, p.tuple.resolution, base_res)});
  }
  progress(std::to_string(requests.size()) + " candidates on the budget surface to train");
  const std::vector<std::optional<proxy::TrainedResult>> results = accuracy.Evaluate(requests);
  size_t missing = 0;
  for (size_t k = 0; k < surface.size(); ++k) {
    GridPoint& p = f.grid[surface[k]];
    p.trained = results[k];
    p.proxy_resolution = requests[k].proxy_resolution;
    p.proxy_network = accuracy.NetworkKey(requests[k]).substr(0, 12);
    if (!p.trained) {
      ++missing;
      continue;
    }
    p.objective = options.mode == Mode::kLacs
                      ? search::MnasReward(p.trained->val_accuracy, p.measured.latency_ms,
                                           options.budget.Target() * f.base_latency_ms, options.w)
                      : p.trained->val_accuracy;
  }
  if (missing > 0) {
    throw InputError(std::to_string(missing) + " of " + std::to_string(surface.size()) +
                     " candidates have no trained accuracy (" + accuracy.Config().dump() +
                     "): train them (a LibTorch build) or give the file that holds them");
  }
  f.best = surface.front();
  for (size_t i : surface) {
    const GridPoint& p = f.grid[i];
    const GridPoint& b = f.grid[f.best];
    if (p.objective > b.objective ||
        (p.objective == b.objective && p.measured.latency_ms < b.measured.latency_ms)) {
      f.best = i;
    }
  }
}

// The members phi = 0..members at the per-step coefficients, simulated; those up to
// train_members trained.
void ScaleMembers(Family& f, NetworkSimulator& simulator, ProxyAccuracy& accuracy,
                  const ScaleProgress& progress) {
  const ScaleOptions& options = f.options;
  const int base_res = f.base.spec.resolution;
  std::vector<ProxyRequest> member_requests;
  std::vector<size_t> member_idx;
  for (int phi = 0; phi <= options.members; ++phi) {
    Member m;
    m.phi = phi;
    m.name = f.name + "-b" + std::to_string(phi);
    m.tuple = MemberAt(f.per_step, phi, base_res, options.resolution_multiple);
    m.spec = ScaleSpec(f.base.spec, m.tuple);
    m.measured = simulator.Measure(m.name, m.spec);
    if (phi <= options.train_members) {
      member_requests.push_back(
          {m.name, m.spec,
           ProxyResolutionFor(options.proxy_resolution, m.tuple.resolution, base_res)});
      member_idx.push_back(f.members.size());
    }
    f.members.push_back(std::move(m));
  }
  if (!member_requests.empty()) {
    progress(std::to_string(member_requests.size()) +
             " members to train (phi <= " + std::to_string(options.train_members) + ")");
    const std::vector<std::optional<proxy::TrainedResult>> r = accuracy.Evaluate(member_requests);
    for (size_t k = 0; k < member_idx.size(); ++k) {
      Member& m = f.members[member_idx[k]];
      m.trained = r[k];
      m.proxy_resolution = member_requests[k].proxy_resolution;
      m.proxy_network = accuracy.NetworkKey(member_requests[k]).substr(0, 12);
    }
  }
}

}  // namespace

Family ScaleFamily(const BaseNetwork& base, const std::string& family_name,
                   const ScaleOptions& options, NetworkSimulator& simulator,
                   ProxyAccuracy& accuracy, const ScaleProgress& progress) {
  ValidateScaleOptions(options);
  Family f;
  f.name = family_name;
  f.base = base;
  f.options = options;
  f.setup = simulator.Config();
  f.accuracy = accuracy.Config();
  const Measured base_m = simulator.Measure(family_name + "-base", base.spec);
  f.base_latency_ms = base_m.latency_ms;
  f.grid = ScoreGrid(base, family_name, options, simulator, base_m, progress);
  progress(std::to_string(f.grid.size()) + " grid points scored (" + ModeName(options.mode) +
           " cost, budget " + FormatSignificant(options.budget.Target()) + " +- " +
           FormatSignificant(options.budget.tolerance * 100) + "%)");
  std::vector<size_t> surface;
  for (const auto& [key, i] : BudgetSurface(f.grid, options)) surface.push_back(i);
  TrainSurface(f, surface, accuracy, progress);
  f.searched = f.grid[f.best].c;
  f.per_step = PerStep(f.searched, options.budget.phi);
  progress("best: " + Coef(f.searched) + " (per step " + Coef(f.per_step) + ")");
  ScaleMembers(f, simulator, accuracy, progress);
  return f;
}

std::vector<ReferenceFamily> ScoreReferences(const std::string& accelerator_kind, int members,
                                             int train_members, int proxy_resolution,
                                             NetworkSimulator& simulator, ProxyAccuracy& accuracy) {
  const std::string x = accelerator_kind == "tpu" ? "x-tpu" : "x-gpu";
  std::vector<ReferenceFamily> out = {{"EfficientNet", {}}, {"EfficientNet-X (" + x + ")", {}}};
  for (int phi = 0; phi <= std::min(members, 7); ++phi) {
    const std::string b = "-b" + std::to_string(phi);
    out[0].points.push_back({"efficientnet" + b, phi, {}, {}});
    out[1].points.push_back(
        {phi == 0 ? "efficientnet-x-b0" : "efficientnet-" + x + b, phi, {}, {}});
  }
  std::vector<ProxyRequest> requests;
  std::vector<ReferencePoint*> requested;
  for (ReferenceFamily& fam : out) {
    for (ReferencePoint& p : fam.points) {
      p.measured = simulator.MeasureZoo(p.model);
      if (p.phi > train_members) continue;
      const models::BlockNetworkSpec spec = *models::zoo::EfficientNetSpec(p.model);
      requests.push_back(
          {p.model, spec, ProxyResolutionFor(proxy_resolution, spec.resolution, 224)});
      requested.push_back(&p);
    }
  }
  const std::vector<std::optional<proxy::TrainedResult>> r = accuracy.Evaluate(requests);
  for (size_t k = 0; k < requested.size(); ++k) requested[k]->trained = r[k];
  const std::map<std::string, double> published = models::ShippedPublishedTop1();
  for (ReferenceFamily& fam : out) {
    for (ReferencePoint& p : fam.points) {
      if (const auto it = published.find(p.model); it != published.end()) {
        p.published_top1 = it->second;
      }
    }
  }
  return out;
}

// Whether the family's accuracies are an ImageNet surrogate's predictions, not trainings: the
// tables then say so in their headers.
bool Predicted(const Family& f) {
  return f.accuracy.is_object() && f.accuracy.value("kind", "") == "imagenet";
}

// What the family's accuracy columns are: an ImageNet surrogate's prediction, a zero-cost label
// (a score of the untrained proxy network, the same number for validation and test) or a
// training's validation and test accuracy; with the line under the heading that says which.
struct AccuracyColumns {
  std::string first, second, line;
};

AccuracyColumns AccuracyColumnsOf(const Family& f) {
  if (Predicted(f)) return {"predicted ImageNet top-1 %", "(same)", ""};
  const std::string recipe =
      f.accuracy.is_object() ? f.accuracy.value("recipe", std::string()) : std::string();
  if (!recipe.empty() && proxy::ProxyRecipe{}.WithKey(recipe).zero_cost()) {
    return {"label %", "(same)",
            "accuracy: zero-cost label of recipe " + recipe +
                " (the untrained proxy network's score mapped to percent; no training)\n"};
  }
  if (recipe.empty()) return {"trained val %", "trained test %", ""};
  return {"trained val %", "trained test %", "accuracy: trained with recipe " + recipe + "\n"};
}

std::string FamilyTable(const Family& f) {
  const AccuracyColumns columns = AccuracyColumnsOf(f);
  Table t({"member", "depth", "width", "resolution", "params", "GFLOPs", "activations",
           "latency ms", "x base", "proxy px", columns.first, columns.second});
  t.SetRightAligned({false, true, true, true, true, true, true, true, true, true, true, true});
  const Measured& b = f.members.front().measured;
  for (const Member& m : f.members) {
    t.AddRow({m.name, FormatFixed(m.tuple.depth, 3), FormatFixed(m.tuple.width, 3),
              std::to_string(m.tuple.resolution), FormatSi(m.measured.params, 3),
              FormatFixed(m.measured.flops / 1e9, 3), FormatSi(m.measured.activations, 3),
              FormatFixed(m.measured.latency_ms, 3),
              FormatFixed(m.measured.latency_ms / b.latency_ms, 2),
              m.proxy_resolution > 0 ? std::to_string(m.proxy_resolution) : std::string("-"),
              Acc(m.trained),
              columns.second == "(same)" || !m.trained ? std::string("-")
                                                       : FormatFixed(m.trained->test_accuracy, 2)});
  }
  std::ostringstream s;
  s << f.name << ": " << ModeName(f.options.mode) << " scaling of " << f.base.name << " on "
    << SetupField(f, "accelerator") << " (" << SetupField(f, "stack") << ", "
    << SetupField(f, "precision") << ", batch " << SetupField(f, "batch") << ")\n"
    << "coefficients found at phi = " << f.options.budget.phi << ": " << Coef(f.searched)
    << "\nper-step coefficients: alpha (depth) " << FormatFixed(f.per_step.depth, 3)
    << ", beta (width) " << FormatFixed(f.per_step.width, 3) << ", gamma (resolution) "
    << FormatFixed(f.per_step.resolution, 3) << "\n"
    << columns.line << t.ToText();
  // Members whose proxy networks coincide: their trained accuracies are equal by construction.
  std::map<std::string, std::vector<std::string>> by_network;
  for (const Member& m : f.members) {
    if (!m.proxy_network.empty())
      by_network[m.proxy_network].push_back("b" + std::to_string(m.phi));
  }
  for (const auto& [key, names] : by_network) {
    if (names.size() > 1) {
      s << "members " << Join(names, ", ")
        << " train the same proxy network: equal accuracy by construction\n";
    }
  }
  return s.str();
}

namespace {

// Members: each one's graph and block strings, in DIR/members/.
void WriteMembers(const Family& f, NetworkSimulator& simulator, const fs::path& root) {
  fs::create_directories(root / "members");
  for (const Member& m : f.members) {
    models::WriteGraphFile(simulator.Build(m.name, m.spec),
                           (root / "members" / (m.name + ".json")).string());
    std::ostringstream txt;
    txt << m.name << ": phi " << m.phi << ", width " << FormatSignificant(m.tuple.width)
        << ", depth " << FormatSignificant(m.tuple.depth) << ", resolution " << m.tuple.resolution
        << " (network multipliers: width " << FormatSignificant(m.spec.width) << ", depth "
        << FormatSignificant(m.spec.depth) << ")\nper-step coefficients: " << Coef(f.per_step)
        << "\nblocks:\n";
    for (const models::BlockArgs& b : m.spec.blocks) {
      txt << "  " << models::EncodeBlockString(b) << "\n";
    }
    WriteFileAtomic((root / "members" / (m.name + ".txt")).string(), txt.str());
  }
}

// The grid: one line per point (grid.csv).
std::string GridCsv(const Family& f) {
  std::ostringstream grid;
  grid << "depth,width,resolution_coef,member_width,member_depth,member_resolution,cost_ratio,"
          "flops_ratio,latency_ms,params,flops,activations,candidate,surface,val_accuracy,"
          "test_accuracy,objective,best,proxy_resolution,proxy_network\n";
  for (size_t i = 0; i < f.grid.size(); ++i) {
    const GridPoint& p = f.grid[i];
    grid << FormatSignificant(p.c.depth) << "," << FormatSignificant(p.c.width) << ","
         << FormatSignificant(p.c.resolution) << "," << FormatSignificant(p.tuple.width) << ","
         << FormatSignificant(p.tuple.depth) << "," << p.tuple.resolution << ","
         << json(p.cost_ratio).dump() << "," << json(p.flops_ratio).dump() << ","
         << json(p.measured.latency_ms).dump() << "," << FormatSignificant(p.measured.params) << ","
         << FormatSignificant(p.measured.flops) << "," << FormatSignificant(p.measured.activations)
         << "," << (p.candidate ? 1 : 0) << "," << (p.surface ? 1 : 0) << ","
         << (p.trained ? json(p.trained->val_accuracy).dump() : "") << ","
         << (p.trained ? json(p.trained->test_accuracy).dump() : "") << ","
         << (p.trained ? json(p.objective).dump() : "") << "," << (i == f.best ? 1 : 0) << ","
         << (p.proxy_resolution > 0 ? std::to_string(p.proxy_resolution) : "") << ","
         << p.proxy_network << "\n";
  }
  return grid.str();
}

// The member table (family.csv).
std::string MembersCsv(const Family& f) {
  std::ostringstream csv;
  csv << "member,phi,depth,width,resolution,params,flops,activations,latency_ms,val_accuracy,"
         "test_accuracy\n";
  for (const Member& m : f.members) {
    csv << m.name << "," << m.phi << "," << FormatSignificant(m.tuple.depth) << ","
        << FormatSignificant(m.tuple.width) << "," << m.tuple.resolution << ","
        << FormatSignificant(m.measured.params) << "," << FormatSignificant(m.measured.flops) << ","
        << FormatSignificant(m.measured.activations) << "," << json(m.measured.latency_ms).dump()
        << "," << (m.trained ? json(m.trained->val_accuracy).dump() : "") << ","
        << (m.trained ? json(m.trained->test_accuracy).dump() : "") << "\n";
  }
  return csv.str();
}

// The family file (family.json): setup, budget, coefficients, members and reference families.
json FamilyJson(const Family& f, const std::vector<ReferenceFamily>& references) {
  json members = json::array();
  for (const Member& m : f.members) {
    members.push_back({{"name", m.name},
                       {"phi", m.phi},
                       {"tuple", TupleJson(m.tuple)},
                       {"blocks", models::EncodeBlockStrings(m.spec.blocks)},
                       {"measured", MeasuredJson(m.measured)},
                       {"trained", TrainedJson(m.trained)},
                       {"proxy_resolution", m.proxy_resolution},
                       {"proxy_network", m.proxy_network}});
  }
  json refs = json::array();
  for (const ReferenceFamily& r : references) {
    json pts = json::array();
    for (const ReferencePoint& p : r.points) {
      pts.push_back({{"model", p.model},
                     {"phi", p.phi},
                     {"measured", MeasuredJson(p.measured)},
                     {"trained", TrainedJson(p.trained)},
                     {"published_top1", p.published_top1 ? json(*p.published_top1) : json()}});
    }
    refs.push_back({{"name", r.name}, {"points", pts}});
  }
  const GridPoint& best = f.grid[f.best];
  return {{"format", "dcnas-family"},
          {"version", 1},
          {"name", f.name},
          {"mode", ModeName(f.options.mode)},
          {"base",
           {{"name", f.base.name},
            {"blocks", models::EncodeBlockStrings(f.base.spec.blocks)},
            {"resolution", f.base.spec.resolution},
            {"width", f.base.spec.width},
            {"depth", f.base.spec.depth}}},
          {"setup", f.setup},
          {"accuracy", f.accuracy},
          {"budget",
           {{"phi", f.options.budget.phi},
            {"target", f.options.budget.Target()},
            {"tolerance", f.options.budget.tolerance},
            {"w", f.options.w}}},
          {"grid", FormatGrid(f.options.grid)},
          {"resolution_multiple", f.options.resolution_multiple},
          {"base_latency_ms", f.base_latency_ms},
          {"searched", CoefJson(f.searched)},
          {"per_step", CoefJson(f.per_step)},
          {"best",
           {{"cost_ratio", best.cost_ratio},
            {"objective", best.objective},
            {"trained", TrainedJson(best.trained)}}},
          {"members", members},
          {"references", refs}};
}

using ChartPoints =
    std::vector<std::tuple<std::string, Measured, std::optional<proxy::TrainedResult>>>;

// Charts: latency against trained accuracy (family.svg, when anything was trained); latency
// against FLOPs for every member (family-latency.svg).
void WriteCharts(const Family& f, const std::vector<ReferenceFamily>& references,
                 const fs::path& root) {
  Chart acc;
  acc.title =
      f.name + " on " + SetupField(f, "accelerator") + ": latency vs trained proxy accuracy";
  acc.x = {"simulated latency (ms per batch of " + SetupField(f, "batch") + ")", true, std::nullopt,
           std::nullopt};
  acc.y = {"trained proxy accuracy (validation, %)", false, std::nullopt, std::nullopt};
  Chart lat;
  lat.title = f.name + " on " + SetupField(f, "accelerator") + ": FLOPs vs latency per member";
  lat.x = {"FLOPs per image (GFLOPs)", true, std::nullopt, std::nullopt};
  lat.y = acc.x;
  auto add = [&](const std::string& label, const ChartPoints& pts) {
    ChartSeries a{label, {}, {}, {}, ChartSeries::Style::kLinePoints, ""};
    ChartSeries l{label, {}, {}, {}, ChartSeries::Style::kLinePoints, ""};
    for (const auto& [name, m, t] : pts) {
      l.x.push_back(m.flops / 1e9);
      l.y.push_back(m.latency_ms);
      l.point_labels.push_back(name);
      if (!t) continue;
      a.x.push_back(m.latency_ms);
      a.y.push_back(t->val_accuracy);
      a.point_labels.push_back(name);
    }
    if (!a.x.empty()) acc.series.push_back(a);
    lat.series.push_back(l);
  };
  {
    ChartPoints pts;
    for (const Member& m : f.members)
      pts.emplace_back("b" + std::to_string(m.phi), m.measured, m.trained);
    add(f.name + " (" + ModeName(f.options.mode) + ")", pts);
  }
  for (const ReferenceFamily& r : references) {
    ChartPoints pts;
    for (const ReferencePoint& p : r.points)
      pts.emplace_back("b" + std::to_string(p.phi), p.measured, p.trained);
    add(r.name, pts);
  }
  if (!acc.series.empty()) WriteFileAtomic((root / "family.svg").string(), RenderSvg(acc));
  WriteFileAtomic((root / "family-latency.svg").string(), RenderSvg(lat));

  // The references on their published axis (a new family has no published top-1: not plotted).
  Chart pub;
  pub.title =
      "references on " + SetupField(f, "accelerator") + ": latency vs published ImageNet top-1";
  pub.x = acc.x;
  pub.y = {"published ImageNet top-1 (%)", false, std::nullopt, std::nullopt};
  for (const ReferenceFamily& r : references) {
    ChartSeries s{r.name, {}, {}, {}, ChartSeries::Style::kLinePoints, ""};
    for (const ReferencePoint& p : r.points) {
      if (!p.published_top1) continue;
      s.x.push_back(p.measured.latency_ms);
      s.y.push_back(*p.published_top1);
      s.point_labels.push_back("b" + std::to_string(p.phi));
    }
    if (!s.x.empty()) pub.series.push_back(s);
  }
  if (!pub.series.empty()) {
    WriteFileAtomic((root / "family-published.svg").string(), RenderSvg(pub));
  }
}

}  // namespace

void WriteFamily(const Family& f, const std::vector<ReferenceFamily>& references,
                 NetworkSimulator& simulator, const std::string& dir) {
  const fs::path root(dir);
  WriteMembers(f, simulator, root);
  WriteFileAtomic((root / "grid.csv").string(), GridCsv(f));
  WriteFileAtomic((root / "family.csv").string(), MembersCsv(f));
  WriteFileAtomic((root / "family.txt").string(), FamilyTable(f));
  WriteFileAtomic((root / "family.json").string(), FamilyJson(f, references).dump(1) + "\n");
  WriteCharts(f, references, root);
}

FamilyComparison CompareFamilies(const Family& lacs, const Family& flops) {
  FamilyComparison c;
  const size_t n = std::min(lacs.members.size(), flops.members.size());
  double log_sum = 0.0;
  int count = 0;
  for (size_t i = 1; i < n; ++i) {
    const double r = flops.members[i].measured.latency_ms / lacs.members[i].measured.latency_ms;
    c.latency_ratio.push_back(r);
    log_sum += std::log(r);
    ++count;
  }
  if (count > 0) c.geomean_speedup = std::exp(log_sum / count);

  // Equal accuracy: interpolate the flops family's log latency at the lacs member's accuracy.
  std::vector<std::pair<double, double>> curve;  // (accuracy, latency) of trained flops members
  for (const Member& m : flops.members) {
    if (m.trained) curve.emplace_back(m.trained->val_accuracy, m.measured.latency_ms);
  }
  double eq_log = 0.0;
  int eq_count = 0;
  for (size_t i = 1; i < lacs.members.size(); ++i) {
    const Member& m = lacs.members[i];
    std::optional<double> s;
    if (m.trained) {
      const double a = m.trained->val_accuracy;
      for (size_t k = 0; k + 1 < curve.size(); ++k) {
        const auto [a0, l0] = curve[k];
        const auto [a1, l1] = curve[k + 1];
        if (a1 <= a0 || a < a0 || a > a1) continue;  // not rising, or not bracketing
        const double t = (a - a0) / (a1 - a0);
        const double l = std::exp(std::log(l0) + t * (std::log(l1) - std::log(l0)));
        s = l / m.measured.latency_ms;
        break;
      }
    }
    if (s) {
      eq_log += std::log(*s);
      ++eq_count;
    }
    c.equal_accuracy_speedup.push_back(s);
  }
  if (eq_count > 0) c.geomean_equal_accuracy = std::exp(eq_log / eq_count);
  for (size_t i = 1; i < lacs.members.size(); ++i) {
    std::vector<std::string> same;
    const std::string& key = lacs.members[i].proxy_network;
    for (const Member& m : flops.members) {
      if (!key.empty() && m.proxy_network == key) same.push_back("b" + std::to_string(m.phi));
    }
    c.same_proxy_network.push_back(std::move(same));
  }

  std::ostringstream o;
  o << "LACS against accuracy-only (FLOPs) compound scaling of " << lacs.base.name << " on "
    << SetupField(lacs, "accelerator") << "\n"
    << "coefficients (per step):   alpha depth  beta width  gamma resolution\n"
    << "  lacs                     " << FormatFixed(lacs.per_step.depth, 3) << "        "
    << FormatFixed(lacs.per_step.width, 3) << "       " << FormatFixed(lacs.per_step.resolution, 3)
    << "\n  flops                    " << FormatFixed(flops.per_step.depth, 3) << "        "
    << FormatFixed(flops.per_step.width, 3) << "       "
    << FormatFixed(flops.per_step.resolution, 3) << "\n";
  Table t({"phi", "lacs (d, w, r)", "flops (d, w, r)", "lacs ms", "flops ms", "flops / lacs",
           "lacs act. x", "flops act. x", Predicted(lacs) ? "lacs predicted top-1 %" : "lacs val %",
           Predicted(lacs) ? "flops predicted top-1 %" : "flops val %", "equal-acc speedup"});
  t.SetRightAligned({true, false, false, true, true, true, true, true, true, true, true});
  auto tuple = [](const MemberTuple& m) {
    return FormatFixed(m.depth, 2) + ", " + FormatFixed(m.width, 2) + ", " +
           std::to_string(m.resolution);
  };
  for (size_t i = 0; i < n; ++i) {
    const Member& a = lacs.members[i];
    const Member& b = flops.members[i];
    t.AddRow({std::to_string(a.phi), tuple(a.tuple), tuple(b.tuple),
              FormatFixed(a.measured.latency_ms, 3), FormatFixed(b.measured.latency_ms, 3),
              FormatFixed(b.measured.latency_ms / a.measured.latency_ms, 3),
              FormatFixed(a.measured.activations / lacs.members[0].measured.activations, 2),
              FormatFixed(b.measured.activations / flops.members[0].measured.activations, 2),
              Acc(a.trained), Acc(b.trained),
              i >= 1 && c.equal_accuracy_speedup[i - 1]
                  ? FormatFixed(*c.equal_accuracy_speedup[i - 1], 3)
                  : std::string("-")});
  }
  o << t.ToText() << "geomean latency speedup of lacs over flops, members 1.." << (n - 1) << ": "
    << FormatFixed(c.geomean_speedup, 3) << "x (paper: 1.14x TPUv3, 1.25x GPU)\n"
    << "geomean speedup at equal " << (Predicted(lacs) ? "predicted ImageNet" : "trained")
    << " accuracy: "
    << (c.geomean_equal_accuracy
            ? FormatFixed(*c.geomean_equal_accuracy, 3) + "x over " + std::to_string(eq_count) +
                  " member(s)"
            : std::string("- (the flops family's trained accuracies do not bracket the lacs "
                          "members')"))
    << "\n";
  for (size_t i = 0; i < c.same_proxy_network.size(); ++i) {
    if (c.same_proxy_network[i].empty()) continue;
    o << "lacs b" << (i + 1) << " trains the same proxy network ("
      << lacs.members[i + 1].proxy_resolution << " px) as flops "
      << Join(c.same_proxy_network[i], ", ") << ": equal accuracy by construction, not evidence\n";
  }
  c.text = o.str();
  return c;
}

ScaleRun RunScale(const BaseNetwork& base, const std::string& name, const std::vector<Mode>& modes,
                  const ScaleOptions& options, bool references, NetworkSimulator& simulator,
                  ProxyAccuracy& accuracy, const std::string& out, const ScaleProgress& progress) {
  if (modes.empty()) throw InputError("--mode: no mode");
  if (out.empty()) throw InputError("--out is required (the family directory)");
  ValidateScaleOptions(options);
  ScaleRun run;
  std::vector<ReferenceFamily> refs;
  if (references) {
    progress("reference families (EfficientNet, EfficientNet-X) on the same setup");
    refs = ScoreReferences(simulator.setup().spec.kind, options.members, options.train_members,
                           options.proxy_resolution, simulator, accuracy);
  }
  for (Mode m : modes) {
    ScaleOptions o = options;
    o.mode = m;
    progress(ModeName(m) + " scaling of " + base.name);
    run.families.push_back(
        ScaleFamily(base, name + "-" + ModeName(m), o, simulator, accuracy, progress));
    const std::string dir = modes.size() == 1 ? out : (fs::path(out) / ModeName(m)).string();
    WriteFamily(run.families.back(), refs, simulator, dir);
    run.text += FamilyTable(run.families.back()) + "-> " + dir + "/\n\n";
  }
  if (modes.size() == 2 && modes[0] != modes[1]) {
    const Family& lacs = run.families[modes[0] == Mode::kLacs ? 0 : 1];
    const Family& flops = run.families[modes[0] == Mode::kLacs ? 1 : 0];
    run.comparison = CompareFamilies(lacs, flops);
    const FamilyComparison& c = *run.comparison;
    json eq = json::array();
    for (const auto& s : c.equal_accuracy_speedup) eq.push_back(s ? json(*s) : json(nullptr));
    const json doc = {{"format", "dcnas-family-comparison"},
                      {"version", 1},
                      {"base", base.name},
                      {"setup", lacs.setup},
                      {"lacs_per_step", CoefJson(lacs.per_step)},
                      {"flops_per_step", CoefJson(flops.per_step)},
                      {"latency_ratio", c.latency_ratio},
                      {"geomean_speedup", c.geomean_speedup},
                      {"equal_accuracy_speedup", eq},
                      {"geomean_equal_accuracy",
                       c.geomean_equal_accuracy ? json(*c.geomean_equal_accuracy) : json(nullptr)},
                      {"same_proxy_network", c.same_proxy_network}};
    WriteFileAtomic((fs::path(out) / "comparison.json").string(), doc.dump(1) + "\n");
    WriteFileAtomic((fs::path(out) / "comparison.txt").string(), c.text);
    run.text += c.text;
  }
  return run;
}

}  // namespace dcnas::lacs
