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

void ModelRegistry::RegisterPrefix(ModelPrefix prefix) {
  if (prefix.prefix.empty()) throw InternalError("model prefix without a name");
  for (const ModelPrefix& p : prefixes_) {
    if (p.prefix.starts_with(prefix.prefix) || prefix.prefix.starts_with(p.prefix)) {
      throw InternalError("model prefixes overlap: " + p.prefix + ", " + prefix.prefix);
    }
  }
  prefixes_.push_back(std::move(prefix));
}

const ModelPrefix* ModelRegistry::PrefixOf(const std::string& name) const {
  for (const ModelPrefix& p : prefixes_) {
    if (name.starts_with(p.prefix)) return &p;
  }
  return nullptr;
}

std::vector<std::string> ModelRegistry::PrefixedNames(const std::string& name) const {
  const ModelPrefix* p = PrefixOf(name);
  return p == nullptr ? std::vector<std::string>{} : p->names();
}

bool ModelRegistry::Contains(const std::string& name) const {
  if (entries_.count(name) > 0) return true;
  const ModelPrefix* p = PrefixOf(name);
  if (p == nullptr) return false;
  const std::vector<std::string> names = p->names();
  return std::find(names.begin(), names.end(), name) != names.end();
}

const ModelEntry& ModelRegistry::Get(const std::string& name) const {
  const auto it = entries_.find(name);
  if (it != entries_.end()) return it->second;
  if (const ModelPrefix* p = PrefixOf(name); p != nullptr) {
    const std::lock_guard<std::mutex> lock(resolved_->mutex);
    if (const auto r = resolved_->entries.find(name); r != resolved_->entries.end()) {
      return r->second;
    }
    const std::vector<std::string> names = p->names();
    if (std::find(names.begin(), names.end(), name) == names.end()) {
      throw InputError("unknown model '" + name + "'" + DidYouMean(name, names) + " (" +
                       p->description + "; `dcnas models list --prefixed` shows all)");
    }
    ModelEntry entry = p->resolve(name);
    entry.name = name;
    return resolved_->entries.emplace(name, std::move(entry)).first->second;
  }
  throw InputError("unknown model '" + name + "'" + DidYouMean(name, order_) +
                   " (`dcnas models list` shows all)");
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
  // A family of a prefixed set ("timm/EfficientNet-EdgeTPU"): its members made on first use.
  std::vector<std::string> prefixed_families;
  if (members.empty()) {
    for (const ModelPrefix& p : prefixes_) {
      if (!family.starts_with(p.prefix.substr(0, p.prefix.size() - 1))) continue;
      for (const std::string& name : p.names()) {
        const ModelEntry& entry = Get(name);
        if (entry.family == family) members.push_back(&entry);
        if (std::find(prefixed_families.begin(), prefixed_families.end(), entry.family) ==
            prefixed_families.end()) {
          prefixed_families.push_back(entry.family);
        }
      }
    }
  }
  if (members.empty()) {
    std::vector<std::string> known = Families();
    known.insert(known.end(), prefixed_families.begin(), prefixed_families.end());
    throw InputError("unknown model family '" + family + "'" + DidYouMean(family, known));
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
