#include "search/references.h"

#include <algorithm>
#include <map>

#include "common/errors.h"
#include "common/table.h"
#include "models/zoo/published_top1.h"
#include "models/zoo/zoo.h"

namespace dcnas::search {

std::vector<Reference> ScoreReferences(const space::Space& space,
                                       const std::vector<std::string>& models,
                                       AccuracyObjective& accuracy, LatencyObjective& latency) {
  std::vector<Reference> out;
  const std::map<std::string, double> published =
      models.empty() ? std::map<std::string, double>{} : models::ShippedPublishedTop1();
  for (const std::string& model : models) {
    const std::optional<models::BlockNetworkSpec> spec = models::zoo::EfficientNetSpec(model);
    if (!spec) {
      throw InputError("reference '" + model +
                       "': not an EfficientNet or EfficientNet-X model of the zoo (e.g. "
                       "efficientnet-b0, efficientnet-x-b0)");
    }
    Reference r;
    r.model = model;
    if (const auto it = published.find(model); it != published.end()) {
      r.published_top1 = it->second;
    }
    r.latency_ms = latency.ModelLatencyMs(model);
    if (!r.latency_ms) r.note = "the latency objective times only its table's architectures";
    const std::optional<space::SpaceMatch> match = space::FindEncoding(space, *spec);
    if (!match) {
      r.note = "the space " + space.name() + " cannot express its blocks";
    } else {
      r.encoding = space.ToText(match->encoding);
      r.structure = StructureKey(space, match->encoding);
      r.exact = match->exact;
      r.differences = match->differences;
      try {
        r.accuracy = accuracy.Accuracy(match->encoding);
      } catch (const InputError& e) {
        r.note = std::string("no accuracy: ") + e.what();
      }
    }
    out.push_back(std::move(r));
  }
  return out;
}

std::string StructureKey(const space::Space& space, const space::Encoding& encoding) {
  const space::Decoded d = space.Decode(encoding);
  int stages = 0;
  for (const int s : d.block_stages) stages = std::max(stages, s + 1);
  std::string se(static_cast<size_t>(stages), '0');
  for (size_t i = 0; i < d.args.size(); ++i) {
    if (d.args[i].se_ratio && *d.args[i].se_ratio > 0.0) {
      se[static_cast<size_t>(d.block_stages[i])] = '1';
    }
  }
  return std::to_string(d.layers) + "|" + se;
}

std::string StructureText(const std::string& key) {
  const size_t bar = key.find('|');
  if (bar == std::string::npos) return key;
  const std::string se = key.substr(bar + 1);
  return key.substr(0, bar) + " layers, SE in " +
         std::to_string(std::count(se.begin(), se.end(), '1')) + " of " +
         std::to_string(se.size()) + " stages";
}

std::vector<ReferenceComparison> CompareWithReferences(const std::vector<Reference>& references,
                                                       const std::vector<double>& accuracies,
                                                       const std::vector<double>& latencies,
                                                       const std::vector<std::string>& structures) {
  if (accuracies.size() != latencies.size() ||
      (!structures.empty() && structures.size() != accuracies.size())) {
    throw InternalError(
        "CompareWithReferences: accuracies, latencies, structures differ in length");
  }
  std::vector<ReferenceComparison> out;
  for (const Reference& r : references) {
    if (!r.accuracy || !r.latency_ms) continue;
    ReferenceComparison c;
    c.model = r.model;
    std::optional<size_t> fastest;
    for (size_t i = 0; i < accuracies.size(); ++i) {
      if (!fastest || latencies[i] < latencies[*fastest]) fastest = i;
      if (accuracies[i] < *r.accuracy) continue;
      if (!c.point || latencies[i] < latencies[*c.point]) c.point = i;
      if (!r.structure.empty() && !structures.empty() && structures[i] == r.structure &&
          (!c.same_structure_point || latencies[i] < latencies[*c.same_structure_point])) {
        c.same_structure_point = i;
      }
    }
    c.binds = fastest && accuracies[*fastest] < *r.accuracy;
    if (c.point) {
      c.speedup = *r.latency_ms / latencies[*c.point];
      c.accuracy_gain = accuracies[*c.point] - *r.accuracy;
    }
    if (c.same_structure_point) {
      c.same_structure_speedup = *r.latency_ms / latencies[*c.same_structure_point];
    }
    out.push_back(c);
  }
  return out;
}

}  // namespace dcnas::search
