#include "surrogate/arch_features.h"

#include "common/errors.h"

namespace dcnas::surrogate {

std::vector<std::string> SurrogateFeatureNames(const space::Space& space) {
  return space::FeatureNames(space);
}

space::FeatureSet SurrogateFeatures(const space::Space& space,
                                    const std::vector<space::Encoding>& encodings,
                                    const std::vector<space::Scaling>& scalings,
                                    std::vector<models::OpCounts>* counts) {
  if (encodings.size() != scalings.size()) {
    throw InternalError("SurrogateFeatures: encodings and scalings differ in length");
  }
  space::FeatureSet f;
  f.names = SurrogateFeatureNames(space);
  if (counts != nullptr) counts->clear();
  for (size_t i = 0; i < encodings.size(); ++i) {
    const models::OpCounts c =
        models::CountGraph(space.BuildFull(encodings[i], scalings[i], models::BuildOptions{}));
    space::AppendFeatures(space, encodings[i], scalings[i], static_cast<double>(c.params),
                          static_cast<double>(c.flops), f);
    if (counts != nullptr) counts->push_back(c);
  }
  return f;
}

}  // namespace dcnas::surrogate
