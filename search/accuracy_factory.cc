// Built with -DDCNAS_WITH_TORCH and -DDCNAS_WITH_XGBOOST where meson found those libraries
// (search/meson.build): the optional kinds are chosen here, once, not by the callers.
#include "search/accuracy_factory.h"

#include "common/errors.h"
#include "common/file_io.h"
#include "common/sha256.h"
#ifdef DCNAS_WITH_XGBOOST
#include "search/surrogate_objective.h"
#endif
#ifdef DCNAS_WITH_TORCH
#include "models/torch/fashion_mnist.h"
#include "search/train_objective.h"
#endif

namespace dcnas::search {
namespace {

std::string FileSha256(const std::string& path) { return Sha256Hex(ReadFile(path)); }

std::unique_ptr<AccuracyObjective> MakeTrain(const ObjectiveSpec& spec, const space::Space& space,
                                             const AccuracyFactoryOptions& options) {
#ifdef DCNAS_WITH_TORCH
  TrainAccuracyOptions t;
  t.recipe = proxy::SpaceRecipe(space);
  if (!spec.argument.empty()) t.recipe = t.recipe.WithKey(spec.argument);
  t.jobs = options.train_jobs;
  t.seed = options.train_seed;
  t.limit_eval = options.train_limit_eval;
  t.halving_eta = options.train_halving_eta;
  t.min_epochs = options.train_min_epochs;
  t.data_dir = options.train_data_dir.empty() ? std::string(models::libtorch::kFashionMnistDir)
                                              : options.train_data_dir;
  return MakeTrainAccuracy(space, t);
#else
  (void)spec, (void)space, (void)options;
  throw InputError("--accuracy train needs LibTorch (this dcnas was built without it)");
#endif
}

std::unique_ptr<AccuracyObjective> MakeSurrogate(const ObjectiveSpec& spec,
                                                 const space::Space& space,
                                                 const AccuracyFactoryOptions& options) {
#ifdef DCNAS_WITH_XGBOOST
  const std::string& file = spec.argument;
  if (spec.kind == "imagenet") {
    return MakeImageNetAccuracy(file, space, options.min_surrogate_tau, FileSha256(file));
  }
  if (spec.kind == "counterpart") {
    return MakeCounterpartSurrogateAccuracy(file, space, options.min_surrogate_tau,
                                            FileSha256(file));
  }
  return MakeSurrogateAccuracy(file, space, options.min_surrogate_tau, FileSha256(file));
#else
  (void)spec, (void)space, (void)options;
  throw InputError("--accuracy surrogate: this dcnas was built without XGBoost");
#endif
}

}  // namespace

ObjectiveSpec SplitObjectiveSpec(const std::string& text) {
  const size_t colon = text.find(':');
  if (colon == std::string::npos) return {text, ""};
  return {text.substr(0, colon), text.substr(colon + 1)};
}

ObjectiveSpec ParseAccuracySpec(const std::string& text) {
  ObjectiveSpec spec = SplitObjectiveSpec(text);
  const std::string& kind = spec.kind;
  if (kind == "train") return spec;
  if ((kind == "table" || kind == "surrogate") && spec.argument.empty()) {
    throw InputError("--accuracy " + kind + ": needs a file (" + kind + ":FILE)");
  }
  if ((kind == "counterpart" || kind == "imagenet") && spec.argument.empty()) {
    throw InputError("--accuracy " + kind + ": needs a surrogate file (" + kind + ":FILE)");
  }
  if (kind == "table" || kind == "surrogate" || kind == "counterpart" || kind == "imagenet") {
    return spec;
  }
  throw InputError("unknown --accuracy '" + text +
                   "' (valid: surrogate:FILE, counterpart:FILE, imagenet:FILE, table:FILE, "
                   "train[:RECIPE])");
}

std::unique_ptr<AccuracyObjective> MakeAccuracyObjective(const std::string& text,
                                                         const space::Space& space,
                                                         const AccuracyFactoryOptions& options) {
  const ObjectiveSpec spec = ParseAccuracySpec(text);
  if (spec.kind == "train") return MakeTrain(spec, space, options);
  if (spec.kind == "table") {
    return MakeTableAccuracy(spec.argument, space, FileSha256(spec.argument));
  }
  return MakeSurrogate(spec, space, options);
}

proxy::ProxyRecipe FinalistsRecipe(const space::Space& space, const std::string& key,
                                   const AccuracyObjective& accuracy) {
  const proxy::ProxyRecipe base = proxy::SpaceRecipe(space);
  if (!key.empty()) return base.WithKey(key);
  const nlohmann::json config = accuracy.Config();
  if (!config.contains("recipe")) {
    throw InputError(
        "--finalists: give --finalists-recipe (the accuracy objective records no training "
        "recipe)");
  }
  proxy::ProxyRecipe recipe = base.WithKey(config["recipe"].get<std::string>());
  recipe.epochs *= kFinalistsEpochFactor;
  return recipe;
}

}  // namespace dcnas::search
