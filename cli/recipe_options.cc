#include "cli/recipe_options.h"

#include <cstdlib>
#include <filesystem>

#include "models/torch/fashion_mnist.h"
#ifdef DCNAS_WITH_TORCH
#include "models/torch/image_datasets.h"
#endif

namespace dcnas::cli {

void AddRecipeOptions(po::options_description& options, RecipeArgs& a) {
  proxy::ProxyRecipe& r = a.recipe;
  options.add_options()("epochs", po::value(&r.epochs)->default_value(r.epochs),
                        "proxy training epochs")(
      "train-images", po::value(&r.train_images)->default_value(r.train_images),
      "training subset (a fixed selection, the same for every run)")(
      "proxy-resolution", po::value(&a.proxy_resolution)->default_value(0),
      "proxy input resolution (0: the space's proxy.resolution)")(
      "proxy-width", po::value(&a.proxy_width)->default_value(0.0),
      "proxy width multiplier (0: the space's proxy.width)")(
      "removed-downsamples", po::value(&a.removed)->default_value(-1),
      "stride-2 stages run at stride 1 (-1: the space's proxy.removed_downsamples)")(
      "batch", po::value(&r.batch)->default_value(r.batch), "training batch size")(
      "optimizer", po::value(&r.optimizer)->default_value(r.optimizer), "sgd, rmsprop or adamw")(
      "lr", po::value(&r.learning_rate)->default_value(0.0), "peak learning rate (0: default)")(
      "label", po::value(&a.label)->default_value("trained"),
      "how a network's label is obtained: 'trained' (its test and validation accuracy after the "
      "training above), or a zero-cost label zc-<score>-a<scale>-b<offset> as `accuracy-data "
      "calibrate-score` prints it: the untrained proxy network's score on one batch of --batch "
      "images, mapped to percent (no training: --epochs, --train-images, --optimizer, --lr "
      "unused)");
}

void AddTrainerOptions(po::options_description& options, int& jobs, std::string& data_dir,
                       int64_t& limit_eval, std::string& dataset) {
  options.add_options()("jobs", po::value(&jobs)->default_value(1),
                        "trainings side by side (worker processes, one LibTorch thread each)")(
      "dataset", po::value(&dataset),
      "train on fashion-mnist[:DIR] (default), cifar10:DIR, cifar100:DIR or imagefolder:DIR "
      "(decoded once at 64 px into a tensor file beside the output, or in $DCNAS_CACHE_DIR); "
      "recorded in the recipe by name and content hash")(
      "data-dir", po::value(&data_dir)->default_value(models::libtorch::kFashionMnistDir),
      "Fashion-MNIST directory")("limit-eval", po::value(&limit_eval)->default_value(0),
                                 "validate and test on at most this many images (smoke tests)");
}

void ApplyDataset(const std::string& dataset, std::string& data_dir, proxy::ProxyRecipe& recipe,
                  const std::string& out) {
#ifdef DCNAS_WITH_TORCH
  if (!dataset.empty()) data_dir = dataset;
  const char* cache = std::getenv("DCNAS_CACHE_DIR");
  if ((cache == nullptr || *cache == '\0') && !out.empty()) {
    // Beside the output: its directory (an output directory's parent holds it too).
    const std::filesystem::path beside =
        std::filesystem::absolute(out).lexically_normal().parent_path();
    ::setenv("DCNAS_CACHE_DIR", beside.string().c_str(), 1);
  }
  try {
    recipe.dataset = models::libtorch::DatasetId(models::libtorch::LoadDataset(data_dir));
  } catch (const InputError& e) {
    throw InputError(std::string(dataset.empty() ? "--data-dir" : "--dataset") + ": " + e.what());
  }
#else
  (void)dataset;
  (void)data_dir;
  (void)recipe;
  (void)out;
#endif
}

proxy::ProxyRecipe ApplyLabel(const RecipeArgs& a, const proxy::ProxyRecipe& recipe) {
  if (a.label.empty() || a.label == "trained") return recipe;
  try {
    return recipe.WithZeroCostLabel(a.label);
  } catch (const InputError& e) {
    throw InputError(std::string("--label: ") + e.what());
  }
}

proxy::ProxyRecipe ResolveRecipe(const RecipeArgs& a, const space::Space& space) {
  proxy::ProxyRecipe r = a.recipe;
  r.resolution = a.proxy_resolution > 0 ? a.proxy_resolution : space.proxy().resolution;
  r.width = a.proxy_width > 0 ? a.proxy_width : space.proxy().width;
  r.removed_downsamples = a.removed >= 0 ? a.removed : space.proxy().removed_downsamples;
  return ApplyLabel(a, r);
}

}  // namespace dcnas::cli
