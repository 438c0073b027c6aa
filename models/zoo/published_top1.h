// The zoo's real accuracy axis: published ImageNet-1k top-1 of zoo models
// (data/accuracy/published-imagenet.csv; format in data/accuracy/README.md). A model may have
// several rows (timm's weights of one architecture trained on other data, with another recipe or
// evaluated at another size); its primary row is the ImageNet-1k-only training evaluated at the
// model's smallest size, the best of those. Read by the proxy-validity study (how the proxy ranks
// the zoo), the ImageNet surrogate and the comparisons at equal accuracy (study/equal_accuracy.h).
#pragma once

#include <map>
#include <string>
#include <vector>

namespace dcnas::models {

// The shipped table, relative to the data directory (common/data_dir.h).
inline constexpr const char* kPublishedTop1File = "accuracy/published-imagenet.csv";

// The training data of a row trained on ImageNet-1k alone (the default of the column).
inline constexpr const char* kImageNet1kOnly = "in1k";

// One row of the published table: model, top-1 (percent), its evaluation resolution, the data the
// weights were trained on ("in1k"; "in1k-ap" AdvProp; "in12k", "in21k", "jft300m-ns" pretraining
// before ImageNet-1k), the recipe (timm's weight tag; empty: the source's one), the source.
struct PublishedTop1 {
  std::string model;
  double top1 = 0.0;
  int resolution = 0;
  std::string training_data = kImageNet1kOnly;
  std::string recipe;
  std::string source;
};

// Reads model,top1,resolution,source[,training_data][,recipe][,note]: every row. Every model must
// be in the zoo (one that cannot be built is refused by name), each (model, training_data, recipe,
// resolution) once, top-1 in (0, 100]. InputError naming the file, line and column.
std::vector<PublishedTop1> ReadPublishedTable(const std::string& path);

// The primary row of every model that has an ImageNet-1k-only row (see above), in the file's
// order of first appearance: one row per model, the figure every label is judged against.
std::vector<PublishedTop1> PrimaryRows(const std::vector<PublishedTop1>& rows);

// PrimaryRows(ReadPublishedTable(path)); InputError when fewer than 3 models have one.
std::vector<PublishedTop1> ReadPublishedTop1(const std::string& path);

// The shipped table's primary rows as model -> top-1: what reference networks of the search and
// of LACS carry beside their own accuracy.
std::map<std::string, double> ShippedPublishedTop1();

}  // namespace dcnas::models
