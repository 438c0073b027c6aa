// A training run's directory: checkpoints, metrics and the result. Includes LibTorch: for
// models/torch/ only.
#pragma once

#include <torch/torch.h>

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "models/graph.h"
#include "models/torch/lower.h"
#include "models/torch/train.h"

namespace dcnas::models::libtorch {

// The settings a checkpoint must share with a resumed run (`lr`, `weight_decay`: resolved).
nlohmann::json RunConfig(const Graph& graph, const TrainOptions& options, double lr,
                         double weight_decay);

nlohmann::json MetricsJson(const EpochMetrics& m);
EpochMetrics MetricsFromJson(const nlohmann::json& j);

// RUN_DIR of `dcnas train`: after every epoch N, epoch-NNNN/checkpoint.pt and optimizer.pt
// (torch::save) written as one directory (epoch-NNNN.tmp, synced, renamed), then state.json
// (config, epochs done, the checkpoint's name, history), the commit point; metrics.jsonl (one JSON
// object per finished epoch) and result.json at the end. A kill at any moment leaves state.json
// naming a whole checkpoint of exactly the epochs it lists; leftovers (*.tmp, superseded epoch
// directories) are removed on the next save or resume.
class RunDirectory {
 public:
  // Creates `dir`; `config` is RunConfig of this run.
  RunDirectory(std::string dir, nlohmann::json config);

  // When the directory holds a run (state.json): with `resume`, checks its config, loads the
  // module and optimizer state and returns the finished epochs; without, throws InputError.
  // A new run returns no epochs (and, with `resume`, says so through `progress`). Then
  // metrics.jsonl holds exactly the returned epochs.
  std::vector<EpochMetrics> Start(GraphModule& module, ::torch::optim::Optimizer& optimizer,
                                  bool resume, const ProgressFn& progress);
  // Checkpoint, then metrics (a crash between the two only repeats the last epoch's line).
  void SaveEpoch(GraphModule& module, ::torch::optim::Optimizer& optimizer,
                 const std::vector<EpochMetrics>& history);
  void WriteResult(const TrainResult& result, int threads, int64_t test_images);

 private:
  void WriteMetrics(const std::vector<EpochMetrics>& history);

  std::string dir_;
  nlohmann::json config_;
};

}  // namespace dcnas::models::libtorch
