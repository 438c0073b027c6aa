// Vector-unit, memory and combination formulas (pure). sim/README.md states each one.
#pragma once

#include <cstdint>

#include "sim/cost/types.h"

namespace dcnas::sim::cost {

// Vector unit: ops / (lanes * ops_per_lane_per_cycle * cores * clock * efficiency)
//            + transcendentals / (transcendentals_per_cycle * cores * clock * efficiency).
double VectorSeconds(double ops, double transcendentals, double ops_per_s,
                     double transcendentals_per_s, double efficiency);

// HBM traffic of one kernel with on-chip reuse. Weights stay resident while activations stream
// when they fit in `usable_onchip_bytes`; otherwise the activations are streamed once per
// weight chunk that fits:
//   input_passes = weight_bytes <= usable ? 1 : ceil(weight_bytes / usable)
//   bytes = input_bytes * input_passes + weight_bytes + output_bytes
double KernelHbmBytes(double input_bytes, double weight_bytes, double output_bytes,
                      double usable_onchip_bytes);

// The achieved fraction of the HBM peak: memory_efficiency, capped by what the cores can stream,
// core_cycles_per_s x core_stream_bytes_per_cycle (no cap when that is 0 or the peak is 0).
double AchievedMemoryEfficiency(double memory_efficiency, double core_stream_bytes_per_cycle,
                                double core_cycles_per_s, double hbm_bytes_per_s);

// Memory time: hbm_bytes / (bandwidth * efficiency) + onchip_bytes / (onchip_bw * efficiency).
double MemorySeconds(double hbm_bytes, double hbm_bytes_per_s, double memory_efficiency,
                     double onchip_bytes, double onchip_bytes_per_s, double onchip_efficiency);

// The bound of a kernel: the largest of its matrix, vector, memory and overhead times (ties go to
// the first in that order).
Bound LargestBound(double matrix_s, double vector_s, double memory_s, double overhead_s);

// Unit times combined into one kernel time, and its bound.
struct Combined {
  double busy_s = 0;   // units combined with overlap, times the op-class scale
  double total_s = 0;  // busy + overhead
  Bound bound = Bound::kMatrix;
};

// t_busy = scale * (max + (1 - overlap) * (sum - max)) over {matrix, vector, memory};
// t = t_busy + overhead. The bound is the largest of matrix, vector, memory and overhead.
Combined Combine(double matrix_s, double vector_s, double memory_s, double overhead_s,
                 double overlap, double class_scale);

}  // namespace dcnas::sim::cost
