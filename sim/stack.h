// StackProfile: the software stack, read from data/stacks/NAME.yaml: which ops fuse into their
// producers, per-kernel launch/dispatch overhead, which unit runs depthwise convolutions, and the
// layout/alignment rules of the matrix-unit kernels. sim/README.md documents every field.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common/override.h"
#include "common/yaml_fwd.h"
#include "models/op.h"
#include "sim/cost/types.h"

namespace dcnas::sim {

using cost::ExecUnit;
using cost::GroupedMapping;
using cost::LayoutTransposes;
using cost::UnalignedPolicy;

// The software stack: fusion rules, launch overhead, layout and alignment, plus the kernel
// mapping rules of cost::KernelRules (depthwise and grouped-conv units, GEMM kernel selection,
// Winograd).
struct StackProfile : cost::KernelRules {
  std::string name;
  std::string description;
  std::string file;
  std::vector<Override> overrides;

  double kernel_overhead_us = 0;  // launch/dispatch cost per kernel (fused group)
  // The host issues kernels asynchronously into the device's queue: kernel_overhead_us is the
  // host's issue interval, and a kernel starts when the host has issued it and the previous one
  // has finished, so the overhead shows only where kernels are shorter than it
  // (cost::QueueLaunches). false: every kernel pays its overhead in full, serially.
  bool async_launch = false;
  // Fusion rules: which consumers fuse into their producer's kernel.
  bool fuse_batch_norm = false;
  bool fuse_bias = false;
  uint32_t fused_activations = 0;  // bit (1 << Activation)
  bool fuse_residual_add = false;
  bool fuse_se_multiply = false;         // SE scale multiply fused into the consuming 1x1 conv
  bool fuse_elementwise_chains = false;  // standalone elementwise ops fuse with each other
  // Attention in one kernel: scores = Q x K^T, its scale and softmax, and the product with V
  // fuse into one group (the score matrix stays on chip when it fits).
  bool fuse_attention = false;
  int max_group_ops = 1;        // longest fused group
  std::string layout = "nhwc";  // informational: nhwc or nchw
  // Training steps (sim/train_step.h): the fraction of the backward pass under which the
  // gradient all-reduce can run (0: it starts after backward; 1: fully overlapped, bucketed).
  double allreduce_overlap = 0;
  // Training steps: backward recomputes the outputs of elementwise chains (batch norm, bias,
  // activation) from their input instead of keeping them (XLA's rematerialisation of cheap ops).
  bool rematerialize_elementwise = false;
  // Alignment of K and N (channels) for the matrix unit, per dtype (0: no rule).
  int alignment_fp32 = 0;
  int alignment_fp16 = 0;
  int alignment_bf16 = 0;
  int alignment_int8 = 0;
  uint64_t fingerprint = 0;

  // Whether activation `a` fuses into its producer's kernel.
  bool FusesActivation(models::Activation a) const {
    return (fused_activations >> static_cast<int>(a)) & 1U;
  }
  // The K and N alignment of matrix-unit kernels for `dtype` (0: no rule).
  int Alignment(models::DType dtype) const;
};

// Names of the shipped stacks (data/stacks/*.yaml), sorted.
std::vector<std::string> StackNames();
// Loads data/stacks/NAME.yaml or a path, applies overrides, validates (InputError naming file
// and key).
StackProfile LoadStack(const std::string& name_or_path,
                       const std::vector<Override>& overrides = {});
// Parses an already resolved YAML tree; first adds the optional keys it leaves out, with their
// defaults, to `root` (a handle: the caller's tree).
StackProfile ParseStack(YAML::Node root, const std::string& file);

// The stack as it runs tensors in `layout` (nhwc or nchw; InputError otherwise): in nhwc, no
// layout transposes (nchw_conv_transposes: none), whatever the stack's own layout. For
// measurements that record the layout they ran in (calibrate/sim_model.h).
StackProfile StackInLayout(const StackProfile& stack, const std::string& layout);

// The default stack for an accelerator kind: tpu -> xla-tpu, gpu -> tensorrt, cpu -> libtorch-cpu.
std::string DefaultStackFor(const std::string& accelerator_kind);

}  // namespace dcnas::sim
