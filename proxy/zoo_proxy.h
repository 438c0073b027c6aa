// The zoo on the proxy against ImageNet: every zoo model with a published top-1
// (data/accuracy/published-imagenet.csv) built at proxy size (the recipe's width and removed
// downsamples; the recipe's resolution scaled by the model's own input size over 224 px, rounded
// as a scaled space network's is) and labelled by the recipe (trained, or a zero-cost label), then
// Kendall tau between proxy label and published top-1 with a bootstrap interval, beside the free
// baselines (full-size params and FLOPs). Results are appended to a CSV as each run ends (a rerun
// continues it). Built only with LibTorch.
#pragma once

#include <cstdint>
#include <functional>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <vector>

#include "common/rank_correlation.h"
#include "models/zoo/published_top1.h"
#include "proxy/accuracy_data.h"

namespace dcnas::proxy {

// The published table (models/zoo/published_top1.h).
using models::PublishedTop1;
using models::ReadPublishedTop1;

struct ZooProxyOptions {
  std::string published;  // the published table
  ProxyRecipe recipe;
  uint64_t seed = 0;  // of every run
  int jobs = 1;
  std::string data_dir;
  int64_t limit_eval = 0;
  std::string out;  // the results CSV (appended; kept across runs of the same recipe and seed)
  int draws = 1000;
};

struct ZooProxyRow {
  std::string model;
  double top1 = 0.0;
  int native_resolution = 0;
  int proxy_resolution = 0;
  int64_t params = 0;  // full size, 1000 classes
  int64_t flops = 0;   // full size, batch 1, native resolution
  // Full size, one image: the elements every activation op writes (the count NASWOT's codes grow
  // with), and the blocks ("blocks.N" scopes) of the network.
  int64_t act_units = 0;
  int depth = 0;
  double label = 0.0;  // the recipe's label (validation accuracy, or the zero-cost label)
  int64_t proxy_params = 0;
  double time_s = 0.0;
};

// The FLOPs-matched taus (common/rank_correlation.h SizeMatchedKendallTau) pair models whose
// full-size FLOPs are within this factor of each other: what a label says at equal size.
inline constexpr double kMatchedFlopsRatio = 1.25;

struct ZooProxyReport {
  std::string recipe;
  std::vector<ZooProxyRow> rows;    // the published table's order; failed runs left out
  std::vector<std::string> failed;  // "model: error"
  TauInterval tau, params_tau, flops_tau, act_units_tau, depth_tau;
  // The same labels on FLOPs-matched pairs only (FLOPs itself is nearly blind there).
  MatchedTau matched, params_matched, flops_matched, act_units_matched, depth_matched;
  std::string ToText() const;
  nlohmann::json ToJson() const;
};

using ZooProgress = std::function<void(const std::string& line)>;

// Runs what `out` lacks, then the report over all of the table's models found in `out`.
// InputError for a bad table, an `out` of another recipe or seed, or a bad line in it.
ZooProxyReport RunZooProxy(const ZooProxyOptions& options, const ZooProgress& progress);

}  // namespace dcnas::proxy
