// The LibTorch module boundary. LibTorch's libraries take about half a second of CPU to load
// (their static initialisers register thousands of operators), so the `dcnas` binary does not
// link them: the LibTorch half of this folder (lowering, measurement, training, the training
// data's cache) is the shared module libdcnas_torch.so, loaded by loader.cc on the first call
// that needs it. Commands that never train or time a graph start without it.
//
// The functions below and Train, MeasureGraph, ComputeZeroCost (train.h, measure.h, zero_cost.h)
// are what the rest of the project calls; a program links either the module's loader
// (dcnas_models_torch) or the implementation itself (dcnas_models_torch_impl, the LibTorch tests),
// never both. No LibTorch headers here.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "models/torch/dataset.h"
#include "models/torch/measure.h"
#include "models/torch/train.h"
#include "models/torch/zero_cost.h"

namespace dcnas::models::libtorch {

// The training data's cache of prepared inputs (TrainingData): made, sized and emptied in the
// LibTorch half (dataset.cc).
std::shared_ptr<TrainingData::Cache> NewTrainingCache();
int64_t TrainingCacheBytes(const TrainingData::Cache& cache);
void ClearTrainingCache(TrainingData::Cache& cache);

// What the module exports: one table of entry points. `version` and `size` guard against a
// module built from other sources than the binary that loads it.
struct ModuleApi {
  int version;
  std::size_t size;
  TrainResult (*train)(const Graph& graph, const TrainOptions& options, const ProgressFn& progress);
  TrainResult (*train_on)(const Graph& graph, const TrainOptions& options, const TrainingData& data,
                          const ProgressFn& progress);
  Measurement (*measure)(const Graph& graph, const MeasureOptions& options);
  std::shared_ptr<TrainingData::Cache> (*new_cache)();
  int64_t (*cache_bytes)(const TrainingData::Cache& cache);
  void (*clear_cache)(TrainingData::Cache& cache);
  ZeroCostScores (*zero_cost)(const Graph& graph, const ZeroCostOptions& options,
                              const TrainingData& data);
};
inline constexpr int kModuleApiVersion = 2;

// The module's file name and the symbol of its table.
inline constexpr const char* kModuleFile = "libdcnas_torch.so";
inline constexpr const char* kModuleSymbol = "dcnas_torch_module_api";

// Where the loader looks for the module, in order: $DCNAS_TORCH_MODULE (a file); beside an
// installed binary (<bindir>/../<libdir>/dcnas/); beside the installed Python module (its
// <libdir>/dcnas/, when this code is in that module); the build tree's models/torch/. Throws
// InternalError naming every place tried (and dlopen's reason) when none loads.
const ModuleApi& LoadedModule();
// The file LoadedModule loaded (loading it if needed), for `dcnas --version`.
const std::string& LoadedModulePath();

}  // namespace dcnas::models::libtorch
