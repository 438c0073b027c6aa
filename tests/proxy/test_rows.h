// Accuracy rows and networks for the proxy tests: a row of a network with a given accuracy (its
// params growing with the accuracy), the first n canonical networks a seeded sampler gives, and
// the NAS-Bench-Macro space file.
#pragma once

#include <cstdlib>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "proxy/accuracy_data.h"
#include "space/space.h"

namespace dcnas::proxy::testing {

// The NAS-Bench-Macro space file of the source tree.
inline std::string BenchSpacePath() {
  const char* root = std::getenv("DCNAS_SOURCE_ROOT");
  return std::string(root ? root : ".") + "/data/search_spaces/nas-bench-macro.yaml";
}

inline AccuracyRow Row(const space::Space& space, const std::string& encoding, int replicate,
                       double acc, const ProxyRecipe& recipe) {
  AccuracyRow r;
  r.space = space.name();
  r.fingerprint = space.fingerprint();
  r.encoding = encoding;
  r.recipe = recipe;
  r.replicate = replicate;
  r.val_accuracy = r.test_accuracy = acc;
  r.params = 1000 + static_cast<int64_t>(acc * 10);
  r.flops = 2000;
  r.train_time_s = 10.0;
  r.blocks = "r1_k3_s11_e1_i32_o16";
  return r;
}

inline std::vector<std::string> Networks(const space::Space& space, size_t n, uint64_t seed = 4) {
  std::mt19937_64 rng(seed);
  std::set<std::string> seen;
  std::vector<std::string> out;
  while (out.size() < n) {
    const std::string e = space.ToText(space.Canonical(space.Sample(rng)));
    if (seen.insert(e).second) out.push_back(e);
  }
  return out;
}

}  // namespace dcnas::proxy::testing
