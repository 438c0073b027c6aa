#include "tests/fuzz/fuzz_common.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <exception>

#include "common/data_dir.h"
#include "common/errors.h"
#include "models/zoo/zoo.h"

namespace dcnas::fuzz {

int Guarded(const uint8_t* data, size_t size, const std::function<void(const std::string&)>& body) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    body(text);
  } catch (const InputError&) {
    return 0;  // the documented outcome for bad input
  } catch (const std::exception& e) {
    std::fprintf(stderr, "fuzz: not an InputError: %s\n", e.what());
    std::abort();
  } catch (...) {
    std::fprintf(stderr, "fuzz: a non-standard exception\n");
    std::abort();
  }
  return 0;
}

const std::string& Data() {
  static const std::string kDir = DataDir();
  return kDir;
}

const models::Graph& SmallGraph() {
  static const models::Graph kGraph = [] {
    models::BuildOptions o;
    o.resolution = 64;
    o.batch = 2;
    return models::BuiltinModels().Build("efficientnet-b0", o);
  }();
  return kGraph;
}

const sim::SimSetup& DefaultSetup() {
  static const sim::SimSetup kSetup = [] {
    (void)Data();
    return sim::LoadSetup("v100", "tensorrt", "default", {});
  }();
  return kSetup;
}

void SimulateChecked(const models::Graph& graph, const sim::AcceleratorSpec& spec,
                     const sim::StackProfile& stack, const sim::CalibrationParams& calibration) {
  sim::SimOptions options;
  options.details = false;
  const sim::Report r = sim::Simulate(graph, spec, stack, calibration, options);
  if (!std::isfinite(r.latency_s) || r.latency_s < 0) {
    std::fprintf(stderr, "fuzz: simulated latency %g s from accepted input\n", r.latency_s);
    std::abort();
  }
}

}  // namespace dcnas::fuzz
