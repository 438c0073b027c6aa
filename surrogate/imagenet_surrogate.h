// An ImageNet-informed accuracy source: the XGBoost ensemble fitted on published ImageNet top-1 of
// networks the zoo builds (the timm MBConv family, data/accuracy/published-timm-in1k.csv), from
// features of their full-size layer graphs that see operators: size (params, FLOPs, activation
// units, resolution), the graph set of arch_features.h (dense / pointwise / depthwise convs,
// squeeze-excite multiplies, kernels, widths and per-level params and FLOPs) and the share of
// activation units by function (ReLU family, swish, hard-swish, GELU). Judged by leaving one
// design family out at a time; predicts any graph (a search space's networks too), and says where
// a graph lies outside the fitted networks' feature ranges. Built only with XGBoost.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "common/rank_correlation.h"
#include "models/graph.h"
#include "space/space.h"
#include "surrogate/surrogate.h"

namespace dcnas::surrogate {

// One published network: its zoo name, design family, evaluation resolution and top-1 (percent).
struct PublishedNetwork {
  std::string model;
  std::string family;
  int resolution = 224;
  double top1 = 0.0;
};

std::vector<std::string> ImageNetFeatureNames();
// The features of a full-size graph (batch 1, its evaluation resolution).
std::vector<double> ImageNetFeatures(const models::Graph& graph);

// The ensemble's settings for a few dozen networks: shallow trees, out-of-bag early stopping.
EnsembleParams ImageNetEnsembleParams(uint64_t seed);

struct ImageNetFamilyResult {
  std::string family;
  size_t networks = 0;
  double tau = 0.0;         // held-out predictions against top-1 within the family (NaN below 3)
  double params_tau = 0.0;  // params against top-1 within the family
  double mae = 0.0;         // mean absolute error of the held-out predictions, percentage points
};

struct ImageNetReport {
  size_t networks = 0;
  std::vector<std::string> models;
  std::vector<double> top1;
  std::vector<double> predicted;  // each network's prediction while its family was held out
  std::vector<ImageNetFamilyResult> families;
  TauInterval lofo_tau;  // pooled held-out predictions against top-1
  TauInterval params_tau, flops_tau;
  MatchedTau lofo_matched, params_matched, flops_matched;  // FLOPs within kImageNetMatchedRatio
  double lofo_mae = 0.0;
  nlohmann::json ToJson() const;
  std::string ToText() const;
};
inline constexpr double kImageNetMatchedRatio = 1.25;

struct ImageNetFit {
  std::optional<Ensemble> ensemble;  // fitted on every network
  nlohmann::json metadata;
  ImageNetReport report;
};

// Fits on `networks` (graphs[i] the full-size graph of networks[i]) and evaluates
// leave-one-family-out. InputError for fewer than 10 networks, fewer than 2 families, or graphs
// and networks of different lengths.
ImageNetFit FitImageNetSurrogate(const std::vector<PublishedNetwork>& networks,
                                 const std::vector<models::Graph>& graphs, uint64_t seed,
                                 int draws);

// The same from a published top-1 table (model,top1,resolution,source[,note]; models/zoo/
// published_top1.h): each model built at full size at its resolution, its family the zoo's
// (timm networks: "timm/<family>"). Also records the table's SHA-256 in the metadata.
ImageNetFit FitImageNetSurrogateTable(const std::string& published, uint64_t seed, int draws);

// A fitted ImageNet surrogate, loaded: prediction (mean and std, percent) of a full-size graph
// and the features where it lies outside the fitted networks' range.
class ImageNetSurrogate {
 public:
  // InputError naming the file when it is not an ImageNet surrogate (metadata.kind) or its
  // features differ from this build's.
  static ImageNetSurrogate Load(const std::string& path);
  void Predict(const models::Graph& graph, double& mean, double& std) const;
  std::vector<std::string> OutsideRange(const models::Graph& graph) const;
  const nlohmann::json& metadata() const { return surrogate_.metadata; }

 private:
  explicit ImageNetSurrogate(Surrogate s);
  Surrogate surrogate_;
  std::vector<double> min_, max_;
};

// Where the surrogate extrapolates on a search space: `samples` networks sampled with `seed`, at
// scaling 1, the share with a feature outside the fitted range and which features.
struct ExtrapolationReport {
  size_t sampled = 0;
  size_t outside = 0;
  std::vector<std::pair<std::string, size_t>> features;  // most often outside first
  double mean_predicted = 0.0;
  std::string ToText() const;
  nlohmann::json ToJson() const;
};
ExtrapolationReport CheckExtrapolation(const ImageNetSurrogate& s, const space::Space& space,
                                       size_t samples, uint64_t seed);

}  // namespace dcnas::surrogate
