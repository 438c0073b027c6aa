#include "models/zoo/zoo.h"

#include "models/zoo/timm.h"

namespace dcnas::models {
namespace zoo {

void RegisterZoo(ModelRegistry& registry) {
  RegisterEfficientNets(registry);
  RegisterComparisonFamilies(registry);
  timm::RegisterTimm(registry);
}

}  // namespace zoo

const ModelRegistry& BuiltinModels() {
  static const ModelRegistry kRegistry = [] {
    ModelRegistry r;
    zoo::RegisterZoo(r);
    return r;
  }();
  return kRegistry;
}

}  // namespace dcnas::models
