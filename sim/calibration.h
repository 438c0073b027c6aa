// CalibrationParams: every constant of the cost model that is not a property of the silicon
// (spec) or of the software stack (stack): achieved efficiencies, overlap, overhead scale and
// per-op vector costs. Defaults are documented below and in sim/README.md; data/calibrated/*.yaml
// files hold fitted values for one (device, stack, precision) with provenance.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "sim/config_tree.h"

namespace dcnas::sim {

struct CalibrationParams {
  // Achieved fraction of peak (0, 1].
  double matrix_efficiency = 0.85;  // of the padded matrix-unit MAC rate
  double vector_efficiency = 0.70;  // of the vector unit's op rate
  double memory_efficiency = 0.80;  // of HBM peak bandwidth
  double onchip_efficiency = 0.80;  // of on-chip (VMEM/L2) bandwidth
  // Fraction of the non-dominant resource times hidden under the dominant one [0, 1]:
  // t = max + (1 - overlap) * (sum - max).
  double overlap = 0.80;
  double kernel_overhead_scale = 1.0;  // multiplies the stack's kernel_overhead_us
  // Multiplies the overhead of each extra launch of a per-group grouped convolution (launches
  // issued back to back inside one layer, with no host work between them).
  double group_launch_scale = 1.0;
  double onchip_usable_fraction = 0.5;   // of the reuse level's capacity usable to hold tensors
  double systolic_pipeline_scale = 1.0;  // multiplies weight-load, fill and drain cycles
  // Vector ops per output element (an op = one lane-cycle).
  double ops_relu = 1;
  double ops_relu6 = 2;
  double ops_swish = 4;    // plus one transcendental (exp) per element
  double ops_sigmoid = 3;  // plus one transcendental
  double ops_hard_swish = 4;
  double ops_hard_sigmoid = 3;
  double ops_gelu = 8;        // plus one transcendental
  double ops_batch_norm = 2;  // scale and shift (separate op when not fused)
  double ops_bias = 1;
  double ops_add = 1;
  double ops_mul = 1;
  double ops_pool_per_window_element = 1;
  double ops_global_pool_per_input = 1;
  double ops_softmax = 4;            // plus one transcendental
  double ops_depthwise_per_mac = 1;  // vector-unit convolutions: FMAs per MAC
  // Per-op-class time multipliers (applied to the combined time before overhead).
  double conv_scale = 1.0;
  double depthwise_scale = 1.0;
  double fc_scale = 1.0;
  double elementwise_scale = 1.0;
  double pool_scale = 1.0;
  double data_movement_scale = 1.0;

  // Provenance (written by the calibration step).
  std::string name = "default";
  std::string description;
  std::string device;
  std::string stack;
  std::string precision;
  std::string measurements_file;
  std::string measurements_sha256;
  std::string date;
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
