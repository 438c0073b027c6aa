// The proxy-training options shared by `dcnas accuracy-data generate` and `dcnas search
// finalists`: epochs, training subset, proxy resolution and width, removed downsamplings, batch,
// optimizer and learning rate.
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
};

void AddRecipeOptions(po::options_description& options, RecipeArgs& a);
// The recipe with the space's proxy settings where the options left them open.
proxy::ProxyRecipe ResolveRecipe(const RecipeArgs& a, const space::Space& space);

}  // namespace dcnas::cli
