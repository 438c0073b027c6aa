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

// RUN_DIR of `dcnas train`: checkpoint.pt and optimizer.pt (torch::save), state.json (config,
// epochs done, history) after every epoch, metrics.jsonl (one JSON object per finished epoch)
// and result.json at the end. Every file is written under a temporary name and renamed, so a
// crash never leaves half a file.
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
