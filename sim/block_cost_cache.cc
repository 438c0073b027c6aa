#include "sim/block_cost_cache.h"

#include <bit>
#include <initializer_list>
#include <utility>

#include "common/config_tree.h"
#include "common/errors.h"
#include "models/graph.h"
#include "sim/cost_context.h"

namespace dcnas::sim {
namespace {

using Key = BlockCostCache::Key;

uint64_t Bits(double v) { return std::bit_cast<uint64_t>(v); }

// Builds one piece alone (behind a stand-in producer of its input, except the stem, which reads
// the network's input) and costs its kernels.
BlockCostCache::Piece CostPiece(const models::BlockNetworkLayout& layout, const Key& key,
                                size_t block, const SimSetup& setup, const cost::CostContext& ctx,
                                CostCache* op_cache) {
  models::GraphBuilder b("piece", layout.options);
  int first = 0;  // the piece's first op id
  int x = -1;
  if (key.piece == Key::Piece::kStem) {
    x = models::AppendStem(b, layout);
  } else {
    const models::Shape& in = key.input.shape;
    // A non-view producer, as the previous piece's last op is: inter-kernel reuse reads from on
    // chip only what an earlier kernel wrote.
    x = b.BatchNorm(b.Input(in.h, in.w, in.c));
    first = b.graph().size();
    x = key.piece == Key::Piece::kBlock ? models::AppendBlock(b, x, layout, block)
                                        : models::AppendHead(b, x, layout);
  }
  const models::Graph graph = b.Finish();
  const PreparedGraph prepared = Prepare(graph);
  Kernels k = PlanKernels(prepared, ctx, setup.stack, setup.fusion, op_cache);
  BlockCostCache::Piece piece;
  for (size_t i = 0; i < prepared.ops.size(); ++i) {
    const int id = prepared.ops[i].id;
    if (id < first) continue;
    piece.counts += models::CountOp(graph, graph.op(id));
    const int g = k.plan.group_of[i];
    if (g >= 0 &&
        prepared.ops[static_cast<size_t>(k.plan.groups[static_cast<size_t>(g)].anchor)].id <
            first) {
      throw InternalError("block costs: op '" + graph.op(id).name +
                          "' fused into a kernel of the piece before it");
    }
  }
  for (size_t g = 0; g < k.plan.groups.size(); ++g) {
    if (prepared.ops[static_cast<size_t>(k.plan.groups[g].anchor)].id >= first) {
      piece.kernels.push_back(k.costs[g]);
    }
  }
  piece.output = graph.op(x).out;
  return piece;
}

}  // namespace

BlockCostCache::BlockCostCache(size_t initial_slots) {
  size_t n = 16;
  while (n < initial_slots) n <<= 1;
  slots_.assign(n, 0);
}

uint64_t BlockCostCache::Hash(const Key& k) {
  const models::BlockArgs& a = k.args;
  const models::Shape& s = k.input.shape;
  const auto u = [](auto v) { return static_cast<uint64_t>(v); };
  // The small fields packed into one word (fields wider than their bits only weaken the hash).
  const uint64_t flags = u(k.piece) | u(a.kernel) << 2 | u(a.stride) << 8 | u(a.fused) << 12 |
                         u(a.space2depth) << 13 | u(a.conv_type) << 15 | u(a.id_skip) << 16 |
                         (a.activation ? u(*a.activation) + 1 : 0) << 17 | u(k.activation) << 21 |
                         u(k.fusion) << 25 | u(k.input.dtype) << 26 | u(a.num_repeat) << 32;
  uint64_t h = 0xcbf29ce484222325ULL;
  for (const uint64_t v :
       {flags, u(a.input_filters) | u(a.output_filters) << 32, Bits(a.expand_ratio),
        a.se_ratio ? Bits(*a.se_ratio) : ~uint64_t{0}, u(k.filters) | u(k.num_classes) << 32,
        u(a.hidden_filters) | u(a.projection) << 40, Bits(k.se_coefficient), Bits(k.dropout),
        u(s.n) | u(s.h) << 21 | u(s.w) << 42, u(s.c), k.context}) {
    h = HashMix(h, v);
  }
  return h;
}

const BlockCostCache::Piece* BlockCostCache::Find(const Key& key) const {
  const uint64_t h = Hash(key);
  for (size_t i = h & (slots_.size() - 1);; i = (i + 1) & (slots_.size() - 1)) {
    const uint32_t slot = slots_[i];
    if (slot == 0) {
      ++misses_;
      return nullptr;
    }
    const Entry& e = entries_[slot - 1];
    if (e.hash == h && e.key == key) {
      ++hits_;
      return &e.piece;
    }
  }
}

const BlockCostCache::Piece& BlockCostCache::Insert(const Key& key, Piece piece) {
  if ((entries_.size() + 1) * 10 > slots_.size() * 7) Grow();
  const uint64_t h = Hash(key);
  for (size_t i = h & (slots_.size() - 1);; i = (i + 1) & (slots_.size() - 1)) {
    const uint32_t slot = slots_[i];
    if (slot == 0) {
      entries_.push_back({key, h, std::move(piece)});
      slots_[i] = static_cast<uint32_t>(entries_.size());
      return entries_.back().piece;
    }
    Entry& e = entries_[slot - 1];
    if (e.hash == h && e.key == key) {
      e.piece = std::move(piece);
      return e.piece;
    }
  }
}

void BlockCostCache::Grow() {
  slots_.assign(slots_.size() * 2, 0);
  for (size_t n = 0; n < entries_.size(); ++n) {
    size_t i = entries_[n].hash & (slots_.size() - 1);
    while (slots_[i] != 0) i = (i + 1) & (slots_.size() - 1);
    slots_[i] = static_cast<uint32_t>(n + 1);
  }
}

void BlockCostCache::Clear() {
  entries_.clear();
  slots_.assign(slots_.size(), 0);
  hits_ = 0;
  misses_ = 0;
}

NetworkCost SimulateBlockNetwork(const models::BlockNetworkLayout& layout, const SimSetup& setup,
                                 BlockCostCache& cache, CostCache* op_cache,
                                 std::vector<cost::GroupCost>& scratch) {
  if (layout.options.proxy_removed_downsamples != 0) {
    throw InternalError(
        "SimulateBlockNetwork: a proxy layout (removed downsamplings) is costed "
        "as a whole graph");
  }
  const cost::CostContext ctx =
      MakeCostContext(setup.spec, setup.stack, setup.calibration, layout.options.dtype);
  NetworkCost total;
  scratch.clear();
  Key key;
  key.context = ctx.fingerprint;
  key.fusion = setup.fusion;
  key.activation = layout.default_activation;
  const int resolution = layout.options.resolution;
  key.input = {{layout.options.batch, resolution, resolution, layout.options.in_channels},
               layout.options.dtype};
  // Stem, blocks, head: each piece's input is the output of the one before.
  for (size_t p = 0; p < layout.blocks.size() + 2; ++p) {
    const size_t block = p - 1;
    if (p == 0) {
      key.piece = Key::Piece::kStem;
      key.filters = layout.stem_filters;
      key.args.stride = layout.stem_stride;  // the stem's stride (its args are otherwise unused)
    } else if (p <= layout.blocks.size()) {
      key.piece = Key::Piece::kBlock;
      key.filters = 0;
      key.args = layout.blocks[block].args;
      key.se_coefficient = layout.se_coefficient;
    } else {
      key.piece = Key::Piece::kHead;
      key.args = {};
      key.se_coefficient = 1;
      key.filters = layout.head_filters;
      key.num_classes = layout.options.num_classes;
      key.dropout = layout.dropout;
    }
    const BlockCostCache::Piece* piece = cache.Find(key);
    if (piece == nullptr) {
      piece = &cache.Insert(key, CostPiece(layout, key, block, setup, ctx, op_cache));
    }
    scratch.insert(scratch.end(), piece->kernels.begin(), piece->kernels.end());
    total.counts += piece->counts;
    key.input = piece->output;
  }
  total.latency_s = KernelsLatencyS(scratch, setup.stack);
  return total;
}

}  // namespace dcnas::sim
