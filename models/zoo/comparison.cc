// The EfficientNet-X paper's comparison families: one registration function per zoo file
// (models/zoo/comparison_families.h).
#include "models/registry.h"
#include "models/zoo/comparison_families.h"
#include "models/zoo/zoo.h"

namespace dcnas::models::zoo {

void RegisterComparisonFamilies(ModelRegistry& registry) {
  RegisterResNets(registry);
  RegisterResNeSts(registry);
  RegisterRegNets(registry);
  RegisterMobileNets(registry);
  RegisterTransformers(registry);
  RegisterEfficientNetV2(registry);
}

}  // namespace dcnas::models::zoo
