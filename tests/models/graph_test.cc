#include "models/graph.h"

#include <catch2/catch.hpp>

#include "common/errors.h"
#include "models/builder.h"

namespace dcnas::models {

TEST_CASE("builder infers shapes with TF SAME and explicit padding", "[graph]") {
  GraphBuilder b(GraphInfo{"t", 0, 2, DType::kFp16, 10});
  int x = b.Input(225, 225, 3);
  GraphBuilder::ConvOptions o;
  o.stride = 2;
  const int same = b.Conv(x, 16, 3, o);
  CHECK(b.type(same).shape == Shape{2, 113, 113, 16});
  CHECK(b.type(same).dtype == DType::kFp16);
  o.padding = Padding::Symmetric(0);
  const int valid = b.Conv(x, 16, 3, o);
  CHECK(b.type(valid).shape == Shape{2, 112, 112, 16});
  GraphBuilder::ConvOptions dilated;
  dilated.dilation = 2;
  dilated.padding = Padding::Symmetric(2);
  CHECK(b.type(b.Conv(x, 4, 3, dilated)).shape == Shape{2, 225, 225, 4});
}

TEST_CASE("TF SAME padding puts the extra row at the bottom", "[graph]") {
  OpAttrs a;
  a.kernel_h = a.kernel_w = 2;
  a.padding = Padding::Same();
  const ResolvedPadding p = ResolvePadding(a, 56, 56);
  CHECK(p.top == 0);
  CHECK(p.bottom == 1);
  a.kernel_h = a.kernel_w = 3;
  a.stride_h = a.stride_w = 2;
  const ResolvedPadding q = ResolvePadding(a, 224, 224);
  CHECK(q.top == 0);
  CHECK(q.bottom == 1);
}

TEST_CASE("shape errors name the op, its inputs and the rule", "[graph]") {
  GraphBuilder b(GraphInfo{"t", 0, 1, DType::kFp32, 10});
  const int x = b.Input(8, 8, 6);
  const int y = b.Conv(x, 4, 1);
  try {
    b.Add(x, y);
    FAIL("expected an InputError");
  } catch (const InputError& e) {
    const std::string m = e.what();
    CHECK(m.find("add") != std::string::npos);
    CHECK(m.find("1x8x8x6") != std::string::npos);
    CHECK(m.find("1x8x8x4") != std::string::npos);
    CHECK(m.find("equal shapes") != std::string::npos);
  }
  GraphBuilder::ConvOptions grouped;
  grouped.groups = 4;
  CHECK_THROWS_WITH(b.Conv(x, 8, 3, grouped), Catch::Contains("not divisible by groups"));
  // A fully connected layer applies to c at every position (a linear layer on tokens).
  CHECK(b.type(b.FullyConnected(x, 10)).shape == Shape{1, 8, 8, 10});
  CHECK_THROWS_WITH(b.SpaceToDepth(b.Conv(x, 4, 3, 3), 2), Catch::Contains("not divisible"));
  CHECK_THROWS_WITH(b.Reshape(x, 2, 2, 2), Catch::Contains("changes the element count"));
}

TEST_CASE("layout ops: space-to-depth, space-to-batch, batch-to-space, concat", "[graph]") {
  GraphBuilder b(GraphInfo{"t", 0, 2, DType::kFp32, 10});
  const int x = b.Input(8, 8, 3);
  CHECK(b.type(b.SpaceToDepth(x, 2)).shape == Shape{2, 4, 4, 12});
  const int s2b = b.SpaceToBatch(x, 2);
  CHECK(b.type(s2b).shape == Shape{8, 4, 4, 3});
  CHECK(b.type(b.BatchToSpace(s2b, 2)).shape == Shape{2, 8, 8, 3});
  CHECK(b.type(b.Concat({x, x, x})).shape == Shape{2, 8, 8, 9});
  CHECK(b.type(b.Flatten(x)).shape == Shape{2, 1, 1, 192});
  const int pooled = b.GlobalPool(x);
  CHECK(b.type(b.Mul(x, pooled)).shape == Shape{2, 8, 8, 3});
}

TEST_CASE("consumers, outputs and topological order", "[graph]") {
  GraphBuilder b(GraphInfo{"t", 0, 1, DType::kFp32, 10});
  const int x = b.Input(4, 4, 8);
  const int c = b.Conv(x, 8, 3);
  const int a = b.Add(c, x);
  const Graph g = b.Finish();
  CHECK(g.Consumers(x) == std::vector<int>{c, a});
  CHECK(g.Outputs() == std::vector<int>{a});
  CHECK(g.Inputs() == std::vector<int>{x});
  const auto order = g.TopologicalOrder();
  REQUIRE(order.size() == 3);
  CHECK(order.front() == x);
  CHECK(order.back() == a);
}

TEST_CASE("a cycle is reported with an op on it", "[graph]") {
  Graph g;
  Op in;
  in.id = 0;
  in.kind = OpKind::kInput;
  in.name = "in";
  in.attrs.input_type = TensorType{Shape{1, 4, 4, 4}, DType::kFp32};
  g.AddUncheckedOp(in);
  Op a;
  a.id = 1;
  a.kind = OpKind::kAdd;
  a.name = "a";
  a.inputs = {0, 2};
  g.AddUncheckedOp(a);
  Op r;
  r.id = 2;
  r.kind = OpKind::kActivation;
  r.name = "r";
  r.inputs = {1};
  g.AddUncheckedOp(r);
  CHECK_THROWS_WITH(g.Finalize(), Catch::Contains("cycle"));
}

TEST_CASE("ops may not refer to ops that come later when built", "[graph]") {
  Graph g;
  Op r;
  r.kind = OpKind::kActivation;
  r.inputs = {3};
  CHECK_THROWS_AS(g.AddOp(r), InputError);
}

}  // namespace dcnas::models
