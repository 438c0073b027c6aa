// The one exported symbol of libdcnas_torch.so (module.h): the table of its entry points. The
// module links its static libraries with their symbols hidden (--exclude-libs), so its calls
// stay inside it and nothing it carries clashes with the loading binary's own copies.
#include "models/torch/module.h"

extern "C" __attribute__((visibility("default"))) const dcnas::models::libtorch::ModuleApi*
dcnas_torch_module_api() {
  namespace lt = dcnas::models::libtorch;
  using TrainFn = lt::TrainResult (*)(const dcnas::models::Graph&, const lt::TrainOptions&,
                                      const lt::ProgressFn&);
  using TrainOnFn = lt::TrainResult (*)(const dcnas::models::Graph&, const lt::TrainOptions&,
                                        const lt::TrainingData&, const lt::ProgressFn&);
  using ZeroCostFn = lt::ZeroCostScores (*)(const dcnas::models::Graph&, const lt::ZeroCostOptions&,
                                            const lt::TrainingData&);
  static const lt::ModuleApi api{lt::kModuleApiVersion,
                                 sizeof(lt::ModuleApi),
                                 static_cast<TrainFn>(&lt::Train),
                                 static_cast<TrainOnFn>(&lt::Train),
                                 &lt::MeasureGraph,
                                 &lt::NewTrainingCache,
                                 &lt::TrainingCacheBytes,
                                 &lt::ClearTrainingCache,
                                 static_cast<ZeroCostFn>(&lt::ComputeZeroCost)};
  return &api;
}
