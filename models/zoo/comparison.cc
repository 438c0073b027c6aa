// The EfficientNet-X paper's comparison families.
#include "models/registry.h"
#include "models/zoo/zoo.h"

namespace dcnas::models::zoo {

void RegisterComparisonFamilies(ModelRegistry& registry) { (void)registry; }

}  // namespace dcnas::models::zoo
