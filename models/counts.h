// Counting, defined once: MACs, FLOPs, parameters and bytes per op, per block and per graph.
//
// Definitions (models/README.md has the full table):
// - MACs: multiply-accumulates of conv2d and fully_connected only.
// - FLOPs: 2 per MAC, plus elementwise work counted per output element: bias 1, batch norm 2
//   (folded scale and shift), add 1, multiply 1, activations relu 1 / relu6 2 / sigmoid 4 /
//   swish 5 / hard_sigmoid 3 / hard_swish 4 / gelu 8, pooling one per window element, global
//   pool one per input element, softmax 5. Data-movement ops (concat, space-to-depth/batch,
//   reshape, dropout) have no FLOPs.
// - Parameters: trainable values: conv and dense weights and biases, batch-norm gamma and beta.
// - Bytes read: activation inputs plus weights (parameters at the graph dtype); bytes written:
//   the output. Views (reshape, dropout, input) move no bytes.
// - Arithmetic intensity: FLOPs / (bytes read + bytes written).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace dcnas::models {

class Graph;
struct Op;

struct OpCounts {
  int64_t macs = 0;
  int64_t flops = 0;
  int64_t params = 0;
  int64_t bytes_read_input = 0;
  int64_t bytes_read_weights = 0;
  int64_t bytes_written = 0;

  int64_t bytes_read() const { return bytes_read_input + bytes_read_weights; }
  int64_t bytes() const { return bytes_read() + bytes_written; }
  double intensity_flop_per_byte() const {
    return bytes() > 0 ? static_cast<double>(flops) / static_cast<double>(bytes()) : 0.0;
  }
  OpCounts& operator+=(const OpCounts& other);
  bool operator==(const OpCounts&) const = default;
};

// Counts one op of `graph` (shapes must have been inferred).
OpCounts CountOp(const Graph& graph, const Op& op);

// Totals over the whole graph.
OpCounts CountGraph(const Graph& graph);

struct BlockCounts {
  std::string block;
  int stage = -1;
  int num_ops = 0;
  OpCounts counts;
};

// Totals per block, in order of first appearance in the graph.
std::vector<BlockCounts> CountBlocks(const Graph& graph);

}  // namespace dcnas::models
