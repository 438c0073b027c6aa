// The NAS-Bench-Macro space (data/search_spaces/nas-bench-macro.yaml) against the benchmark: its
// 6,561 keys are its 3,969 networks, one to one with the space's canonical networks, and every
// network has the parameter count the benchmark reports, and MACs equal to its FLOP count
// (tests/space/nas_bench_macro_counts.csv, from the benchmark's file).
#include <catch2/catch.hpp>
#include <cstdlib>
#include <fstream>
#include <map>
#include <set>
#include <string>

#include "common/text.h"
#include "models/counts.h"
#include "space/space.h"

namespace dcnas::space {
namespace {

std::string SourcePath(const std::string& relative) {
  const char* root = std::getenv("DCNAS_SOURCE_ROOT");
  return std::string(root ? root : ".") + "/" + relative;
}

// The benchmark README's canonical form, written independently of Space::Canonical: each stage
// (2, 3, 3 layers) keeps its first digit and moves its later zeros to its end.
std::string BenchmarkCanonical(const std::string& key) {
  std::string out;
  size_t at = 0;
  for (const size_t layers : {2, 3, 3}) {
    out += key[at];
    std::string kept, zeros;
    for (size_t l = 1; l < layers; ++l) (key[at + l] == '0' ? zeros : kept) += key[at + l];
    out += kept + zeros;
    at += layers;
  }
  return out;
}

Encoding FromKey(const std::string& key) {
  Encoding e;
  for (const char c : key) e.push_back(c - '0');
  return e;
}

std::string KeyOf(const Encoding& e) {
  std::string key;
  for (const int v : e) key += static_cast<char>('0' + v);
  return key;
}

struct BenchmarkCounts {
  int64_t params = 0;
  int64_t flops = 0;
};

std::map<std::string, BenchmarkCounts> ReadCounts() {
  std::ifstream in(SourcePath("tests/space/nas_bench_macro_counts.csv"));
  REQUIRE(in.good());
  std::map<std::string, BenchmarkCounts> counts;
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#' || line.rfind("key,", 0) == 0) continue;
    const std::vector<std::string> f = Split(line, ',');
    REQUIRE(f.size() == 3);
    counts[f[0]] = {std::stoll(f[1]), std::stoll(f[2])};
  }
  return counts;
}

const Space& Benchmark() {
  static const Space space = Space::Load(SourcePath("data/search_spaces/nas-bench-macro.yaml"));
  return space;
}

TEST_CASE("NAS-Bench-Macro: the 6,561 keys are the space's 3,969 canonical networks") {
  const Space& space = Benchmark();
  REQUIRE(space.vector_length() == 8);
  CHECK(space.CanonicalSize() == 3969);
  const Space::ValidCount valid = space.ValidSize();
  CHECK(valid.exact);
  CHECK(valid.networks == 3969);
  CHECK(valid.valid_fraction == 1.0);  // 5x5 kernels on the last 4x4 maps included
  std::map<std::string, std::string> ours_by_benchmark;
  std::set<std::string> ours;
  for (int k = 0; k < 6561; ++k) {
    std::string key;
    for (int d = 0, v = k; d < 8; ++d, v /= 3) key += static_cast<char>('0' + v % 3);
    const std::string canonical = KeyOf(space.Canonical(FromKey(key)));
    // The benchmark's canonical key is the space's canonical encoding, digit for digit.
    CHECK(canonical == BenchmarkCanonical(key));
    CHECK(space.IsValid(FromKey(key)));
    ours.insert(canonical);
  }
  CHECK(ours.size() == 3969);
  CHECK(space.ToText(FromKey("01201122")) == "0_1_2_0_1_1_2_2");
}

TEST_CASE("NAS-Bench-Macro: every network has the benchmark's params, and MACs = its FLOPs") {
  const Space& space = Benchmark();
  const std::map<std::string, BenchmarkCounts> counts = ReadCounts();
  REQUIRE(counts.size() == 3969);
  size_t checked = 0;
  for (const auto& [key, want] : counts) {
    const models::OpCounts got = models::CountGraph(space.BuildFull(FromKey(key), {}, {}));
    INFO("key " << key);
    CHECK(got.params == want.params);
    // The benchmark's "flops" are the multiply-accumulates of its convolutions and classifier.
    CHECK(got.macs == want.flops);
    ++checked;
  }
  CHECK(checked == 3969);
  // The optimum (93.13% mean test accuracy) has 5x5 kernels on the last stage's 4x4 maps.
  const Decoded best = space.Decode(FromKey("22212220"));
  CHECK(best.blocks.back() == "r1_k5_s11_e6_i256_o256_a0");
}

TEST_CASE("NAS-Bench-Macro: the stem keeps 32 px, a first-layer identity is a strided conv") {
  const Space& space = Benchmark();
  const Decoded d = space.Decode(FromKey("00000000"));
  CHECK(d.blocks == std::vector<std::string>{"r1_k1_s22_e1_i32_o64_c2", "r1_k1_s22_e1_i64_o128_c2",
                                             "r1_k1_s22_e1_i128_o256_c2"});
  const models::Graph g = space.BuildFull(FromKey("00000000"), {}, {});
  // Stem conv on 32 x 32 (stride 1), then 16, 8 and 4 px; 10 classes.
  CHECK(models::CountGraph(g).params == 387882);
  const models::Graph proxy = space.BuildProxy(FromKey("22212220"), {});
  CHECK(models::CountGraph(proxy).params > 0);
}

}  // namespace
}  // namespace dcnas::space
