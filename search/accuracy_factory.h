// The accuracy objective of a search, named by a spec (`dcnas search --accuracy`):
//
//   surrogate:FILE     the XGBoost surrogate of the searched space (search/surrogate_objective.h)
//   counterpart:FILE   a surrogate of another space with the same stages, scoring each candidate's
//                      counterpart there
//   imagenet:FILE      published ImageNet top-1 predicted from the candidate's full-size graph by
//                      an ImageNet surrogate (`dcnas surrogate imagenet`)
//   table:FILE         a table `encoding,accuracy` (search/objectives.h)
//   train[:RECIPE]     real proxy training with a recipe key over the space's proxy settings
//                      (search/train_objective.h)
//
// Every kind is known to every build; a kind whose library this build lacks (XGBoost, LibTorch)
// is refused when it is made, naming what is missing. The finalists' recipe of a search follows
// the same objective (FinalistsRecipe).
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "proxy/accuracy_data.h"
#include "search/objectives.h"
#include "space/space.h"

namespace dcnas::search {

// "kind:ARGUMENT" -> {kind, ARGUMENT}; a bare word -> {word, ""}. The form of the objective specs
// (--accuracy, --latency).
struct ObjectiveSpec {
  std::string kind;
  std::string argument;  // a file, or train's recipe key
};
ObjectiveSpec SplitObjectiveSpec(const std::string& text);

// Splits and checks an accuracy spec: a known kind, and the file the kind needs. Throws
// InputError naming the spec otherwise (an unknown kind lists the valid ones).
ObjectiveSpec ParseAccuracySpec(const std::string& text);

struct AccuracyFactoryOptions {
  double min_surrogate_tau = 0.5;  // surrogate, counterpart: refused below this held-out tau
  // train: trainings side by side, the seed of every candidate's training, validation on at most
  // this many images (> 0: smoke tests), the Fashion-MNIST directory ("": the installed one).
  int train_jobs = 1;
  uint64_t train_seed = 0;
  int64_t train_limit_eval = 0;
  std::string train_data_dir;
  // train: successive halving over each round (TrainAccuracyOptions; eta 0: off).
  int train_halving_eta = 0;
  int train_min_epochs = 1;
};

// The objective a spec names, for `space` (files are hashed into its configuration). Throws
// InputError for a bad spec (ParseAccuracySpec), a kind this build cannot make, and whatever the
// objective refuses (a surrogate of another space or below the tau floor, a bad recipe).
std::unique_ptr<AccuracyObjective> MakeAccuracyObjective(const std::string& spec,
                                                         const space::Space& space,
                                                         const AccuracyFactoryOptions& options);

// How much longer a search's finalists train than the labels its accuracy objective came from:
// the finalists are the front's best by those labels, and a longer training ranks them more like
// the full one (search/README.md, "Choosing the proxy").
inline constexpr int kFinalistsEpochFactor = 4;
// `dcnas search finalists`' default epochs: kFinalistsEpochFactor x the 2 epochs of the shipped
// accuracy data (data/accuracy/dc-accelerator-r16-n5000-e2.csv).
inline constexpr int kFinalistsDefaultEpochs = 2 * kFinalistsEpochFactor;

// The recipe `dcnas search --finalists` trains with: the recipe key `key` over the space's proxy
// settings when given; else the training recipe the accuracy objective records (the surrogate's
// training data, or train's recipe) with kFinalistsEpochFactor x its epochs. Throws InputError
// when neither is there.
proxy::ProxyRecipe FinalistsRecipe(const space::Space& space, const std::string& key,
                                   const AccuracyObjective& accuracy);

}  // namespace dcnas::search
