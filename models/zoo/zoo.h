// The built-in model zoo: one registration function per zoo file, RegisterZoo for all of them,
// and BuiltinModels, a registry holding them. The zoo registers into models/registry.h; the
// registry knows nothing of the zoo.
#pragma once

#include <optional>
#include <string>

#include "models/block_string.h"
#include "models/registry.h"

namespace dcnas::models::zoo {

// EfficientNet-B0..B7 and EfficientNet-X-B0..B7 in the x, x-tpu and x-gpu scalings.
void RegisterEfficientNets(ModelRegistry& registry);

// The block-network spec of an EfficientNet or EfficientNet-X model of the zoo
// ("efficientnet-b0", "efficientnet-x-b0", ...); nothing for other names.
std::optional<BlockNetworkSpec> EfficientNetSpec(const std::string& name);

// The EfficientNet-X paper's comparison families (ResNet, ResNeXt, SE-ResNeXt, RegNet, ResNeSt,
// MobileNet, MnasNet, EfficientNetV2).
void RegisterComparisonFamilies(ModelRegistry& registry);

// Registers every built-in model family into `registry`.
void RegisterZoo(ModelRegistry& registry);

}  // namespace dcnas::models::zoo

namespace dcnas::models {

// A registry holding the built-in (zoo) models, built once on first use.
const ModelRegistry& BuiltinModels();

}  // namespace dcnas::models
