// Scaling a base network into a family: the coefficient grid scored under the budget rule of a
// mode, the best coefficients, and the members phi = 0..M with their layer graphs, counts,
// simulated latency and trained accuracy.
//
// Modes:
// - flops (EfficientNet's compound scaling): a grid point's cost is alpha * beta^2 * gamma^2; the
//   objective is the trained proxy accuracy of the member it makes.
// - lacs (latency-aware compound scaling, EfficientNet-X): a grid point's cost is the simulated
//   latency of its member over the base's, on the chosen accelerator, stack, calibration,
//   precision and batch; the objective is the search's reward ACC * (LAT / T)^w with
//   T = 2^phi x the base's latency.
// Budget rule (both modes): a point is a candidate when its cost is within +-tolerance of 2^phi.
// Of the candidates, only the budget surface is trained: for each (depth, width) pair of the
// grid, the resolution coefficient whose cost is nearest 2^phi. The best candidate is the one of
// highest objective (ties: lower latency). With phi > 1 the grid holds the tuples of step phi
// directly and the per-step coefficients are their phi-th roots.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "common/append_log.h"
#include "lacs/scaling.h"
#include "models/block_string.h"
#include "models/graph.h"
#include "proxy/accuracy_data.h"
#include "proxy/trained_result.h"
#include "sim/cost_cache.h"
#include "sim/engine.h"

namespace dcnas::lacs {

enum class Mode { kLacs, kFlops };
Mode ParseMode(const std::string& text);  // "lacs" or "flops"; InputError otherwise
std::string ModeName(Mode mode);

// The network being scaled.
struct BaseNetwork {
  std::string name;  // "efficientnet-x-b0", or what the caller calls it
  models::BlockNetworkSpec spec;
};

// A zoo EfficientNet / EfficientNet-X (a block network); InputError naming the model otherwise.
BaseNetwork ZooBase(const std::string& model);
// Block strings (whitespace- or comma-separated) with the block-network defaults (stem 32, head
// 1280, swish) at `resolution`; InputError naming a bad block string.
BaseNetwork BlocksBase(const std::string& blocks, int resolution);
// The best architecture of a finished `dcnas search` run (RUN_DIR/summary.json), decoded in the
// space it was searched in (`space_file`, whose fingerprint must match the run's).
BaseNetwork RunBase(const std::string& run_dir, const std::string& space_file);

// Full-size figures of one network on the simulated setup.
struct Measured {
  double latency_ms = 0.0;  // per batch
  double params = 0.0;
  double flops = 0.0;        // per image
  double activations = 0.0;  // conv and FC output elements per image
};

// Simulates networks on one setup with one cost cache (members share most layers).
class NetworkSimulator {
 public:
  // `setup`'s batch must be 1..65536.
  explicit NetworkSimulator(sim::SimSetup setup);
  Measured Measure(const std::string& name, const models::BlockNetworkSpec& spec);
  Measured MeasureZoo(const std::string& model);
  models::Graph Build(const std::string& name, const models::BlockNetworkSpec& spec) const;
  nlohmann::json Config() const;
  const sim::SimSetup& setup() const { return setup_; }

 private:
  Measured Run(const models::Graph& graph);
  sim::SimSetup setup_;
  sim::CostCache cache_;
};

// One network to train on the proxy.
struct ProxyRequest {
  std::string label;
  models::BlockNetworkSpec spec;  // full size (its resolution is ignored: proxy_resolution is used)
  int proxy_resolution = 16;
};
// Trained accuracies of proxy networks. Results are keyed by the proxy graph itself (its ops and
// input, not its name), the recipe and the seed, so grid points whose proxy networks coincide
// (small width and resolution steps vanish at proxy size) are trained once, and one file serves
// several scalings of one base.
class ProxyAccuracy {
 public:
  virtual ~ProxyAccuracy() = default;
  // Results for every request, in order; a request that could not be trained has nothing.
  virtual std::vector<std::optional<proxy::TrainedResult>> Evaluate(
      const std::vector<ProxyRequest>& requests) = 0;
  virtual nlohmann::json Config() const = 0;
  // The identity of a request's proxy network (ProxyGraphKey of the graph it trains): requests
  // with the same one get the same label by construction. "" where the accuracy has none.
  virtual std::string NetworkKey(const ProxyRequest& /*request*/) const { return ""; }
};

// The proxy-size graph of a request (the recipe's width, classes, channels and removed
// downsamplings).
models::Graph BuildProxyNetwork(const ProxyRequest& request, const proxy::ProxyRecipe& recipe,
                                int in_channels, int num_classes);
// The key of a proxy graph: SHA-256 of its ops and input shape (not its name).
std::string ProxyGraphKey(const models::Graph& proxy_graph);

// The trained-accuracy file (JSON lines: key, label, recipe, seed, accuracies). Reading it needs
// no LibTorch, so a build without it can reuse the results of one with it.
class TrainedStore {
 public:
  // Reads `path` if it exists (the first Add creates it and its directories); a torn last line
  // is cut from the file; any other bad line, or a key stored twice with different results, is an
  // InputError naming the file and line.
  explicit TrainedStore(std::string path);
  std::optional<proxy::TrainedResult> Find(const std::string& key) const;
  void Add(const std::string& key, const std::string& label, const nlohmann::json& config,
           const proxy::TrainedResult& result);  // appended and synced at once
  const std::string& path() const { return log_.path(); }
  size_t size() const { return results_.size(); }

 private:
  AppendLog log_;
  std::map<std::string, proxy::TrainedResult> results_;
};

// The store's key for a graph under a recipe and seed; `limit_eval` (evaluation on a subset, for
// smoke runs) is part of it, so such results never stand in for full ones.
std::string StoreKey(const std::string& graph_key, const proxy::ProxyRecipe& recipe, uint64_t seed,
                     int64_t limit_eval);

// Accuracy only from a store (no training): a request the store lacks has no result.
class StoredAccuracy : public ProxyAccuracy {
 public:
  StoredAccuracy(std::shared_ptr<TrainedStore> store, proxy::ProxyRecipe recipe, uint64_t seed,
                 int64_t limit_eval, int in_channels, int num_classes);
  std::vector<std::optional<proxy::TrainedResult>> Evaluate(
      const std::vector<ProxyRequest>& requests) override;
  nlohmann::json Config() const override;
  std::string NetworkKey(const ProxyRequest& request) const override;

 private:
  std::shared_ptr<TrainedStore> store_;
  proxy::ProxyRecipe recipe_;
  uint64_t seed_;
  int64_t limit_eval_;
  int in_channels_, num_classes_;
};

struct ScaleOptions {
  Mode mode = Mode::kLacs;
  Grid grid = DefaultGrid();
  Budget budget;          // phi of the grid and the tolerance
  int members = 7;        // members phi = 1..members (and the base, phi = 0)
  int train_members = 2;  // members phi <= this are trained (their accuracy in the table)
  int resolution_multiple = 8;
  double w = -0.07;           // lacs reward exponent
  int proxy_resolution = 16;  // the recipe's base proxy resolution
};
void ValidateScaleOptions(const ScaleOptions& o);

// One grid point.
struct GridPoint {
  Coefficients c;  // the tuple of step phi (as searched)
  MemberTuple tuple;
  Measured measured;
  double cost_ratio = 0.0;   // lacs: latency / base latency; flops: alpha beta^2 gamma^2
  double flops_ratio = 0.0;  // measured FLOPs / base FLOPs
  bool candidate = false;    // meets the budget
  bool surface = false;      // on the budget surface (trained)
  std::optional<proxy::TrainedResult> trained;
  double objective = 0.0;     // accuracy (flops) or reward (lacs); 0 when untrained
  int proxy_resolution = 0;   // of its proxy network (trained points)
  std::string proxy_network;  // ProxyAccuracy::NetworkKey, 12 hex digits ("": untrained)
};

struct Member {
  int phi = 0;
  std::string name;  // "<family>-b<phi>"
  MemberTuple tuple;
  models::BlockNetworkSpec spec;
  Measured measured;
  std::optional<proxy::TrainedResult> trained;
  int proxy_resolution = 0;   // of its proxy network (trained members)
  std::string proxy_network;  // as GridPoint's
};

struct Family {
  std::string name;
  BaseNetwork base;
  ScaleOptions options;
  nlohmann::json setup;     // the simulated setup (NetworkSimulator::Config)
  nlohmann::json accuracy;  // the proxy accuracy's Config
  Coefficients searched;    // the best grid point (tuple of step phi)
  Coefficients per_step;    // its per-step coefficients
  double base_latency_ms = 0.0;
  std::vector<GridPoint> grid;
  size_t best = 0;  // index into grid
  std::vector<Member> members;
};

using ScaleProgress = std::function<void(const std::string& line)>;

// Scores the grid, picks the coefficients and builds the members. Throws InputError naming the
// grid when no point meets the budget (with the nearest point's cost), or when no candidate could
// be trained.
Family ScaleFamily(const BaseNetwork& base, const std::string& family_name,
                   const ScaleOptions& options, NetworkSimulator& simulator,
                   ProxyAccuracy& accuracy, const ScaleProgress& progress);

// A reference family (EfficientNet B0..B7, EfficientNet-X), simulated on the same setup, with
// trained proxy accuracy for members phi <= train_members.
struct ReferencePoint {
  std::string model;
  int phi = 0;
  Measured measured;
  std::optional<proxy::TrainedResult> trained;
  // Published ImageNet top-1 (%) from data/accuracy/published-imagenet.csv, where the table has
  // the model: a separate axis from the proxy's (family-published.svg), never mixed with it.
  std::optional<double> published_top1;
};
struct ReferenceFamily {
  std::string name;  // "EfficientNet", "EfficientNet-X (x-tpu)"
  std::vector<ReferencePoint> points;
};
// Reference families for an accelerator kind: EfficientNet-B0..B7 and EfficientNet-X-B0..B7 in
// the x-tpu (kind "tpu") or x-gpu scaling (anything else).
std::vector<ReferenceFamily> ScoreReferences(const std::string& accelerator_kind, int members,
                                             int train_members, int proxy_resolution,
                                             NetworkSimulator& simulator, ProxyAccuracy& accuracy);

// Writes FAMILY_DIR: family.json (everything), family.csv and family.txt (the member table),
// grid.csv (every grid point), members/<name>.json (layer graph at the simulated batch and
// precision) and members/<name>.txt (block strings, tuple, coefficients), family.svg (latency
// against trained accuracy beside the references), family-published.svg (the references' latency
// against their published ImageNet top-1, where the table has them). Each file is written
// atomically.
void WriteFamily(const Family& family, const std::vector<ReferenceFamily>& references,
                 NetworkSimulator& simulator, const std::string& dir);

// The member table as text (also family.txt).
std::string FamilyTable(const Family& family);

// Two families of one base on one setup (lacs against flops): per member the latency ratio, the
// speedup at equal trained accuracy where both families' trained members bracket it, and the
// activation growth of each rule.
struct FamilyComparison {
  std::vector<double> latency_ratio;  // flops member latency / lacs member latency, phi = 1..M
  double geomean_speedup = 0.0;       // over phi = 1..M
  // Equal-accuracy speedups: each trained lacs member's latency against the flops family's
  // latency interpolated (log-linear) at the same trained accuracy; nothing where the flops
  // family's trained accuracies do not bracket it or are not monotone there.
  std::vector<std::optional<double>> equal_accuracy_speedup;
  std::optional<double> geomean_equal_accuracy;
  // Per lacs member phi = 1..M: the flops members ("b2") whose proxy network is the lacs member's
  // own (ProxyAccuracy::NetworkKey): their trained accuracies are equal by construction, so an
  // equal-accuracy speedup between them measures the proxy's rounding, not the scaling.
  std::vector<std::vector<std::string>> same_proxy_network;
  std::string text;  // the comparison as text (comparison.txt)
};
FamilyComparison CompareFamilies(const Family& lacs, const Family& flops);

// One `dcnas scale`: each mode's family of `base` (named "<name>-<mode>"), the reference
// families when `references`, written to `out` (one mode) or out/lacs and out/flops with
// out/comparison.txt and comparison.json (both modes).
struct ScaleRun {
  std::vector<Family> families;
  std::optional<FamilyComparison> comparison;
  std::string text;  // the tables and the comparison, for the terminal
};
ScaleRun RunScale(const BaseNetwork& base, const std::string& name, const std::vector<Mode>& modes,
                  const ScaleOptions& options, bool references, NetworkSimulator& simulator,
                  ProxyAccuracy& accuracy, const std::string& out, const ScaleProgress& progress);

}  // namespace dcnas::lacs
