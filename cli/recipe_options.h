// The proxy-training options shared by `dcnas accuracy-data generate` and `dcnas search
// finalists`: epochs, training subset, proxy resolution and width, removed downsamplings, batch,
// optimizer and learning rate; and their trainer's workers, data and evaluation subset.
#pragma once

#include "cli/cli.h"
#include "proxy/accuracy_data.h"
#include "space/space.h"

namespace dcnas::cli {

struct RecipeArgs {
  proxy::ProxyRecipe recipe;
  int proxy_resolution = 0;  // 0: the space's
  double proxy_width = 0.0;  // 0: the space's
  int removed = -1;          // -1: the space's
  std::string label;         // "" or "trained": trained; else a zero-cost label
};

void AddRecipeOptions(po::options_description& options, RecipeArgs& a);
// The trainer's options of the commands that train many proxies in worker processes: --jobs,
// --dataset NAME[:DIR], --data-dir (Fashion-MNIST's directory, default the installed one) and
// --limit-eval.
void AddTrainerOptions(po::options_description& options, int& jobs, std::string& data_dir,
                       int64_t& limit_eval, std::string& dataset);
// The data the trainer reads: --dataset when given (`data_dir` becomes that spec), else
// Fashion-MNIST in `data_dir`. Loads it once (an image folder is decoded into its cache) and sets
// recipe.dataset to its identity (DatasetId), so rows trained on different data never share a
// recipe; a zero-cost label's recipe too. An image folder's tensor file goes beside `out` (the
// command's output file or directory: $DCNAS_CACHE_DIR is set to its directory for this process
// and the workers it starts, unless already set). InputError naming --dataset.
void ApplyDataset(const std::string& dataset, std::string& data_dir, proxy::ProxyRecipe& recipe,
                  const std::string& out);
// `recipe` with the --label of `a` applied ("" or "trained": unchanged); InputError naming --label.
proxy::ProxyRecipe ApplyLabel(const RecipeArgs& a, const proxy::ProxyRecipe& recipe);
// The recipe with the space's proxy settings where the options left them open.
proxy::ProxyRecipe ResolveRecipe(const RecipeArgs& a, const space::Space& space);

}  // namespace dcnas::cli
