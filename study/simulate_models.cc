#include "study/simulate_models.h"

#include "study/precision.h"

namespace dcnas::study {

void RequireKnownModels(const std::vector<std::string>& names,
                        const models::ModelRegistry& registry) {
  for (const std::string& name : names) (void)registry.Get(name);
}

std::vector<sim::Report> SimulateModels(const std::vector<std::string>& names,
                                        const sim::SimSetup& setup, const RunOptions& options,
                                        const models::ModelRegistry& registry,
                                        sim::CostCache* cache) {
  models::BuildOptions build;
  build.batch = options.batch;
  build.resolution = options.resolution;
  build.dtype = models::ParseDType(PrecisionFor(options.precision, setup.spec.kind));
  RequireKnownModels(names, registry);
  std::vector<sim::Report> reports;
  reports.reserve(names.size());
  for (const std::string& name : names) {
    reports.push_back(sim::Simulate(registry.Build(name, build), setup.spec, setup.stack,
                                    setup.calibration, options.sim, cache));
  }
  return reports;
}

}  // namespace dcnas::study
