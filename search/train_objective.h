// Accuracy by real proxy training, as a search objective (`dcnas search --accuracy train`): each
// candidate is trained on the Fashion-MNIST proxy with a recipe (the accuracy data's trainer,
// proxy/generate.h), the candidates of a round side by side in worker processes. Seconds to
// minutes per candidate, so for small budgets; the search journals each result as it is told.
// Built only with LibTorch.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "proxy/accuracy_data.h"
#include "search/objectives.h"
#include "space/space.h"

namespace dcnas::search {

struct TrainAccuracyOptions {
  proxy::ProxyRecipe recipe;
  uint64_t seed = 0;  // training seed of every candidate
  int jobs = 1;       // trainings side by side
  std::string data_dir;
  int64_t limit_eval = 0;               // > 0: smoke tests
  std::string target = "val_accuracy";  // or test_accuracy
  // Successive halving over each batch of candidates (a search round; proxy/successive_halving.h)
  // with this eta (0: off): all trained for `min_epochs`, the best 1/eta by validation accuracy
  // again for eta times the epochs, up to the recipe's epochs. A candidate's accuracy is its
  // label at the last rung it reached (so a candidate dropped early reads as its short
  // training's label, which ranks below the full budget's on the proxies measured).
  int halving_eta = 0;
  int min_epochs = 1;
};

// Throws InputError for an impossible recipe or target, or halving settings (HalvingRungs). A
// failed training is an InputError naming the architecture.
std::unique_ptr<AccuracyObjective> MakeTrainAccuracy(const space::Space& space,
                                                     const TrainAccuracyOptions& options);

}  // namespace dcnas::search
