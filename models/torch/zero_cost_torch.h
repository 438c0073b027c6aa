// Zero-cost proxies on given tensors or on a module with given weights (zero_cost.h has the
// definitions and the variant on the training data). Includes LibTorch: for models/torch/ and
// its tests only.
#pragma once

#include <torch/torch.h>

#include <cstdint>

#include "models/graph.h"
#include "models/torch/lower.h"
#include "models/torch/zero_cost.h"

namespace dcnas::models::libtorch {

// Scores `graph` initialised with torch::manual_seed(seed) on `images` (float NCHW at the
// graph's input size, any batch) and `labels` (int64 [N]). Checks the memory estimate at the
// images' batch against `max_memory_bytes` first. Uses LibTorch's current thread count; the
// network is built on the CPU (the same initial weights everywhere), then moved to the images'
// device.
ZeroCostScores ComputeZeroCost(const Graph& graph, const ::torch::Tensor& images,
                               const ::torch::Tensor& labels, uint64_t seed,
                               int64_t max_memory_bytes = kDefaultZeroCostMemoryBytes);

// The scores of `module` with its current weights (float). The module is left with the weights
// it had, in training mode (its batch-norm running statistics moved by the two training-mode
// passes). Names module->graph()'s model in errors.
ZeroCostScores ComputeZeroCost(GraphModule& module, const ::torch::Tensor& images,
                               const ::torch::Tensor& labels);

}  // namespace dcnas::models::libtorch
