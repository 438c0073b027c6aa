// Simulating a list of zoo models on one setup: the loop every study shares.
#pragma once

#include <string>
#include <vector>

#include "models/registry.h"
#include "sim/cost_cache.h"
#include "sim/engine.h"

namespace dcnas::study {

// How the models of a study are built and simulated.
struct RunOptions {
  int batch = 128;
  int resolution = 0;     // 0: each model's native resolution
  std::string precision;  // empty: DefaultPrecision() of the accelerator's kind
  sim::SimOptions sim{.fusion = true, .details = false};
};

// Throws InputError naming the first unknown name (with the registry's suggestions).
void RequireKnownModels(const std::vector<std::string>& names,
                        const models::ModelRegistry& registry);

// Builds and simulates each named model on `setup`, in order; one report per name. Every name is
// checked first: an unknown one throws InputError before anything is simulated.
std::vector<sim::Report> SimulateModels(const std::vector<std::string>& names,
                                        const sim::SimSetup& setup, const RunOptions& options,
                                        const models::ModelRegistry& registry,
                                        sim::CostCache* cache = nullptr);

}  // namespace dcnas::study
