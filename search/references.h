// Reference networks a search is measured against: zoo models (EfficientNet-B0 and
// EfficientNet-X-B0 by default) timed on the search's own latency setup and, where the space can
// express their blocks, scored by the search's accuracy objective. A network whose blocks the
// space holds inside another stem and head (EfficientNet-B0 in the dc-accelerator space: X's ReLU
// stem and head, SE coefficient 4) is scored through that counterpart, and says so.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "search/objectives.h"
#include "space/space.h"

namespace dcnas::search {

inline const std::vector<std::string>& DefaultReferences() {
  static const std::vector<std::string> kModels = {"efficientnet-b0", "efficientnet-x-b0"};
  return kModels;
}

struct Reference {
  std::string model;
  std::optional<double> latency_ms;      // the zoo model itself on the latency setup
  std::optional<double> accuracy;        // of its encoding in the space (or the counterpart's)
  std::string encoding;                  // "" when the space cannot express its blocks
  bool exact = false;                    // the encoding is the network itself, not a counterpart
  std::vector<std::string> differences;  // how the counterpart differs
  std::string note;                      // why a score is missing
  std::string structure;                 // StructureKey of its encoding ("" without one)
  // Its published ImageNet top-1 (%, data/accuracy/published-imagenet.csv) where the table has it:
  // reported beside the search's own accuracy, never on the same axis.
  std::optional<double> published_top1;
};

// What "the reference's structure" keeps in equal-accuracy comparisons: the number of layers and
// which stages have squeeze-and-excitation, as text ("16 layers, SE in stages 1-7" form:
// "16|1111111").
std::string StructureKey(const space::Space& space, const space::Encoding& encoding);
// "16 layers, SE in 7 of 7 stages" for a StructureKey.
std::string StructureText(const std::string& key);

// Scores each named model. Throws InputError for a name that is not an EfficientNet or
// EfficientNet-X model of the zoo.
std::vector<Reference> ScoreReferences(const space::Space& space,
                                       const std::vector<std::string>& models,
                                       AccuracyObjective& accuracy, LatencyObjective& latency);

// One search point set against one reference: the fastest point at least as accurate.
struct ReferenceComparison {
  std::string model;
  std::optional<size_t> point;  // index into the search's points; none: no point is as accurate
  double speedup = 0.0;         // reference latency / point latency
  double accuracy_gain = 0.0;   // point accuracy - reference accuracy (percentage points)
  // Whether "at least as accurate" binds: the fastest point of all is less accurate than the
  // reference (when it does not, `point` is simply the fastest point and the speedup is the
  // latency target's, not the matched accuracy's).
  bool binds = false;
  // The fastest point at least as accurate that keeps the reference's structure (StructureKey);
  // none where no evaluated point does, or the reference has no encoding.
  std::optional<size_t> same_structure_point;
  double same_structure_speedup = 0.0;
};

// For each reference with both scores. `accuracies`, `latencies` and `structures` (StructureKey;
// empty: no same-structure comparison) are per point.
std::vector<ReferenceComparison> CompareWithReferences(
    const std::vector<Reference>& references, const std::vector<double>& accuracies,
    const std::vector<double>& latencies, const std::vector<std::string>& structures = {});

}  // namespace dcnas::search
