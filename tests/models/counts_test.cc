#include "models/counts.h"

#include <catch2/catch.hpp>

#include "models/builder.h"

namespace dcnas::models {

TEST_CASE("conv counts: dense, grouped, depthwise, with bias", "[counts]") {
  GraphBuilder b(GraphInfo{"t", 0, 2, DType::kFp16, 10});
  const int x = b.Input(8, 8, 16);
  GraphBuilder::ConvOptions biased;
  biased.bias = true;
  const int dense = b.Conv(x, 32, 3, biased);
  GraphBuilder::ConvOptions grouped;
  grouped.groups = 4;
  const int group = b.Conv(x, 32, 3, grouped);
  const int dw = b.DepthwiseConv(x, 5, 1);
  const Graph g = b.Finish();
  const OpCounts d = CountOp(g, g.op(dense));
  CHECK(d.macs == 2 * 8 * 8 * 32 * (3 * 3 * 16));
  CHECK(d.params == 3 * 3 * 16 * 32 + 32);
  CHECK(d.flops == 2 * d.macs + 2 * 8 * 8 * 32);
  CHECK(d.bytes_read_input == 2 * 8 * 8 * 16 * 2);
  CHECK(d.bytes_read_weights == d.params * 2);
  CHECK(d.bytes_written == 2 * 8 * 8 * 32 * 2);
  const OpCounts gr = CountOp(g, g.op(group));
  CHECK(gr.macs == 2 * 8 * 8 * 32 * (3 * 3 * 4));
  CHECK(gr.params == 3 * 3 * 4 * 32);
  const OpCounts w = CountOp(g, g.op(dw));
  CHECK(w.macs == 2 * 8 * 8 * 16 * 25);
  CHECK(w.params == 25 * 16);
  CHECK(w.intensity_flop_per_byte() ==
        Approx(static_cast<double>(w.flops) / static_cast<double>(w.bytes())));
}

TEST_CASE("elementwise, pooling and dense counts", "[counts]") {
  GraphBuilder b(GraphInfo{"t", 0, 1, DType::kFp32, 10});
  const int x = b.Input(4, 4, 8);
  const int bn = b.BatchNorm(x);
  const int sw = b.Act(bn, Activation::kSwish);
  const int add = b.Add(sw, x);
  const int pool = b.Pool(add, PoolMode::kMax, 2, 2, Padding{});
  const int gp = b.GlobalPool(add);
  const int fc = b.FullyConnected(gp, 10);
  const int s2d = b.SpaceToDepth(x, 2);
  const int flat = b.Flatten(x);
  const Graph g = b.Finish();
  CHECK(CountOp(g, g.op(bn)).params == 16);
  CHECK(CountOp(g, g.op(bn)).flops == 2 * 128);
  CHECK(CountOp(g, g.op(sw)).flops == 5 * 128);
  CHECK(CountOp(g, g.op(sw)).params == 0);
  CHECK(CountOp(g, g.op(add)).flops == 128);
  CHECK(CountOp(g, g.op(add)).bytes_read_input == 2 * 128 * 4);
  CHECK(CountOp(g, g.op(pool)).flops == 2 * 2 * 8 * 4);
  CHECK(CountOp(g, g.op(gp)).flops == 128);
  CHECK(CountOp(g, g.op(fc)).macs == 80);
  CHECK(CountOp(g, g.op(fc)).params == 90);
  CHECK(CountOp(g, g.op(s2d)).flops == 0);
  CHECK(CountOp(g, g.op(s2d)).bytes_written == 128 * 4);
  CHECK(CountOp(g, g.op(flat)).bytes() == 0);
}

TEST_CASE("graph and block totals add up", "[counts]") {
  GraphBuilder b(GraphInfo{"t", 0, 1, DType::kFp32, 10});
  int x = b.Input(8, 8, 3);
  b.SetScope("stem", 0);
  x = b.ConvBnAct(x, 8, 3, {}, Activation::kRelu);
  b.SetScope("head", 1);
  x = b.FullyConnected(b.GlobalPool(x), 10);
  const Graph g = b.Finish();
  const auto blocks = CountBlocks(g);
  REQUIRE(blocks.size() == 2);
  CHECK(blocks[0].block == "stem");
  CHECK(blocks[0].num_ops == 3);
  OpCounts sum = blocks[0].counts;
  sum += blocks[1].counts;
  CHECK(sum == CountGraph(g));
}

}  // namespace dcnas::models
