// Helpers shared by the simulator tests.
#pragma once

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>

#include "models/builder.h"
#include "sim/engine.h"
#include "sim/train_step.h"

namespace dcnas::sim::testing {

// A scratch directory with YAML files written by the test.
class TempDir {
 public:
  TempDir() {
    path_ = std::filesystem::temp_directory_path() /
            ("dcnas_sim_test_" + std::to_string(reinterpret_cast<uintptr_t>(this)) + "_" +
             std::to_string(std::rand()));
    std::filesystem::create_directories(path_);
  }
  ~TempDir() { std::filesystem::remove_all(path_); }
  std::string Write(const std::string& name, const std::string& text) const {
    const auto p = path_ / name;
    std::ofstream(p) << text;
    return p.string();
  }
  std::string path() const { return path_.string(); }

 private:
  std::filesystem::path path_;
};

// A TPU-v3-like chip built in code (the closed-form tests state their expectations from these
// numbers, not from data/accelerators): 2 cores x 2 MXUs of 128x128 at 0.94 GHz (bf16 in one pass,
// fp32 in three), 1024 vector lanes per core at one op per cycle and 128 transcendentals per
// cycle, 900 GB/s HBM, 16 MiB of VMEM per core at 9000 GB/s holding tensors.
inline AcceleratorSpec SystolicTestChip() {
  AcceleratorSpec s;
  s.name = "test-systolic";
  s.kind = "tpu";
  s.clock_ghz = 0.94;
  s.cores = 2;
  s.matrix_unit.kind = MatrixKind::kSystolic;
  s.matrix_unit.rows = 128;
  s.matrix_unit.cols = 128;
  s.matrix_unit.units_per_core = 2;
  s.matrix_unit.macs_per_cycle[DTypeIndex(models::DType::kBf16)] = 128.0 * 128;
  s.matrix_unit.macs_per_cycle[DTypeIndex(models::DType::kFp32)] = 128.0 * 128 / 3;
  s.vector_unit.lanes = 1024;
  s.vector_unit.ops_per_lane_per_cycle[DTypeIndex(models::DType::kFp32)] = 1;
  s.vector_unit.ops_per_lane_per_cycle[DTypeIndex(models::DType::kBf16)] = 1;
  s.vector_unit.transcendentals_per_cycle = 128;
  s.hbm_capacity_gib = 32;
  s.hbm_bandwidth_gbps = 900;
  s.on_chip = {{.name = "vmem",
                .capacity_kib = 16384,
                .bandwidth_gbps = 9000,
                .per_core = true,
                .holds_tensors = true}};
  s.fingerprint = 1;
  return s;
}

// A GPU built in code, V100-like by default: `sms` SMs x 8 tensor cores of 64 fp16 MACs per
// cycle with 128x128x32 thread-block tiles, 64 CUDA cores per SM (fp32: 1 op per cycle, fp16: 2),
// 16 transcendentals per cycle per SM, and a chip-wide L2 holding tensors.
inline AcceleratorSpec TensorCoreTestChip(int sms = 80, double clock_ghz = 1.53,
                                          double hbm_gbps = 900, double l2_kib = 6144,
                                          double l2_gbps = 2500) {
  AcceleratorSpec s;
  s.name = "test-tensor-core";
  s.kind = "gpu";
  s.clock_ghz = clock_ghz;
  s.cores = sms;
  s.matrix_unit.kind = MatrixKind::kTensorCore;
  s.matrix_unit.tile_m = 128;
  s.matrix_unit.tile_n = 128;
  s.matrix_unit.tile_k = 32;
  s.matrix_unit.tiles_per_core = 1;
  s.matrix_unit.units_per_core = 8;
  s.matrix_unit.macs_per_cycle[DTypeIndex(models::DType::kFp16)] = 64;
  s.vector_unit.lanes = 64;
  s.vector_unit.ops_per_lane_per_cycle[DTypeIndex(models::DType::kFp32)] = 1;
  s.vector_unit.ops_per_lane_per_cycle[DTypeIndex(models::DType::kFp16)] = 2;
  s.vector_unit.transcendentals_per_cycle = 16;
  s.hbm_capacity_gib = 16;
  s.hbm_bandwidth_gbps = hbm_gbps;
  s.on_chip = {{.name = "l2",
                .capacity_kib = l2_kib,
                .bandwidth_gbps = l2_gbps,
                .per_core = false,
                .holds_tensors = true}};
  s.fingerprint = 2;
  return s;
}

// A T4-like GPU: 40 SMs at 1.59 GHz, 320 GB/s, 4 MiB of L2 at 1000 GB/s.
inline AcceleratorSpec SmallTensorCoreTestChip() {
  return TensorCoreTestChip(40, 1.59, 320, 4096, 1000);
}

// A compiler-style stack built in code (XLA-like): BN, bias, every activation, residual add and
// SE multiply fused, elementwise chains, groups of up to 16 ops, depthwise and (expanded) grouped
// convolutions on the matrix unit, 2 us per kernel, no alignment rule.
inline StackProfile FusingTestStack() {
  StackProfile s;
  s.name = "test-fusing";
  s.kernel_overhead_us = 2.0;
  s.fuse_batch_norm = true;
  s.fuse_bias = true;
  s.fused_activations = ~0U;
  s.fuse_residual_add = true;
  s.fuse_se_multiply = true;
  s.fuse_elementwise_chains = true;
  s.max_group_ops = 16;
  s.depthwise_unit = ExecUnit::kMatrix;
  s.grouped_conv_unit = ExecUnit::kMatrix;
  s.grouped_conv_mapping = GroupedMapping::kExpanded;
  s.fingerprint = 1;
  return s;
}

// An inference-engine stack built in code (TensorRT-like): conv + BN + bias + relu/relu6 + add
// fused in groups of up to 4, depthwise on CUDA cores, per-group grouped convolutions, K and N
// padded to 8 (fp16, bf16) or 32 (int8), GEMM tiles down to 32 with split-K, tiled CUDA-core
// GEMMs with Winograd F(2x2, 3x3), 3 us per kernel.
inline StackProfile InferenceTestStack() {
  StackProfile s;
  s.name = "test-inference";
  s.kernel_overhead_us = 3.0;
  s.fuse_batch_norm = true;
  s.fuse_bias = true;
  s.fused_activations = (1U << static_cast<int>(models::Activation::kRelu)) |
                        (1U << static_cast<int>(models::Activation::kRelu6));
  s.fuse_residual_add = true;
  s.max_group_ops = 4;
  s.depthwise_unit = ExecUnit::kVector;
  s.grouped_conv_unit = ExecUnit::kMatrix;
  s.grouped_conv_mapping = GroupedMapping::kPerGroup;
  s.alignment_fp16 = 8;
  s.alignment_bf16 = 8;
  s.alignment_int8 = 32;
  s.unaligned = UnalignedPolicy::kPad;
  s.gemm_min_tile = 32;
  s.gemm_split_k = true;
  s.gemm_tiled_cuda_cores = true;
  s.winograd_tile = 2;
  s.fingerprint = 2;
  return s;
}

// An eager stack built in code (PyTorch-eager-like): no fusion, depthwise on CUDA cores, channels
// not a multiple of 8 fall back to CUDA cores, 10 us per kernel.
inline StackProfile EagerTestStack() {
  StackProfile s;
  s.name = "test-eager";
  s.kernel_overhead_us = 10.0;
  s.max_group_ops = 1;
  s.depthwise_unit = ExecUnit::kVector;
  s.grouped_conv_mapping = GroupedMapping::kPacked;
  s.layout = "nchw";
  s.alignment_fp16 = 8;
  s.alignment_bf16 = 8;
  s.unaligned = UnalignedPolicy::kFallback;
  s.fingerprint = 3;
  return s;
}

// The graph info of the one-op test graphs below.
inline models::GraphInfo GraphInfoOf(const char* model, int n, int hw, models::DType dtype) {
  models::GraphInfo info;
  info.model = model;
  info.batch = n;
  info.resolution = hw;
  info.dtype = dtype;
  return info;
}

// input [n, hw, hw, c] -> relu (a memory-bound elementwise kernel).
inline models::Graph ReluGraph(int n, int hw, int c, models::DType dtype) {
  models::GraphBuilder b(GraphInfoOf("relu", n, hw, dtype));
  const int x = b.Input(hw, hw, c);
  b.Act(x, models::Activation::kRelu);
  return b.Finish();
}

// input [n, hw, hw, cin] -> 1x1 conv to cout (optionally + BN + activation).
inline models::Graph ConvGraph(int n, int hw, int cin, int cout, int kernel, models::DType dtype,
                               bool bn_act = false,
                               models::Activation act = models::Activation::kRelu) {
  models::GraphBuilder b(GraphInfoOf("conv", n, hw, dtype));
  const int x = b.Input(hw, hw, cin);
  int y = b.Conv(x, cout, kernel, 1);
  if (bn_act) y = b.Act(b.BatchNorm(y), act);
  (void)y;
  return b.Finish();
}

// input [n, hw, hw, c] -> 3x3 convolution to c channels in `groups` groups.
inline models::Graph GroupedConvGraph(int n, int hw, int c, int groups, models::DType dtype) {
  models::GraphBuilder b(GraphInfoOf("grouped", n, hw, dtype));
  models::GraphBuilder::ConvOptions o;
  o.groups = groups;
  b.Conv(b.Input(hw, hw, c), c, 3, o);
  return b.Finish();
}

// The op of a training step named `name` (throws, naming it, if there is none).
inline const PreparedOp& Named(const TrainGraph& train, const std::string& name) {
  for (size_t i = 0; i < train.names.size(); ++i) {
    if (train.names[i] == name) return train.graph.ops[i];
  }
  throw std::out_of_range("no op named " + name);
}

}  // namespace dcnas::sim::testing
