#include "search/objectives.h"
#include "search/references.h"

#include <catch2/catch.hpp>
#include <cstdlib>
#include <random>
#include <string>

#include "common/errors.h"
#include "models/counts.h"
#include "space/space.h"

namespace dcnas::search {
namespace {

std::string SpacePath(const std::string& name) {
  const char* root = std::getenv("DCNAS_SOURCE_ROOT");
  return std::string(root ? root : ".") + "/data/search_spaces/" + name + ".yaml";
}

sim::SimSetup TpuSetup(bool fusion) {
  sim::SimSetup s = sim::LoadSetup("tpu-v3", "", "", {{"hbm.bandwidth_gbps", "1800"}});
  s.dtype = models::DType::kBf16;
  s.batch = 128;
  s.fusion = fusion;
  return s;
}

TEST_CASE("the simulator objective gives the latency and counts of the built graph") {
  const space::Space space = space::Space::Load(SpacePath("dc-accelerator"));
  for (const bool fusion : {true, false}) {
    const sim::SimSetup setup = TpuSetup(fusion);
    SimLatency latency(space, setup);
    std::mt19937_64 rng(11);
    for (int i = 0; i < 30; ++i) {
      const space::Encoding e = space.Sample(rng);
      const models::Graph graph = space.BuildFull(e, {}, setup.GraphOptions());
      const sim::Report r = sim::Simulate(graph, setup.spec, setup.stack, setup.calibration,
                                          setup.Options(), nullptr);
      const models::OpCounts c = models::CountGraph(graph);
      std::optional<ArchCounts> counts;
      CHECK(latency.LatencyAndCounts(e, counts) == r.latency_s * 1e3);
      REQUIRE(counts);
      CHECK(counts->params == static_cast<double>(c.params));
      CHECK(counts->flops == static_cast<double>(c.flops) / 128.0);
      CHECK(latency.LatencyMs(e) == r.latency_s * 1e3);  // warm: the same value
      CHECK(latency.Clone()->LatencyMs(e) == r.latency_s * 1e3);
    }
    CHECK(latency.block_cache().hits() > 0);
  }
}

TEST_CASE("the simulator objective describes its setup") {
  const space::Space space = space::Space::Load(SpacePath("dc-accelerator"));
  const nlohmann::json c = SimLatency(space, TpuSetup(false)).Config();
  CHECK(c["kind"] == "sim");
  CHECK(c["accelerator"] == "tpu-v3[hbm.bandwidth_gbps=1800]");  // the spec's name: a what-if
  CHECK(c["precision"] == "bf16");
  CHECK(c["batch"] == 128);
  CHECK(c["fusion"] == false);
  CHECK(c["sets"] == nlohmann::json::array({"hbm.bandwidth_gbps=1800"}));
  sim::SimSetup bad = TpuSetup(true);
  bad.batch = 0;
  CHECK_THROWS_AS(SimLatency(space, bad), InputError);
}

}  // namespace
}  // namespace dcnas::search

namespace dcnas::search {
namespace {

TEST_CASE("reference comparisons: whether the constraint binds, and the same-structure point") {
  const space::Space space = space::Space::Load(
      std::string(std::getenv("DCNAS_SOURCE_ROOT") ? std::getenv("DCNAS_SOURCE_ROOT") : ".") +
      "/data/search_spaces/dc-accelerator.yaml");
  // EfficientNet-B0's counterpart: 16 layers, SE in every stage.
  const std::string b0 =
      "1.0.0.0.1.0_1.0.1.0.0.1.1_1.0.1.1.1.1.1_1.0.1.1.0.1.1_1.0.1.1.1.1.1_1.1.1.1.1.1_1.1.1.0.0.1";
  const std::string key = StructureKey(space, space.FromText(b0));
  CHECK(key == "16|1111111");
  CHECK(StructureText(key) == "16 layers, SE in 7 of 7 stages");
  Reference r;
  r.model = "b0";
  r.latency_ms = 10.0;
  r.accuracy = 80.0;
  r.structure = key;
  // Points: fast but less accurate; accurate, other structure; accurate, the same structure.
  const std::vector<double> acc = {70.0, 81.0, 82.0};
  const std::vector<double> lat = {2.0, 4.0, 5.0};
  const std::vector<std::string> st = {"12|0000000", "12|0000000", key};
  const auto c = CompareWithReferences({r}, acc, lat, st);
  REQUIRE(c.size() == 1);
  CHECK(c[0].binds);
  REQUIRE(c[0].point);
  CHECK(*c[0].point == 1);
  CHECK(c[0].speedup == Approx(2.5));
  REQUIRE(c[0].same_structure_point);
  CHECK(*c[0].same_structure_point == 2);
  CHECK(c[0].same_structure_speedup == Approx(2.0));
  // The fastest point already as accurate: the constraint does not bind.
  const auto free = CompareWithReferences({r}, {85.0, 81.0}, {2.0, 4.0}, {"a", "b"});
  CHECK_FALSE(free[0].binds);
  CHECK_FALSE(free[0].same_structure_point);
  // Without structures: no same-structure comparison.
  CHECK_FALSE(CompareWithReferences({r}, acc, lat)[0].same_structure_point);
}

}  // namespace
}  // namespace dcnas::search
