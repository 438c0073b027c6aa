// Calibrated profiles (data/calibrated/*.yaml, `--calibration FILE`): strict YAML, the profile
// reader, a simulation with the parsed parameters.
#include "common/config_tree.h"
#include "sim/calibration_params.h"
#include "tests/fuzz/fuzz_common.h"

namespace {

void Body(const std::string& text) {
  const YAML::Node root = dcnas::ParseYamlStrict(text, "fuzz.yaml");
  const dcnas::sim::CalibrationParams c = dcnas::sim::ParseCalibration(root, "fuzz.yaml");
  const auto& s = dcnas::fuzz::DefaultSetup();
  dcnas::fuzz::SimulateChecked(dcnas::fuzz::SmallGraph(), s.spec, s.stack, c);
}

}  // namespace

DCNAS_FUZZ_TARGET(Body)
