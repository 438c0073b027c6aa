// The accuracy surrogate's features of architectures, computed from the space alone: the same
// function for fitting, predicting, evaluating and the learning curve, so the model sees the same
// features for one architecture wherever it meets it. The features are space::FeatureNames'
// (one-hot choices of the canonical encoding, log params and FLOPs, layers, resolution, scaling
// coefficients), with params and FLOPs counted on the space's full-size graph, never taken from
// a data file.
#pragma once

#include <string>
#include <vector>

#include "models/counts.h"
#include "space/space.h"

namespace dcnas::surrogate {

// The feature names of `space` (what a surrogate file records and checks on loading).
std::vector<std::string> SurrogateFeatureNames(const space::Space& space);

// Features of each (encoding, scaling); `counts`, when given, receives each full-size network's
// counts (batch 1).
space::FeatureSet SurrogateFeatures(const space::Space& space,
                                    const std::vector<space::Encoding>& encodings,
                                    const std::vector<space::Scaling>& scalings,
                                    std::vector<models::OpCounts>* counts = nullptr);

}  // namespace dcnas::surrogate
