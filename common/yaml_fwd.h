// yaml-cpp's node type declared without yaml-cpp's headers, for headers whose functions take a
// YAML::Node by reference; their .cc files include <yaml-cpp/yaml.h>.
#pragma once

namespace YAML {  // NOLINT(readability-identifier-naming): yaml-cpp's own namespace
class Node;
}  // namespace YAML
