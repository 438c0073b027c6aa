// CostParams: every numeric constant of the cost model that is not a property of the silicon or
// of the software stack: achieved efficiencies, overlap, overhead scales and per-op vector costs.
// sim/calibration_params.h extends it with provenance and reads it from data/calibrated/*.yaml.
#pragma once

namespace dcnas::sim::cost {

// The cost model's free parameters, with their defaults (sim/README.md documents each one).
struct CostParams {
  // Achieved fraction of peak (0, 1].
  double matrix_efficiency = 0.85;  // of the padded matrix-unit MAC rate
  double vector_efficiency = 0.70;  // of the vector unit's op rate
  double memory_efficiency = 0.80;  // of HBM peak bandwidth
  // Of the padded matrix-unit MAC rate, for the GEMM library's kernels (fully connected layers
  // and batched activation products: cuBLAS on GPUs) where they differ from the convolution
  // library's (cuDNN); 0: matrix_efficiency for every matrix kernel.
  double gemm_efficiency = 0;
  // DRAM bytes one core (SM) can stream per cycle, at most: the achieved HBM rate is
  // min(memory_efficiency x peak, cores x clock x this) (bytes in flight per core over the DRAM
  // latency, Little's law). 0: no per-core limit.
  double core_stream_bytes_per_cycle = 0;
  double onchip_efficiency = 0.80;  // of on-chip (VMEM/L2) bandwidth
  // Fraction of the non-dominant resource times hidden under the dominant one [0, 1]:
  // t = max + (1 - overlap) * (sum - max).
  double overlap = 0.80;
  double kernel_overhead_scale = 1.0;  // multiplies the stack's kernel_overhead_us
  // Multiplies the overhead of each extra launch of a per-group grouped convolution (launches
  // issued back to back inside one layer, with no host work between them).
  double group_launch_scale = 1.0;
  double onchip_usable_fraction = 0.5;   // of the reuse level's capacity usable to hold tensors
  double systolic_pipeline_scale = 1.0;  // multiplies weight-load, fill and drain cycles
  // Achieved fraction of the interconnect's link bandwidth in a gradient all-reduce (training
  // steps only, sim/train_step.h).
  double interconnect_efficiency = 0.70;
  // Vector ops per output element (an op = one lane-cycle).
  double ops_relu = 1;
  double ops_relu6 = 2;
  double ops_swish = 4;    // plus one transcendental (exp) per element
  double ops_sigmoid = 3;  // plus one transcendental
  double ops_hard_swish = 4;
  double ops_hard_sigmoid = 3;
  double ops_gelu = 8;        // plus one transcendental
  double ops_batch_norm = 2;  // scale and shift (separate op when not fused)
  double ops_bias = 1;
  double ops_add = 1;
  double ops_mul = 1;
  double ops_pool_per_window_element = 1;
  double ops_global_pool_per_input = 1;
  double ops_softmax = 4;            // plus one transcendental
  double ops_layer_norm = 8;         // mean, variance, normalise, scale, shift
  double ops_depthwise_per_mac = 1;  // vector-unit convolutions: FMAs per MAC
  // Per-op-class time multipliers (applied to the combined time before overhead).
  double conv_scale = 1.0;
  double depthwise_scale = 1.0;
  double fc_scale = 1.0;
  double elementwise_scale = 1.0;
  double pool_scale = 1.0;
  double data_movement_scale = 1.0;
};

}  // namespace dcnas::sim::cost
