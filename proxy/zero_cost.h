// Zero-cost proxy scores of the networks of an accuracy CSV (`dcnas accuracy-data zero-cost`):
// each distinct network's proxy (the recipe's resolution, width and removed downsamples, as
// `accuracy-data generate` builds it) scored at initialisation on one fixed batch of
// Fashion-MNIST training images (models/torch/zero_cost.h), one fsync'ed CSV row per network.
// Built only with LibTorch.
//
// The CSV: ZeroCostHeader(), then one row per network in the accuracy CSV's order of first
// appearance. Its settings (space, recipe key, batch, seed) are columns of every row; a resume
// with other settings is refused, naming the setting. A kill loses at most the network being
// scored (a torn last line is cut when the file is continued); `resume` scores only the rest.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include "proxy/accuracy_data.h"
#include "space/space.h"

namespace dcnas::proxy {

struct ZeroCostRunOptions {
  std::string data;  // the accuracy CSV whose networks are scored
  ProxyRecipe recipe;
  int batch = 64;
  uint64_t seed = 0;
  int64_t max_memory_bytes = int64_t{4} << 30;  // per network (ZeroCostMemoryBytes)
  std::string out;
  bool resume = false;
  std::string data_dir;        // Fashion-MNIST directory, or a dataset spec (image_datasets.h)
  std::string device = "cpu";  // where LibTorch scores: cpu, cuda, cuda:N
};

// The header line (no '\n'): encoding,synflow,naswot,grad_norm,snip,proxy_params,time_s, then
// the settings space,recipe,batch,seed.
std::string ZeroCostHeader();
// The recipe's part that changes a proxy network: "r16_w0.25_rd1".
std::string ZeroCostRecipeKey(const ProxyRecipe& recipe);

struct ZeroCostSummary {
  size_t planned = 0;  // distinct networks in the accuracy CSV
  size_t already_done = 0;
  size_t scored = 0;
  double wall_s = 0.0;
  double score_time_s = 0.0;  // sum of the rows' time_s of this invocation
};

using ZeroCostProgress = std::function<void(const std::string& line, bool final)>;

// Scores the networks missing from options.out. Throws InputError (naming the file, line,
// setting or network) for a bad accuracy CSV, an existing `out` without `resume`, a file of
// other settings, a network over the memory limit or with a non-finite score.
ZeroCostSummary ScoreZeroCost(const space::Space& space, const ZeroCostRunOptions& options,
                              const ZeroCostProgress& progress);

}  // namespace dcnas::proxy
