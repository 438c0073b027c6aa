// Built with -DDCNAS_WITH_TORCH where meson found LibTorch (lacs/meson.build): whether this build
// can train is decided here, not by the callers.
#include "lacs/scale_plan.h"

#include <memory>

#include "common/data_dir.h"
#include "common/errors.h"
#include "space/space.h"
#ifdef DCNAS_WITH_XGBOOST
#include "lacs/imagenet_accuracy.h"
#endif
#ifdef DCNAS_WITH_TORCH
#include "lacs/train.h"
#include "models/torch/fashion_mnist.h"
#endif

namespace dcnas::lacs {
namespace {

// Trains what the store lacks (LibTorch builds, unless the request says not to), else reads it.
std::unique_ptr<ProxyAccuracy> MakeAccuracy(const ScalePlan& plan,
                                            std::shared_ptr<TrainedStore> store,
                                            const ScaleProgress& progress) {
  const ScaleRequest& r = plan.request;
  if (!r.accuracy.empty()) {
    if (!r.accuracy.starts_with("imagenet:") || r.accuracy.size() == 9) {
      throw InputError("--accuracy '" + r.accuracy + "' (valid: imagenet:FILE)");
    }
#ifdef DCNAS_WITH_XGBOOST
    return MakeImageNetAccuracy(r.accuracy.substr(9), r.min_surrogate_tau);
#else
    throw InputError("--accuracy imagenet: this dcnas was built without XGBoost");
#endif
  }
#ifdef DCNAS_WITH_TORCH
  if (r.train) {
    TrainSettings ts;
    ts.recipe = plan.recipe;
    ts.seed = r.seed;
    ts.jobs = r.jobs;
    ts.data_dir = r.data_dir.empty() ? models::libtorch::kFashionMnistDir : r.data_dir;
    ts.limit_eval = r.limit_eval;
    ts.in_channels = plan.in_channels;
    ts.num_classes = plan.num_classes;
    return std::make_unique<TrainedAccuracy>(store, ts, progress);
  }
#else
  (void)progress;  // this build cannot train: accuracy comes from the file alone
#endif
  return std::make_unique<StoredAccuracy>(store, plan.recipe, r.seed, r.limit_eval,
                                          plan.in_channels, plan.num_classes);
}

}  // namespace

ScalePlan PlanScale(const ScaleRequest& request) {
  ScalePlan plan;
  plan.request = request;
  ScaleRequest& r = plan.request;
  const int sources = !r.model.empty() + !r.blocks.empty() + !r.run_dir.empty();
  if (sources != 1) {
    throw InputError("scale: give exactly one base: MODEL, --blocks or --run (got " +
                     std::to_string(sources) + ")");
  }
  if (r.out.empty()) throw InputError("scale: --out FAMILY_DIR is required");
  if (!r.accuracy.empty() && (!r.accuracy.starts_with("imagenet:") || r.accuracy.size() == 9)) {
    throw InputError("--accuracy '" + r.accuracy + "' (valid: imagenet:FILE)");
  }
  if (r.references != "auto" && r.references != "none") {
    throw InputError("--references '" + r.references + "' (valid: auto, none)");
  }
  if (r.mode == "both") {
    plan.modes = {Mode::kLacs, Mode::kFlops};
  } else {
    plan.modes = {ParseMode(r.mode)};
  }
  plan.options = r.options;
  plan.options.grid = ParseGrid(r.grid, DefaultGrid());
  if (r.space_file.empty()) r.space_file = DataPath("search_spaces/dc-accelerator.yaml");
  const space::Space space = space::Space::Load(r.space_file);
  // The space's proxy settings, then the key's parts over them (as the accuracy data does).
  plan.recipe = proxy::SpaceRecipe(space).WithKey(r.recipe_key);
  plan.options.proxy_resolution = plan.recipe.resolution;
  const space::ProxySettings proxy = proxy::RecipeProxy(space, plan.recipe);
  plan.in_channels = proxy.in_channels;
  plan.num_classes = proxy.num_classes;
  plan.base = !r.model.empty()    ? ZooBase(r.model)
              : !r.blocks.empty() ? BlocksBase(r.blocks, r.base_resolution)
                                  : RunBase(r.run_dir, r.space_file);
  if (r.trained_file.empty()) r.trained_file = r.out + "/trained.jsonl";
  plan.family = r.name.empty() ? plan.base.name : r.name;
  return plan;
}

ScaleRun RunScalePlan(const ScalePlan& plan, NetworkSimulator& simulator,
                      const ScaleProgress& progress) {
  auto store = std::make_shared<TrainedStore>(plan.request.trained_file);
  const std::unique_ptr<ProxyAccuracy> accuracy = MakeAccuracy(plan, store, progress);
  return RunScale(plan.base, plan.family, plan.modes, plan.options,
                  plan.request.references == "auto", simulator, *accuracy, plan.request.out,
                  progress);
}

}  // namespace dcnas::lacs
