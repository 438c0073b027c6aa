// Composite blocks, always built from primitive ops (never opaque): squeeze-excite, residual
// bottlenecks, grouped bottlenecks and split attention. MBConv and Fused-MBConv live with the
// block strings (models/block_string.h) because their shape follows the reference code's args.
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

}  // namespace dcnas::models
