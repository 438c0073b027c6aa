// Accuracy of a scaling's networks from an ImageNet surrogate (surrogate/imagenet_surrogate.h,
// `dcnas surrogate imagenet`): each request's full-size network (its scaled width, depth and
// resolution) predicted as published ImageNet top-1, instead of a proxy training. `dcnas scale
// --accuracy imagenet:FILE`. Built only with XGBoost.
#pragma once

#include <memory>
#include <string>

#include "lacs/family.h"

namespace dcnas::lacs {

// Loads the surrogate at `path` (InputError naming the file when it is not one) and refuses it
// when its leave-one-family-out tau is below `min_tau`.
std::unique_ptr<ProxyAccuracy> MakeImageNetAccuracy(const std::string& path, double min_tau);

}  // namespace dcnas::lacs
