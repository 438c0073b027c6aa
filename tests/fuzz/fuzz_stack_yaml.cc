// Software-stack files (data/stacks/*.yaml): strict YAML, the stack reader, a simulation.
#include "common/config_tree.h"
#include "sim/stack.h"
#include "tests/fuzz/fuzz_common.h"

namespace {

void Body(const std::string& text) {
  const std::string dir = dcnas::fuzz::Data() + "/stacks";
  const YAML::Node root = dcnas::ParseYamlStrict(text, "fuzz.yaml");
  const YAML::Node resolved = dcnas::ResolveExtends(root, "fuzz.yaml", dir, nullptr);
  const dcnas::sim::StackProfile stack = dcnas::sim::ParseStack(resolved, "fuzz.yaml");
  const auto& s = dcnas::fuzz::DefaultSetup();
  dcnas::fuzz::SimulateChecked(dcnas::fuzz::SmallGraph(), s.spec, stack, s.calibration);
}

}  // namespace

DCNAS_FUZZ_TARGET(Body)
