#include "search/space.h"

#include <catch2/catch.hpp>
#include <cstdlib>
#include <map>
#include <set>

#include "common/errors.h"
#include "common/text.h"
#include "models/block_string.h"
#include "models/counts.h"
#include "models/registry.h"
#include "models/zoo/zoo.h"

namespace dcnas::search {
namespace {

std::string SpacePath(const std::string& name) {
  const char* root = std::getenv("DCNAS_SOURCE_ROOT");
  return std::string(root ? root : ".") + "/data/search_spaces/" + name + ".yaml";
}

// The encoding whose decoded block strings are `target`, found stage by stage (each stage's
// choices are tried with the earlier stages fixed).
Encoding FindEncoding(const Space& space, const std::vector<std::string>& target) {
  Encoding e(space.vector_length(), 0);
  size_t offset = 0;
  for (size_t u = 0; u < space.units().size(); ++u) {
    const auto& unit = space.units()[u];
    std::vector<int> idx(unit.choices.size(), 0);
    bool found = false;
    while (!found) {
      for (size_t c = 0; c < idx.size(); ++c) e[offset + c] = idx[c];
      try {
        const auto blocks = space.Decode(e).blocks;
        found = blocks.size() > u && blocks[u] == target[u];
      } catch (const InputError&) {
      }
      if (found) break;
      size_t c = 0;
      for (; c < idx.size(); ++c) {
        if (++idx[c] < static_cast<int>(unit.choices[c].values.size())) break;
        idx[c] = 0;
      }
      if (c == idx.size()) break;
    }
    REQUIRE(found);
    offset += unit.choices.size();
  }
  return e;
}

const std::vector<std::string> kXB0 = {
    "r1_k3_s11_e1_i32_o16_se0.25_d1_a0", "r2_k3_s22_e6_i16_o24_se0.25_f1_d2_a1",
    "r2_k5_s22_e6_i24_o40_se0.25_f1_a1", "r3_k3_s22_e6_i40_o80_se0.25_a0",
    "r3_k5_s11_e6_i80_o112_se0.25_a0",   "r4_k5_s22_e6_i112_o192_se0.25_a0",
    "r1_k3_s11_e6_i192_o320_se0.25_a0"};
const std::vector<std::string> kB0 = {
    "r1_k3_s11_e1_i32_o16_se0.25_a1",  "r2_k3_s22_e6_i16_o24_se0.25_a1",
    "r2_k5_s22_e6_i24_o40_se0.25_a1",  "r3_k3_s22_e6_i40_o80_se0.25_a1",
    "r3_k5_s11_e6_i80_o112_se0.25_a1", "r4_k5_s22_e6_i112_o192_se0.25_a1",
    "r1_k3_s11_e6_i192_o320_se0.25_a1"};

TEST_CASE("EfficientNet-X-B0 is a point of the dc-accelerator space, with the zoo's counts") {
  const Space space = Space::Load(SpacePath("dc-accelerator"));
  const Encoding e = FindEncoding(space, kXB0);
  CHECK(space.Decode(e).blocks == kXB0);
  const auto counts = models::CountGraph(space.BuildFull(e, {}, models::BuildOptions{}));
  CHECK(counts.params == 7584104);  // the authors' code (paper_facts.md)
  const auto zoo = models::CountGraph(
      models::BuiltinModels().Build("efficientnet-x-b0", models::BuildOptions{}));
  CHECK(counts.flops == zoo.flops);
  CHECK(space.Decode(e).stage_ops[0].find("s2d") != std::string::npos);
}

TEST_CASE("EfficientNet-B0 is a point of the mnasnet space, with the published parameters") {
  const Space space = Space::Load(SpacePath("mnasnet"));
  const Encoding e = FindEncoding(space, kB0);
  const auto counts = models::CountGraph(space.BuildFull(e, {}, models::BuildOptions{}));
  CHECK(counts.params == 5288548);
  const auto zoo =
      models::CountGraph(models::BuiltinModels().Build("efficientnet-b0", models::BuildOptions{}));
  CHECK(counts.flops == zoo.flops);
}

TEST_CASE("mnasnet space has no fused conv, no space-to-depth, swish only") {
  const Space space = Space::Load(SpacePath("mnasnet"));
  std::mt19937_64 rng(3);
  for (int i = 0; i < 200; ++i) {
    for (const auto& b : space.Decode(space.Sample(rng)).blocks) {
      const auto a = models::ParseBlockString(b);
      REQUIRE_FALSE(a.fused);
      REQUIRE(a.space2depth == 0);
      REQUIRE(a.activation == models::Activation::kSwish);
    }
  }
}

TEST_CASE("text form round trips, canonical form is stable, decoding ignores don't-care choices") {
  for (const std::string name : {"dc-accelerator", "mnasnet", "per-layer-example"}) {
    const Space space = Space::Load(SpacePath(name));
    std::mt19937_64 rng(11);
    for (int i = 0; i < 300; ++i) {
      const Encoding e = space.Sample(rng);
      REQUIRE(space.Canonical(e) == e);
      REQUIRE(space.FromText(space.ToText(e)) == e);
      REQUIRE(space.Canonical(space.Canonical(e)) == space.Canonical(e));
    }
    // Raw (non-canonical) encodings decode like their canonical form.
    for (int i = 0; i < 300; ++i) {
      Encoding raw(space.vector_length());
      for (size_t j = 0; j < raw.size(); ++j) {
        raw[j] = static_cast<int>(rng() % static_cast<uint64_t>(space.choice_counts()[j]));
      }
      if (!space.IsValid(raw)) continue;
      REQUIRE(space.Decode(raw).blocks == space.Decode(space.Canonical(raw)).blocks);
    }
  }
}

TEST_CASE("the same network is never counted twice (per-layer skips)") {
  const Space space = Space::Load(SpacePath("per-layer-example"));
  std::mt19937_64 rng(5);
  std::map<std::string, std::string> blocks_to_encoding;
  for (int i = 0; i < 3000; ++i) {
    const Encoding e = space.Sample(rng);
    const std::string blocks = Join(space.Decode(e).blocks, " ");
    const std::string text = space.ToText(e);
    const auto [it, inserted] = blocks_to_encoding.emplace(blocks, text);
    if (!inserted) REQUIRE(it->second == text);
  }
  // [A, skip, B, skip] and [skip, A, skip, B] are one network: one canonical form.
  Encoding a(space.vector_length(), 0);
  Encoding b(space.vector_length(), 0);
  // Stage 2 (units 1..4): op indices 0 skip, 1 mbconv e3 k3, 2 mbconv e6 k5.
  a[0] = 1, a[1] = 0, a[2] = 2, a[3] = 0;
  b[0] = 0, b[1] = 1, b[2] = 0, b[3] = 2;
  for (size_t j = 4; j < a.size(); ++j) a[j] = b[j] = 1;
  CHECK(space.Canonical(a) == space.Canonical(b));
  CHECK(space.Decode(a).blocks == space.Decode(b).blocks);
  CHECK(space.CanonicalSize() < space.RawSize());
}

std::set<std::pair<size_t, int>> SampledValues(const Space& space) {
  std::set<std::pair<size_t, int>> seen;
  std::mt19937_64 rng(7);
  for (int i = 0; i < 3000; ++i) {
    const Encoding e = space.Sample(rng);
    for (size_t j = 0; j < e.size(); ++j) seen.insert({j, e[j]});
  }
  return seen;
}

TEST_CASE("every choice value is reachable by sampling") {
  const Space dc = Space::Load(SpacePath("dc-accelerator"));
  size_t total = 0;
  for (int c : dc.choice_counts()) total += static_cast<size_t>(c);
  CHECK(SampledValues(dc).size() == total);
  // Per-layer space: skipped layers sit at a stage's end in canonical form, and these stages
  // change width, so "skip" is reachable on every layer but the first of each stage.
  const Space pl = Space::Load(SpacePath("per-layer-example"));
  const auto seen = SampledValues(pl);
  size_t pos = 0;
  for (const auto& u : pl.units()) {
    for (size_t c = 0; c < u.choices.size(); ++c, ++pos) {
      for (int v = 0; v < static_cast<int>(u.choices[c].values.size()); ++v) {
        const bool skip = u.choices[c].values[static_cast<size_t>(v)].block == BlockType::kSkip;
        INFO(u.name << " value " << v);
        CHECK(seen.count({pos, v}) == (skip && u.layer == 0 ? 0U : 1U));
      }
    }
  }
}

TEST_CASE("decoded graphs count like the equivalent block-string networks") {
  const Space space = Space::Load(SpacePath("dc-accelerator"));
  std::mt19937_64 rng(13);
  for (int i = 0; i < 40; ++i) {
    const Encoding e = space.Sample(rng);
    models::BlockNetworkSpec spec;  // written out here, not taken from the space
    spec.blocks = space.Decode(e).blocks;
    spec.se_coefficient = 4.0;
    spec.default_activation = models::Activation::kRelu;
    spec.resolution = 224;
    const auto direct =
        models::CountGraph(models::BuildBlockNetwork("direct", spec, models::BuildOptions{}));
    const auto via_space = models::CountGraph(space.BuildFull(e, {}, models::BuildOptions{}));
    REQUIRE(direct.params == via_space.params);
    REQUIRE(direct.flops == via_space.flops);
  }
  // Scaling coefficients grow the network.
  std::mt19937_64 rng2(1);
  const Encoding e = space.Sample(rng2);
  const auto base = models::CountGraph(space.BuildFull(e, {}, models::BuildOptions{}));
  const auto scaled =
      models::CountGraph(space.BuildFull(e, {1.4, 1.2, 1.15}, models::BuildOptions{}));
  CHECK(scaled.params > base.params);
  CHECK(scaled.flops > base.flops);
  // The proxy graph has the proxy's input and classes.
  const auto proxy = space.BuildProxy(e, {});
  CHECK(proxy.info().num_classes == 10);
  CHECK(proxy.info().resolution == 32);
}

TEST_CASE("mutation changes k choices and crossover mixes parents; both stay valid") {
  const Space space = Space::Load(SpacePath("dc-accelerator"));
  std::mt19937_64 rng(17);
  for (int i = 0; i < 100; ++i) {
    const Encoding a = space.Sample(rng);
    const Encoding m = space.Mutate(a, 2, rng);
    size_t diff = 0;
    for (size_t j = 0; j < a.size(); ++j) diff += a[j] != m[j];
    REQUIRE(diff >= 1);
    REQUIRE(diff <= 2);
    REQUIRE(space.IsValid(m));
    const Encoding b = space.Sample(rng);
    const Encoding c = space.Crossover(a, b, rng);
    REQUIRE(space.IsValid(c));
    for (size_t j = 0; j < c.size(); ++j) REQUIRE((c[j] == a[j] || c[j] == b[j]));
  }
}

TEST_CASE("sampling is deterministic for a seed") {
  const Space space = Space::Load(SpacePath("dc-accelerator"));
  std::mt19937_64 r1(42), r2(42);
  for (int i = 0; i < 20; ++i) REQUIRE(space.Sample(r1) == space.Sample(r2));
}

TEST_CASE("features: one-hot per choice, then the counts and coefficients") {
  const Space space = Space::Load(SpacePath("dc-accelerator"));
  std::mt19937_64 rng(2);
  FeatureSet f;
  const Encoding e = space.Sample(rng);
  AppendFeatures(space, e, {1.2, 1.1, 1.15}, 5e6, 8e8, f);
  REQUIRE(f.rows == 1);
  REQUIRE(f.values.size() == FeatureNames(space).size());
  float ones = 0;
  size_t onehot = 0;
  for (int c : space.choice_counts()) onehot += static_cast<size_t>(c);
  for (size_t j = 0; j < onehot; ++j) ones += f.values[j];
  CHECK(ones == Approx(static_cast<double>(space.vector_length())));
  CHECK(f.values[onehot] == Approx(std::log10(5e6)));
  CHECK(f.values[onehot + 1] == Approx(std::log10(8e8)));
  CHECK(f.values[onehot + 4] == Approx(1.2));
}

const char* kMinimal = R"(format: dcnas-search-space
version: 1
name: t
network: {resolution: 64}
defaults: {block: mbconv, kernel: [3, 5], expand: 6, se: 0, activation: swish}
stages:
  - {stride: 1, filters: 16, repeats: 1}
  - {stride: 2, filters: 24, repeats: 2}
)";

std::string Replace(std::string s, const std::string& from, const std::string& to) {
  const size_t p = s.find(from);
  REQUIRE(p != std::string::npos);
  return s.replace(p, from.size(), to);
}

void RequireError(const std::string& yaml, const std::string& fragment) {
  try {
    Space::Parse(yaml, "t.yaml");
    FAIL("no error for: " << fragment);
  } catch (const InputError& e) {
    INFO(e.what());
    CHECK(std::string(e.what()).find(fragment) != std::string::npos);
    CHECK(std::string(e.what()).find("t.yaml") != std::string::npos);
  }
}

TEST_CASE("bad space files are refused naming file, line and key") {
  REQUIRE_NOTHROW(Space::Parse(kMinimal, "t.yaml"));
  RequireError(Replace(kMinimal, "name: t", "name: t\nbogus: 1"), "t.yaml:4: bogus: unknown key");
  RequireError(Replace(kMinimal, "kernel: [3, 5]", "kernel: []"), "empty choice list");
  RequireError(Replace(kMinimal, "kernel: [3, 5]", "kernel: [3, 3]"), "listed twice");
  RequireError(Replace(kMinimal, "kernel: [3, 5]", "kernel: [3, 4]"), "not odd");
  RequireError(Replace(kMinimal, "kernel: [3, 5]", "kernal: [3, 5]"), "unknown choice");
  RequireError(Replace(kMinimal, "block: mbconv", "block: conv"), "unknown block type");
  RequireError(
      Replace(kMinimal, "repeats: 2}", "repeats: 2, choices: {space_to_depth: [false, true]}}"),
      "first stage");
  RequireError(Replace(kMinimal, "expand: 6, ", ""), "no value for 'expand'");
  RequireError(Replace(kMinimal, "version: 1", "version: 2"), "version");
  RequireError("format: dcnas-search-space\nversion: 1\nname: [", "YAML syntax error");
  RequireError("", "empty search-space file");
  RequireError(Replace(kMinimal, "stride: 2", "stride: 3"), "stride");
}

TEST_CASE("a choice that cannot decode is rejected at decode time, naming the choice") {
  // 64 px: stem 32, stage 2 at 16, stage 3 at 8, stage 4 at 4: a 3x3 kernel fits the last
  // map, a 5x5 does not.
  const std::string yaml = std::string(kMinimal) +
                           "  - {stride: 2, filters: 32, repeats: 1}\n"
                           "  - {stride: 2, filters: 40, repeats: 1}\n";
  const Space space = Space::Parse(yaml, "t.yaml");
  Encoding e(space.vector_length(), 0);
  e.back() = 1;  // last stage: kernel 5 on a 1x1 map
  try {
    space.Decode(e);
    FAIL("kernel 5 on 1x1 accepted");
  } catch (const InputError& err) {
    CHECK(std::string(err.what()).find("stage4.kernel: kernel 5 larger than its 4x4") !=
          std::string::npos);
  }
  CHECK_FALSE(space.IsValid(e));
  e.back() = 0;
  CHECK(space.IsValid(e));
  CHECK_THROWS_AS(space.FromText("0_0_0"), InputError);
  CHECK_THROWS_AS(space.FromText("9_0_0_0"), InputError);
}

TEST_CASE("the fingerprint follows the definition, not the comments") {
  const Space a = Space::Parse(kMinimal, "a.yaml");
  const Space b = Space::Parse(std::string("# a comment\n") + kMinimal, "b.yaml");
  const Space c = Space::Parse(Replace(kMinimal, "kernel: [3, 5]", "kernel: [3, 7]"), "c.yaml");
  CHECK(a.fingerprint() == b.fingerprint());
  CHECK(a.fingerprint() != c.fingerprint());
  CHECK(a.fingerprint().size() == 16);
}

}  // namespace
}  // namespace dcnas::search
