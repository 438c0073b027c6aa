// The model registry: explicit registration of named model builders. The built-in models
// register themselves from models/zoo/zoo.h (RegisterZoo, BuiltinModels).
#pragma once

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "models/builder.h"
#include "models/graph.h"

namespace dcnas::models {

// Builds a model graph from validated options.
using ModelBuildFn = std::function<Graph(const BuildOptions&)>;

// One registered model: its name, family, description and builder.
struct ModelEntry {
  std::string name;         // e.g. "efficientnet-b0"
  std::string family;       // e.g. "efficientnet"
  std::string description;  // one line, with the source of the definition
  int native_resolution = 224;
  // Called by ModelRegistry::Build with validated options whose resolution is already resolved
  // (0 replaced by native_resolution).
  ModelBuildFn build;
};

// Named model builders in registration order; unknown names list the closest valid ones.
class ModelRegistry {
 public:
  // Registers a model; throws InternalError on a duplicate name.
  void Register(ModelEntry entry);
  // Throws InputError naming the closest valid names on an unknown name.
  const ModelEntry& Get(const std::string& name) const;
  bool Contains(const std::string& name) const { return entries_.count(name) > 0; }
  std::vector<std::string> Names() const;  // registration order
  std::vector<std::string> Families() const;
  std::vector<const ModelEntry*> Family(const std::string& family) const;
  // Builds a model; validates the options (throws InputError on impossible values).
  Graph Build(const std::string& name, const BuildOptions& options) const;

 private:
  std::map<std::string, ModelEntry> entries_;
  std::vector<std::string> order_;
};

}  // namespace dcnas::models
