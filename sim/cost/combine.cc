#include "sim/cost/combine.h"

#include <algorithm>
#include <cmath>

namespace dcnas::sim::cost {

double VectorSeconds(double ops, double transcendentals, double ops_per_s,
                     double transcendentals_per_s, double efficiency) {
  double t = 0;
  if (ops > 0) t += ops / (ops_per_s * efficiency);
  if (transcendentals > 0) t += transcendentals / (transcendentals_per_s * efficiency);
  return t;
}

double KernelHbmBytes(double input_bytes, double weight_bytes, double output_bytes,
                      double usable_onchip_bytes) {
  double passes = 1;
  if (weight_bytes > usable_onchip_bytes && usable_onchip_bytes > 0) {
    passes = std::ceil(weight_bytes / usable_onchip_bytes);
  }
  return input_bytes * passes + weight_bytes + output_bytes;
}

double AchievedMemoryEfficiency(double memory_efficiency, double core_stream_bytes_per_cycle,
                                double core_cycles_per_s, double hbm_bytes_per_s) {
  if (core_stream_bytes_per_cycle <= 0 || hbm_bytes_per_s <= 0) return memory_efficiency;
  // A smooth minimum (power mean of order -4): the DRAM and the cores' requests in flight
  // each limit the rate, and queueing makes the transition gradual; it also keeps the fit's
  // objective differentiable.
  const double cap = core_cycles_per_s * core_stream_bytes_per_cycle / hbm_bytes_per_s;
  return std::pow(std::pow(memory_efficiency, -4.0) + std::pow(cap, -4.0), -0.25);
}

double MemorySeconds(double hbm_bytes, double hbm_bytes_per_s, double memory_efficiency,
                     double onchip_bytes, double onchip_bytes_per_s, double onchip_efficiency) {
  double t = 0;
  if (hbm_bytes > 0) t += hbm_bytes / (hbm_bytes_per_s * memory_efficiency);
  if (onchip_bytes > 0) t += onchip_bytes / (onchip_bytes_per_s * onchip_efficiency);
  return t;
}

Bound LargestBound(double matrix_s, double vector_s, double memory_s, double overhead_s) {
  Bound bound = Bound::kMatrix;
  double best = matrix_s;
  if (vector_s > best) {
    best = vector_s;
    bound = Bound::kVector;
  }
  if (memory_s > best) {
    best = memory_s;
    bound = Bound::kMemory;
  }
  if (overhead_s > best) bound = Bound::kOverhead;
  return bound;
}

Combined Combine(double matrix_s, double vector_s, double memory_s, double overhead_s,
                 double overlap, double class_scale) {
  Combined c;
  const double mx = std::max({matrix_s, vector_s, memory_s});
  const double sum = matrix_s + vector_s + memory_s;
  c.busy_s = class_scale * (mx + (1.0 - overlap) * (sum - mx));
  c.total_s = c.busy_s + overhead_s;
  c.bound = LargestBound(matrix_s, vector_s, memory_s, overhead_s);
  return c;
}

}  // namespace dcnas::sim::cost
