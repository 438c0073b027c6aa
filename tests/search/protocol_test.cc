// The NAS-benchmark protocol: its targets (ties, invalid rows), the runs' records, and a result
// that does not depend on the thread count.
#include "search/protocol.h"

#include <catch2/catch.hpp>
#include <random>
#include <string>

#include "common/errors.h"

namespace dcnas::search {
namespace {

// 16 networks: block x activation in two stages.
space::Space TinySpace(int resolution, const std::string& stage2_blocks = "mbconv, fused") {
  const std::string yaml = R"(format: dcnas-search-space
version: 1
name: tiny
description: a tiny space for the protocol tests
sources: ["tests/search/protocol_test.cc"]
network: {resolution: )" + std::to_string(resolution) +
                           R"(, stem_filters: 16, head_filters: 64, activation: relu,
          se_coefficient: 4, dropout: 0.2}
proxy: {resolution: 32, in_channels: 1, num_classes: 10, removed_downsamples: 1, width: 0.25}
defaults: {block: mbconv, kernel: 3, expand: 4, se: 0, activation: relu, repeats_delta: 0,
           filters_multiplier: 1.0}
stages:
  - {stride: 1, filters: 16, repeats: 1, choices: {block: [mbconv, fused], activation: [relu, swish]}}
  - {stride: 2, filters: 24, repeats: 1, choices: {block: [)" +
                           stage2_blocks +
                           R"(], kernel: [3, 7]}}
)";
  return space::Space::Parse(yaml, "tiny.yaml");
}

// Every network of the space with a distinct accuracy: 50 + its index in text order.
ObjectiveTable FullTable(const space::Space& space) {
  ObjectiveTable t{"tiny.csv", "accuracy", {}};
  std::mt19937_64 rng(1);
  for (int i = 0; i < 2000; ++i) t.values.emplace(space.ToText(space.Sample(rng)), 0.0);
  double v = 50.0;
  for (auto& [text, value] : t.values) value = v++;
  return t;
}

TEST_CASE("protocol targets: the optimum, the top fraction with ties, invalid rows refused") {
  const space::Space space = TinySpace(64);
  ObjectiveTable t = FullTable(space);
  REQUIRE(t.values.size() == 16);
  ProtocolTargets targets = FindTargets(space, t, 0.1);  // ceil(1.6) = 2 networks
  CHECK(targets.networks == 16);
  CHECK(targets.optimum == 65.0);
  CHECK(targets.optimum_networks == 1);
  CHECK(targets.top_threshold == 64.0);
  CHECK(targets.top_networks == 2);
  // A tie at the threshold: every network at least as accurate is in the top.
  for (auto& [text, value] : t.values) {
    if (value == 63.0) value = 64.0;
  }
  targets = FindTargets(space, t, 0.1);
  CHECK(targets.top_networks == 3);
  CHECK(FindTargets(space, t, 1.0).top_networks == 16);
  // Where stage 2's second block is a skip, half the networks cannot be built (a stride-2 stage
  // cannot vanish).
  const space::Space small = TinySpace(64, "mbconv, skip");
  CHECK_THROWS_WITH(FindTargets(small, t, 0.1),
                    Catch::Contains("tiny.csv") && Catch::Contains("not valid in space tiny"));
}

TEST_CASE("protocol runs: records, early stop at the optimum, independent of the threads") {
  const space::Space space = TinySpace(64);
  const ObjectiveTable t = FullTable(space);
  ProtocolOptions o;
  o.seeds = 6;
  o.budget = 16;
  o.params.population = 4;
  o.threads = 1;
  const ProtocolResult one = RunProtocol(space, t, o);
  o.threads = 3;
  const ProtocolResult three = RunProtocol(space, t, o);
  REQUIRE(one.runs.size() == 5 * 6);
  REQUIRE(three.runs.size() == one.runs.size());
  for (size_t i = 0; i < one.runs.size(); ++i) {
    const ProtocolRun& r = one.runs[i];
    INFO(r.strategy << " seed " << r.seed);
    CHECK(r.to_optimum == three.runs[i].to_optimum);
    CHECK(r.to_top == three.runs[i].to_top);
    CHECK(r.repeats == three.runs[i].repeats);
    CHECK(r.stopped == three.runs[i].stopped);
    // The whole space is the budget: a run finds the optimum and stops there, unless its
    // strategy converged elsewhere (rl's policy, nsga2's generations) and stopped repeating.
    if (r.strategy == "rl" || r.strategy == "nsga2") {
      CHECK((r.found_optimum() || !r.stopped.empty()));
      if (!r.found_optimum()) continue;
    }
    CHECK(r.found_optimum());
    CHECK(r.evaluated == r.to_optimum);
    CHECK(r.found_top());
    CHECK(r.to_top <= r.to_optimum);
  }
  REQUIRE(one.cells.size() == 5);
  for (const ProtocolCell& c : one.cells) {
    if (c.strategy == "random" || c.strategy == "evolution" || c.strategy == "predictor") {
      CHECK(c.optimum.hit_rate == 1.0);
    }
    CHECK(c.optimum.q1 <= c.optimum.median);
    CHECK(c.optimum.median <= c.optimum.q3);
  }
  const std::string text = FormatProtocol(one, o);
  CHECK_THAT(text, Catch::Contains("optimum 65 (1 network)") && Catch::Contains("top 1%"));

  o.budget = 2;  // too few to find the optimum every time: misses count past the budget
  o.seeds = 3;
  o.strategies = {"random"};
  const ProtocolResult short_runs = RunProtocol(space, t, o);
  for (const ProtocolRun& r : short_runs.runs) CHECK(r.evaluated <= 2);

  o.top_fraction = 0.0;
  CHECK_THROWS_WITH(RunProtocol(space, t, o), Catch::Contains("--top-fraction 0"));
  o.top_fraction = 0.01;
  o.strategies = {"evolution"};
  o.params.tournament = 5;
  CHECK_THROWS_WITH(RunProtocol(space, t, o), Catch::Contains("--tournament 5"));
}

}  // namespace
}  // namespace dcnas::search
