// Closing the search loop: the best architectures of a search's Pareto front (RUN_DIR/pareto.csv)
// and its reference networks (RUN_DIR/summary.json) trained for real on the Fashion-MNIST proxy,
// all with one recipe (typically a longer budget than the accuracy data's), and the surrogate's
// predictions set against the trained accuracies. Built only with LibTorch.
//
//   RUN_DIR/finalists.jsonl   one line per finished training (fsync'ed; a rerun with resume
//                             trains only what is missing)
//   RUN_DIR/finalists.csv     role, name, encoding, predicted accuracy, latency, params, FLOPs,
//                             trained validation and test accuracy, training time
//   RUN_DIR/finalists.txt     the table, the rank agreement of predicted and trained accuracy,
//                             and each reference against the fastest finalist at least as accurate
//
// The finalists (and references that are points of the space) can also be appended to an accuracy
// CSV of the same recipe, so a refit of the surrogate on the grown data is one command.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "exec/executor.h"
#include "proxy/accuracy_data.h"
#include "proxy/generate.h"
#include "space/space.h"

namespace dcnas::proxy {

struct FinalistsOptions {
  int k = 5;           // the k best-reward architectures of the front
  ProxyRecipe recipe;  // the training recipe (finalists and references alike)
  uint64_t seed = 0;   // training seed (the same for every run)
  int jobs = 1;
  std::string data_dir;
  int64_t limit_eval = 0;
  std::string append_to;  // accuracy CSV to append the space's rows to ("": none)
  bool resume = false;    // continue RUN_DIR/finalists.jsonl
  // null: forked trainers here (`jobs` at a time); else the executor's workers, which run
  // FinalistWorker with the same space and options.
  exec::Executor* executor = nullptr;
};

// The worker side of distributed finalist training: the payload names one run ({"encoding":
// TEXT} in the space, or {"model": NAME} of the zoo, and "seed"); trains its proxy with the
// options' recipe and returns the result (JSON).
exec::WorkHandler FinalistWorker(const space::Space& space, const FinalistsOptions& options,
                                 const models::libtorch::TrainingData& data);
// The same over the dataset in options.data_dir, loaded once when the worker starts.
exec::WorkHandler FinalistWorker(const space::Space& space, const FinalistsOptions& options);

struct Finalist {
  std::string role;      // "finalist" or "reference"
  std::string name;      // the encoding, or the zoo model
  std::string encoding;  // in the space; "" for a reference the space cannot express exactly
  std::optional<double> predicted;  // the search's accuracy objective
  std::optional<double> latency_ms;
  int64_t params = 0, flops = 0;  // full size, batch 1
  TrainedResult trained;
};

struct FinalistsReport {
  std::vector<Finalist> runs;  // finalists by reward, then references
  std::optional<double> tau;   // Kendall tau of predicted vs trained test accuracy (finalists)
  std::string text;            // finalists.txt
};

// Trains and reports; throws InputError for a run directory without a search's outputs, k < 1,
// results of another configuration in finalists.jsonl, or an append_to file of another recipe.
FinalistsReport TrainFinalists(const space::Space& space, const std::string& run_dir,
                               const FinalistsOptions& options, const GenerateProgress& progress);

}  // namespace dcnas::proxy
