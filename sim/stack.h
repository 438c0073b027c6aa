// StackProfile: the software stack, read from data/stacks/NAME.yaml: which ops fuse into their
// producers, per-kernel launch/dispatch overhead, which unit runs depthwise convolutions, and the
// layout/alignment rules of the matrix-unit kernels. sim/README.md documents every field.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "models/op.h"
#include "sim/config_tree.h"

namespace dcnas::sim {

enum class ExecUnit : uint8_t { kMatrix, kVector };
// What a tensor-core kernel does with channel counts that are not a multiple of the alignment:
// pad them (and waste the padded MACs), or fall back to CUDA-core (vector unit) kernels.
enum class UnalignedPolicy : uint8_t { kPad, kFallback };
// How grouped (not depthwise) convolutions map onto the matrix unit: groups packed side by side /
// run as separate GEMMs, or expanded to one dense convolution with a block-diagonal (zero-masked)
// filter, which multiplies the MACs by the group count (XLA's grouped-convolution rewrite), or
// one kernel per group run one after the other (each group's GEMM has the whole chip to itself
// and pays its own launch: the legacy group loop of cuDNN/TensorRT grouped convolutions).
enum class GroupedMapping : uint8_t { kPacked, kExpanded, kPerGroup };

struct StackProfile {
  std::string name;
  std::string description;
  std::string file;
  std::vector<Override> overrides;

  double kernel_overhead_us = 0;  // launch/dispatch cost per kernel (fused group)
  // Fusion rules: which consumers fuse into their producer's kernel.
  bool fuse_batch_norm = false;
  bool fuse_bias = false;
  uint32_t fused_activations = 0;  // bit (1 << Activation)
  bool fuse_residual_add = false;
  bool fuse_se_multiply = false;         // SE scale multiply fused into the consuming 1x1 conv
  bool fuse_elementwise_chains = false;  // standalone elementwise ops fuse with each other
  int max_group_ops = 1;                 // longest fused group
  ExecUnit depthwise_unit = ExecUnit::kVector;
  ExecUnit grouped_conv_unit = ExecUnit::kMatrix;
  GroupedMapping grouped_conv_mapping = GroupedMapping::kPacked;
  std::string layout = "nhwc";  // informational: nhwc or nchw
  // Alignment of K and N (channels) for the matrix unit, per dtype (0: no rule).
  int alignment_fp32 = 0;
  int alignment_fp16 = 0;
  int alignment_bf16 = 0;
  int alignment_int8 = 0;
  UnalignedPolicy unaligned = UnalignedPolicy::kPad;
  // GEMM kernel selection on GPUs (sim/cost/matrix_unit.h): the smallest thread-block tile edge
  // the library offers (0: always the accelerator's tile), whether it splits K over idle SMs,
  // and whether CUDA-core (vector-unit) convolutions run as tiled GEMMs with the same tiles and
  // waves (false: streamed at the vector rate with no quantisation).
  int gemm_min_tile = 0;
  bool gemm_split_k = false;
  bool gemm_tiled_cuda_cores = false;
  // Winograd F(m x m, 3 x 3) for 3x3 stride-1 dense convolutions on CUDA cores: output tile m
  // (0: off). (m+2)^2 batched GEMMs of N*ceil(Ho/m)*ceil(Wo/m) x Cin x Cout replace the direct
  // GEMM, 9m^2/(m+2)^2 times fewer MACs (2.25x for m = 2, 4x for m = 4).
  int winograd_tile = 0;
  uint64_t fingerprint = 0;

  bool FusesActivation(models::Activation a) const {
    return (fused_activations >> static_cast<int>(a)) & 1U;
  }
  int Alignment(models::DType dtype) const;
};

std::vector<std::string> StackNames();
StackProfile LoadStack(const std::string& name_or_path,
                       const std::vector<Override>& overrides = {});
StackProfile ParseStack(const YAML::Node& root, const std::string& file);

// The default stack for an accelerator kind: tpu -> xla-tpu, gpu -> tensorrt, cpu -> libtorch-cpu.
std::string DefaultStackFor(const std::string& accelerator_kind);

}  // namespace dcnas::sim
