#include "space/space.h"

#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdlib>
#include <map>
#include <optional>
#include <set>

#include "common/errors.h"
#include "common/text.h"
#include "models/block_string.h"
#include "models/counts.h"
#include "models/registry.h"
#include "models/zoo/zoo.h"

namespace dcnas::space {
namespace {

std::string SpacePath(const std::string& name) {
  const char* root = std::getenv("DCNAS_SOURCE_ROOT");
  return std::string(root ? root : ".") + "/data/search_spaces/" + name + ".yaml";
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
  const auto match = FindEncoding(space, *models::zoo::EfficientNetSpec("efficientnet-x-b0"));
  REQUIRE(match);
  CHECK(match->exact);
  const Encoding e = match->encoding;
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
  const auto match = FindEncoding(space, *models::zoo::EfficientNetSpec("efficientnet-b0"));
  REQUIRE(match);
  CHECK(match->exact);
  const Encoding e = match->encoding;
  CHECK(space.Decode(e).blocks == kB0);
  const auto counts = models::CountGraph(space.BuildFull(e, {}, models::BuildOptions{}));
  CHECK(counts.params == 5288548);
  const auto zoo =
      models::CountGraph(models::BuiltinModels().Build("efficientnet-b0", models::BuildOptions{}));
  CHECK(counts.flops == zoo.flops);
}

TEST_CASE("FindEncoding: counterparts in another stem and head, and networks a space lacks") {
  const Space dc = Space::Load(SpacePath("dc-accelerator"));
  const auto b0 = FindEncoding(dc, *models::zoo::EfficientNetSpec("efficientnet-b0"));
  REQUIRE(b0);
  CHECK_FALSE(b0->exact);
  const std::string why = Join(b0->differences, "; ");
  CHECK(why.find("stem/head activation relu (the network's swish)") != std::string::npos);
  CHECK(why.find("SE coefficient 4 (the network's 1)") != std::string::npos);
  for (const auto& b : dc.Decode(b0->encoding).blocks) {
    CHECK(models::ParseBlockString(b).activation == models::Activation::kSwish);
  }
  // Fused convs and space-to-depth are not in the mnasnet space; B1's depth is not a base.
  const Space mnas = Space::Load(SpacePath("mnasnet"));
  CHECK_FALSE(FindEncoding(mnas, *models::zoo::EfficientNetSpec("efficientnet-x-b0")));
  CHECK_FALSE(models::zoo::EfficientNetSpec("resnet-50"));
}

TEST_CASE("FindEncoding inverts decoding: every sampled network is found at its canonical form") {
  for (const std::string name : {"dc-accelerator", "mnasnet", "per-layer-example"}) {
    const Space space = Space::Load(SpacePath(name));
    std::mt19937_64 rng(11);
    for (int i = 0; i < 40; ++i) {
      const Encoding e = space.Sample(rng);
      const auto match = FindEncoding(space, space.NetworkSpec(e));
      INFO(name << " " << space.ToText(e));
      REQUIRE(match);
      CHECK(match->exact);
      CHECK(match->encoding == space.Canonical(e));
    }
  }
}

TEST_CASE("ProjectEncoding: mnasnet networks have dc-accelerator counterparts with their blocks") {
  const Space mnas = Space::Load(SpacePath("mnasnet"));
  const Space dc = Space::Load(SpacePath("dc-accelerator"));
  std::mt19937_64 rng(5);
  for (int i = 0; i < 200; ++i) {
    const Encoding e = mnas.Sample(rng);
    const auto p = ProjectEncoding(mnas, dc, e);
    INFO(mnas.ToText(e));
    REQUIRE(p);
    CHECK(dc.Decode(*p).blocks == mnas.Decode(e).blocks);
  }
  // The way back exists only for dc networks without fused convs, ReLU or space-to-depth.
  const auto xb0 = FindEncoding(dc, *models::zoo::EfficientNetSpec("efficientnet-x-b0"));
  REQUIRE(xb0);
  CHECK_FALSE(ProjectEncoding(dc, mnas, xb0->encoding));
  const auto b0 = FindEncoding(dc, *models::zoo::EfficientNetSpec("efficientnet-b0"));
  REQUIRE(b0);
  const auto back = ProjectEncoding(dc, mnas, b0->encoding);
  REQUIRE(back);
  CHECK(mnas.Decode(*back).blocks == dc.Decode(b0->encoding).blocks);
  CHECK_FALSE(ProjectEncoding(dc, Space::Load(SpacePath("per-layer-example")), b0->encoding));
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
  // Every value but the filters multiplier 1 of stages 1 and 2: 16 x 0.75 and 24 x 0.75 round
  // to 16 and 24 filters, the networks of multiplier 0.75 (the first value) stand for both.
  const auto dc_seen = SampledValues(dc);
  for (size_t j = 0; j < dc.vector_length(); ++j) {
    for (int v = 0; v < dc.choice_counts()[j]; ++v) {
      if (!dc_seen.count({j, v})) UNSCOPED_INFO("unreached: " << dc.choice_names()[j] << " " << v);
    }
  }
  CHECK(dc_seen.size() == total - 2);
  const auto& names = dc.choice_names();
  const size_t fm = static_cast<size_t>(
      std::find(names.begin(), names.end(), "stage1.filters_multiplier") - names.begin());
  REQUIRE(fm < names.size());
  CHECK_FALSE(dc_seen.count({fm, 1}));
  CHECK_FALSE(dc_seen.count({fm + 7, 1}));  // stage2.filters_multiplier
  CHECK(names[fm + 7] == "stage2.filters_multiplier");
  Encoding a = dc.Canonical(Encoding(dc.vector_length(), 0));
  Encoding b = a;
  a[fm] = 0;
  b[fm] = 1;
  CHECK(dc.Canonical(a) == dc.Canonical(b));
  CHECK(dc.Decode(a).blocks == dc.Decode(b).blocks);
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
    spec.blocks = models::ParseBlockStrings(space.Decode(e).blocks);
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

// The shipped spaces (data/search_spaces/*.yaml).
std::vector<Space> ShippedSpaces() {
  std::vector<Space> spaces;
  for (const char* name : {"dc-accelerator", "mnasnet", "per-layer-example"}) {
    spaces.push_back(Space::Load(SpacePath(name)));
  }
  return spaces;
}

// Valid architectures (sampled, mutated, crossed) and raw draws, many of them invalid.
std::vector<Encoding> ManyEncodings(const Space& space, std::mt19937_64& rng) {
  std::vector<Encoding> out;
  Encoding previous = space.Sample(rng);
  for (int i = 0; i < 150; ++i) {
    const Encoding a = space.Sample(rng);
    out.push_back(a);
    out.push_back(space.Mutate(a, 1 + i % 3, rng));
    out.push_back(space.Crossover(a, previous, rng));
    previous = a;
    Encoding raw(space.vector_length());
    for (size_t c = 0; c < raw.size(); ++c) {
      raw[c] = static_cast<int>(rng() % static_cast<uint64_t>(space.choice_counts()[c]));
    }
    out.push_back(raw);
  }
  return out;
}

TEST_CASE("decoding to block args equals parsing the decoded block strings, in every space") {
  std::mt19937_64 rng(17);
  int invalid = 0;  // in all spaces: raw draws of the per-layer space skip what they cannot
  for (const Space& space : ShippedSpaces()) {
    INFO(space.name());
    int valid = 0;
    for (const Encoding& e : ManyEncodings(space, rng)) {
      INFO(space.ToText(e));
      std::optional<Decoded> d;
      try {
        d = space.Decode(e);
      } catch (const InputError&) {
        // the fast paths refuse the same encodings
        CHECK_FALSE(space.IsValid(e));
        CHECK_THROWS_AS(space.DecodeBlocks(e), InputError);
        CHECK_THROWS_AS(space.NetworkSpec(e), InputError);
        ++invalid;
        continue;
      }
      ++valid;
      REQUIRE(space.IsValid(e));
      REQUIRE(d->blocks.size() == d->args.size());
      CHECK(models::ParseBlockStrings(d->blocks) == d->args);
      CHECK(models::EncodeBlockStrings(d->args) == d->blocks);
      CHECK(space.DecodeBlocks(e) == d->args);
      CHECK(space.NetworkSpec(e).blocks == d->args);
      CHECK(space.Decode(space.Canonical(e)).args == d->args);
      int layers = 0;
      for (const models::BlockArgs& a : d->args) layers += a.num_repeat;
      CHECK(d->layers == layers);
    }
    CHECK(valid > 100);
  }
  CHECK(invalid > 0);
}

TEST_CASE("the full-size layout builds the graph BuildFull builds, block by block") {
  std::mt19937_64 rng(19);
  for (const Space& space : ShippedSpaces()) {
    for (int i = 0; i < 20; ++i) {
      const Encoding e = space.Sample(rng);
      const Scaling scaling{1.0 + 0.1 * (i % 3), 1.0 + 0.05 * (i % 4), 1.0 + 0.1 * (i % 2)};
      models::BuildOptions o;
      o.batch = 1 + i % 5;
      o.dtype = i % 2 == 0 ? models::DType::kBf16 : models::DType::kFp32;
      const models::BlockNetworkLayout layout = space.LayoutFull(e, scaling, o);
      const models::Graph full = space.BuildFull(e, scaling, o);
      CHECK(models::BuildBlockNetwork(full.info().model, layout) == full);
      CHECK(layout.options.batch == o.batch);
      CHECK(layout.options.dtype == o.dtype);
      CHECK(layout.options.resolution == full.info().resolution);
    }
  }
}

// The features as they were computed from block strings: the one-hot of the canonical encoding,
// then log10 params and FLOPs, layers (repeats of the parsed block strings, depth-rounded),
// resolution and the coefficients.
std::vector<float> FeaturesFromText(const Space& space, const Encoding& raw, const Scaling& scaling,
                                    double params, double flops) {
  const Encoding e = space.Canonical(raw);
  std::vector<float> row;
  for (size_t i = 0; i < e.size(); ++i) {
    for (int v = 0; v < space.choice_counts()[i]; ++v) row.push_back(v == e[i] ? 1.0F : 0.0F);
  }
  int layers = 0;
  for (const std::string& b : space.Decode(e).blocks) {
    layers += models::RoundRepeats(models::ParseBlockString(b).num_repeat, scaling.depth);
  }
  const int resolution = std::max(
      8, static_cast<int>(std::lround(space.network().resolution * scaling.resolution / 8.0)) * 8);
  for (const double v : {std::log10(std::max(params, 1.0)), std::log10(std::max(flops, 1.0)),
                         static_cast<double>(layers), static_cast<double>(resolution),
                         scaling.depth, scaling.width, scaling.resolution}) {
    row.push_back(static_cast<float>(v));
  }
  return row;
}

TEST_CASE("features from block args equal the features from block strings") {
  std::mt19937_64 rng(23);
  for (const Space& space : ShippedSpaces()) {
    FeatureSet f;
    std::vector<float> expected;
    for (int i = 0; i < 60; ++i) {
      const Encoding e = space.Mutate(space.Sample(rng), 2, rng);
      const Scaling scaling{1.0 + 0.3 * (i % 4), 1.0 + 0.1 * (i % 3), 1.0 + 0.15 * (i % 2)};
      const double params = 1e6 + 1e5 * i, flops = 3e8 + 1e7 * i;
      AppendFeatures(space, e, scaling, params, flops, f);
      const std::vector<float> row = FeaturesFromText(space, e, scaling, params, flops);
      expected.insert(expected.end(), row.begin(), row.end());
    }
    CHECK(f.rows == 60);
    CHECK(f.values == expected);
  }
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
  RequireError(Replace(kMinimal, "name: t", "name: t\nbogus: 1"), "t.yaml:4: unknown key 'bogus'");
  RequireError(Replace(kMinimal, "kernel: [3, 5]", "kernel: []"), "empty choice list");
  RequireError(Replace(kMinimal, "kernel: [3, 5]", "kernel: [3, 3]"), "listed twice");
  RequireError(Replace(kMinimal, "kernel: [3, 5]", "kernel: [3, 4]"), "not odd");
  RequireError(Replace(kMinimal, "kernel: [3, 5]", "kernal: [3, 5]"), "unknown choice");
  RequireError(Replace(kMinimal, "block: mbconv", "block: conv3"), "unknown block type");
  RequireError(
      Replace(kMinimal, "repeats: 2}", "repeats: 2, choices: {space_to_depth: [false, true]}}"),
      "first stage");
  RequireError(Replace(kMinimal, "expand: 6, ", ""), "no value for 'expand'");
  RequireError(Replace(kMinimal, "version: 1", "version: 2"), "version");
  RequireError("format: dcnas-search-space\nversion: 1\nname: [", "YAML syntax error");
  RequireError("", "empty search-space file");
  RequireError(Replace(kMinimal, "stride: 2", "stride: 3"), "stride");
  RequireError(Replace(kMinimal, "repeats: 2}", "repeats: 2, first_layer: {kernel: 3}}"),
               "t.yaml:8: key 'stages.1.first_layer': needs a per-layer stage");
  RequireError(
      Replace(kMinimal, "network: {resolution: 64}", "network: {resolution: 64, stem_stride: 4}"),
      "network.stem_stride");
  // An op value that leaves the kernel unset while the others set it.
  RequireError(Replace(kMinimal, "block: mbconv, kernel: [3, 5], ",
                       "op: [{block: conv}, {block: mbconv, kernel: 3}], "),
               "value 0 (block=conv) sets no 'kernel'");
}

TEST_CASE("first_layer: the first layer's own choices stay in place, later skips move") {
  const std::string yaml =
      Replace(kMinimal, "  - {stride: 2, filters: 24, repeats: 2}",
              "  - {stride: 2, filters: 24, repeats: 3, per_layer: true, choices: {kernel: 3,\n"
              "     block: [skip, mbconv]}, first_layer: {block: [conv, mbconv], kernel: [1, 3]}}");
  const Space space = Space::Parse(yaml, "t.yaml");
  // stage 1: kernel 3/5; stage 2: first layer conv k1, conv k3, mbconv k1, mbconv k3; the two
  // later layers: none, one or two mbconv layers.
  CHECK(space.CanonicalSize() == 2 * 4 * 3);
  CHECK(space.ValidSize().networks == 2 * 4 * 3);
  // [conv, skip, mbconv] is [conv, mbconv, skip]; the first layer never moves.
  const Encoding a = space.FromText("0_0.0_0_1");
  const Encoding b = space.FromText("0_0.0_1_0");
  CHECK(space.Canonical(a) == space.Canonical(b));
  CHECK(space.Decode(a).blocks == std::vector<std::string>{"r1_k3_s11_e6_i32_o16_a1",
                                                           "r1_k1_s22_e1_i16_o24_c2",
                                                           "r1_k3_s11_e6_i24_o24_a1"});
}

TEST_CASE("a kernel larger than its feature map decodes (the padding covers it)") {
  // 64 px: stem 32, stage 2 at 16, stage 3 at 8, stage 4 at 4: a 5x5 kernel on the last map runs
  // on its zero padding, as in PyTorch and TF.
  const std::string yaml = std::string(kMinimal) +
                           "  - {stride: 2, filters: 32, repeats: 1}\n"
                           "  - {stride: 2, filters: 40, repeats: 1}\n";
  const Space space = Space::Parse(yaml, "t.yaml");
  Encoding e(space.vector_length(), 0);
  e.back() = 1;
  CHECK(space.IsValid(e));
  CHECK(space.Decode(e).blocks.back() == "r1_k5_s22_e6_i32_o40_a1");
  const models::Graph g = space.BuildFull(e, {}, {});
  CHECK(models::CountGraph(g).params > 0);
  CHECK_THROWS_AS(space.FromText("0_0_0"), InputError);
  CHECK_THROWS_AS(space.FromText("9_0_0_0"), InputError);
}

TEST_CASE("a choice that cannot decode is rejected at decode time, naming the choice") {
  // Skipping the only layer of a stage that changes the width.
  const std::string yaml = std::string(kMinimal) +
                           "  - {stride: 1, filters: 32, repeats: 1, "
                           "choices: {block: [mbconv, skip]}}\n";
  const Space space = Space::Parse(yaml, "t.yaml");
  Encoding e(space.vector_length(), 0);
  const auto& names = space.choice_names();
  const size_t block = std::find(names.begin(), names.end(), "stage3.block") - names.begin();
  REQUIRE(block < names.size());
  e[block] = 1;
  try {
    space.Decode(e);
    FAIL("a vanished width change accepted");
  } catch (const InputError& err) {
    CHECK(std::string(err.what()).find("stage3.block: skipping every layer of a stage") !=
          std::string::npos);
  }
  CHECK_FALSE(space.IsValid(e));
  e[block] = 0;
  CHECK(space.IsValid(e));
  const Space::ValidCount n = space.ValidSize();
  CHECK(n.exact);
  CHECK(space.CanonicalSize() == 2 * 2 * 3);  // kernels of stages 1 and 2; stage 3: k3, k5, skip
  CHECK(n.networks == 2 * 2 * 2);             // the skip is never valid
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
}  // namespace dcnas::space
