// Relational: costing a block network piece by piece through BlockCostCache gives exactly what
// simulating and counting its whole graph gives, warm or cold, on every kind of setup.
#include "sim/block_cost_cache.h"

#include <catch2/catch.hpp>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "common/errors.h"
#include "models/counts.h"
#include "models/zoo/zoo.h"
#include "space/space.h"

namespace dcnas::sim {
namespace {

std::string SpacePath(const std::string& name) {
  const char* root = std::getenv("DCNAS_SOURCE_ROOT");
  return std::string(root ? root : ".") + "/data/search_spaces/" + name + ".yaml";
}

SimSetup Setup(const std::string& accelerator, const std::vector<Override>& overrides,
               models::DType dtype, int batch, bool fusion) {
  SimSetup s = LoadSetup(accelerator, "", "", overrides);
  s.dtype = dtype;
  s.batch = batch;
  s.fusion = fusion;
  return s;
}

// Setups whose rules reach across kernels in every way the planner and the cost layer know:
// fusion on and off, a GPU stack, inter-kernel reuse, asynchronous launches, a CPU.
std::vector<SimSetup> Setups() {
  return {Setup("tpu-v3", {}, models::DType::kBf16, 128, true),
          Setup("tpu-v3", {}, models::DType::kFp32, 8, false),
          Setup("v100", {}, models::DType::kFp16, 64, true),
          Setup("a100", {{"stack.inter_kernel_reuse", "true"}}, models::DType::kFp16, 32, true),
          Setup("t4", {{"stack.async_launch", "true"}}, models::DType::kFp16, 16, true),
          Setup("epyc-zen4", {}, models::DType::kFp32, 1, true)};
}

// The reference: the whole graph built, simulated and counted.
NetworkCost Whole(const models::BlockNetworkLayout& layout, const SimSetup& setup) {
  const models::Graph graph = models::BuildBlockNetwork("whole", layout);
  const Report r =
      Simulate(graph, setup.spec, setup.stack, setup.calibration, setup.Options(), nullptr);
  return {r.latency_s, models::CountGraph(graph)};
}

void RequireSame(const NetworkCost& got, const NetworkCost& want) {
  CHECK(got.latency_s == want.latency_s);  // bit for bit, not approximately
  CHECK(got.counts == want.counts);
}

TEST_CASE("block-cached latencies and counts equal the whole graph's, warm and cold",
          "[block_cost_cache]") {
  std::mt19937_64 rng(5);
  for (const SimSetup& setup : Setups()) {
    INFO(setup.spec.name << " " << setup.stack.name << " batch " << setup.batch);
    BlockCostCache cache;
    CostCache op_cache;
    std::vector<cost::GroupCost> scratch;
    for (const char* name : {"dc-accelerator", "mnasnet", "per-layer-example"}) {
      const space::Space space = space::Space::Load(SpacePath(name));
      for (int i = 0; i < 12; ++i) {
        const space::Encoding e = space.Sample(rng);
        const space::Scaling scaling{1.0 + 0.2 * (i % 3), 1.0 + 0.1 * (i % 2), 1.0};
        INFO(name << " " << space.ToText(e));
        const models::BlockNetworkLayout layout =
            space.LayoutFull(e, scaling, setup.GraphOptions());
        const NetworkCost want = Whole(layout, setup);
        RequireSame(SimulateBlockNetwork(layout, setup, cache, &op_cache, scratch), want);
        // Warm: every piece is a hit, and the result does not move.
        const uint64_t misses = cache.misses();
        RequireSame(SimulateBlockNetwork(layout, setup, cache, &op_cache, scratch), want);
        CHECK(cache.misses() == misses);
        // Cold, without a per-op cache either.
        BlockCostCache cold;
        RequireSame(SimulateBlockNetwork(layout, setup, cold, nullptr, scratch), want);
      }
    }
    CHECK(cache.hits() > cache.misses());  // candidates share blocks
  }
}

TEST_CASE("zoo block networks cost the same piece by piece", "[block_cost_cache]") {
  for (const SimSetup& setup : Setups()) {
    BlockCostCache cache;
    std::vector<cost::GroupCost> scratch;
    for (const char* family : {"efficientnet-b", "efficientnet-x-b", "efficientnet-x-gpu-b"}) {
      for (int b = 0; b < 8; b += 3) {
        const std::string model = family + std::to_string(b);
        INFO(setup.spec.name << " " << model);
        const auto spec = models::zoo::EfficientNetSpec(model);
        REQUIRE(spec);
        const models::BlockNetworkLayout layout =
            models::LayoutBlockNetwork(*spec, setup.GraphOptions());
        RequireSame(SimulateBlockNetwork(layout, setup, cache, nullptr, scratch),
                    Whole(layout, setup));
      }
    }
  }
}

TEST_CASE("one block cache serves several setups without mixing them", "[block_cost_cache]") {
  const std::vector<SimSetup> setups = Setups();
  const space::Space space = space::Space::Load(SpacePath("dc-accelerator"));
  std::mt19937_64 rng(9);
  BlockCostCache cache;
  std::vector<cost::GroupCost> scratch;
  for (int i = 0; i < 10; ++i) {
    const space::Encoding e = space.Sample(rng);
    for (const SimSetup& setup : setups) {
      const models::BlockNetworkLayout layout = space.LayoutFull(e, {}, setup.GraphOptions());
      RequireSame(SimulateBlockNetwork(layout, setup, cache, nullptr, scratch),
                  Whole(layout, setup));
    }
  }
  // The same blocks on another setup (another batch, fusion or files) are other entries.
  CHECK(cache.size() > 10 * setups.size());
}

TEST_CASE("a proxy layout is not costed piece by piece", "[block_cost_cache]") {
  const space::Space space = space::Space::Load(SpacePath("dc-accelerator"));
  std::mt19937_64 rng(3);
  models::BuildOptions proxy;
  proxy.proxy_removed_downsamples = 1;
  const models::BlockNetworkLayout layout = space.LayoutFull(space.Sample(rng), {}, proxy);
  BlockCostCache cache;
  std::vector<cost::GroupCost> scratch;
  CHECK_THROWS_AS(SimulateBlockNetwork(layout, Setups()[0], cache, nullptr, scratch),
                  InternalError);
}

}  // namespace
}  // namespace dcnas::sim
