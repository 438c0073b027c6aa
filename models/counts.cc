#include "models/counts.h"

#include <array>
#include <string>
#include <unordered_map>

#include "common/errors.h"
#include "models/graph.h"
#include "models/op_kinds.h"

namespace dcnas::models {

OpCounts& OpCounts::operator+=(const OpCounts& other) {
  const auto add = [](int64_t& total, int64_t part, const char* what) {
    if (__builtin_add_overflow(total, part, &total)) {
      throw InputError(std::string("the graph's total ") + what + " overflow 64 bits");
    }
  };
  add(macs, other.macs, "MACs");
  add(flops, other.flops, "FLOPs");
  add(params, other.params, "parameters");
  add(bytes_read_input, other.bytes_read_input, "bytes read");
  add(bytes_read_weights, other.bytes_read_weights, "weight bytes");
  add(bytes_written, other.bytes_written, "bytes written");
  return *this;
}

OpCounts CountOp(const Graph& graph, const Op& op) {
  std::array<const TensorType*, 8> small{};
  std::vector<const TensorType*> large;
  const TensorType** types = small.data();
  const size_t n = op.inputs.size();
  if (n > small.size()) {
    large.resize(n);
    types = large.data();
  }
  for (size_t i = 0; i < n; ++i) types[i] = &graph.op(op.inputs[i]).out;
  return KindInfo(op.kind).count(op, std::span<const TensorType* const>(types, n));
}

OpCounts CountGraph(const Graph& graph) {
  OpCounts total;
  for (const Op& op : graph.ops()) total += CountOp(graph, op);
  return total;
}

std::vector<BlockCounts> CountBlocks(const Graph& graph) {
  std::vector<BlockCounts> blocks;
  std::unordered_map<std::string, size_t> index;
  for (const Op& op : graph.ops()) {
    if (op.kind == OpKind::kInput) continue;
    auto [it, inserted] = index.emplace(op.block, blocks.size());
    if (inserted) blocks.push_back(BlockCounts{op.block, op.stage, 0, {}});
    BlockCounts& b = blocks[it->second];
    b.num_ops += 1;
    b.counts += CountOp(graph, op);
  }
  return blocks;
}

}  // namespace dcnas::models
