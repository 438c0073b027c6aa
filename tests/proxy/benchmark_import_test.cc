#include "proxy/benchmark_import.h"

#include <unistd.h>

#include <catch2/catch.hpp>
#include <cmath>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>

#include "common/errors.h"
#include "common/file_io.h"
#include "common/sha256.h"
#include "models/counts.h"

namespace dcnas::proxy {
namespace {

namespace fs = std::filesystem;
using Catch::Contains;

// A miniature of NAS-Bench-Macro's space: a downsampling layer (op 0 a strided 1x1 conv) and a
// stage of two layers that may vanish (skips move to the stage's end: keys x01 and x10 are one
// network). 27 keys, 3 x 7 = 21 networks (stage 2: 00, 10, 20, 11, 12, 21, 22).
std::string MiniSpace(int resolution) {
  return R"(format: dcnas-search-space
version: 1
name: mini-macro
network: {resolution: )" +
         std::to_string(resolution) + R"(, stem_filters: 16, head_filters: 64, activation: relu}
defaults:
  se: 0
  activation: relu
  op:
    - {block: skip}
    - {block: mbconv, expand: 3, kernel: 3}
    - {block: mbconv, expand: 6, kernel: 5}
stages:
  - {stride: 2, filters: 16, repeats: 1, choices: {op: [{block: fused, expand: 1, kernel: 1}, {block: mbconv, expand: 3, kernel: 3}, {block: mbconv, expand: 6, kernel: 5}]}}
  - {stride: 1, filters: 16, repeats: 2, per_layer: true}
)";
}

struct TempDir {
  fs::path dir = fs::temp_directory_path() / ("dcnas-bench-" + std::to_string(::getpid()));
  TempDir() {
    fs::remove_all(dir);
    fs::create_directories(dir);
  }
  ~TempDir() { fs::remove_all(dir); }
  std::string Path(const std::string& name) const { return (dir / name).string(); }
};

// A benchmark file of the mini space: values depend only on the canonical network, so the keys
// of one network carry equal values; its `params` are no network's of this space.
nlohmann::json MiniBenchmark(const space::Space& space) {
  nlohmann::json root = nlohmann::json::object();
  for (int a = 0; a < 3; ++a) {
    for (int b = 0; b < 3; ++b) {
      for (int c = 0; c < 3; ++c) {
        const space::Encoding e = space.Canonical({a, b, c});
        double base = 80.0 + 2.0 * e[0] + e[1] + 0.5 * e[2];
        const std::vector<double> acc = {base + 0.25, base - 0.125, base - 0.125};
        const double mean = base;
        const double sd = std::sqrt((0.25 * 0.25 + 2 * 0.125 * 0.125) / 3.0);
        const std::string key = std::to_string(a) + std::to_string(b) + std::to_string(c);
        root[key] = {{"test_acc", acc},
                     {"mean_acc", mean},
                     {"std", sd},
                     {"params", 1000 + 10 * e[1]},
                     {"flops", 20000}};
      }
    }
  }
  return root;
}

// The import of `text` refused with an InputError naming the file and `fragments`, and no output.
void RequireRefused(const TempDir& t, const space::Space& space, const std::string& text,
                    const std::vector<std::string>& fragments) {
  const std::string in = t.Path("bench.json"), out = t.Path("refused.csv");
  WriteFileAtomic(in, text);
  try {
    ImportBenchmark("nas-bench-macro", in, space, out);
    FAIL("accepted: " << fragments.front());
  } catch (const InputError& e) {
    INFO(e.what());
    CHECK(std::string(e.what()).find(in) != std::string::npos);
    for (const std::string& f : fragments)
      CHECK(std::string(e.what()).find(f) != std::string::npos);
  }
  CHECK_FALSE(fs::exists(out));
}

TEST_CASE(
    "NAS-Bench-Macro import: one row per training, canonical networks once, recipe and source") {
  const space::Space space = space::Space::Parse(MiniSpace(64), "mini.yaml");
  TempDir t;
  const nlohmann::json bench = MiniBenchmark(space);
  const std::string text = bench.dump();
  const std::string in = t.Path("bench.json"), out = t.Path("imported.csv");
  WriteFileAtomic(in, text);
  const BenchmarkImport r = ImportBenchmark("nas-bench-macro", in, space, out);
  CHECK(r.keys == 27);
  CHECK(r.networks == 21);
  // The rows as any accuracy file: the strict reader, the recipe, the source, replicates.
  const AccuracyData d = ReadAccuracyData(out, &space);
  CHECK(d.rows.size() == 3 * r.networks);
  ProxyRecipe want;
  want.dataset = "cifar10";
  want.epochs = 50;
  want.batch = 256;
  want.resolution = 32;
  want.width = 1.0;
  want.removed_downsamples = 0;
  want.train_images = 50000;
  want.optimizer = "sgd";
  CHECK(RequireOneRecipe(d) == want);
  std::map<std::string, int> replicates;
  for (const AccuracyRow& row : d.rows) {
    CHECK(row.source == "nas-bench-macro:" + Sha256Hex(text));
    CHECK(std::isnan(row.val_accuracy));
    CHECK(row.replicate == replicates[row.encoding]++);
    const space::Encoding e = space.FromText(row.encoding);
    CHECK(space.ToText(space.Canonical(e)) == row.encoding);
    const auto full = models::CountGraph(space.BuildFull(e, {}, models::BuildOptions{}));
    CHECK(row.params == full.params);
    CHECK(row.flops == full.flops);
    const auto trained = models::CountGraph(space.BuildProxy(e, {}, RecipeProxy(space, want)));
    CHECK(row.proxy_params == trained.params);
    const double base = 80.0 + 2.0 * e[0] + e[1] + 0.5 * e[2];
    CHECK(row.test_accuracy == (row.replicate == 0 ? base + 0.25 : base - 0.125));
  }
  for (const auto& [encoding, n] : replicates) CHECK(n == 3);
  // The benchmark's params are not this space's network's: every network differs.
  CHECK(r.params_differ == r.networks);
  CHECK(r.max_params_rel_diff > 0.0);
  CHECK(bench.contains(r.max_params_key));
  CHECK_THROWS_WITH(ReadBenchmark("nas-bench-101", in, space),
                    Contains("unknown benchmark format 'nas-bench-101' (nas-bench-macro)"));
}

TEST_CASE("NAS-Bench-Macro import: the benchmark's FLOPs against the networks' MACs") {
  const space::Space space = space::Space::Parse(MiniSpace(64), "mini.yaml");
  TempDir t;
  nlohmann::json bench = MiniBenchmark(space);
  ProxyRecipe recipe;
  recipe.dataset = "cifar10";
  recipe.resolution = 32;
  recipe.width = 1.0;
  recipe.removed_downsamples = 0;
  // Every key's FLOPs set to its network's multiply-accumulates (as the real file's are).
  for (auto& [key, entry] : bench.items()) {
    const space::Encoding e = space.Canonical({key[0] - '0', key[1] - '0', key[2] - '0'});
    entry["flops"] = models::CountGraph(space.BuildProxy(e, {}, RecipeProxy(space, recipe))).macs;
  }
  const std::string in = t.Path("bench.json");
  WriteFileAtomic(in, bench.dump());
  BenchmarkImport r = ImportBenchmark("nas-bench-macro", in, space, t.Path("a.csv"));
  CHECK(r.flops_ratio_median == 1.0);
  CHECK(r.flops_ratio_min == 1.0);
  CHECK(r.flops_ratio_max == 1.0);
  CHECK(r.flops_outliers == 0);
  // One network's FLOPs doubled: noted with its key, the import goes on.
  const int64_t f = bench["011"]["flops"].get<int64_t>();
  for (auto& [key, entry] : bench.items()) {
    const space::Encoding e = space.Canonical({key[0] - '0', key[1] - '0', key[2] - '0'});
    if (space.ToText(e) == space.ToText(space.Canonical({0, 1, 1}))) entry["flops"] = 2 * f;
  }
  WriteFileAtomic(in, bench.dump());
  r = ImportBenchmark("nas-bench-macro", in, space, t.Path("b.csv"));
  CHECK(r.flops_ratio_median == 1.0);
  CHECK(r.flops_ratio_max == 2.0);
  CHECK(r.flops_outliers == 1);
  CHECK(space.ToText(space.Canonical(space.FromText(
            std::string() + r.flops_farthest_key[0] + "_" + r.flops_farthest_key[1] + "_" +
            r.flops_farthest_key[2]))) == space.ToText(space.Canonical({0, 1, 1})));
}

TEST_CASE("NAS-Bench-Macro import refuses bad input naming the file, key and value") {
  const space::Space space = space::Space::Parse(MiniSpace(64), "mini.yaml");
  TempDir t;
  const nlohmann::json good = MiniBenchmark(space);
  auto with = [&](const std::string& key, const std::string& field, const nlohmann::json& v) {
    nlohmann::json j = good;
    if (v.is_discarded()) {
      j[key].erase(field);
    } else {
      j[key][field] = v;
    }
    return j.dump();
  };
  const nlohmann::json gone(nlohmann::json::value_t::discarded);
  // Keys of one network with different values: both keys named.
  nlohmann::json diff = good;
  diff["110"]["params"] = 7;
  RequireRefused(t, space, diff.dump(), {"'101'", "'110'", "one network", "different values"});
  RequireRefused(t, space, with("000", "std", gone), {"key '000'", "missing field 'std'"});
  RequireRefused(t, space, with("000", "note", 1), {"key '000'", "unknown field 'note'"});
  RequireRefused(t, space, with("012", "test_acc", {90.0, 101.5, 90.0}),
                 {"key '012'", "test_acc[1]", "101.5", "out of range"});
  RequireRefused(t, space, with("012", "params", "12"), {"key '012'", "params", "\"12\""});
  RequireRefused(t, space, with("012", "flops", 1.5), {"key '012'", "flops", "1.5"});
  RequireRefused(t, space, with("012", "test_acc", "90"), {"key '012'", "test_acc", "\"90\""});
  RequireRefused(t, space, with("012", "mean_acc", 10.0), {"key '012'", "not its mean"});
  {
    nlohmann::json two = good;
    two["012"]["test_acc"] = {80.0, 82.0};
    RequireRefused(t, space, two.dump(), {"key '012'", "2 values", "the format has 3"});
  }
  // NaN is not JSON: the error names the key it lies in.
  std::string nan = good.dump();
  const size_t at = nan.find("\"test_acc\":[", nan.find("\"021\"")) + 12;
  nan.insert(at, "NaN,");
  RequireRefused(t, space, nan, {"in key '021'", "not JSON", "NaN"});
  std::string twice = good.dump();
  twice.insert(1, "\"000\":" + good["000"].dump() + ",");
  RequireRefused(t, space, twice, {"key '000'", "given twice"});
  // Keys outside the space: too long, a digit beyond the choice, another space's vector.
  nlohmann::json extra = good;
  extra["0120"] = good["012"];
  RequireRefused(t, space, extra.dump(), {"key '0120'", "4 digits", "3 choices"});
  nlohmann::json digit = good;
  digit["013"] = good["012"];
  RequireRefused(t, space, digit.dump(), {"key '013'", "digit 3 '3'", "stage2.layer2.op"});
  RequireRefused(t, space, "[1, 2]", {"expected a JSON object"});
  // A key naming a network the space cannot build (with stage 2 widening to 24 filters, its
  // layers cannot all vanish: keys x00).
  std::string widening = MiniSpace(64);
  const std::string stage2 = "{stride: 1, filters: 16, repeats: 2, per_layer: true}";
  widening.replace(widening.find(stage2), stage2.size(),
                   "{stride: 1, filters: 24, repeats: 2, per_layer: true}");
  const space::Space tiny = space::Space::Parse(widening, "tiny.yaml");
  RequireRefused(t, tiny, good.dump(),
                 {"key '000'", "not a network of space 'mini-macro'", "skipping every layer"});
  // A refused import leaves an existing output untouched.
  const std::string out = t.Path("refused.csv");
  WriteFileAtomic(out, "old\n");
  WriteFileAtomic(t.Path("bench.json"), "{");
  CHECK_THROWS_AS(ImportBenchmark("nas-bench-macro", t.Path("bench.json"), space, out), InputError);
  CHECK(ReadFile(out) == "old\n");
}

}  // namespace
}  // namespace dcnas::proxy
