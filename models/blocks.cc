#include "models/blocks.h"

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

}  // namespace dcnas::models
