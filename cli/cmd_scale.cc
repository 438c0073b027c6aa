// dcnas scale: compound scaling of a base network into a family (lacs/family.h).
#include <iostream>
#include <memory>

#include "cli/cli.h"
#include "cli/recipe_options.h"
#include "cli/sim_common.h"
#include "common/data_dir.h"
#include "lacs/family.h"
#include "space/space.h"
#ifdef DCNAS_WITH_TORCH
#include "lacs/train.h"
#include "models/torch/fashion_mnist.h"
#endif

namespace dcnas::cli {

int RunScale(const Args& args) {
  po::options_description options("options");
  po::positional_options_description positional;
  positional.add("model", 1);
  std::string model, blocks, graph, run_dir, space_file, mode_text = "lacs", grid_text, out, name;
  std::string recipe_key = "r16_n5000_e2", trained_file, data_dir, references = "auto";
  int base_resolution = 224, batch = 128, jobs = 1;
  uint64_t seed = 0;
  int64_t limit_eval = 0;
  bool no_train = false;
  lacs::ScaleOptions o;
  SimSelection sel;
  options.add_options()("model", po::value(&model),
                        "base: a zoo EfficientNet or EfficientNet-X (efficientnet-x-b0, ...)")(
      "blocks", po::value(&blocks), "base: block strings, comma- or space-separated")(
      "base-resolution", po::value(&base_resolution)->default_value(base_resolution),
      "--blocks: the base's input resolution")(
      "run", po::value(&run_dir), "base: the best architecture of a `dcnas search` RUN_DIR")(
      "graph", po::value(&graph), "(refused: a layer graph has no block strings to scale)")(
      "space", po::value(&space_file),
      "search-space file: the proxy settings (and --run's space); default "
      "data/search_spaces/dc-accelerator.yaml")(
      "mode", po::value(&mode_text)->default_value(mode_text),
      "lacs (latency budget on the simulator, reward objective), flops (EfficientNet's "
      "alpha beta^2 gamma^2 budget, accuracy objective) or both (and their comparison)")(
      "grid", po::value(&grid_text),
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
      "batch", po::value(&batch)->default_value(batch), "simulated batch size")(
      "recipe", po::value(&recipe_key)->default_value(recipe_key),
      "proxy recipe key over the space's proxy settings (r16_n5000_e2: the shipped accuracy "
      "data's)")("seed", po::value(&seed)->default_value(seed), "training seed")(
      "jobs", po::value(&jobs)->default_value(jobs), "trainings side by side")(
      "data-dir", po::value(&data_dir), "Fashion-MNIST directory")(
      "limit-eval", po::value(&limit_eval)->default_value(0),
      "validate and test on at most this many images (smoke tests; stored apart)")(
      "trained", po::value(&trained_file),
      "trained-accuracy file (JSON lines) to reuse and append to; default OUT/trained.jsonl")(
      "no-train", po::bool_switch(&no_train),
      "train nothing: every network's accuracy must be in the trained-accuracy file (exit 2 "
      "naming how many are missing)")(
      "references", po::value(&references)->default_value(references),
      "auto (EfficientNet and EfficientNet-X, x-tpu or x-gpu by accelerator kind) or none")(
      "name", po::value(&name), "family name (default: the base's)")("out", po::value(&out),
                                                                     "family directory");
  sel.AddOptions(options, false);
  po::variables_map vm;
  if (!Parse(args,
             "dcnas scale MODEL|--blocks LIST|--run RUN_DIR --accel NAME [sim options] "
             "[--mode lacs|flops|both] [--grid ...] [--members 7] --out FAMILY_DIR",
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
             "EfficientNet and EfficientNet-X) and family-latency.svg.",
             options, positional, vm)) {
    return 0;
  }
  if (!graph.empty()) {
    throw UsageError("--graph " + graph +
                     ": a layer graph cannot be compound-scaled (its block structure is gone); "
                     "give the base as a zoo name, --blocks or --run");
  }
  const int sources = !model.empty() + !blocks.empty() + !run_dir.empty();
  if (sources != 1) {
    throw UsageError("scale: give exactly one base: MODEL, --blocks or --run (got " +
                     std::to_string(sources) + ")");
  }
  if (out.empty()) throw UsageError("scale: --out FAMILY_DIR is required");
  if (references != "auto" && references != "none") {
    throw UsageError("--references '" + references + "' (valid: auto, none)");
  }
  std::vector<lacs::Mode> modes;
  if (mode_text == "both") {
    modes = {lacs::Mode::kLacs, lacs::Mode::kFlops};
  } else {
    modes = {lacs::ParseMode(mode_text)};
  }
  o.grid = lacs::ParseGrid(grid_text, lacs::DefaultGrid());
  if (space_file.empty()) space_file = DataPath("search_spaces/dc-accelerator.yaml");
  const space::Space space = space::Space::Load(space_file);
  // The space's proxy settings, then the key's parts over them (as the accuracy data does).
  const proxy::ProxyRecipe recipe = ResolveRecipe(RecipeArgs{}, space).WithKey(recipe_key);
  o.proxy_resolution = recipe.resolution;
  const lacs::BaseNetwork base = !model.empty()    ? lacs::ZooBase(model)
                                 : !blocks.empty() ? lacs::BlocksBase(blocks, base_resolution)
                                                   : lacs::RunBase(run_dir, space_file);
  sim::SimSetup setup = sel.LoadSetup(batch);
  WarnIfOtherCpu(setup);
  lacs::NetworkSimulator simulator(std::move(setup));
  if (trained_file.empty()) trained_file = out + "/trained.jsonl";
  auto store = std::make_shared<lacs::TrainedStore>(trained_file);
  auto status = StatusLine(true);
  auto progress = [&status](const std::string& line) { status(line, true); };
  std::unique_ptr<lacs::ProxyAccuracy> accuracy;
#ifdef DCNAS_WITH_TORCH
  if (!no_train) {
    lacs::TrainSettings ts;
    ts.recipe = recipe;
    ts.seed = seed;
    ts.jobs = jobs;
    ts.data_dir = data_dir.empty() ? models::libtorch::kFashionMnistDir : data_dir;
    ts.limit_eval = limit_eval;
    ts.in_channels = space.proxy().in_channels;
    ts.num_classes = space.proxy().num_classes;
    accuracy = std::make_unique<lacs::TrainedAccuracy>(store, ts, progress);
  }
#else
  (void)no_train;  // this build cannot train: accuracy comes from the file alone
#endif
  if (!accuracy) {
    accuracy = std::make_unique<lacs::StoredAccuracy>(
        store, recipe, seed, limit_eval, space.proxy().in_channels, space.proxy().num_classes);
  }
  const std::string family = name.empty() ? base.name : name;
  const lacs::ScaleRun run = lacs::RunScale(base, family, modes, o, references == "auto", simulator,
                                            *accuracy, out, progress);
  std::cout << run.text;
  return 0;
}

}  // namespace dcnas::cli
