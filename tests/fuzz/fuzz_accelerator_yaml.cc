// Chip files (data/accelerators/*.yaml, `--accel FILE`): strict YAML, `extends:` chains against
// the shipped chips, the typed reader; then a simulation on the parsed chip.
#include "common/config_tree.h"
#include "sim/spec.h"
#include "tests/fuzz/fuzz_common.h"

namespace {

void Body(const std::string& text) {
  const std::string dir = dcnas::fuzz::Data() + "/accelerators";
  const YAML::Node root = dcnas::ParseYamlStrict(text, "fuzz.yaml");
  const YAML::Node resolved = dcnas::ResolveExtends(root, "fuzz.yaml", dir, nullptr);
  const dcnas::sim::AcceleratorSpec spec = dcnas::sim::ParseAccelerator(resolved, "fuzz.yaml");
  const auto& s = dcnas::fuzz::DefaultSetup();
  dcnas::fuzz::SimulateChecked(dcnas::fuzz::SmallGraph(), spec, s.stack, s.calibration);
}

}  // namespace

DCNAS_FUZZ_TARGET(Body)
