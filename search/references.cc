#include "search/references.h"

#include "common/errors.h"
#include "common/table.h"
#include "models/zoo/zoo.h"

namespace dcnas::search {

std::vector<Reference> ScoreReferences(const space::Space& space,
                                       const std::vector<std::string>& models,
                                       AccuracyObjective& accuracy, LatencyObjective& latency) {
  std::vector<Reference> out;
  for (const std::string& model : models) {
    const std::optional<models::BlockNetworkSpec> spec = models::zoo::EfficientNetSpec(model);
    if (!spec) {
      throw InputError("reference '" + model +
                       "': not an EfficientNet or EfficientNet-X model of the zoo (e.g. "
                       "efficientnet-b0, efficientnet-x-b0)");
    }
    Reference r;
    r.model = model;
    r.latency_ms = latency.ModelLatencyMs(model);
    if (!r.latency_ms) r.note = "the latency objective times only its table's architectures";
    const std::optional<space::SpaceMatch> match = space::FindEncoding(space, *spec);
    if (!match) {
      r.note = "the space " + space.name() + " cannot express its blocks";
    } else {
      r.encoding = space.ToText(match->encoding);
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

std::vector<ReferenceComparison> CompareWithReferences(const std::vector<Reference>& references,
                                                       const std::vector<double>& accuracies,
                                                       const std::vector<double>& latencies) {
  if (accuracies.size() != latencies.size()) {
    throw InternalError("CompareWithReferences: accuracies and latencies differ in length");
  }
  std::vector<ReferenceComparison> out;
  for (const Reference& r : references) {
    if (!r.accuracy || !r.latency_ms) continue;
    ReferenceComparison c;
    c.model = r.model;
    for (size_t i = 0; i < accuracies.size(); ++i) {
      if (accuracies[i] < *r.accuracy) continue;
      if (!c.point || latencies[i] < latencies[*c.point]) c.point = i;
    }
    if (c.point) {
      c.speedup = *r.latency_ms / latencies[*c.point];
      c.accuracy_gain = accuracies[*c.point] - *r.accuracy;
    }
    out.push_back(c);
  }
  return out;
}

}  // namespace dcnas::search
