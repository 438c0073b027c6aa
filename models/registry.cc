#include "models/registry.h"

#include <algorithm>
#include <cmath>

#include "common/errors.h"
#include "common/text.h"

namespace dcnas::models {

void ModelRegistry::Register(ModelEntry entry) {
  if (entries_.count(entry.name) > 0) throw InternalError("model registered twice: " + entry.name);
  order_.push_back(entry.name);
  std::string name = entry.name;
  entries_.emplace(std::move(name), std::move(entry));
}

const ModelEntry& ModelRegistry::Get(const std::string& name) const {
  const auto it = entries_.find(name);
  if (it == entries_.end()) {
    throw InputError("unknown model '" + name + "'" + DidYouMean(name, order_) +
                     " (`dcnas models list` shows all)");
  }
  return it->second;
}

std::vector<std::string> ModelRegistry::Names() const { return order_; }

std::vector<std::string> ModelRegistry::Families() const {
  std::vector<std::string> families;
  for (const auto& name : order_) {
    const std::string& family = entries_.at(name).family;
    if (std::find(families.begin(), families.end(), family) == families.end()) {
      families.push_back(family);
    }
  }
  return families;
}

std::vector<const ModelEntry*> ModelRegistry::Family(const std::string& family) const {
  std::vector<const ModelEntry*> members;
  for (const auto& name : order_) {
    const ModelEntry& entry = entries_.at(name);
    if (entry.family == family) members.push_back(&entry);
  }
  if (members.empty()) {
    throw InputError("unknown model family '" + family + "'" + DidYouMean(family, Families()));
  }
  return members;
}

Graph ModelRegistry::Build(const std::string& name, const BuildOptions& options) const {
  const ModelEntry& entry = Get(name);
  ValidateBuildOptions(options);
  BuildOptions resolved = options;
  if (resolved.resolution == 0) resolved.resolution = entry.native_resolution;
  Graph graph = entry.build(resolved);
  graph.mutable_info().model = name;
  return graph;
}

}  // namespace dcnas::models
