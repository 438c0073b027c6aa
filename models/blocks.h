// Composite blocks, always built from primitive ops (never opaque): squeeze-excite, residual
// bottlenecks, grouped bottlenecks and split attention. MBConv and Fused-MBConv live with the
// block strings (models/block_string.h) because their shape follows the reference code's args;
// InvertedResidual below is the torchvision form (explicit padding) the comparison families use.
#pragma once

#include <cstdint>

#include "models/builder.h"

namespace dcnas::models {

// Squeeze-excite: global average pool -> 1x1 conv (bias) to `reduced` -> activation -> 1x1 conv
// (bias) back -> gate -> broadcast multiply with x.
int SqueezeExcite(GraphBuilder& b, int x, int64_t reduced, Activation activation,
                  Activation gate = Activation::kSigmoid);

// Learned space-to-depth as the EfficientNet-X code does it: a 2x2 stride-2 convolution (no bias,
// SAME padding) to `out_channels`, then BN and activation.
int LearnedSpaceToDepth(GraphBuilder& b, int x, int64_t out_channels, Activation activation);

// The blocks below use PyTorch's explicit symmetric padding ((k - 1) / 2 for a k x k window), as
// torchvision, pycls, timm and the ResNeSt code do.

// How a residual block's shortcut changes shape when its input and output differ (stride != 1 or
// channel counts differ).
enum class Shortcut : uint8_t {
  kConv,         // 1x1 convolution with the block's stride, then BN (ResNet, ResNeXt, RegNet)
  kAvgPoolConv,  // avg pool (kernel = stride) then 1x1 convolution and BN ("avg down", ResNet-D)
};

// Projects `x` to `out_channels` at `stride` as `kind` says; returns `x` itself when the shapes
// already match.
int ResidualShortcut(GraphBuilder& b, int x, int64_t out_channels, int stride, Shortcut kind);

// Where a bottleneck's squeeze-excite sits.
enum class SePosition : uint8_t {
  kAfterConv2,  // on the k x k conv's output (RegNetY; pycls BottleneckTransform)
  kAfterConv3,  // on the block's output before the residual add (SE-ResNet, SE-ResNeXt)
};

// Residual bottleneck (ResNet v1.5, ResNeXt, SE-ResNeXt, RegNet X/Y): 1x1 conv to `width` + BN +
// ReLU, 3x3 conv with `stride` and `groups` + BN + ReLU, optional squeeze-excite, 1x1 conv to
// `out_channels` + BN, shortcut, add, ReLU. Dense (groups 1) is the ResNet bottleneck, grouped
// (groups > 1) the ResNeXt / RegNet one.
struct BottleneckSpec {
  int64_t width = 64;
  int64_t out_channels = 256;
  int stride = 1;
  int groups = 1;
  int64_t se_reduced = 0;  // squeeze-excite width; 0 = no squeeze-excite
  SePosition se_position = SePosition::kAfterConv3;
  Shortcut shortcut = Shortcut::kConv;
};
int ResidualBottleneck(GraphBuilder& b, int x, const BottleneckSpec& spec);

// Split attention (ResNeSt, Zhang et al. 2020; resnest/torch/models/splat.py SplAtConv2d) together
// with the bottleneck's 1x1 reduce convolution that feeds it.
//
// The reference computes, for radix R and cardinality K:
//   u = ReLU(BN(conv1x1(x)))                          (group_width channels)
//   v = ReLU(BN(conv3x3(u, groups = K * R)))          (R * channels, radix-major)
//   split v into R parts v_r; g = GAP(sum_r v_r)
//   a = rSoftMax(fc2(ReLU(BN(fc1(g)))))               (softmax over the R parts of each channel)
//   out = sum_r a_r * v_r
// The layer graph has no channel-split op, so the R radix groups are kept as R branches from the
// start: the 1x1 reduce conv becomes R convs of group_width / R channels each (exactly the
// channel ranges the grouped 3x3 conv reads for each radix), each branch has its own k x k conv
// (groups = K) with BN and ReLU, and fc2 becomes R 1x1 convs of `channels` each. Parameters and
// MACs equal the reference's op for op. The radix softmax is exact for R = 2: softmax over two
// logits is sigmoid(z_0 - z_1), and z_0 - z_1 is itself affine in fc1's output, so branch r's
// fc2 conv carries W_r - W_other and a sigmoid gate gives exactly a_r. R = 1 is the reference's
// sigmoid gate. Trained from scratch the R gate convs are independent, a superset of the
// reference's function. R > 2 needs a channel split (or a softmax across tensors) and is rejected.
struct SplitAttentionSpec {
  int64_t reduce_channels = 128;  // the 1x1 reduce conv's width (ResNeSt group_width)
  int64_t channels = 128;         // channels per radix group after the k x k conv
  int radix = 2;
  int cardinality = 1;
  int64_t inter_channels = 64;  // fc1 width: max(reduce_channels * radix / 4, 32) in ResNeSt
  int kernel = 3;
  int stride = 1;
};
int SplitAttentionConv(GraphBuilder& b, int x, const SplitAttentionSpec& spec);

// ResNeSt bottleneck: split attention, then (when `avd`) a 3x3 stride-`stride` average pool in
// place of the strided convolution, 1x1 conv to `out_channels` + BN, shortcut, add, ReLU.
struct SplitAttentionBottleneckSpec {
  SplitAttentionSpec attention;  // attention.stride is ignored when avd is set
  int64_t out_channels = 256;
  int stride = 1;
  bool avd = true;
  Shortcut shortcut = Shortcut::kAvgPoolConv;
};
int SplitAttentionBottleneck(GraphBuilder& b, int x, const SplitAttentionBottleneckSpec& spec);

// Inverted residual as torchvision builds it (MobileNetV2/V3, MnasNet, EfficientNetV2 MBConv and
// Fused-MBConv): optional 1x1 expand conv + BN + act (when expanded != input channels), k x k
// depthwise conv + BN + act, optional squeeze-excite, 1x1 project conv + BN, identity skip when
// the stride is 1 and input and output channels match. Fused: one k x k dense conv + BN + act
// replaces expand + depthwise; with expanded == input channels the fused block is that single
// conv straight to out_channels (+ BN + act) with no projection.
struct InvertedResidualSpec {
  int64_t expanded = 0;
  int64_t out_channels = 0;
  int kernel = 3;
  int stride = 1;
  Activation activation = Activation::kRelu6;
  int64_t se_reduced = 0;  // 0 = no squeeze-excite
  Activation se_activation = Activation::kRelu;
  Activation se_gate = Activation::kSigmoid;
  bool fused = false;
  bool skip = true;
};
int InvertedResidual(GraphBuilder& b, int x, const InvertedResidualSpec& spec);

}  // namespace dcnas::models
