// CalibrationParams: every constant of the cost model that is not a property of the silicon
// (spec) or of the software stack (stack): achieved efficiencies, overlap, overhead scale and
// per-op vector costs. Defaults are documented below and in sim/README.md; data/calibrated/*.yaml
// files hold fitted values for one (device, stack, precision) with provenance.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "common/override.h"
#include "common/yaml_fwd.h"
#include "sim/cost/params.h"

namespace dcnas::sim {

// The cost model's parameters (cost::CostParams, every numeric field) with their provenance.
struct CalibrationParams : cost::CostParams {
  // Provenance (written by the calibration step).
  std::string name = "default";
  std::string description;
  std::string device;
  std::string stack;
  std::string precision;
  std::string measurements_file;
  std::string measurements_sha256;
  std::string date;
  // The CPU a CPU profile's measurements were timed on (HostCpu::Identity(): vendor, family,
  // model and name); empty for accelerators. Tools warn when it is not this machine's.
  std::string cpu;
  std::map<std::string, double> fit_metrics;  // e.g. mape_pct, rmse_ms, points
  std::string file;
  std::vector<Override> overrides;

  uint64_t Fingerprint() const;
};

// One numeric field: name, documentation, bounds and its member.
struct CalibrationField {
  const char* name;
  double CalibrationParams::*member;
  double min;
  double max;
  const char* doc;
};
const std::vector<CalibrationField>& CalibrationFields();

// Loads data/calibrated/NAME.yaml or a path; missing params keep their defaults, unknown keys
// and out-of-range values throw InputError naming file and key.
CalibrationParams LoadCalibration(const std::string& name_or_path,
                                  const std::vector<Override>& overrides = {});
CalibrationParams ParseCalibration(const YAML::Node& root, const std::string& file);
// The YAML text of a calibration file (all params, provenance).
std::string CalibrationToYaml(const CalibrationParams& params);
// Applies `params.<field>=value` style overrides to in-memory defaults.
CalibrationParams DefaultCalibration(const std::vector<Override>& overrides = {});

}  // namespace dcnas::sim
