// Registration of the built-in model families, one function per zoo file.
#pragma once

namespace dcnas::models {
class ModelRegistry;
}

namespace dcnas::models::zoo {

// EfficientNet-B0..B7 and EfficientNet-X-B0..B7 in the x, x-tpu and x-gpu scalings.
void RegisterEfficientNets(ModelRegistry& registry);

// The EfficientNet-X paper's comparison families (ResNet, ResNeXt, SE-ResNeXt, RegNet, ResNeSt,
// MobileNet, MnasNet, EfficientNetV2).
void RegisterComparisonFamilies(ModelRegistry& registry);

}  // namespace dcnas::models::zoo
