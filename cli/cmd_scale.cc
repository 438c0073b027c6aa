// dcnas scale: compound scaling of a base network into a family (lacs/scale_plan.h).
#include <iostream>

#include "cli/cli.h"
#include "cli/recipe_options.h"
#include "cli/sim_common.h"
#include "lacs/scale_plan.h"

namespace dcnas::cli {
namespace {

struct ScaleArgs {
  lacs::ScaleRequest r;
  std::string graph, dataset;
  bool no_train = false;
  int batch = 128;
  SimSelection sel;
};

void AddScaleOptions(po::options_description& options, ScaleArgs& a) {
  lacs::ScaleRequest& r = a.r;
  lacs::ScaleOptions& o = r.options;
  options.add_options()("model", po::value(&r.model),
                        "base: a zoo EfficientNet or EfficientNet-X (efficientnet-x-b0, ...)")(
      "blocks", po::value(&r.blocks), "base: block strings, comma- or space-separated")(
      "base-resolution", po::value(&r.base_resolution)->default_value(r.base_resolution),
      "--blocks: the base's input resolution")(
      "run", po::value(&r.run_dir), "base: the best architecture of a `dcnas search` RUN_DIR")(
      "graph", po::value(&a.graph), "(refused: a layer graph has no block strings to scale)")(
      "space", po::value(&r.space_file),
      "search-space file: the proxy settings (and --run's space); default "
      "data/search_spaces/dc-accelerator.yaml")(
      "mode", po::value(&r.mode)->default_value(r.mode),
      "lacs (latency budget on the simulator, reward objective), flops (EfficientNet's "
      "alpha beta^2 gamma^2 budget, accuracy objective) or both (and their comparison)")(
      "grid", po::value(&r.grid),
      "coefficient grid, AXIS=LO:HI:STEP or AXIS=V1/V2/..., axes d, w, r (default "
      "d=1.0:2.0:0.1,w=1.0:1.4:0.1,r=1.0:1.4:0.05); with --phi P the tuples of step P")(
      "phi", po::value(&o.budget.phi)->default_value(o.budget.phi),
      "step of the grid's tuples: the budget is 2^phi x the base (1: EfficientNet's rule; "
      "larger: a direct search at that step, per-step coefficients are the phi-th roots)")(
      "tolerance", po::value(&o.budget.tolerance)->default_value(o.budget.tolerance),
      "relative tolerance of the budget (0.1: cost within 2^phi +- 10%)")(
      "members", po::value(&o.members)->default_value(o.members), "members phi = 1..N")(
      "train-members", po::value(&o.train_members)->default_value(o.train_members),
      "members phi <= K (and the references') are trained on the proxy too")(
      "resolution-multiple",
      po::value(&o.resolution_multiple)->default_value(o.resolution_multiple),
      "member resolutions round to the nearest multiple of this (8 or 16)")(
      "w", po::value(&o.w)->default_value(o.w), "lacs reward exponent: ACC * (LAT / T)^w")(
      "batch", po::value(&a.batch)->default_value(a.batch), "simulated batch size")(
      "recipe", po::value(&r.recipe_key)->default_value(r.recipe_key),
      "proxy recipe key over the space's proxy settings (r16_n5000_e2: the shipped accuracy "
      "data's)")("seed", po::value(&r.seed)->default_value(r.seed), "training seed")(
      "jobs", po::value(&r.jobs)->default_value(r.jobs), "trainings side by side")(
      "data-dir", po::value(&r.data_dir), "Fashion-MNIST directory")(
      "dataset", po::value(&a.dataset),
      "train on fashion-mnist[:DIR], cifar10:DIR, cifar100:DIR or imagefolder:DIR (the recipe key "
      "gets _data-<name>@<content hash>)")(
      "limit-eval", po::value(&r.limit_eval)->default_value(0),
      "validate and test on at most this many images (smoke tests; stored apart)")(
      "trained", po::value(&r.trained_file),
      "trained-accuracy file (JSON lines) to reuse and append to; default OUT/trained.jsonl")(
      "accuracy", po::value(&r.accuracy),
      "imagenet:FILE: every grid point and member scored by an ImageNet surrogate's predicted "
      "top-1 of its full-size network (`dcnas surrogate imagenet`) instead of the proxy recipe; "
      "nothing trained")(
      "min-surrogate-tau", po::value(&r.min_surrogate_tau)->default_value(r.min_surrogate_tau),
      "--accuracy imagenet: refuse a surrogate whose leave-one-family-out tau is below this")(
      "no-train", po::bool_switch(&a.no_train),
      "train nothing: every network's accuracy must be in the trained-accuracy file (exit 2 "
      "naming how many are missing)")(
      "references", po::value(&r.references)->default_value(r.references),
      "auto (EfficientNet and EfficientNet-X, x-tpu or x-gpu by accelerator kind) or none")(
      "name", po::value(&r.name), "family name (default: the base's)")("out", po::value(&r.out),
                                                                       "family directory");
  a.sel.AddOptions(options, false);
}

constexpr const char* kScaleUsage =
    "dcnas scale MODEL|--blocks LIST|--run RUN_DIR --accel NAME [sim options] "
    "[--mode lacs|flops|both] [--grid ...] [--members 7] --out FAMILY_DIR";
constexpr const char* kScaleHelp =
    "Scales a base network into a model family by compound scaling. A grid of (depth,\n"
    "width, resolution) coefficients is scored under the mode's budget: lacs, each\n"
    "point's simulated latency on the setup within 2^phi +- tolerance of the base's,\n"
    "objective the search's reward ACC * (LAT / T)^w with T = 2^phi x the base latency;\n"
    "flops, alpha * beta^2 * gamma^2 within 2^phi +- tolerance, objective accuracy.\n"
    "Only the budget surface is trained (per depth and width, the resolution nearest\n"
    "the budget), for real on the Fashion-MNIST proxy; networks already in the\n"
    "trained-accuracy file are not trained again. Members phi = 0..N scale as\n"
    "alpha^phi, beta^phi, gamma^phi (repeats ceil, filters to 8, resolution to a\n"
    "multiple of 8). Writes family.json/.csv/.txt, grid.csv, members/*.json (layer\n"
    "graphs) and *.txt (block strings), family.svg (latency vs trained accuracy beside\n"
    "EfficientNet and EfficientNet-X) and family-latency.svg.";

}  // namespace

int RunScale(const Args& args) {
  po::options_description options("options");
  po::positional_options_description positional;
  positional.add("model", 1);
  ScaleArgs a;
  AddScaleOptions(options, a);
  po::variables_map vm;
  if (!Parse(args, kScaleUsage, kScaleHelp, options, positional, vm)) return 0;
  if (!a.graph.empty()) {
    throw UsageError("--graph " + a.graph +
                     ": a layer graph cannot be compound-scaled (its block structure is gone); "
                     "give the base as a zoo name, --blocks or --run");
  }
  if (vm.count("grid") > 0 && a.r.grid.empty()) {
    throw UsageError("--grid '': empty (leave --grid out for the default grid)");
  }
  a.r.train = !a.no_train;
  if (!a.dataset.empty()) {
    proxy::ProxyRecipe recipe;
    ApplyDataset(a.dataset, a.r.data_dir, recipe, a.r.out.empty() ? "" : a.r.out + "/family");
    if (recipe.dataset != proxy::kDefaultDataset) a.r.recipe_key += "_data-" + recipe.dataset;
  }
  const lacs::ScalePlan plan = lacs::PlanScale(a.r);
  sim::SimSetup setup = a.sel.LoadSetup(a.batch);
  WarnIfOtherCpu(setup);
  lacs::NetworkSimulator simulator(std::move(setup));
  auto status = StatusLine(true);
  const lacs::ScaleRun run = lacs::RunScalePlan(
      plan, simulator, [&status](const std::string& line) { status(line, true); });
  std::cout << run.text;
  return 0;
}

}  // namespace dcnas::cli
