// Zero-cost proxies: scores of a network at initialisation, from one batch and one or two
// backward passes, with no training (no LibTorch headers here; zero_cost_torch.h has the
// variants on tensors and on a module with given weights).
//
// Definitions (models/torch/README.md, "Zero-cost proxies"). "Parameters" are the weights of
// the convolutions and fully-connected layers, as the reference code of Abdelfattah et al.
// (ICLR 2021, "Zero-Cost Proxies for Lightweight NAS") scores them (get_layer_metric_array over
// Conv2d and Linear layers): biases and batch-norm parameters are not summed.
// - synflow (Tanaka et al., NeurIPS 2020; as in Abdelfattah et al.): every parameter and buffer
//   replaced by its absolute value, in double precision; batch norm skipped as the reference does
//   (its synflow copies the network with bn=False): here each batch norm runs in eval mode with
//   mean 0, variance 1 - eps, gamma 1 and beta 0, which is the identity; dropout off. Input: one
//   image of all ones; R = sum of the logits; score = sum |theta * dR/dtheta|. The raw sum (take
//   logs downstream); a non-finite sum is an InputError naming the network.
// - naswot (Mellor et al., ICML 2021): over the batch, the binary code of each activation op's
//   units (pre-activation > 0: exactly the ReLU codes of the paper; other activations are coded
//   the same way); K = sum over activation ops of (C C^T + (1 - C)(1 - C)^T) (K_ij = units where
//   images i and j agree); score = log|det K| (slogdet, double precision).
// - grad_norm: sum over parameters of ||dL/dtheta||_2, L the mean cross-entropy of the batch.
// - snip (Lee et al., ICLR 2019; as in Abdelfattah et al.): sum over parameters of
//   |theta * dL/dtheta|, the same L and gradient.
// naswot, grad_norm and snip run the network in training mode (batch statistics), as the
// references do. Parameters are initialised by the lowering's own initialiser after
// torch::manual_seed(seed), with `threads` LibTorch threads: one thread and a seed give the same
// scores every time.
#pragma once

#include <cstdint>
#include <string>

#include "common/errors.h"
#include "models/graph.h"
#include "models/torch/dataset.h"
#include "models/torch/fashion_mnist.h"

namespace dcnas::models::libtorch {

struct ZeroCostScores {
  double synflow = 0.0;
  double naswot = 0.0;
  double grad_norm = 0.0;
  double snip = 0.0;
  double time_s = 0.0;  // wall time of the four scores (initialisation included)
};

// Default limit of the activation-memory estimate (ZeroCostMemoryBytes): 4 GiB.
inline constexpr int64_t kDefaultZeroCostMemoryBytes = int64_t{4} << 30;
// The estimate's factor for the backward pass (gradients and saved tensors beside the forward
// activations): a rough upper bound, not a measurement.
inline constexpr int64_t kZeroCostBackwardFactor = 3;

struct ZeroCostOptions {
  int batch = 64;  // images of the naswot, grad_norm and snip batch
  uint64_t seed = 0;
  int threads = 1;
  int64_t max_memory_bytes = kDefaultZeroCostMemoryBytes;
  std::string device = "cpu";  // "cpu", "cuda" or "cuda:N" (CheckDeviceName)
};

// Activation memory of scoring `graph` on `batch` images: the elements of every op's output per
// image x batch x 4 bytes x kZeroCostBackwardFactor.
inline int64_t ZeroCostMemoryBytes(const Graph& graph, int batch) {
  int64_t elements = 0;
  for (const Op& op : graph.ops()) elements += op.out.shape.per_image();
  return elements * batch * 4 * kZeroCostBackwardFactor;
}

// Throws InputError naming the network when ZeroCostMemoryBytes exceeds `max_memory_bytes`.
inline void CheckZeroCostMemory(const Graph& graph, int batch, int64_t max_memory_bytes) {
  const int64_t need = ZeroCostMemoryBytes(graph, batch);
  if (need > max_memory_bytes) {
    throw InputError("zero-cost proxies of '" + graph.info().model + "': activation memory " +
                     std::to_string(need) + " bytes at batch " + std::to_string(batch) +
                     " exceeds the limit of " + std::to_string(max_memory_bytes) +
                     " bytes (raise the limit or lower the batch)");
  }
}

// The batch: the first options.batch images of the fixed training split (SelectImages with the
// trainer's 5,000 validation images; the same images for every network and seed), normalised and
// resized to the graph's input resolution. Checks the memory first; throws InputError naming the
// network on a bad graph or option, a non-finite score, or an estimate over the limit.
ZeroCostScores ComputeZeroCost(const Graph& graph, const ZeroCostOptions& options,
                               const TrainingData& data);

}  // namespace dcnas::models::libtorch
