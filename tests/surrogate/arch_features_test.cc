// Feature sets of the accuracy surrogate: the default is the features of every surrogate fitted
// before sets existed; the graph set on a hand-built graph; the zero-cost table's refusals; a
// surrogate with the graph set round-trips, one with zero-cost features is refused for prediction.
#include "surrogate/arch_features.h"

#include <unistd.h>

#include <catch2/catch.hpp>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>

#include "common/errors.h"
#include "models/graph.h"
#include "surrogate/accuracy_surrogate.h"
#include "tests/surrogate/synthetic_accuracy.h"

namespace dcnas::surrogate {
namespace {

namespace fs = std::filesystem;
using Catch::Matchers::Contains;

std::string SpacePath() {
  const char* root = std::getenv("DCNAS_SOURCE_ROOT");
  return std::string(root ? root : ".") + "/data/search_spaces/dc-accelerator.yaml";
}

TEST_CASE("feature sets: parsing, and the default is the features surrogates always had") {
  CHECK(FeatureSpec{}.Text() == "onehot,counts");
  CHECK(FeatureSpec::Parse("graph,onehot").sets == std::vector<std::string>{"graph", "onehot"});
  CHECK_THROWS_WITH(FeatureSpec::Parse("onehot,zerocost"), Contains("'zerocost'"));
  CHECK_THROWS_WITH(FeatureSpec::Parse("graph,graph"), Contains("twice"));
  CHECK_THROWS_AS(FeatureSpec::Parse(""), InputError);
  const space::Space space = space::Space::Load(SpacePath());
  CHECK(SurrogateFeatureNames(space) == space::FeatureNames(space));
  std::mt19937_64 rng(2);
  const std::vector<space::Encoding> e = {space.Sample(rng), space.Sample(rng)};
  const std::vector<space::Scaling> s(2);
  const space::FeatureSet a = SurrogateFeatures(space, e, s);
  space::FeatureSet b;
  for (size_t i = 0; i < e.size(); ++i) {
    const models::OpCounts c = models::CountGraph(space.BuildFull(e[i], s[i], {}));
    space::AppendFeatures(space, e[i], s[i], static_cast<double>(c.params),
                          static_cast<double>(c.flops), b);
  }
  CHECK(a.values == b.values);
  // Sets in another order reorder the columns.
  const space::FeatureSet c =
      SurrogateFeatures(space, e, s, nullptr, FeatureSpec::Parse("counts,onehot"));
  CHECK(c.names.front() == "log10_params");
  CHECK(c.values.size() == a.values.size());
  const space::FeatureSet g = SurrogateFeatures(space, e, s, nullptr, FeatureSpec::Parse("graph"));
  CHECK(g.names == GraphFeatureNames());
  CHECK(g.values.size() == 2 * GraphFeatureNames().size());
}

TEST_CASE("graph features of a hand-built network") {
  using models::OpKind;
  models::Graph graph;
  auto add = [&](OpKind kind, std::vector<int> inputs, auto&& set) {
    models::Op op;
    op.kind = kind;
    op.inputs = std::move(inputs);
    set(op.attrs);
    op.name = "op" + std::to_string(graph.size());
    return graph.AddOp(op);
  };
  // 32x32x3 -> conv 3x3/2 (16) -> dw 5x5 (16) -> pw (16) -> add (residual) -> global pool -> fc 10
  const int in = add(OpKind::kInput, {}, [](models::OpAttrs& a) {
    a.input_type.shape = {1, 32, 32, 3};
  });
  const int c1 = add(OpKind::kConv2d, {in}, [](models::OpAttrs& a) {
    a.kernel_h = a.kernel_w = 3;
    a.stride_h = a.stride_w = 2;
    a.padding.same = true;
    a.out_channels = 16;
  });
  const int dw = add(OpKind::kConv2d, {c1}, [](models::OpAttrs& a) {
    a.kernel_h = a.kernel_w = 5;
    a.padding.same = true;
    a.groups = 16;
    a.out_channels = 16;
  });
  const int pw = add(OpKind::kConv2d, {dw}, [](models::OpAttrs& a) { a.out_channels = 16; });
  const int sum = add(OpKind::kAdd, {c1, pw}, [](models::OpAttrs&) {});
  const int gp = add(OpKind::kGlobalPool, {sum}, [](models::OpAttrs&) {});
  add(OpKind::kFullyConnected, {gp}, [](models::OpAttrs& a) {
    a.out_channels = 10;
    a.bias = true;
  });
  const std::vector<std::string> names = GraphFeatureNames();
  const std::vector<double> v = GraphFeatures(graph);
  REQUIRE(v.size() == names.size());
  auto at = [&](const std::string& n) {
    return v[static_cast<size_t>(std::find(names.begin(), names.end(), n) - names.begin())];
  };
  CHECK(at("graph.convs") == 1);
  CHECK(at("graph.pointwise_convs") == 1);
  CHECK(at("graph.depthwise_convs") == 1);
  CHECK(at("graph.dense_layers") == 1);
  CHECK(at("graph.residual_adds") == 1);
  CHECK(at("graph.pools") == 1);
  CHECK(at("graph.weight_depth") == 4);  // conv, dw, pw, fc on the longest chain
  CHECK(at("graph.max_width") == 16);
  CHECK(at("graph.mean_kernel") == 4);  // 3 and 5 (1x1 convs not counted)
  CHECK(at("graph.max_kernel") == 5);
  // Level 1 (16x16): the three convs and the add; params 3*3*3*16 + 5*5*16 + 16*16 = 1088.
  CHECK(at("graph.level1.convs") == 3);
  CHECK(at("graph.level1.log10_params") == Approx(std::log10(1088.0 + 1.0)));
  CHECK(at("graph.level1.max_width") == 16);
  CHECK(at("graph.level0.convs") == 0);
  // The pool and the classifier (1x1 output) land on the last level: fc params 16*10 + 10.
  CHECK(at("graph.level5.log10_params") == Approx(std::log10(170.0 + 1.0)));
}

TEST_CASE("zero-cost tables: read against the space, refused naming file and line") {
  const space::Space space = space::Space::Load(SpacePath());
  const fs::path dir = fs::temp_directory_path() / ("dcnas-zc-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  std::mt19937_64 rng(5);
  const std::string e0 = space.ToText(space.Canonical(space.Sample(rng)));
  const std::string e1 = space.ToText(space.Canonical(space.Sample(rng)));
  auto write = [&](const std::string& name, const std::string& text) {
    std::ofstream((dir / name).string()) << text;
    return (dir / name).string();
  };
  const std::string header = "encoding,synflow,naswot,grad_norm,snip,proxy_params,time_s\n";
  FeatureSpec spec = FeatureSpec::Parse("zero-cost");
  ReadZeroCostTable(write("ok.csv", header + e0 + ",1e20,350.5,12,0.5,100,0.1\n" + e1 +
                                        ",1e10,340,3,0.25,100,0.1\n"),
                    space, spec);
  CHECK(spec.zero_cost.size() == 2);
  const space::FeatureSet f =
      SurrogateFeatures(space, {space.FromText(e0)}, {space::Scaling{}}, nullptr, spec);
  CHECK(f.values[0] == Approx(20.0F));   // log10 synflow
  CHECK(f.values[1] == Approx(350.5F));  // NASWOT as is
  CHECK(f.values[3] == Approx(std::log10(0.5F)));
  std::mt19937_64 other(99);
  CHECK_THROWS_WITH(
      SurrogateFeatures(space, {space.Sample(other)}, {space::Scaling{}}, nullptr, spec),
      Contains("no zero-cost scores") && Contains("ok.csv"));
  CHECK_THROWS_WITH(ReadZeroCostTable(write("a.csv", "encoding,synflow\n"), space, spec),
                    Contains("a.csv:1") && Contains("'naswot'"));
  CHECK_THROWS_WITH(
      ReadZeroCostTable(write("b.csv", header + e0 + ",nan,1,1,1,1,1\n"), space, spec),
      Contains("b.csv:2") && Contains("synflow"));
  CHECK_THROWS_WITH(
      ReadZeroCostTable(write("c.csv", header + e0 + ",1,1,1,1,1,1\n" + e0 + ",1,1,1,1,1,1\n"),
                        space, spec),
      Contains("c.csv:3") && Contains("twice"));
  CHECK_THROWS_WITH(ReadZeroCostTable(write("d.csv", header + "9_9_9,1,1,1,1,1,1\n"), space, spec),
                    Contains("d.csv:2"));
  fs::remove_all(dir);
}

TEST_CASE("a surrogate with graph features round-trips; one with zero-cost ones does not predict") {
  const space::Space space = space::Space::Load(SpacePath());
  const fs::path dir = fs::temp_directory_path() / ("dcnas-fs-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  const proxy::AccuracyData data = testing::SyntheticAccuracy(space, 60, 4);
  const std::string csv = (dir / "d.csv").string();
  {
    proxy::AccuracyAppender app(csv);
    for (const auto& r : data.rows) app.Append(r);
  }
  SurrogateFitOptions o;
  o.ensemble.members = 1;
  o.learning_curve = false;
  o.holdout = 0.0;
  o.features = FeatureSpec::Parse("onehot,counts,graph");
  const std::string model = (dir / "g.json").string();
  const SurrogateFit fit = FitAccuracySurrogateFiles(SpacePath(), {csv}, model, o);
  CHECK(fit.metadata["feature_sets"] == nlohmann::json({"onehot", "counts", "graph"}));
  const AccuracySurrogate s = AccuracySurrogate::Load(model);
  CHECK(s.features().Text() == "onehot,counts,graph");
  std::vector<float> mean, sd;
  s.Predict({space.FromText(data.rows[0].encoding)}, {space::Scaling{}}, mean, sd);
  CHECK(std::isfinite(mean[0]));
  // Zero-cost features: the fit measures, loading for prediction is refused naming the file.
  std::string table = "encoding,synflow,naswot,grad_norm,snip\n";
  for (const auto& r : data.rows) {
    table +=
        r.encoding + "," + std::to_string(r.params) + ",300," + std::to_string(r.flops) + ",1\n";
  }
  std::ofstream((dir / "zc.csv").string()) << table;
  o.features = FeatureSpec::Parse("counts,zero-cost");
  ReadZeroCostTable((dir / "zc.csv").string(), space, o.features);
  const std::string zmodel = (dir / "z.json").string();
  FitAccuracySurrogateFiles(SpacePath(), {csv}, zmodel, o);
  CHECK_THROWS_WITH(AccuracySurrogate::Load(zmodel), Contains("z.json") && Contains("zero-cost"));
  fs::remove_all(dir);
}

}  // namespace
}  // namespace dcnas::surrogate
