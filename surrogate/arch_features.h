// The accuracy surrogate's features of architectures: the same function for fitting, predicting,
// evaluating and the learning curve, so the model sees the same features for one architecture
// wherever it meets it. Features come in sets, chosen at fit time and recorded in the surrogate:
// - onehot: the canonical encoding's choices, one column per choice value;
// - counts: log10 params and FLOPs, layers, resolution and the scaling coefficients, counted on
//   the space's full-size graph (never taken from a data file);
// - graph: from the full-size layer graph: op counts by kind (dense, pointwise and depthwise
//   convs, fully connected, residual adds, squeeze-excite multiplies, pools), the longest chain of
//   weight layers, widths, kernel sizes, and per downsampling level (output at 1/1 .. 1/32 of the
//   input) its params, FLOPs, activation bytes, convs and widest layer;
// - zero-cost: synflow, NASWOT, grad-norm and snip at initialisation (log10 where the score spans
//   decades), read from a table `dcnas accuracy-data zero-cost` wrote: networks outside the table
//   have no such features, so a surrogate fitted with them predicts only the table's networks.
// The default, onehot and counts, is what every surrogate fitted before feature sets has.
#pragma once

#include <array>
#include <map>
#include <string>
#include <vector>

#include "models/counts.h"
#include "models/graph.h"
#include "space/space.h"

namespace dcnas::surrogate {

struct FeatureSpec {
  std::vector<std::string> sets = {"onehot", "counts"};  // in this order in the feature row
  // zero-cost: scores per canonical encoding (synflow, naswot, grad_norm, snip; raw) and the file.
  std::map<std::string, std::array<double, 4>> zero_cost;
  std::string zero_cost_file;

  // "onehot,counts,graph": known set names, each once, at least one; InputError naming a bad one.
  static FeatureSpec Parse(const std::string& text);
  std::string Text() const;  // the comma-separated set names
  bool Has(const std::string& set) const;
  bool operator==(const FeatureSpec& o) const { return sets == o.sets; }
};

// The feature-set names, in the order Parse accepts them anywhere.
const std::vector<std::string>& FeatureSetNames();

// Reads a zero-cost table (columns encoding, synflow, naswot, grad_norm, snip, ...; one row per
// canonical network of `space`) into `spec`; InputError naming the file and line.
void ReadZeroCostTable(const std::string& path, const space::Space& space, FeatureSpec& spec);

// The graph set's names and values of one (shape-inferred) graph.
std::vector<std::string> GraphFeatureNames();
std::vector<double> GraphFeatures(const models::Graph& graph);

// The feature names of `space` under `spec` (what a surrogate file records and checks on
// loading).
std::vector<std::string> SurrogateFeatureNames(const space::Space& space,
                                               const FeatureSpec& spec = {});

// Features of each (encoding, scaling); `counts`, when given, receives each full-size network's
// counts (batch 1). With the zero-cost set, a network outside the table is an InputError naming
// it and the table.
space::FeatureSet SurrogateFeatures(const space::Space& space,
                                    const std::vector<space::Encoding>& encodings,
                                    const std::vector<space::Scaling>& scalings,
                                    std::vector<models::OpCounts>* counts = nullptr,
                                    const FeatureSpec& spec = {});

}  // namespace dcnas::surrogate
