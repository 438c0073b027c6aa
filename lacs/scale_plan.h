// One `dcnas scale` as data (ScaleRequest: what the command line names), resolved (PlanScale:
// checked, the base built, the space and recipe read) and run (RunScalePlan: the accuracies
// trained or read from the trained-accuracy file, then RunScale). The accuracy source is chosen
// here by the build: LibTorch builds train what the file lacks; others read the file alone.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "lacs/family.h"
#include "proxy/accuracy_data.h"

namespace dcnas::lacs {

struct ScaleRequest {
  // The base, exactly one of: a zoo EfficientNet or EfficientNet-X, block strings (comma- or
  // space-separated, at base_resolution), or a `dcnas search` run directory (its best).
  std::string model;
  std::string blocks;
  int base_resolution = 224;
  std::string run_dir;
  std::string space_file;     // the proxy settings (and run_dir's space); "": dc-accelerator
  std::string mode = "lacs";  // lacs, flops or both
  std::string grid;           // ParseGrid's text; "": DefaultGrid
  ScaleOptions options;       // the grid and the proxy resolution are set by PlanScale
  std::string recipe_key = "r16_n5000_e2";  // over the space's proxy settings
  uint64_t seed = 0;                        // training seed
  int jobs = 1;                             // trainings side by side
  std::string data_dir;                     // Fashion-MNIST; "": the installed one
  int64_t limit_eval = 0;                   // > 0: smoke tests (stored apart)
  std::string trained_file;                 // "": OUT/trained.jsonl
  // "": the proxy recipe's accuracy (trained or stored); "imagenet:FILE": an ImageNet surrogate's
  // prediction of each full-size network (XGBoost builds), refused below min_surrogate_tau.
  std::string accuracy;
  double min_surrogate_tau = 0.5;
  bool train = true;                // false: every accuracy must be in the file
  std::string references = "auto";  // auto or none
  std::string name;                 // family name; "": the base's
  std::string out;                  // the family directory
};

struct ScalePlan {
  ScaleRequest request;  // trained_file set
  BaseNetwork base;
  std::string family;  // the family's name
  std::vector<Mode> modes;
  ScaleOptions options;
  proxy::ProxyRecipe recipe;
  int in_channels = 1;  // of the space's proxy
  int num_classes = 10;
};

// Checks the request (one base, an --out, the references, the mode, the grid) and resolves it.
// Throws InputError naming what is wrong.
ScalePlan PlanScale(const ScaleRequest& request);

// Scales the plan's base on `simulator` and writes the family directory (RunScale), the accuracies
// trained on the proxy where this build can and the request allows, else read from the trained
// file.
ScaleRun RunScalePlan(const ScalePlan& plan, NetworkSimulator& simulator,
                      const ScaleProgress& progress);

}  // namespace dcnas::lacs
