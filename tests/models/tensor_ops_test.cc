// The tensor ops of models/op.h (matmul, layer norm, transpose, constant, slice, pad, expand,
// gather, concat on any axis, broadcasting add/mul): shapes, counts, refusals, JSON round trip.
#include <catch2/catch.hpp>

#include "common/errors.h"
#include "models/builder.h"
#include "models/counts.h"
#include "models/graph_json.h"

using namespace dcnas;
using namespace dcnas::models;

namespace {
GraphBuilder Tokens(int batch, int64_t tokens, int64_t dim) {
  GraphBuilder b(GraphInfo{"t", 0, batch, DType::kFp32, 10});
  b.Input(1, tokens, dim);
  return b;
}
}  // namespace

TEST_CASE("matmul: batched shapes, broadcast batch axes, transposed second operand", "[tensor]") {
  GraphBuilder b = Tokens(2, 5, 8);
  const int q = b.Reshape4(0, Shape{2, 1, 5, 8});
  const int k = b.Constant(Shape{1, 1, 8, 3}, false);
  const int s = b.MatMul(q, k);
  CHECK(b.type(s).shape == Shape{2, 1, 5, 3});
  const OpCounts c = CountOp(b.graph(), b.graph().op(s));
  CHECK(c.macs == 2 * 5 * 8 * 3);
  CHECK(c.params == 0);
  CHECK(c.flops == 2 * c.macs);
  // Q x K^T with K stored [.., T, d]: the product is [.., T, T].
  const int kt = b.MatMul(q, q, true);
  CHECK(b.type(kt).shape == Shape{2, 1, 5, 5});
  CHECK(CountOp(b.graph(), b.graph().op(kt)).macs == 2 * 5 * 5 * 8);
  CHECK_THROWS_WITH(b.MatMul(q, q), Catch::Contains("equal to the second's w"));
  const int other = b.Constant(Shape{3, 1, 8, 2}, false);
  CHECK_THROWS_WITH(b.MatMul(q, other), Catch::Contains("batch axes"));
}

TEST_CASE("layer norm, constants and broadcasting", "[tensor]") {
  GraphBuilder b = Tokens(2, 5, 8);
  const int ln = b.LayerNorm(0);
  CHECK(b.type(ln).shape == Shape{2, 1, 5, 8});
  CHECK(CountOp(b.graph(), b.graph().op(ln)).params == 16);
  CHECK(CountOp(b.graph(), b.graph().op(b.LayerNorm(0, false))).params == 8);
  const int pos = b.Constant(Shape{1, 1, 5, 8});  // learned: a position embedding
  CHECK(CountOp(b.graph(), b.graph().op(pos)).params == 40);
  const int mask = b.Constant(Shape{1, 1, 5, 8}, false);
  CHECK(CountOp(b.graph(), b.graph().op(mask)).params == 0);
  CHECK(b.type(b.Add(0, pos)).shape == Shape{2, 1, 5, 8});
  const int scale = b.Constant(Shape{1, 1, 1, 8});
  CHECK(b.type(b.Mul(scale, 0)).shape == Shape{2, 1, 5, 8});
  const int wrong = b.Constant(Shape{1, 1, 4, 8});
  CHECK_THROWS_WITH(b.Add(0, wrong), Catch::Contains("broadcast"));
  // A linear layer on tokens.
  const int fc = b.FullyConnected(0, 12, true);
  CHECK(b.type(fc).shape == Shape{2, 1, 5, 12});
  CHECK(CountOp(b.graph(), b.graph().op(fc)).macs == 2 * 5 * 8 * 12);
}

TEST_CASE("transpose, slice, pad, expand, gather and concat on an axis", "[tensor]") {
  GraphBuilder b(GraphInfo{"t", 0, 1, DType::kFp32, 10});
  const int x = b.Input(6, 4, 3);
  const int t = b.Transpose(x, {0, 2, 1, 3});
  CHECK(b.type(t).shape == Shape{1, 4, 6, 3});
  const OpCounts tc = CountOp(b.graph(), b.graph().op(t));
  CHECK(tc.bytes_read_input == tc.bytes_written);
  CHECK_THROWS_WITH(b.Transpose(x, {0, 1, 1, 3}), Catch::Contains("permutation"));
  const int s = b.Slice(x, Shape{1, 3, 2, 3}, {0, 0, 1, 0}, {1, 2, 2, 1});
  CHECK(b.type(s).shape == Shape{1, 3, 2, 3});
  CHECK(CountOp(b.graph(), b.graph().op(s)).bytes_read_input == 1 * 3 * 2 * 3 * 4);
  CHECK_THROWS_WITH(b.Slice(x, Shape{1, 4, 2, 3}, {0, 0, 0, 0}, {1, 2, 1, 1}),
                    Catch::Contains("leaves axis 1"));
  CHECK(b.type(b.Pad(x, Padding{false, 1, 0, 2, 1})).shape == Shape{1, 7, 7, 3});
  const int one = b.Constant(Shape{1, 1, 1, 3});
  CHECK(b.type(b.Expand(one, Shape{2, 6, 4, 3})).shape == Shape{2, 6, 4, 3});
  CHECK_THROWS_WITH(b.Expand(x, Shape{1, 6, 8, 3}), Catch::Contains("size 1 or equal"));
  const int table = b.Constant(Shape{1, 1, 169, 3});
  CHECK(b.type(b.Gather(table, Shape{1, 1, 49, 3})).shape == Shape{1, 1, 49, 3});
  CHECK_THROWS_WITH(b.Gather(table, Shape{1, 1, 49, 4}), Catch::Contains("whole rows"));
  CHECK(b.type(b.ConcatAxis({x, x}, 1)).shape == Shape{1, 12, 4, 3});
  CHECK_THROWS_WITH(b.ConcatAxis({x, s}, 3), Catch::Contains("but axis 3"));
}

TEST_CASE("tensor ops survive a JSON round trip", "[tensor]") {
  GraphBuilder b = Tokens(1, 5, 8);
  const int q = b.Reshape4(0, Shape{1, 1, 5, 8});
  const int kt = b.MatMul(q, q, true);
  const int sm = b.Softmax(kt);
  const int ln = b.LayerNorm(b.MatMul(sm, q));
  const int t = b.Transpose(ln, {0, 2, 1, 3});
  const int cls = b.Constant(Shape{1, 1, 1, 8});
  const int cat = b.ConcatAxis({cls, b.Transpose(t, {0, 2, 1, 3})}, 2);
  const int sl = b.Slice(cat, Shape{1, 1, 1, 8}, {0, 0, 0, 0}, {1, 1, 1, 1});
  b.FullyConnected(b.Expand(sl, Shape{1, 1, 1, 8}), 10);
  const Graph g = b.Finish();
  const Graph back = GraphFromJsonString(GraphToJsonString(g), "round trip");
  CHECK(back == g);
  CHECK(CountGraph(back).params == CountGraph(g).params);
}
