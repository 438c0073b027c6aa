// Accuracy from the XGBoost surrogate (surrogate/accuracy_surrogate.h), as a search objective.
// Built only with XGBoost.
#pragma once

#include <memory>
#include <string>

#include "models/graph.h"
#include "search/objectives.h"

namespace dcnas::search {

// Loads the surrogate at `path` and refuses it (InputError naming the file) when it was fitted to
// another space than `space` or its held-out Kendall tau is below `min_tau`. Predictions are the
// ensemble mean (percent); PredictWithStd gives the ensemble's std too.
std::unique_ptr<AccuracyObjective> MakeSurrogateAccuracy(const std::string& path,
                                                         const space::Space& space, double min_tau,
                                                         const std::string& sha256);

// Accuracy of an architecture of `space` predicted through its counterpart in the surrogate's
// space (space/space.h, ProjectEncoding): the same per-layer choices inside the surrogate space's
// stem and head. For comparing spaces with one surrogate, e.g. the mnasnet space scored by the
// dc-accelerator surrogate; refused (InputError) below `min_tau`, and an architecture without a
// counterpart is an InputError naming it.
std::unique_ptr<AccuracyObjective> MakeCounterpartSurrogateAccuracy(const std::string& path,
                                                                    const space::Space& space,
                                                                    double min_tau,
                                                                    const std::string& sha256);

// Published ImageNet top-1 (percent) predicted by an ImageNet surrogate (surrogate/
// imagenet_surrogate.h, `dcnas surrogate imagenet`) from each candidate's full-size graph at
// scaling 1; refused (InputError) when its leave-one-family-out tau is below `min_tau`. `space`
// must outlive the objective.
std::unique_ptr<AccuracyObjective> MakeImageNetAccuracy(const std::string& path,
                                                        const space::Space& space, double min_tau,
                                                        const std::string& sha256);

// Published ImageNet top-1 of a full-size graph from an ImageNet surrogate, for scorers outside a
// search (LACS's `scale --accuracy imagenet:FILE`): loaded and refused as MakeImageNetAccuracy
// does.
class ImageNetTop1 {
 public:
  virtual ~ImageNetTop1() = default;
  static std::unique_ptr<ImageNetTop1> Load(const std::string& path, double min_tau);
  virtual double Predict(const models::Graph& full_size) const = 0;
  virtual nlohmann::json Config() const = 0;  // kind imagenet, file, sha256, lofo_tau
};

}  // namespace dcnas::search
