// ONNX import (models/onnx): small models built with the protobuf API, one per op and pattern,
// with the figures they must give; malformed and unsupported files refused, naming the problem.
#include <onnx/onnx_pb.h>

#include <catch2/catch.hpp>
#include <map>

#include "common/errors.h"
#include "models/counts.h"
#include "models/graph_json.h"
#include "models/onnx/onnx_import.h"

using namespace dcnas;
using namespace dcnas::models;

namespace {

class Model {
 public:
  Model() {
    m_.set_ir_version(8);
    m_.add_opset_import()->set_version(17);
    g_ = m_.mutable_graph();
    g_->set_name("test");
  }
  // dims: 0 marks a dynamic axis.
  void Input(const std::string& name, const std::vector<int64_t>& dims) {
    Value(g_->add_input(), name, dims);
  }
  void Output(const std::string& name, const std::vector<int64_t>& dims) {
    Value(g_->add_output(), name, dims);
  }
  // A learned float tensor (zeros).
  onnx::TensorProto* Param(const std::string& name, const std::vector<int64_t>& dims) {
    onnx::TensorProto* t = g_->add_initializer();
    t->set_name(name);
    t->set_data_type(onnx::TensorProto::FLOAT);
    int64_t n = 1;
    for (int64_t d : dims) {
      t->add_dims(d);
      n *= d;
    }
    t->set_raw_data(std::string(static_cast<size_t>(n) * 4, '\0'));
    return t;
  }
  void Ints(const std::string& name, const std::vector<int64_t>& v) {
    onnx::TensorProto* t = g_->add_initializer();
    t->set_name(name);
    t->set_data_type(onnx::TensorProto::INT64);
    t->add_dims(static_cast<int64_t>(v.size()));
    for (int64_t x : v) t->add_int64_data(x);
  }
  void Scalar(const std::string& name, float v) {
    onnx::NodeProto* n = Node("Constant", {}, {name});
    onnx::AttributeProto* a = n->add_attribute();
    a->set_name("value");
    a->set_type(onnx::AttributeProto::TENSOR);
    a->mutable_t()->set_data_type(onnx::TensorProto::FLOAT);
    a->mutable_t()->add_float_data(v);
  }
  onnx::NodeProto* Node(const std::string& op, const std::vector<std::string>& in,
                        const std::vector<std::string>& out) {
    onnx::NodeProto* n = g_->add_node();
    n->set_op_type(op);
    n->set_name("/" + op + "_" + std::to_string(g_->node_size()));
    for (const auto& x : in) n->add_input(x);
    for (const auto& x : out) n->add_output(x);
    return n;
  }
  static void I(onnx::NodeProto* n, const std::string& name, int64_t v) {
    auto* a = n->add_attribute();
    a->set_name(name);
    a->set_type(onnx::AttributeProto::INT);
    a->set_i(v);
  }
  static void Is(onnx::NodeProto* n, const std::string& name, const std::vector<int64_t>& v) {
    auto* a = n->add_attribute();
    a->set_name(name);
    a->set_type(onnx::AttributeProto::INTS);
    for (int64_t x : v) a->add_ints(x);
  }
  std::string Bytes() const { return m_.SerializeAsString(); }
  Graph Import(int batch = 1, onnx_import::Report* report = nullptr) const {
    onnx_import::Options o;
    o.batch = batch;
    return onnx_import::ImportBytes(Bytes(), "test.onnx", o, report);
  }
  onnx::GraphProto* graph() { return g_; }

 private:
  void Value(onnx::ValueInfoProto* v, const std::string& name, const std::vector<int64_t>& dims) {
    v->set_name(name);
    auto* t = v->mutable_type()->mutable_tensor_type();
    t->set_elem_type(onnx::TensorProto::FLOAT);
    for (int64_t d : dims) {
      auto* dim = t->mutable_shape()->add_dim();
      if (d > 0) {
        dim->set_dim_value(d);
      } else {
        dim->set_dim_param("N");
      }
    }
  }
  onnx::ModelProto m_;
  onnx::GraphProto* g_;
};

std::map<std::string, int> Kinds(const Graph& g) {
  std::map<std::string, int> k;
  for (const Op& op : g.ops()) k[std::string(OpKindName(op.kind))] += 1;
  return k;
}

// input [N,3,8,8] -> conv 3x3 (4) -> BN -> relu -> global pool -> flatten -> gemm (10).
Model SmallCnn(bool dynamic) {
  Model m;
  m.Input("x", {dynamic ? 0 : 1, 3, 8, 8});
  m.Param("w", {4, 3, 3, 3});
  for (const char* p : {"g", "b", "mu", "var"}) m.Param(p, {4});
  m.Param("fw", {10, 4});
  m.Param("fb", {10});
  auto* c = m.Node("Conv", {"x", "w"}, {"c"});
  Model::Is(c, "pads", {1, 1, 1, 1});
  Model::Is(c, "kernel_shape", {3, 3});
  m.Node("BatchNormalization", {"c", "g", "b", "mu", "var"}, {"bn"});
  m.Node("Relu", {"bn"}, {"r"});
  m.Node("GlobalAveragePool", {"r"}, {"p"});
  m.Node("Flatten", {"p"}, {"f"});
  auto* gemm = m.Node("Gemm", {"f", "fw", "fb"}, {"y"});
  Model::I(gemm, "transB", 1);
  m.Output("y", {dynamic ? 0 : 1, 10});
  return m;
}

}  // namespace

TEST_CASE("onnx: a CNN maps op for op with exact counts", "[onnx]") {
  onnx_import::Report r;
  const Graph g = SmallCnn(false).Import(1, &r);
  const OpCounts c = CountGraph(g);
  CHECK(c.params == 4 * 27 + 2 * 4 + 40 + 10);  // BN: scale and shift; its statistics are buffers
  CHECK(c.macs == 8 * 8 * 4 * 27 + 40);
  const auto k = Kinds(g);
  CHECK(k.at("conv2d") == 1);
  CHECK(k.at("batch_norm") == 1);
  CHECK(k.at("activation") == 1);
  CHECK(k.at("global_pool") == 1);
  CHECK(k.at("fully_connected") == 1);
  CHECK(g.info().num_classes == 10);
  CHECK(g.info().resolution == 8);
  CHECK(g.op(g.Outputs().front()).out.shape == Shape{1, 1, 1, 10});
  CHECK(r.nodes == 6);
  CHECK(r.transposes == 0);
  // The imported graph is an ordinary graph: it survives JSON.
  CHECK(GraphFromJsonString(GraphToJsonString(g), "rt") == g);
}

TEST_CASE("onnx: the batch is fixed at import (dynamic axis) or refused (fixed axis)", "[onnx]") {
  const Graph g4 = SmallCnn(true).Import(4);
  CHECK(CountGraph(g4).macs == 4 * (8 * 8 * 4 * 27 + 40));
  CHECK(g4.info().batch == 4);
  CHECK_THROWS_WITH(SmallCnn(false).Import(4), Catch::Contains("batch is fixed at 1") &&
                                                   Catch::Contains("dynamic batch axis"));
}

TEST_CASE("onnx: grouped, dilated and padded convolutions and pooling keep their attributes",
          "[onnx]") {
  Model m;
  m.Input("x", {1, 4, 9, 9});
  m.Param("w", {8, 2, 3, 3});
  auto* c = m.Node("Conv", {"x", "w"}, {"c"});
  Model::I(c, "group", 2);
  Model::Is(c, "dilations", {2, 2});
  Model::Is(c, "pads", {2, 1, 2, 1});
  Model::Is(c, "strides", {2, 2});
  auto* p = m.Node("MaxPool", {"c"}, {"p"});
  Model::Is(p, "kernel_shape", {3, 3});
  Model::Is(p, "strides", {2, 2});
  Model::I(p, "ceil_mode", 1);
  m.Output("p", {1, 8, 2, 2});
  const Graph g = m.Import();
  const Op& conv = g.op(1);
  CHECK(conv.kind == OpKind::kConv2d);
  CHECK(conv.attrs.groups == 2);
  CHECK(conv.attrs.dilation_h == 2);
  CHECK(conv.attrs.padding == Padding{false, 2, 2, 1, 1});
  CHECK(conv.out.shape == Shape{1, 5, 4, 8});
  // Ceil mode: rows (5 - 3) / 2 + 1 = 2 exactly; columns (4 - 3) / 2 + 1 rounds up to 2, by
  // one more column of padding on the right.
  CHECK(g.op(2).out.shape == Shape{1, 2, 2, 8});
  CHECK(g.op(2).attrs.padding.right == 1);
}

TEST_CASE("onnx: shape subgraphs fold; attention maps to matmuls without copies", "[onnx]") {
  // x [1, 4, 2, 2] (4 channels, 4 positions) -> reshape [1, 4, 4] with the shape computed from
  // Shape/Gather/Unsqueeze/Concat -> transpose to tokens [1, 4 tokens, 4] -> layer norm ->
  // qkv (matmul + bias) -> q, k, v slices -> q x k^T / 2 -> softmax -> x v -> GELU.
  Model m;
  m.Input("x", {1, 4, 2, 2});
  m.Node("Shape", {"x"}, {"s"});
  m.Ints("zero", {0});
  m.Ints("one", {1});
  m.Ints("minus1", {-1});
  m.Node("Gather", {"s", "zero"}, {"n"});
  m.Node("Gather", {"s", "one"}, {"c"});
  m.Node("Concat", {"n", "c", "minus1"}, {"shape"});
  Model::I(m.graph()->mutable_node(m.graph()->node_size() - 1), "axis", 0);
  m.Node("Reshape", {"x", "shape"}, {"flat"});
  auto* t = m.Node("Transpose", {"flat"}, {"tok"});
  Model::Is(t, "perm", {0, 2, 1});
  m.Param("ln_w", {4});
  m.Param("ln_b", {4});
  m.Node("LayerNormalization", {"tok", "ln_w", "ln_b"}, {"ln"});
  m.Param("wqkv", {4, 12});
  m.Param("bqkv", {12});
  m.Node("MatMul", {"ln", "wqkv"}, {"mm"});
  m.Node("Add", {"mm", "bqkv"}, {"qkv"});
  m.Ints("axis2", {2});
  m.Ints("s0", {0});
  m.Ints("s4", {4});
  m.Ints("s8", {8});
  m.Ints("s12", {12});
  m.Node("Slice", {"qkv", "s0", "s4", "axis2"}, {"q"});
  m.Node("Slice", {"qkv", "s4", "s8", "axis2"}, {"k"});
  m.Node("Slice", {"qkv", "s8", "s12", "axis2"}, {"v"});
  auto* kt = m.Node("Transpose", {"k"}, {"kt"});
  Model::Is(kt, "perm", {0, 2, 1});
  m.Node("MatMul", {"q", "kt"}, {"scores"});
  m.Scalar("two", 2.0F);
  m.Node("Div", {"scores", "two"}, {"scaled"});
  auto* sm = m.Node("Softmax", {"scaled"}, {"attn"});
  Model::I(sm, "axis", -1);
  m.Node("MatMul", {"attn", "v"}, {"ctx"});
  m.Scalar("sqrt2", 1.4142135F);
  m.Scalar("one_f", 1.0F);
  m.Scalar("half", 0.5F);
  m.Node("Div", {"ctx", "sqrt2"}, {"d"});
  m.Node("Erf", {"d"}, {"e"});
  m.Node("Add", {"e", "one_f"}, {"e1"});
  m.Node("Mul", {"ctx", "e1"}, {"m1"});
  m.Node("Mul", {"m1", "half"}, {"y"});
  m.Output("y", {1, 4, 4});
  onnx_import::Report r;
  const Graph g = m.Import(1, &r);
  const auto k = Kinds(g);
  CHECK(r.folded >= 4);      // shape, the gathers, concat (and the constants)
  CHECK(r.patterns == 1);    // GELU
  CHECK(r.transposes == 0);  // NCHW -> tokens is a view; k^T is read transposed by the GEMM
  CHECK(k.count("transpose") == 0);
  CHECK(k.at("matmul") == 2);
  CHECK(k.at("layer_norm") == 1);
  CHECK(k.at("softmax") == 1);
  CHECK(k.at("slice") == 3);
  bool transposed_b = false;
  for (const Op& op : g.ops()) {
    if (op.kind == OpKind::kMatMul && op.attrs.transpose_b) transposed_b = true;
    if (op.kind == OpKind::kActivation) CHECK(op.attrs.activation == Activation::kGelu);
  }
  CHECK(transposed_b);
  const OpCounts c = CountGraph(g);
  CHECK(c.params == 4 + 4 + 48 + 12);
  CHECK(c.macs == 4 * 4 * 12 + 2 * (4 * 4 * 4));
}

TEST_CASE("onnx: a transpose is charged where a consumer needs the data reordered", "[onnx]") {
  Model m;
  m.Input("x", {1, 3, 4, 5});
  auto* t = m.Node("Transpose", {"x"}, {"t"});
  Model::Is(t, "perm", {0, 1, 3, 2});  // NCHW -> NCWH: softmax over H
  auto* sm = m.Node("Softmax", {"t"}, {"y"});
  Model::I(sm, "axis", -1);
  m.Output("y", {1, 3, 5, 4});
  onnx_import::Report r;
  const Graph g = m.Import(1, &r);
  CHECK(r.transposes == 1);
  CHECK(Kinds(g).at("transpose") == 1);
}

TEST_CASE("onnx: decomposed layer norm and swish are recognised", "[onnx]") {
  Model m;
  m.Input("x", {1, 6, 2, 2});
  auto* t = m.Node("Transpose", {"x"}, {"t"});
  Model::Is(t, "perm", {0, 2, 3, 1});
  auto* r1 = m.Node("ReduceMean", {"t"}, {"mean"});
  Model::Is(r1, "axes", {-1});
  m.Node("Sub", {"t", "mean"}, {"d"});
  m.Scalar("two", 2.0F);
  m.Node("Pow", {"d", "two"}, {"sq"});
  auto* r2 = m.Node("ReduceMean", {"sq"}, {"var"});
  Model::Is(r2, "axes", {-1});
  m.Scalar("eps", 1e-5F);
  m.Node("Add", {"var", "eps"}, {"ve"});
  m.Node("Sqrt", {"ve"}, {"sd"});
  m.Node("Div", {"d", "sd"}, {"norm"});
  m.Param("gamma", {6});
  m.Param("beta", {6});
  m.Node("Mul", {"norm", "gamma"}, {"scaled"});
  m.Node("Add", {"scaled", "beta"}, {"ln"});
  m.Node("Sigmoid", {"ln"}, {"sig"});
  m.Node("Mul", {"ln", "sig"}, {"y"});
  m.Output("y", {1, 2, 2, 6});
  onnx_import::Report r;
  const Graph g = m.Import(1, &r);
  const auto k = Kinds(g);
  CHECK(r.patterns == 2);
  CHECK(k.at("layer_norm") == 1);
  CHECK(k.at("activation") == 1);
  CHECK(k.count("mul") == 0);
  CHECK(k.count("add") == 0);
  CHECK(CountGraph(g).params == 12);
  for (const Op& op : g.ops()) {
    if (op.kind == OpKind::kActivation) CHECK(op.attrs.activation == Activation::kSwish);
  }
}

TEST_CASE("onnx: parameters are counted per name; exporter aliases count as their own", "[onnx]") {
  // One zero initializer shared by two biases through Identity (an exporter deduplicates equal
  // initializers); a learned table gathered by fixed indices; a learned embedding added.
  Model m;
  m.Input("x", {1, 2, 3, 3});
  m.Param("shared", {2});
  m.Node("Identity", {"shared"}, {"bias_a"});
  m.Node("Identity", {"shared"}, {"bias_b"});
  m.Param("w", {2, 2, 1, 1});
  m.Node("Conv", {"x", "w", "bias_a"}, {"c1"});
  m.Node("Conv", {"c1", "w", "bias_b"}, {"c2"});
  m.Param("table", {5, 2});
  m.Ints("idx", {0, 4, 2});
  m.Node("Gather", {"table", "idx"}, {"rows"});  // [3, 2]
  m.Param("pos", {1, 2, 3, 3});
  m.Node("Add", {"c2", "pos"}, {"y"});
  m.Output("y", {1, 2, 3, 3});
  m.Output("rows", {3, 2});
  const Graph g = m.Import();
  CHECK(CountGraph(g).params == (4 + 2) * 2 + 10 + 18);
  CHECK(Kinds(g).at("gather") == 1);
  CHECK(Kinds(g).at("constant") == 2);
}

TEST_CASE("onnx: concat, slice, pad and expand on computed data", "[onnx]") {
  Model m;
  m.Input("x", {1, 2, 4, 4});
  m.Ints("p", {0, 0, 1, 1, 0, 0, 1, 1});
  m.Node("Pad", {"x", "p"}, {"pad"});  // [1, 2, 6, 6]
  m.Ints("st", {0, 0});
  m.Ints("en", {6, 6});
  m.Ints("ax", {2, 3});
  m.Ints("sp", {2, 2});
  m.Node("Slice", {"pad", "st", "en", "ax", "sp"}, {"s"});  // [1, 2, 3, 3]
  m.Param("cls", {1, 2, 3, 3});
  auto* cat = m.Node("Concat", {"s", "cls"}, {"cat"});  // [1, 4, 3, 3]
  Model::I(cat, "axis", 1);
  m.Ints("shape", {2, 4, 3, 3});
  m.Node("Expand", {"cat", "shape"}, {"y"});
  m.Output("y", {2, 4, 3, 3});
  const Graph g = m.Import();
  const auto k = Kinds(g);
  CHECK(k.at("pad") == 1);
  CHECK(k.at("slice") == 1);
  CHECK(k.at("concat") == 1);
  CHECK(k.at("expand") == 1);
  CHECK(g.op(g.Outputs().front()).out.shape.elements() == 2 * 4 * 3 * 3);
}

TEST_CASE("onnx: unsupported op types are listed all at once", "[onnx]") {
  Model m;
  m.Input("x", {1, 2, 4, 4});
  m.Node("Foo", {"x"}, {"a"});
  m.Node("Relu", {"a"}, {"b"});
  m.Node("Foo", {"b"}, {"c"});
  m.Node("Bar", {"c"}, {"y"});
  m.Output("y", {1, 2, 4, 4});
  CHECK_THROWS_WITH(m.Import(), Catch::Contains("3 nodes of unsupported op types") &&
                                    Catch::Contains("Foo (2): nodes 0 '/Foo_1', 2 '/Foo_3'") &&
                                    Catch::Contains("Bar (1): nodes 3 '/Bar_4'"));
}

TEST_CASE("onnx: malformed files are refused, naming the problem", "[onnx]") {
  const std::string good = SmallCnn(false).Bytes();
  onnx_import::Options o;
  CHECK_THROWS_WITH(onnx_import::ImportBytes(good.substr(0, good.size() / 2), "half.onnx", o),
                    Catch::Contains("half.onnx: not an ONNX model"));
  CHECK_THROWS_WITH(onnx_import::ImportBytes("GIF89a not a model at all", "x.onnx", o),
                    Catch::Contains("x.onnx: not an ONNX model"));
  CHECK_THROWS_WITH(onnx_import::ImportBytes("", "empty.onnx", o), Catch::Contains("empty file"));
  {
    Model m = SmallCnn(false);
    m.graph()->mutable_initializer()->erase(m.graph()->mutable_initializer()->begin());  // "w"
    CHECK_THROWS_WITH(m.Import(),
                      Catch::Contains("input 'w'") && Catch::Contains("missing initializer"));
  }
  {
    Model m = SmallCnn(false);
    m.graph()
        ->mutable_output(0)
        ->mutable_type()
        ->mutable_tensor_type()
        ->mutable_shape()
        ->mutable_dim(1)
        ->set_dim_value(11);
    CHECK_THROWS_WITH(
        m.Import(), Catch::Contains("graph output 'y'") && Catch::Contains("shape contradiction"));
  }
  {
    Model m = SmallCnn(false);
    // Weights of the wrong shape for the input's channels.
    m.graph()->mutable_initializer(0)->set_dims(1, 5);
    m.graph()->mutable_initializer(0)->set_raw_data(std::string(4 * 5 * 9 * 4, '\0'));
    CHECK_THROWS_WITH(m.Import(), Catch::Contains("(Conv)") && Catch::Contains("channels"));
  }
}

TEST_CASE("onnx: weights in external data files are never read", "[onnx]") {
  Model m = SmallCnn(false);
  for (auto& t : *m.graph()->mutable_initializer()) {
    t.clear_raw_data();
    t.set_data_location(onnx::TensorProto::EXTERNAL);
    auto* e = t.add_external_data();
    e->set_key("location");
    e->set_value("weights.bin");  // absent: import must not open it
  }
  onnx_import::Report r;
  const Graph g = m.Import(1, &r);
  CHECK(r.external_data);
  CHECK(CountGraph(g).params == 4 * 27 + 2 * 4 + 40 + 10);
}
