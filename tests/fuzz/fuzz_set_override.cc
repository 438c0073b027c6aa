// `--set KEY=VALUE` overrides, one per line, applied to the shipped v100 chip file; then the chip
// reader and a simulation.
#include "common/config_tree.h"
#include "common/file_io.h"
#include "common/text.h"
#include "sim/spec.h"
#include "tests/fuzz/fuzz_common.h"

namespace {

void Body(const std::string& text) {
  static const YAML::Node kChip =
      dcnas::LoadYamlFile(dcnas::fuzz::Data() + "/accelerators/v100.yaml");
  std::vector<dcnas::Override> overrides;
  for (const std::string& line : dcnas::Split(text, '\n')) {
    if (!line.empty()) overrides.push_back(dcnas::ParseOverride(line));
  }
  YAML::Node chip = YAML::Clone(kChip);
  dcnas::ApplyOverrides(chip, overrides, "v100.yaml");
  const dcnas::sim::AcceleratorSpec spec = dcnas::sim::ParseAccelerator(chip, "v100.yaml");
  const auto& s = dcnas::fuzz::DefaultSetup();
  dcnas::fuzz::SimulateChecked(dcnas::fuzz::SmallGraph(), spec, s.stack, s.calibration);
}

}  // namespace

DCNAS_FUZZ_TARGET(Body)
