// The model registry: explicit registration of named model builders. The built-in models
// register themselves from models/zoo/zoo.h (RegisterZoo, BuiltinModels).
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
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

// A set of models named "PREFIX<name>" that are made on first use (from a data table too large to
// list with the zoo): `names` lists them (it may read its table), `resolve` makes the entry of one
// name in that list.
struct ModelPrefix {
  std::string prefix;       // e.g. "timm:"
  std::string description;  // one line: what the names are and where they come from
  std::function<std::vector<std::string>()> names;
  std::function<ModelEntry(const std::string& name)> resolve;
};

// Named model builders in registration order; unknown names list the closest valid ones.
// Prefixed sets (RegisterPrefix) are resolved on first use, under a lock, and kept.
class ModelRegistry {
 public:
  // Registers a model; throws InternalError on a duplicate name.
  void Register(ModelEntry entry);
  // Registers a prefixed set; throws InternalError when the prefix overlaps another.
  void RegisterPrefix(ModelPrefix prefix);
  const std::vector<ModelPrefix>& prefixes() const { return prefixes_; }
  // The names of the prefixed set that `name` starts with (empty when none does).
  std::vector<std::string> PrefixedNames(const std::string& name) const;
  // Throws InputError naming the closest valid names on an unknown name.
  const ModelEntry& Get(const std::string& name) const;
  bool Contains(const std::string& name) const;
  std::vector<std::string> Names() const;  // registration order; prefixed sets not included
  std::vector<std::string> Families() const;
  // The members of a family, in registration order; a family of a prefixed set (its name starts
  // with the prefix less its last character, e.g. "timm/EfficientNet" for "timm:") in its names'
  // order, made on first use.
  std::vector<const ModelEntry*> Family(const std::string& family) const;
  // Builds a model; validates the options (throws InputError on impossible values).
  Graph Build(const std::string& name, const BuildOptions& options) const;

 private:
  const ModelPrefix* PrefixOf(const std::string& name) const;

  std::map<std::string, ModelEntry> entries_;
  std::vector<std::string> order_;
  std::vector<ModelPrefix> prefixes_;
  // Entries of prefixed sets made so far; shared by copies (std::map keeps references valid).
  struct Resolved {
    std::mutex mutex;
    std::map<std::string, ModelEntry> entries;
  };
  std::shared_ptr<Resolved> resolved_ = std::make_shared<Resolved>();
};

}  // namespace dcnas::models
