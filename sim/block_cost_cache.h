// BlockCostCache: memoises the kernels of a block network's pieces (the stem, each block, the
// head of a models::BlockNetworkLayout), keyed by what builds a piece (its args, its input tensor)
// and the setup it was costed on (the cost context's fingerprint and fusion). The candidates of a
// search share most of their blocks: a block seen before is neither built nor costed again, and
// the network's latency is its pieces' kernels queued and summed. CostCache (per op) sits below
// it: a piece that misses is costed op by op through it. Not thread-safe: one cache per thread.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "models/block_string.h"
#include "models/counts.h"
#include "sim/cost/op_cost.h"
#include "sim/cost_cache.h"
#include "sim/engine.h"

namespace dcnas::sim {

// The latency of a whole network and its counts (CountGraph's).
struct NetworkCost {
  double latency_s = 0.0;
  models::OpCounts counts;
};

class BlockCostCache {
 public:
  explicit BlockCostCache(size_t initial_slots = 1024);

  size_t size() const { return entries_.size(); }
  uint64_t hits() const { return hits_; }
  uint64_t misses() const { return misses_; }
  void Clear();

  // What builds a piece, on what setup.
  struct Key {
    enum class Piece : uint8_t { kStem, kBlock, kHead };
    Piece piece = Piece::kBlock;
    models::BlockArgs args;     // a block's (the stem's stride in args.stride)
    int64_t filters = 0;        // the stem's or the head's
    int num_classes = 0;        // the head's
    double se_coefficient = 1;  // a block's
    double dropout = 0;         // the head's
    models::Activation activation = models::Activation::kSwish;
    models::TensorType input;
    uint64_t context = 0;  // cost::CostContext::fingerprint
    bool fusion = true;
    bool operator==(const Key&) const = default;
  };
  // A piece's kernels in issue order, its counts and its output tensor.
  struct Piece {
    std::vector<cost::GroupCost> kernels;
    models::OpCounts counts;
    models::TensorType output;
  };
  // The cached piece, or nullptr.
  const Piece* Find(const Key& key) const;
  const Piece& Insert(const Key& key, Piece piece);

 private:
  struct Entry {
    Key key;
    uint64_t hash = 0;
    Piece piece;
  };
  static uint64_t Hash(const Key& key);
  void Grow();

  std::vector<Entry> entries_;
  std::vector<uint32_t> slots_;  // entry index + 1; 0: empty
  mutable uint64_t hits_ = 0;
  mutable uint64_t misses_ = 0;
};

// Exactly Simulate(BuildBlockNetwork(layout), setup's files, {fusion: setup.fusion}).latency_s
// and CountGraph of that graph (the layout's batch and dtype), without building the graph of the
// pieces `cache` holds. A piece that misses is built alone: the stem as it is, a block or the head
// behind a stand-in producer of its input tensor. This is exact because no kernel spans two
// pieces (each piece starts with a convolution, which the fusion planner never appends to its
// producer's group; checked, an InternalError otherwise) and a piece's kernels see the piece before
// only through its input tensor: its shape, and (inter-kernel reuse) the bytes written since its
// producer, all inside the piece. tests/sim/block_cost_cache_test.cc holds the equality. Needs a
// full-size layout (no proxy downsampling removed). `scratch` holds the queued kernels.
NetworkCost SimulateBlockNetwork(const models::BlockNetworkLayout& layout, const SimSetup& setup,
                                 BlockCostCache& cache, CostCache* op_cache,
                                 std::vector<cost::GroupCost>& scratch);

}  // namespace dcnas::sim
