// The objectives a search scores candidates by: accuracy (a table of measured or synthetic
// accuracies, or the XGBoost surrogate: search/surrogate_objective.h) and latency (the simulator on
// the full-size graph, or a table). Each describes itself as JSON for the search journal, so a
// resume with other objectives is refused.
#pragma once

#include <cstdint>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "sim/block_cost_cache.h"
#include "sim/cost_cache.h"
#include "sim/engine.h"
#include "space/space.h"

namespace dcnas::search {

// Full-size counts of an architecture at batch 1 (what the accuracy surrogate featurizes), taken
// from the graph the latency objective built anyway, so a candidate's graph is built once.
struct ArchCounts {
  double params = 0.0;
  double flops = 0.0;
};

// Accuracy (percent) of a canonical encoding.
class AccuracyObjective {
 public:
  virtual ~AccuracyObjective() = default;
  virtual double Accuracy(const space::Encoding& e) = 0;
  // The accuracies of a batch; `counts` is empty or one per encoding (then an objective that
  // needs them need not build the graphs). The default calls Accuracy for each.
  virtual void AccuracyBatch(const std::vector<space::Encoding>& encodings,
                             const std::vector<ArchCounts>& counts, std::vector<double>& out);
  // Mean and std of the accuracy of many encodings, for predictor-guided search; false when the
  // objective has no uncertainty (a table), and then `mean` and `std` are untouched.
  virtual bool PredictWithStd(const std::vector<space::Encoding>& encodings,
                              std::vector<double>& mean, std::vector<double>& std);
  // What the objective is: kind, file, SHA-256, ... (compared on resume).
  virtual nlohmann::json Config() const = 0;
};

// Latency (milliseconds per batch) of a canonical encoding.
class LatencyObjective {
 public:
  virtual ~LatencyObjective() = default;
  virtual double LatencyMs(const space::Encoding& e) = 0;
  // The latency, and the architecture's counts when the objective built its graph (the default:
  // LatencyMs, no counts).
  virtual double LatencyAndCounts(const space::Encoding& e, std::optional<ArchCounts>& counts);
  // An independent copy for another thread (objectives are not thread-safe; copies are, and give
  // the same values).
  virtual std::unique_ptr<LatencyObjective> Clone() const = 0;
  // Latency of a zoo model (models/zoo/zoo.h) on the same setup, for comparisons; nothing when
  // the objective cannot time networks outside its table.
  virtual std::optional<double> ModelLatencyMs(const std::string& model);
  virtual nlohmann::json Config() const = 0;
};

// A CSV table of one value per architecture: a header naming at least `encoding` and the value
// column, one row per architecture (encodings in the space's text form, canonicalised on reading;
// a value listed twice for one network must agree). Throws InputError naming the file and line
// for a missing column, an encoding of another space, a non-finite value or one below `min`.
struct ObjectiveTable {
  std::string file;
  std::string column;
  std::unordered_map<std::string, double> values;  // canonical text -> value
};
ObjectiveTable ReadObjectiveTable(const std::string& path, const std::string& column,
                                  const space::Space& space, double min, bool min_exclusive);

// The accuracies of an accuracy table: the plain form `encoding,accuracy` (one row per network or
// per replicate) or the full accuracy CSV (proxy/README.md: val_accuracy when every row has one,
// else test_accuracy), in percent: every value in [0, 100] (the journal's rule), else an
// InputError naming the line. A network listed several times (replicates) takes the mean of its
// values, each row weighted equally.
ObjectiveTable ReadAccuracyTable(const std::string& path, const space::Space& space);

// Accuracy from an accuracy table (ReadAccuracyTable); an encoding the table lacks is an
// InputError naming it and the file. `sha256` (of the file) goes into the configuration.
std::unique_ptr<AccuracyObjective> MakeTableAccuracy(const std::string& path,
                                                     const space::Space& space,
                                                     const std::string& sha256);
// Latency from a table (`encoding,latency_ms`).
std::unique_ptr<LatencyObjective> MakeTableLatency(const std::string& path,
                                                   const space::Space& space,
                                                   const std::string& sha256);

// Latency from the simulator: each candidate's full-size network (Space::LayoutFull at the setup's
// batch and precision) costed on the setup block by block (sim::SimulateBlockNetwork), with one
// block cost cache and one per-op cost cache across candidates, so a block seen before is neither
// built nor costed again; the latency is the one Simulate gives for the graph (BuildFull).
class SimLatency : public LatencyObjective {
 public:
  SimLatency(const space::Space& space, sim::SimSetup setup);
  double LatencyMs(const space::Encoding& e) override;
  double LatencyAndCounts(const space::Encoding& e, std::optional<ArchCounts>& counts) override;
  std::unique_ptr<LatencyObjective> Clone() const override;
  std::optional<double> ModelLatencyMs(const std::string& model) override;
  nlohmann::json Config() const override;
  const sim::SimSetup& setup() const { return setup_; }
  const sim::CostCache& cache() const { return cache_; }
  const sim::BlockCostCache& block_cache() const { return blocks_; }

 private:
  const space::Space& space_;
  sim::SimSetup setup_;
  sim::CostCache cache_;
  sim::BlockCostCache blocks_;
  std::vector<sim::cost::GroupCost> scratch_;
};

}  // namespace dcnas::search
