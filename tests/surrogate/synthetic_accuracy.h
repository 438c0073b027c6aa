// Synthetic accuracy data of a space shared by the accuracy-surrogate tests: every choice value
// has its own effect on accuracy (drawn once from a fixed seed), plus a small FLOPs term and
// noise, so that FLOPs alone rank poorly and the choices rank well. With `replicates` > 1 each
// architecture is "trained" that many times with independent noise.
#pragma once

#include <cmath>
#include <random>
#include <set>
#include <string>

#include "models/counts.h"
#include "proxy/accuracy_data.h"
#include "space/space.h"

namespace dcnas::surrogate::testing {

inline proxy::AccuracyData SyntheticAccuracy(const space::Space& space, int count, uint64_t seed,
                                             int replicates = 1, double noise = 0.15) {
  std::mt19937_64 effects_rng(1234);
  std::normal_distribution<double> unit(0.0, 1.0);
  std::vector<std::vector<double>> effect;
  for (int c : space.choice_counts()) {
    effect.emplace_back();
    for (int v = 0; v < c; ++v) effect.back().push_back(0.6 * unit(effects_rng));
  }
  std::mt19937_64 rng(seed);
  proxy::AccuracyData data;
  data.file = "synthetic.csv";
  std::set<std::string> seen;
  while (static_cast<int>(seen.size()) < count) {
    const space::Encoding e = space.Sample(rng);
    if (!seen.insert(space.ToText(e)).second) continue;
    const auto counts = models::CountGraph(space.BuildFull(e, {}, models::BuildOptions{}));
    double acc = 85.0 + 0.3 * std::log10(static_cast<double>(counts.flops));
    for (size_t j = 0; j < e.size(); ++j) acc += effect[j][static_cast<size_t>(e[j])];
    for (int rep = 0; rep < replicates; ++rep) {
      proxy::AccuracyRow r;
      r.space = space.name();
      r.fingerprint = space.fingerprint();
      r.encoding = space.ToText(e);
      r.seed = seen.size() * 100 + static_cast<size_t>(rep);
      r.replicate = rep;
      r.val_accuracy = r.test_accuracy = std::min(99.0, acc + noise * unit(rng));
      r.params = counts.params;
      r.flops = counts.flops;
      data.rows.push_back(r);
    }
  }
  return data;
}

}  // namespace dcnas::surrogate::testing
