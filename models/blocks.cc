#include "models/blocks.h"

#include <string>
#include <vector>

#include "common/errors.h"

namespace dcnas::models {

int SqueezeExcite(GraphBuilder& b, int x, int64_t reduced, Activation activation, Activation gate) {
  GraphBuilder::ConvOptions with_bias;
  with_bias.bias = true;
  int s = b.GlobalPool(x, PoolMode::kAvg);
  s = b.Act(b.Conv(s, reduced, 1, with_bias), activation);
  s = b.Act(b.Conv(s, b.channels(x), 1, with_bias), gate);
  return b.Mul(x, s);
}

int LearnedSpaceToDepth(GraphBuilder& b, int x, int64_t out_channels, Activation activation) {
  GraphBuilder::ConvOptions options;
  options.stride = 2;
  return b.ConvBnAct(x, out_channels, 2, options, activation);
}

int ResidualShortcut(GraphBuilder& b, int x, int64_t out_channels, int stride, Shortcut kind) {
  if (stride == 1 && b.channels(x) == out_channels) return x;
  switch (kind) {
    case Shortcut::kConv:
      return b.ConvBn(x, out_channels, 1, TorchConv(1, stride));
    case Shortcut::kAvgPoolConv: {
      // AvgPool2d(kernel = stride, stride, ceil_mode = True): TF SAME padding gives the same
      // output size (ceil(in / stride)) and keeps the size when proxy scaling drops the stride.
      const int pooled = b.Pool(x, PoolMode::kAvg, stride, stride, Padding::Same());
      return b.ConvBn(pooled, out_channels, 1, TorchConv(1));
    }
  }
  throw InternalError("unknown shortcut kind");
}

int ResidualBottleneck(GraphBuilder& b, int x, const BottleneckSpec& spec) {
  int y = b.ConvBnAct(x, spec.width, 1, TorchConv(1), Activation::kRelu);
  y = b.ConvBnAct(y, spec.width, 3, TorchConv(3, spec.stride, spec.groups), Activation::kRelu);
  if (spec.se_reduced > 0 && spec.se_position == SePosition::kAfterConv2) {
    y = SqueezeExcite(b, y, spec.se_reduced, Activation::kRelu);
  }
  y = b.ConvBn(y, spec.out_channels, 1, TorchConv(1));
  if (spec.se_reduced > 0 && spec.se_position == SePosition::kAfterConv3) {
    y = SqueezeExcite(b, y, spec.se_reduced, Activation::kRelu);
  }
  const int shortcut = ResidualShortcut(b, x, spec.out_channels, spec.stride, spec.shortcut);
  return b.Act(b.Add(y, shortcut), Activation::kRelu);
}

int SplitAttentionConv(GraphBuilder& b, int x, const SplitAttentionSpec& spec) {
  const int radix = spec.radix;
  if (radix < 1 || radix > 2) {
    throw InputError("split attention radix " + std::to_string(radix) +
                     " is not expressible: the layer graph has no channel-split op, and only "
                     "radix 1 (sigmoid gate) and radix 2 (softmax as a sigmoid of the logit "
                     "difference) avoid one");
  }
  if (spec.reduce_channels % radix != 0) {
    throw InputError("split attention: reduce_channels " + std::to_string(spec.reduce_channels) +
                     " not divisible by radix " + std::to_string(radix));
  }
  std::vector<int> branches;
  for (int r = 0; r < radix; ++r) {
    const int u = b.ConvBnAct(x, spec.reduce_channels / radix, 1, TorchConv(1), Activation::kRelu);
    branches.push_back(b.ConvBnAct(u, spec.channels, spec.kernel,
                                   TorchConv(spec.kernel, spec.stride, spec.cardinality),
                                   Activation::kRelu));
  }
  const int summed = radix == 1 ? branches[0] : b.Add(branches[0], branches[1]);
  int h = b.GlobalPool(summed, PoolMode::kAvg);
  h = b.Conv(h, spec.inter_channels, 1, TorchConv(1, 1, spec.cardinality, /*bias=*/true));
  h = b.Act(b.BatchNorm(h), Activation::kRelu);
  std::vector<int> weighted;
  for (int r = 0; r < radix; ++r) {
    const int logits =
        b.Conv(h, spec.channels, 1, TorchConv(1, 1, spec.cardinality, /*bias=*/true));
    weighted.push_back(
        b.Mul(branches[static_cast<size_t>(r)], b.Act(logits, Activation::kSigmoid)));
  }
  return radix == 1 ? weighted[0] : b.Add(weighted[0], weighted[1]);
}

int SplitAttentionBottleneck(GraphBuilder& b, int x, const SplitAttentionBottleneckSpec& spec) {
  SplitAttentionSpec attention = spec.attention;
  attention.stride = spec.avd ? 1 : spec.stride;
  int y = SplitAttentionConv(b, x, attention);
  if (spec.avd) y = b.Pool(y, PoolMode::kAvg, 3, spec.stride, Padding::Symmetric(1));
  y = b.ConvBn(y, spec.out_channels, 1, TorchConv(1));
  const int shortcut = ResidualShortcut(b, x, spec.out_channels, spec.stride, spec.shortcut);
  return b.Act(b.Add(y, shortcut), Activation::kRelu);
}

int InvertedResidual(GraphBuilder& b, int x, const InvertedResidualSpec& spec) {
  const int64_t in_channels = b.channels(x);
  const int k = spec.kernel;
  int y = x;
  if (spec.fused) {
    if (spec.expanded == in_channels) {
      y = b.ConvBnAct(x, spec.out_channels, k, TorchConv(k, spec.stride), spec.activation);
    } else {
      y = b.ConvBnAct(x, spec.expanded, k, TorchConv(k, spec.stride), spec.activation);
      if (spec.se_reduced > 0) {
        y = SqueezeExcite(b, y, spec.se_reduced, spec.se_activation, spec.se_gate);
      }
      y = b.ConvBn(y, spec.out_channels, 1, TorchConv(1));
    }
  } else {
    if (spec.expanded != in_channels) {
      y = b.ConvBnAct(x, spec.expanded, 1, TorchConv(1), spec.activation);
    }
    y = b.DepthwiseConv(y, k, spec.stride, Padding::Symmetric((k - 1) / 2));
    y = b.Act(b.BatchNorm(y), spec.activation);
    if (spec.se_reduced > 0) {
      y = SqueezeExcite(b, y, spec.se_reduced, spec.se_activation, spec.se_gate);
    }
    y = b.ConvBn(y, spec.out_channels, 1, TorchConv(1));
  }
  if (spec.skip && spec.stride == 1 && in_channels == spec.out_channels) y = b.Add(y, x);
  return y;
}

}  // namespace dcnas::models
