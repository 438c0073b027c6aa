// Search spaces as data: MnasNet's factorized hierarchical space, read from YAML.
//
// A space is a skeleton of stages (stride, base output filters, base repeats) around a stem and a
// head, and, per stage or per layer, the choices: block type (mbconv, fused, skip), kernel,
// expansion, squeeze-excite ratio, activation, repeats delta, output-filters multiplier and
// space-to-depth on the first stage. A choice with one value is a fixed value; an `op` choice
// picks a bundle of values at once ({block: skip}, {block: mbconv, expand: 3, kernel: 3}, ...).
//
// An architecture is a fixed-length vector of choice indices (one per non-fixed choice, in unit
// order). Its canonical form takes the first of the values that give the same network (filters
// multipliers that round to one width), zeroes the choices that do not affect the network (e.g.
// the kernel of a skipped layer) and moves skipped layers of a per-layer stage to the stage's
// end, so two encodings that name the same network have one canonical text. It decodes to
// EfficientNet-style block args (models/block_string.h; their block strings are for files and
// messages) and from there to the layer graph at full size (for the simulator) and at proxy size
// (for training). File format: space/README.md.
#pragma once

#include <cstdint>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "models/block_string.h"
#include "models/builder.h"
#include "models/graph.h"

namespace dcnas::space {

// kConv: a plain k x k conv + BN, no activation or shortcut (block string c2): e.g. the strided
// 1x1 projection NAS-Bench-Macro puts where a stage's first layer is an "identity". kBasic and
// kBottleneck: ResNet's basic and bottleneck residual blocks (c3, c4).
enum class BlockType { kMBConv, kFused, kSkip, kConv, kBasic, kBottleneck };
// "mbconv", "fused", "skip", "conv", "basic", "bottleneck"
std::string BlockTypeName(BlockType type);

// A partial assignment of a layer's fields: what one choice value (or a fixed value) sets.
struct LayerPatch {
  std::optional<BlockType> block;
  std::optional<int> kernel;
  std::optional<double> expand;
  std::optional<double> se;
  std::optional<models::Activation> activation;
  std::optional<int> repeats_delta;
  std::optional<double> filters_multiplier;
  std::optional<bool> space_to_depth;
  // Channel search: the layer's output width and its hidden width, absolute (`filters` replaces
  // the stage's filters x filters_multiplier; `hidden` replaces the block's default hidden width,
  // models::HiddenFilters).
  std::optional<int64_t> filters;
  std::optional<int64_t> hidden;

  // Applies the fields set here over `base`; throws InternalError-free: later wins.
  void ApplyTo(LayerPatch& base) const;
  // "kernel=5", "block=mbconv expand=3 kernel=3".
  std::string Label() const;
};

// One searchable choice of a unit: its key ("kernel", ..., or "op") and its values.
struct Choice {
  std::string key;
  std::vector<LayerPatch> values;
  // Which fields the values set (for canonicalisation: a choice is irrelevant when every field it
  // sets is irrelevant).
  std::vector<std::string> fields;
};

// A unit: one stage (its layers share one set of choices) or one layer of a per-layer stage.
struct Unit {
  int stage = 0;   // 0-based stage index
  int layer = -1;  // -1: a whole stage; else the layer index inside a per-layer stage
  std::string name;
  LayerPatch fixed;             // fixed values (single-valued choices and stage defaults)
  std::vector<Choice> choices;  // searchable choices, in vector order
};

struct StageSkeleton {
  int stride = 1;
  int64_t filters = 0;  // base output filters
  int repeats = 1;      // base repeats (per-layer stages: the number of layers)
  bool per_layer = false;
  // Per-layer stages: the first layer has choices of its own (`first_layer:`) and keeps its place
  // in the canonical form (only the later layers' skips move to the stage's end).
  bool own_first_layer = false;
};

struct NetworkSettings {
  int resolution = 224;
  int64_t stem_filters = 32;
  int stem_stride = 2;  // 1: a CIFAR-style stem
  int64_t head_filters = 1280;
  int num_classes = 1000;  // the full-size network's classifier (its counts, its latency)
  // Where a block's input and output shapes differ: no shortcut (false) or a 1x1 conv + BN
  // projection (true; `shortcut: projection`).
  bool projection_shortcut = false;
  models::Activation activation = models::Activation::kSwish;  // stem, head, blocks without a0/a1
  double se_coefficient = 1.0;
  double dropout = 0.2;
};

struct ProxySettings {
  int resolution = 32;
  int in_channels = 1;
  int num_classes = 10;
  int removed_downsamples = 1;
  double width = 0.25;
};

// Compound-scaling coefficients applied to a sampled base (1, 1, 1: the base itself).
struct Scaling {
  double depth = 1.0;
  double width = 1.0;
  double resolution = 1.0;
  bool operator==(const Scaling&) const = default;
};

// An architecture: one index per searchable choice of the space (Space::vector_length()).
using Encoding = std::vector<int>;

// The decoded network of one architecture.
struct Decoded {
  std::vector<models::BlockArgs> args;  // the blocks (skipped layers removed)
  std::vector<std::string> blocks;      // their block strings, for files and messages
  std::vector<int> block_stages;        // the 0-based stage of each block
  std::vector<std::string> stage_ops;   // per stage, e.g. "fused k3 e6 se0.25 swish x2 s2d"
  int layers = 0;                       // MBConv / fused layers in the network
};

class Space {
 public:
  // Reads and validates a space file; throws InputError naming the file, line and key.
  static Space Load(const std::string& path);
  static Space Parse(const std::string& yaml_text, const std::string& file);

  const std::string& name() const { return name_; }
  const std::string& description() const { return description_; }
  const std::string& file() const { return file_; }
  // A 16-hex-digit hash of everything that defines the space (not comments or descriptions).
  const std::string& fingerprint() const { return fingerprint_; }
  const std::vector<Unit>& units() const { return units_; }
  const std::vector<StageSkeleton>& stages() const { return stages_; }
  const NetworkSettings& network() const { return network_; }
  const ProxySettings& proxy() const { return proxy_; }
  size_t vector_length() const { return choice_counts_.size(); }
  // Number of values of each searchable choice, in vector order.
  const std::vector<int>& choice_counts() const { return choice_counts_; }
  // "stage2.kernel", "stage5.layer3.op" for each vector position.
  const std::vector<std::string>& choice_names() const { return choice_names_; }

  // Number of encodings (product of the choice counts) as a double, and its log10.
  double RawSize() const;
  // Distinct canonical networks, counted per unit (valid combinations assumed).
  double CanonicalSize() const;
  // Distinct valid networks: exact (every encoding canonicalised, each distinct network decoded)
  // when RawSize() is at most `enumerate_limit`; else an estimate, CanonicalSize() x the valid
  // fraction of `samples` uniform raw encodings (seed 0). `exact` says which.
  struct ValidCount {
    double networks = 0.0;
    double valid_fraction = 1.0;  // of raw encodings
    bool exact = false;
  };
  ValidCount ValidSize(double enumerate_limit = 1e6, int samples = 20000) const;

  // Decodes `e` (throws InputError naming the choice when a combination is invalid: a skipped
  // layer that must change shape, a skipped stage doing space-to-depth, a stage repeated fewer
  // than once). A kernel larger than its feature map is valid: the padding covers it, as in
  // PyTorch and TF (5x5 kernels on NAS-Bench-Macro's 4x4 maps).
  Decoded Decode(const Encoding& e) const;
  // Only the blocks (Decode's args, no text), for the search's hot path.
  std::vector<models::BlockArgs> DecodeBlocks(const Encoding& e) const;
  // The canonical encoding (same network, don't-care choices zeroed, skips moved to the end).
  Encoding Canonical(const Encoding& e) const;
  // Text form "1.0.2_0.1_..." (one group per unit, indices in base 36); parse checks the space.
  std::string ToText(const Encoding& e) const;
  Encoding FromText(const std::string& text) const;  // throws InputError naming the bad part

  // The block-network spec of an architecture with compound scaling (full size).
  models::BlockNetworkSpec NetworkSpec(const Encoding& e, const Scaling& scaling = {}) const;
  // The layout of the full-size graph (batch and dtype from `options`; resolution = network
  // resolution x scaling): what BuildFull builds, for costing it block by block without building
  // it (sim/block_cost_cache.h).
  models::BlockNetworkLayout LayoutFull(const Encoding& e, const Scaling& scaling,
                                        const models::BuildOptions& options) const;
  // Full-size graph: LayoutFull's network.
  models::Graph BuildFull(const Encoding& e, const Scaling& scaling,
                          const models::BuildOptions& options) const;
  // Proxy-size graph for training (proxy resolution x scaling, proxy width, classes, channels),
  // with the space's proxy settings or others.
  models::Graph BuildProxy(const Encoding& e, const Scaling& scaling) const;
  models::Graph BuildProxy(const Encoding& e, const Scaling& scaling,
                           const ProxySettings& proxy) const;
  // Proxy resolution for a scaling: base x coefficient, rounded to a multiple of 4.
  static int ProxyResolution(int base, const Scaling& scaling);

  // Sample of a valid canonical encoding: uniform over raw encodings, canonicalised, invalid
  // draws redrawn (rejection sampling; ValidSize says how often; throws InputError when no valid
  // architecture is found in 1,000 draws). A network with skipped layers has several raw
  // encodings and is drawn that much more often, as a benchmark's keys would be.
  Encoding Sample(std::mt19937_64& rng) const;
  // Changes `k` distinct choices to other values; the result is valid and canonical.
  Encoding Mutate(const Encoding& e, int k, std::mt19937_64& rng) const;
  // Uniform crossover (each choice from either parent); valid and canonical.
  Encoding Crossover(const Encoding& a, const Encoding& b, std::mt19937_64& rng) const;
  bool IsValid(const Encoding& e) const;
  // The resolved fields of unit `unit`'s layers under `e` (defaults, fixed values, choices).
  LayerPatch UnitFields(const Encoding& e, size_t unit) const { return Resolve(e, unit); }

 private:
  static Space ParseChecked(const std::string& yaml_text, const std::string& file);
  // Decodes the canonical encoding `e` into `blocks`, and into `text`'s stages, stage ops and
  // layers when given (not its block strings). Returns why the combination is invalid, or
  // nothing: IsValid asks without an exception per invalid draw.
  std::string DecodeCanonical(const Encoding& e, std::vector<models::BlockArgs>& blocks,
                              Decoded* text) const;
  // The resolved fields of every layer position of a unit under `e`.
  LayerPatch Resolve(const Encoding& e, size_t unit) const;
  // Only the block type of Resolve(e, unit).
  BlockType UnitBlock(const Encoding& e, size_t unit) const;
  // Zeroes in `out` the choices of unit `u` that its block under `e` ignores.
  void ZeroIgnored(const Encoding& e, size_t u, Encoding& out) const;
  // Per unit: the defaults with its fixed values applied (what its choices apply over).
  std::vector<LayerPatch> base_;
  // Per-unit offsets of the unit's choices into the encoding.
  std::vector<size_t> offsets_;
  // Per vector position, value -> the first value that gives the same network (filters
  // multipliers that round to one width, e.g. 0.75 and 1 of 16 filters).
  std::vector<std::vector<int>> alias_;
  void Finalize();

  std::string name_, description_, file_, fingerprint_;
  NetworkSettings network_;
  ProxySettings proxy_;
  std::vector<StageSkeleton> stages_;
  std::vector<Unit> units_;
  std::vector<int> choice_counts_;
  std::vector<std::string> choice_names_;
};

// A block network located in a space (FindEncoding).
struct SpaceMatch {
  Encoding encoding;  // canonical
  // True when the network settings agree too (stem and head filters and activation, SE
  // coefficient, resolution); otherwise the encoding is the space's counterpart of the network:
  // the same blocks inside this space's stem and head, and `differences` says what differs.
  bool exact = false;
  std::vector<std::string> differences;
};
// Finds the architecture whose decoded blocks are `target`'s (blocks without an activation flag
// take the target's default activation), unit by unit: each unit's value combinations are tried
// with the earlier units fixed, keeping the first that matches most of the target's blocks.
// Nothing when the space cannot express the blocks.
std::optional<SpaceMatch> FindEncoding(const Space& space, const models::BlockNetworkSpec& target);

// The architecture of space `to` whose layers make the same choices as `e` in space `from`
// (block, kernel, expansion, SE, activation, repeats, filters multiplier, space-to-depth, per
// unit), e.g. a mnasnet-space network's counterpart in the dc-accelerator space: the same blocks
// inside `to`'s stem and head. Needs the same units (stages and layers) in both; nothing when
// `to` cannot make one of the choices.
std::optional<Encoding> ProjectEncoding(const Space& from, const Space& to, const Encoding& e);

// Features of an architecture for the accuracy surrogate: one-hot per choice of the canonical
// encoding, then log10 params, log10 FLOPs, layers, resolution, depth, width and resolution
// coefficients (full-size counts at batch 1).
struct FeatureSet {
  std::vector<std::string> names;
  std::vector<float> values;  // row-major, rows x names.size()
  size_t rows = 0;
};
std::vector<std::string> FeatureNames(const Space& space);
// Appends one row of features (names as FeatureNames) to `out`.
void AppendFeatures(const Space& space, const Encoding& e, const Scaling& scaling, double params,
                    double flops, FeatureSet& out);

}  // namespace dcnas::space
