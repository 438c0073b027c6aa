// The zoo's real accuracy axis: published ImageNet-1k top-1 of zoo models
// (data/accuracy/published-imagenet.csv, one sourced row per model; format in
// data/accuracy/README.md). Read by the proxy-validity study (how the proxy ranks the zoo) and by
// the comparisons at equal accuracy (study/equal_accuracy.h).
#pragma once

#include <map>
#include <string>
#include <vector>

namespace dcnas::models {

// The shipped table, relative to the data directory (common/data_dir.h).
inline constexpr const char* kPublishedTop1File = "accuracy/published-imagenet.csv";

// One row of the published table: model, top-1 (percent), its evaluation resolution, source.
struct PublishedTop1 {
  std::string model;
  double top1 = 0.0;
  int resolution = 0;
  std::string source;
};
// Reads model,top1,resolution,source[,note]; every model must be in the zoo, each once, top-1 in
// (0, 100]. InputError naming the file, line and column.
std::vector<PublishedTop1> ReadPublishedTop1(const std::string& path);

// The shipped table (kPublishedTop1File in the data directory) as model -> top-1: what reference
// networks of the search and of LACS carry beside their own accuracy.
std::map<std::string, double> ShippedPublishedTop1();

}  // namespace dcnas::models
