#include "models/torch/lower.h"

#include <catch2/catch.hpp>

#include <dlfcn.h>

#include "models/builder.h"
#include "models/counts.h"
#include "models/op_kinds.h"
#include "models/torch/measure.h"
#include "models/zoo/zoo.h"

namespace dcnas::models::libtorch {
namespace {

// Lowers `g`, runs it on a random batch of the graph's input shape and checks every op's
// output shape against the inferred one, and the parameter count against CountGraph.
void CheckLowering(const Graph& g) {
  INFO("model " << g.info().model);
  ::torch::manual_seed(0);
  GraphModule module(g);
  CHECK(CountParameters(*module) == CountGraph(g).params);
  const Shape& in = g.op(g.Inputs().at(0)).out.shape;
  module->eval();
  ::torch::NoGradGuard no_grad;
  const std::vector<::torch::Tensor> values = module->ForwardAll(::torch::randn(NchwSizes(in)));
  REQUIRE(values.size() == static_cast<size_t>(g.size()));
  for (const Op& op : g.ops()) {
    INFO("op " << op.id << " " << op.name << " (" << OpKindName(op.kind) << ")");
    CHECK(values[static_cast<size_t>(op.id)].sizes().vec() == NchwSizes(op.out.shape));
  }
  CHECK(module->forward(::torch::randn(NchwSizes(in))).sizes().vec() ==
        NchwSizes(g.op(module->output_id()).out.shape));
}

// An NCHW tensor whose element at NHWC position (n, h, w, c) is its NHWC linear index.
::torch::Tensor NhwcIota(const Shape& s) {
  return ::torch::arange(s.elements(), ::torch::kFloat)
      .reshape({s.n, s.h, s.w, s.c})
      .permute({0, 3, 1, 2})
      .contiguous();
}

TEST_CASE("a graph using every op kind lowers with exact parameters and shapes") {
  GraphBuilder b(GraphInfo{"all-kinds", 12, 2, DType::kFp32, 10});
  int x = b.Input(12, 12, 3);
  GraphBuilder::ConvOptions s2;
  s2.stride = 2;
  x = b.Conv(x, 8, 3, s2);  // conv2d, SAME asymmetric padding
  x = b.BatchNorm(x);
  x = b.Act(x, Activation::kRelu6);
  GraphBuilder::ConvOptions grouped;
  grouped.groups = 2;
  grouped.bias = true;
  const int g1 = b.Conv(x, 8, 3, grouped);  // grouped conv with bias
  const int d1 = b.DepthwiseConv(x, 5, 1);  // depthwise
  x = b.Add(g1, d1);
  x = b.BiasAdd(x);
  x = b.Act(x, Activation::kHardSwish);
  const int se = b.Act(b.Conv(b.GlobalPool(x), 8, 1), Activation::kHardSigmoid);
  x = b.Mul(x, se);                                // broadcast multiply
  x = b.Concat({x, b.Act(x, Activation::kGelu)});  // 16 channels
  x = b.Pool(x, PoolMode::kMax, 3, 2, Padding::Same());
  x = b.Pool(x, PoolMode::kAvg, 3, 1, Padding::Same());
  x = b.SpaceToBatch(x, 3);
  x = b.Act(x, Activation::kSwish);
  x = b.BatchToSpace(x, 3);
  x = b.SpaceToDepth(x, 3);  // 1x1x144
  x = b.Reshape(x, 2, 2, 36);
  x = b.Act(x, Activation::kSigmoid);
  x = b.GlobalPool(x, PoolMode::kMax);
  x = b.Dropout(x, 0.2);
  x = b.FullyConnected(x, 10);
  // Tensor ops: tokens [2, 1, 4, 10] through attention-like products, layer norm, a transposed
  // copy, slices, padding, a broadcast, a gathered table and a concat on the token axis.
  int t = b.Reshape4(b.Expand(x, Shape{2, 1, 4, 10}), Shape{2, 1, 4, 10});
  t = b.Add(t, b.Constant(Shape{1, 1, 4, 10}));  // learned position embedding
  t = b.LayerNorm(t);
  const int scores = b.MatMul(t, t, true);  // [2, 1, 4, 4]
  t = b.MatMul(b.Softmax(scores), t);       // [2, 1, 4, 10]
  t = b.Transpose(t, {0, 2, 1, 3});         // [2, 4, 1, 10]
  t = b.Slice(t, Shape{2, 2, 1, 10}, {0, 1, 0, 0}, {1, 2, 1, 1});
  t = b.Pad(t, Padding{false, 1, 1, 0, 0});  // [2, 4, 1, 10]
  const int table = b.Gather(b.Constant(Shape{1, 1, 3, 10}), Shape{1, 4, 1, 10});
  t = b.Add(t, b.Constant(Shape{1, 4, 1, 10}, false));            // a folded mask
  t = b.ConcatAxis({t, b.Expand(table, Shape{2, 4, 1, 10})}, 1);  // [2, 8, 1, 10]
  b.Softmax(b.FullyConnected(b.GlobalPool(t), 10));
  const Graph g = b.Finish();
  // The test graph covers every op kind.
  std::vector<bool> seen(kNumOpKinds, false);
  for (const Op& op : g.ops()) seen[static_cast<size_t>(op.kind)] = true;
  for (int k = 0; k < kNumOpKinds; ++k) {
    INFO("op kind " << OpKindName(static_cast<OpKind>(k)));
    CHECK(seen[static_cast<size_t>(k)]);
  }
  CheckLowering(g);
  // Softmax output: rows sum to one; logits come from the fully connected layer.
  GraphModule module(g);
  module->eval();
  ::torch::NoGradGuard no_grad;
  const auto y = module->forward(::torch::randn({2, 3, 12, 12}));
  CHECK(::torch::allclose(y.sum(1), ::torch::ones({2, 1, 1})));
  CHECK(module->Logits(::torch::randn({2, 3, 12, 12})).sizes().vec() ==
        std::vector<int64_t>{2, 10});
}

TEST_CASE("explicit and asymmetric paddings, dilation and pooling windows") {
  GraphBuilder b(GraphInfo{"paddings", 15, 1, DType::kFp32, 0});
  const int in = b.Input(15, 14, 4);
  GraphBuilder::ConvOptions o;
  o.padding = Padding{false, 0, 2, 1, 0};
  b.Conv(in, 6, 3, o);
  o = {};
  o.dilation = 2;
  b.Conv(in, 6, 3, o);
  o = {};
  o.stride = 2;
  b.Conv(in, 4, 4, o);  // even kernel, SAME
  b.Pool(in, PoolMode::kAvg, 2, 2, Padding::Same());
  b.Pool(in, PoolMode::kMax, 3, 2, Padding::Symmetric(1));
  b.Pool(in, PoolMode::kAvg, 3, 1, Padding::Symmetric(1));
  b.Pool(in, PoolMode::kAvg, 3, 3, Padding::Symmetric(0));
  CheckLowering(b.Finish());
}

TEST_CASE("SAME average pooling averages over valid elements only") {
  GraphBuilder b(GraphInfo{"avg", 6, 1, DType::kFp32, 0});
  b.Pool(b.Input(6, 6, 2), PoolMode::kAvg, 3, 2, Padding::Same());  // pads bottom/right
  const Graph g = b.Finish();
  GraphModule module(g);
  const auto y = module->forward(::torch::ones({1, 2, 6, 6}));
  CHECK(::torch::allclose(y, ::torch::ones({1, 2, 3, 3})));
  // Max pooling pads with -inf, so an all-negative input never yields a padded zero.
  GraphBuilder m(GraphInfo{"max", 6, 1, DType::kFp32, 0});
  m.Pool(m.Input(6, 6, 1), PoolMode::kMax, 3, 2, Padding::Same());
  GraphModule max_module(m.Finish());
  CHECK(max_module->forward(-::torch::ones({1, 1, 6, 6})).max().item<float>() == -1.0f);
}

TEST_CASE("layout ops follow the graph's NHWC element order") {
  const Shape s{2, 4, 4, 3};
  SECTION("space_to_depth puts the block offset outermost in the channels") {
    GraphBuilder b(GraphInfo{"s2d", 4, 2, DType::kFp32, 0});
    b.SpaceToDepth(b.Input(4, 4, 3), 2);
    GraphModule module(b.Finish());
    const auto y = module->forward(NhwcIota(s));  // [2, 12, 2, 2]
    // out[n, h, w, (bh*2 + bw)*3 + c] = in[n, 2h + bh, 2w + bw, c]
    auto in_index = [&](int64_t n, int64_t h, int64_t w, int64_t c) {
      return static_cast<float>(((n * 4 + h) * 4 + w) * 3 + c);
    };
    CHECK(y[1][0][1][0].item<float>() == in_index(1, 2, 0, 0));
    CHECK(y[0][3 * 3 + 2][1][1].item<float>() == in_index(0, 3, 3, 2));
    CHECK(y[0][1 * 3 + 1][0][1].item<float>() == in_index(0, 0, 3, 1));
  }
  SECTION("space_to_batch puts the block offset outermost in the batch; batch_to_space inverts") {
    GraphBuilder b(GraphInfo{"s2b", 4, 2, DType::kFp32, 0});
    const int x = b.SpaceToBatch(b.Input(4, 4, 3), 2);
    b.BatchToSpace(x, 2);
    const Graph g = b.Finish();
    GraphModule module(g);
    const auto input = NhwcIota(s);
    const auto all = module->ForwardAll(input);
    const auto& batched = all[static_cast<size_t>(x)];  // [8, 3, 2, 2]
    // out[(bh*2 + bw)*N + n, c, h, w] = in[n, c, 2h + bh, 2w + bw]
    CHECK(batched[(1 * 2 + 0) * 2 + 1][2][1][0].item<float>() == input[1][2][3][0].item<float>());
    CHECK(batched[(0 * 2 + 1) * 2 + 0][1][0][1].item<float>() == input[0][1][0][3].item<float>());
    CHECK(::torch::equal(all.back(), input));
  }
  SECTION("reshape and flatten keep NHWC order") {
    GraphBuilder b(GraphInfo{"flat", 4, 2, DType::kFp32, 0});
    b.Flatten(b.Input(4, 4, 3));
    GraphModule module(b.Finish());
    const auto y = module->forward(NhwcIota(s));  // [2, 48, 1, 1]
    CHECK(::torch::equal(y.flatten(), ::torch::arange(96, ::torch::kFloat)));
  }
}

TEST_CASE("every zoo model lowers with exact parameters and shapes at a small resolution") {
  const auto& registry = BuiltinModels();
  for (const std::string& name : registry.Names()) {
    BuildOptions o;
    o.resolution = 64;
    o.batch = 2;
    CheckLowering(registry.Build(name, o));
  }
}

TEST_CASE("every zoo model lowers in its Fashion-MNIST proxy form") {
  const auto& registry = BuiltinModels();
  for (const std::string& name : registry.Names()) {
    BuildOptions o;
    o.resolution = 32;
    o.batch = 2;
    o.in_channels = 1;
    o.num_classes = 10;
    o.proxy_removed_downsamples = 1;
    o.width_scale = 0.25;
    CheckLowering(registry.Build(name, o));
  }
}

TEST_CASE("a graph with other than one input is rejected") {
  GraphBuilder b(GraphInfo{"two-inputs", 4, 1, DType::kFp32, 0});
  b.Add(b.Input(4, 4, 2), b.Input(4, 4, 2));
  const Graph g = b.Finish();
  CHECK_THROWS_WITH(GraphModule(g), Catch::Contains("exactly one input"));
}

TEST_CASE("SetThreads sizes OpenBLAS's own thread pool too") {
  // Where OpenBLAS is the BLAS behind LibTorch (Debian's libopenblas0-pthread), its pool follows
  // the LibTorch thread count, so no idle worker spins beside a one-thread measurement.
  using GetFn = int (*)();
  void* get = ::dlsym(RTLD_DEFAULT, "openblas_get_num_threads");
  CHECK(SetThreads(1) == 1);
  if (get == nullptr) {
    CHECK_FALSE(SetBlasThreads(1));
    return;
  }
  CHECK(SetBlasThreads(1));
  CHECK(reinterpret_cast<GetFn>(get)() == 1);
  CHECK(SetThreads(2) == 2);
  CHECK(reinterpret_cast<GetFn>(get)() == 2);
  SetThreads(1);
  CHECK(reinterpret_cast<GetFn>(get)() == 1);
}

}  // namespace
TEST_CASE("transformers lowered at one batch run at another (training's last batch, evaluation)") {
  for (const std::string name : {"vit-b-16", "swin-t", "convnext-tiny"}) {
    INFO(name);
    BuildOptions o;
    o.resolution = 64;
    o.batch = 4;
    o.width_scale = 0.25;
    o.num_classes = 10;
    GraphModule module(BuiltinModels().Build(name, o));
    module->eval();
    ::torch::NoGradGuard no_grad;
    CHECK(module->forward(::torch::randn({3, 3, 64, 64})).sizes().vec() ==
          std::vector<int64_t>{3, 10, 1, 1});
  }
}

}  // namespace dcnas::models::libtorch
