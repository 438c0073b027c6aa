// The member builder against the zoo's published families, the budget rule, the grid parser and
// the family scaling on the simulator with a deterministic stand-in for proxy training.
#include <catch2/catch.hpp>

#include <cmath>
#include <map>
#include <string>

#include "common/errors.h"
#include "lacs/family.h"
#include "lacs/scaling.h"
#include "models/counts.h"
#include "models/zoo/zoo.h"

namespace dcnas::lacs {
namespace {

struct Published {
  const char* model;
  double width, depth;
  int resolution;
  double se;  // 0: the base's
};

// EfficientNet-B1..B7 (efficientnet_params) and the released x-tpu / x-gpu tuples
// (efficientnet_x_params), shared/paper/paper_facts.md section 4.2.
const Published kPublished[] = {
    {"efficientnet-b1", 1.0, 1.1, 240, 0},         {"efficientnet-b2", 1.1, 1.2, 260, 0},
    {"efficientnet-b3", 1.2, 1.4, 300, 0},         {"efficientnet-b4", 1.4, 1.8, 380, 0},
    {"efficientnet-b5", 1.6, 2.2, 456, 0},         {"efficientnet-b6", 1.8, 2.6, 528, 0},
    {"efficientnet-b7", 2.0, 3.1, 600, 0},         {"efficientnet-x-tpu-b1", 1.05, 1.09, 229, 2},
    {"efficientnet-x-tpu-b2", 1.13, 1.29, 244, 1}, {"efficientnet-x-tpu-b3", 1.27, 1.62, 263, 1},
    {"efficientnet-x-tpu-b4", 1.54, 2.38, 299, 1}, {"efficientnet-x-tpu-b5", 1.96, 2.76, 332, 1},
    {"efficientnet-x-tpu-b6", 2.75, 3.01, 328, 1}, {"efficientnet-x-tpu-b7", 3.26, 3.44, 350, 1},
    {"efficientnet-x-gpu-b1", 1.05, 1.09, 229, 2}, {"efficientnet-x-gpu-b2", 1.13, 1.24, 237, 1},
    {"efficientnet-x-gpu-b3", 1.31, 1.63, 255, 1}, {"efficientnet-x-gpu-b4", 1.63, 2.4, 282, 1},
    {"efficientnet-x-gpu-b5", 1.94, 3.29, 306, 1}, {"efficientnet-x-gpu-b6", 2.25, 4.28, 328, 1},
    {"efficientnet-x-gpu-b7", 2.58, 5.46, 350, 1},
};

models::OpCounts Counts(const models::Graph& g) { return models::CountGraph(g); }

TEST_CASE("the member builder reproduces the published families from their tuples") {
  const models::BlockNetworkSpec eff = *models::zoo::EfficientNetSpec("efficientnet-b0");
  const models::BlockNetworkSpec x = *models::zoo::EfficientNetSpec("efficientnet-x-b0");
  models::BuildOptions o;
  for (const Published& p : kPublished) {
    CAPTURE(p.model);
    const bool is_x = std::string(p.model).find("-x-") != std::string::npos;
    const models::BlockNetworkSpec spec =
        ScaleSpec(is_x ? x : eff, {p.width, p.depth, p.resolution, p.se});
    const models::OpCounts ours = Counts(models::BuildBlockNetwork(p.model, spec, o));
    const models::OpCounts zoo = Counts(models::BuiltinModels().Build(p.model, o));
    CHECK(ours.params == zoo.params);
    CHECK(ours.flops == zoo.flops);
  }
  // The paper_facts.md reference counts of the largest members.
  const models::OpCounts b7 =
      Counts(models::BuildBlockNetwork("b7", ScaleSpec(eff, {2.0, 3.1, 600, 0}), o));
  CHECK(b7.params == 66347960);
  const models::OpCounts xtpu1 =
      Counts(models::BuildBlockNetwork("xtpu1", ScaleSpec(x, {1.05, 1.09, 229, 2}), o));
  CHECK(xtpu1.params == 10419068);
}

TEST_CASE("members scale as alpha^phi, beta^phi, gamma^phi with rounded resolution") {
  const Coefficients c{1.2, 1.1, 1.15};
  CHECK(MemberAt(c, 0, 224, 8) == MemberTuple{1.0, 1.0, 224, 0});
  const MemberTuple m1 = MemberAt(c, 1, 224, 8);
  CHECK(m1.depth == Approx(1.2));
  CHECK(m1.width == Approx(1.1));
  CHECK(m1.resolution == 256);  // 224 * 1.15 = 257.6 -> nearest multiple of 8
  CHECK(MemberAt(c, 1, 224, 16).resolution == 256);
  const MemberTuple m3 = MemberAt(c, 3, 224, 8);
  CHECK(m3.depth == Approx(1.728));
  CHECK(m3.resolution == 344);          // 224 * 1.520875 = 340.7
  CHECK(RoundResolution(3.0, 8) == 8);  // never below one multiple
  CHECK(FlopsCost(c) == Approx(1.2 * 1.21 * 1.3225));
  const Coefficients p = PerStep({1.44, 1.21, 1.3225}, 2);
  CHECK(p.depth == Approx(1.2));
  CHECK(p.width == Approx(1.1));
  CHECK(p.resolution == Approx(1.15));
}

TEST_CASE("non-positive or non-finite coefficients are refused, naming them") {
  CHECK_THROWS_WITH(MemberAt({0.0, 1.1, 1.15}, 1, 224, 8), Catch::Contains("depth coefficient"));
  CHECK_THROWS_WITH(MemberAt({1.2, -1.0, 1.15}, 1, 224, 8), Catch::Contains("width coefficient"));
  CHECK_THROWS_WITH(MemberAt({1.2, 1.1, NAN}, 1, 224, 8),
                    Catch::Contains("resolution coefficient"));
  CHECK_THROWS_AS(ScaleSpec(models::BlockNetworkSpec{}, {0.0, 1.0, 224, 0}), InputError);
  CHECK_THROWS_AS(RoundResolution(224, 0), InputError);
}

TEST_CASE("the budget rule: 2^phi within the relative tolerance") {
  Budget b{1, 0.1};
  CHECK(b.Target() == 2.0);
  CHECK(b.Meets(2.0));
  CHECK(b.Meets(1.8));
  CHECK(b.Meets(2.2));
  CHECK_FALSE(b.Meets(2.21));
  CHECK_FALSE(b.Meets(1.79));
  b.phi = 3;
  CHECK(b.Target() == 8.0);
  CHECK(b.Meets(8.7));
  CHECK_FALSE(b.Meets(9.0));
  CHECK_THROWS_WITH(ValidateBudget({0, 0.1}), Catch::Contains("--phi"));
  CHECK_THROWS_WITH(ValidateBudget({1, 0.0}), Catch::Contains("--tolerance"));
  CHECK_THROWS_WITH(ValidateBudget({1, NAN}), Catch::Contains("--tolerance"));
}

TEST_CASE("grids parse ranges and lists and refuse bad axes naming the part") {
  const Grid g = ParseGrid("d=1.0:1.4:0.1,r=1/1.15", DefaultGrid());
  REQUIRE(g.depth.size() == 5);
  CHECK(g.depth.back() == Approx(1.4));
  CHECK(g.resolution == std::vector<double>{1.0, 1.15});
  CHECK(g.width == DefaultGrid().width);  // left out: the default's
  CHECK_THROWS_WITH(ParseGrid("d=0:1:0.1", {}),
                    Catch::Contains("d=0:1:0.1") && Catch::Contains("above 0"));
  CHECK_THROWS_WITH(ParseGrid("w=-1.1", {}), Catch::Contains("above 0"));
  CHECK_THROWS_WITH(ParseGrid("x=1", {}), Catch::Contains("unknown axis 'x'"));
  CHECK_THROWS_WITH(ParseGrid("d=2:1:0.1", {}), Catch::Contains("below the low end"));
  CHECK_THROWS_WITH(ParseGrid("d=1:2:0", {}), Catch::Contains("step"));
  CHECK_THROWS_WITH(ParseGrid("d=1:1000:0.001", {}), Catch::Contains("at most 200"));
  CHECK_THROWS_WITH(ParseGrid("d=nan", {}), Catch::Contains("above 0"));
  // An axis given twice (under either of its names) is refused, not overwritten.
  CHECK_THROWS_WITH(ParseGrid("d=1:2:0.5,w=1,d=1.5", {}), Catch::Contains("axis 'd' given twice"));
  CHECK_THROWS_WITH(ParseGrid("w=1,width=1.2", {}), Catch::Contains("axis 'width' given twice"));
  CHECK_THROWS_WITH(ParseGrid("d", {}), Catch::Contains("AXIS=VALUES"));
}

// Accuracy as a known function of the network (more repeats and filters help, resolution a
// little), so the selection can be checked exactly; counts how many networks it was asked for.
class FakeAccuracy : public ProxyAccuracy {
 public:
  std::vector<std::optional<proxy::TrainedResult>> Evaluate(
      const std::vector<ProxyRequest>& requests) override {
    std::vector<std::optional<proxy::TrainedResult>> out;
    for (const ProxyRequest& r : requests) {
      ++asked;
      if (refuse) {
        out.emplace_back();
        continue;
      }
      const double acc = 60.0 + 10.0 * std::log(r.spec.depth) + 5.0 * std::log(r.spec.width) +
                         0.1 * r.proxy_resolution;
      out.push_back(proxy::TrainedResult{
          .val_accuracy = acc, .test_accuracy = acc, .proxy_params = 1000, .train_time_s = 1.0});
    }
    return out;
  }
  nlohmann::json Config() const override { return {{"kind", "fake"}}; }
  int asked = 0;
  bool refuse = false;
};

NetworkSimulator TpuSimulator() {
  sim::SimSetup setup = sim::LoadSetup("tpu-v3", "", "", {});
  setup.dtype = models::DType::kBf16;
  setup.batch = 8;
  return NetworkSimulator(std::move(setup));
}

TEST_CASE("lacs picks the best reward among points within the latency budget") {
  NetworkSimulator sim = TpuSimulator();
  FakeAccuracy acc;
  ScaleOptions o;
  o.grid = ParseGrid("d=1.0:2.0:0.25,w=1.0:1.3:0.1,r=1.0:1.4:0.1", {});
  o.members = 3;
  o.train_members = 1;
  const Family f = ScaleFamily(ZooBase("efficientnet-x-b0"), "t", o, sim, acc, [](auto&&) {});
  const double base = f.base_latency_ms;
  size_t surface = 0;
  for (const GridPoint& p : f.grid) {
    CHECK(p.cost_ratio == Approx(p.measured.latency_ms / base));
    CHECK(p.candidate == (std::abs(p.cost_ratio / 2.0 - 1.0) <= 0.1 + 1e-12));
    if (!p.surface) continue;
    ++surface;
    REQUIRE(p.trained);
    CHECK(p.objective <= f.grid[f.best].objective);
  }
  CHECK(surface >= 3);
  CHECK(acc.asked == static_cast<int>(surface) + 2);  // the surface, then members 0 and 1
  const GridPoint& best = f.grid[f.best];
  CHECK(best.candidate);
  CHECK(f.per_step == best.c);
  REQUIRE(f.members.size() == 4);
  CHECK(f.members[0].measured.latency_ms == Approx(base));
  CHECK(f.members[1].tuple == best.tuple);
  CHECK(f.members[1].trained);
  CHECK_FALSE(f.members[2].trained);
  for (size_t i = 1; i < f.members.size(); ++i) {
    CHECK(f.members[i].measured.latency_ms > f.members[i - 1].measured.latency_ms);
  }
}

TEST_CASE("flops mode uses alpha beta^2 gamma^2 and the accuracy objective") {
  NetworkSimulator sim = TpuSimulator();
  FakeAccuracy acc;
  ScaleOptions o;
  o.mode = Mode::kFlops;
  o.grid = ParseGrid("d=1.0:2.0:0.25,w=1.0:1.3:0.1,r=1.0:1.4:0.1", {});
  o.members = 2;
  o.train_members = 0;
  const Family f = ScaleFamily(ZooBase("efficientnet-b0"), "t", o, sim, acc, [](auto&&) {});
  for (const GridPoint& p : f.grid) {
    CHECK(p.cost_ratio == Approx(FlopsCost(p.c)));
    if (p.surface) CHECK(p.objective == Approx(p.trained->val_accuracy));
  }
  CHECK(f.grid[f.best].candidate);
}

TEST_CASE("a grid that cannot meet the budget is an input error naming the grid") {
  NetworkSimulator sim = TpuSimulator();
  FakeAccuracy acc;
  ScaleOptions o;
  o.grid = ParseGrid("d=1.0:1.1:0.1,w=1.0,r=1.0", {});
  CHECK_THROWS_WITH(ScaleFamily(ZooBase("efficientnet-x-b0"), "t", o, sim, acc, [](auto&&) {}),
                    Catch::Contains("--grid d=1/1.1,w=1,r=1") &&
                        Catch::Contains("no point meets the lacs budget"));
  o.grid = DefaultGrid();
  acc.refuse = true;
  CHECK_THROWS_WITH(ScaleFamily(ZooBase("efficientnet-x-b0"), "t", o, sim, acc, [](auto&&) {}),
                    Catch::Contains("have no trained accuracy"));
  CHECK_THROWS_WITH(ZooBase("resnet-50"), Catch::Contains("not a block network"));
  CHECK_THROWS_WITH(BlocksBase("r1_k3_s11_e1_i32_o16,bogus", 224), Catch::Contains("bogus"));
}

TEST_CASE("the family comparison: latency ratios and equal-accuracy speedups") {
  auto member = [](int phi, double ms, std::optional<double> acc) {
    Member m;
    m.phi = phi;
    m.measured.latency_ms = ms;
    m.measured.activations = 100.0 * (phi + 1);
    if (acc)
      m.trained = proxy::TrainedResult{
          .val_accuracy = *acc, .test_accuracy = *acc, .proxy_params = 1, .train_time_s = 1.0};
    return m;
  };
  Family lacs, flops;
  lacs.members = {member(0, 10, 70.0), member(1, 18, 75.0), member(2, 30, std::nullopt)};
  flops.members = {member(0, 10, 70.0), member(1, 20, 74.0), member(2, 40, 78.0)};
  const FamilyComparison c = CompareFamilies(lacs, flops);
  REQUIRE(c.latency_ratio.size() == 2);
  CHECK(c.latency_ratio[0] == Approx(20.0 / 18.0));
  CHECK(c.geomean_speedup == Approx(std::sqrt(20.0 / 18.0 * 40.0 / 30.0)));
  // 75% lies a quarter of the way from 74% (20 ms) to 78% (40 ms): 20 * 2^0.25 ms.
  REQUIRE(c.equal_accuracy_speedup[0]);
  CHECK(*c.equal_accuracy_speedup[0] == Approx(20.0 * std::pow(2.0, 0.25) / 18.0));
  CHECK_FALSE(c.equal_accuracy_speedup[1]);  // untrained
  CHECK(c.same_proxy_network == std::vector<std::vector<std::string>>{{}, {}});
  CHECK(c.text.find("same proxy network") == std::string::npos);
  // A lacs member whose proxy network is a flops member's: flagged, in the text too.
  lacs.members[1].proxy_network = "abc";
  lacs.members[1].proxy_resolution = 16;
  flops.members[0].proxy_network = "abc";
  flops.members[1].proxy_network = "abc";
  const FamilyComparison same = CompareFamilies(lacs, flops);
  CHECK(same.same_proxy_network[0] == std::vector<std::string>{"b0", "b1"});
  CHECK(same.same_proxy_network[1].empty());
  CHECK(same.text.find("lacs b1 trains the same proxy network (16 px) as flops b0, b1") !=
        std::string::npos);
}

}  // namespace
}  // namespace dcnas::lacs
