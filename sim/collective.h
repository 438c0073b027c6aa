// Collective-communication cost: the gradient all-reduce of a data-parallel training step, in
// closed form (sim/README.md, "Training steps"). Pure functions of bytes, participants and the
// interconnect; no graph, no stack.
#pragma once

#include <string>

#include "sim/spec.h"

namespace dcnas::sim {

// Ring all-reduce of `bytes` over `participants`, each injecting at `bytes_per_s` into the ring
// with `step_latency_s` per step: reduce-scatter then all-gather, 2 (p - 1) steps of bytes / p,
//   t = 2 (p - 1) / p * bytes / bytes_per_s + 2 (p - 1) * step_latency_s.
// Zero for one participant.
double RingAllReduceSeconds(double bytes, int participants, double bytes_per_s,
                            double step_latency_s);

// The torus a slice of `chips` chips forms: x * y = chips with x the largest divisor of chips
// not above sqrt(chips), y = chips / x (v3-8: 2 x 2, v3-32: 4 x 4, 8 chips: 2 x 4).
struct TorusShape {
  int x = 1;
  int y = 1;
};
TorusShape TorusShapeFor(int chips);

// 2D-torus all-reduce, dimension by dimension: a ring reduce-scatter along x (x participants,
// all bytes), a ring all-reduce along y of the 1/x shard, then the all-gather along x, each ring
// using `bytes_per_s` (the links of one dimension):
//   t = 2 (x - 1) / x * bytes / B + 2 (y - 1) / y * (bytes / x) / B + 2 (x - 1 + y - 1) * latency.
double Torus2dAllReduceSeconds(double bytes, TorusShape shape, double bytes_per_s,
                               double step_latency_s);

// The all-reduce of one training step's gradients.
struct AllReduceCost {
  double seconds = 0;       // intra_chip_s + inter_chip_s
  double intra_chip_s = 0;  // among the replicas of one chip (TPU v2/v3 TensorCores)
  double inter_chip_s = 0;  // among the chips of the slice
  std::string algorithm;    // "none", "ring", "torus2d XxY"
  int participants = 1;     // chips in the inter-chip step
};

// Gradients of `bytes` summed over `chips` chips of `spec` (and its replicas per chip):
// - replicas on one chip reduce through HBM: a ring over replicas_per_chip at the chip's HBM
//   bandwidth times memory_efficiency, no step latency;
// - chips: ring and switch topologies run a ring over all links (links x link bandwidth),
//   torus2d runs Torus2dAllReduceSeconds over the links of one dimension (links / 2 per ring,
//   one ring each way), all at link bandwidth times interconnect_efficiency.
// Throws InputError when chips > 1 and the accelerator file has no interconnect section.
AllReduceCost GradientAllReduce(double bytes, int chips, const AcceleratorSpec& spec,
                                double interconnect_efficiency, double memory_efficiency);

}  // namespace dcnas::sim
