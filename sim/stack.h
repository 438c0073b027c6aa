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
// filter, which multiplies the MACs by the group count (XLA's grouped-convolution rewrite).
enum class GroupedMapping : uint8_t { kPacked, kExpanded };

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
