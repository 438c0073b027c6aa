#include "sim/calibration_params.h"

#include <charconv>
#include <cmath>
#include <filesystem>
#include <sstream>

#include "common/config_tree.h"
#include "common/errors.h"
#include "common/file_io.h"
#include "sim/spec.h"

namespace dcnas::sim {

const std::vector<CalibrationField>& CalibrationFields() {
  using C = CalibrationParams;
  static const std::vector<CalibrationField> kFields = {
      {"matrix_efficiency", &C::matrix_efficiency, 1e-3, 1,
       "achieved fraction of padded MXU/tensor-core MAC rate"},
      {"gemm_efficiency", &C::gemm_efficiency, 0, 1,
       "achieved fraction of padded tensor-core MAC rate in GEMM-library kernels (fully "
       "connected, batched products; 0: matrix_efficiency)"},
      {"vector_efficiency", &C::vector_efficiency, 1e-3, 1, "achieved fraction of vector op rate"},
      {"memory_efficiency", &C::memory_efficiency, 1e-3, 1, "achieved fraction of HBM bandwidth"},
      {"core_stream_bytes_per_cycle", &C::core_stream_bytes_per_cycle, 0, 1e6,
       "DRAM bytes one core streams per cycle at most (0: no per-core limit)"},
      {"onchip_efficiency", &C::onchip_efficiency, 1e-3, 1,
       "achieved fraction of on-chip bandwidth"},
      {"overlap", &C::overlap, 0, 1,
       "fraction of non-dominant unit time hidden under the dominant"},
      {"kernel_overhead_scale", &C::kernel_overhead_scale, 0, 100,
       "multiplies the stack's per-kernel overhead"},
      {"group_launch_scale", &C::group_launch_scale, 0, 100,
       "multiplies the per-kernel overhead of each per-group launch"},
      {"onchip_usable_fraction", &C::onchip_usable_fraction, 0, 1,
       "fraction of on-chip memory usable to hold tensors"},
      {"systolic_pipeline_scale", &C::systolic_pipeline_scale, 0, 100,
       "multiplies systolic weight-load/fill/drain cycles"},
      {"interconnect_efficiency", &C::interconnect_efficiency, 1e-3, 1,
       "achieved fraction of interconnect link bandwidth in an all-reduce (training)"},
      {"ops_relu", &C::ops_relu, 0, 1000, "vector ops per element: relu"},
      {"ops_relu6", &C::ops_relu6, 0, 1000, "vector ops per element: relu6"},
      {"ops_swish", &C::ops_swish, 0, 1000, "vector ops per element: swish (+1 transcendental)"},
      {"ops_sigmoid", &C::ops_sigmoid, 0, 1000,
       "vector ops per element: sigmoid (+1 transcendental)"},
      {"ops_hard_swish", &C::ops_hard_swish, 0, 1000, "vector ops per element: hard swish"},
      {"ops_hard_sigmoid", &C::ops_hard_sigmoid, 0, 1000, "vector ops per element: hard sigmoid"},
      {"ops_gelu", &C::ops_gelu, 0, 1000, "vector ops per element: gelu (+1 transcendental)"},
      {"ops_batch_norm", &C::ops_batch_norm, 0, 1000, "vector ops per element: batch norm"},
      {"ops_bias", &C::ops_bias, 0, 1000, "vector ops per element: bias add"},
      {"ops_add", &C::ops_add, 0, 1000, "vector ops per element: add"},
      {"ops_mul", &C::ops_mul, 0, 1000, "vector ops per element: multiply"},
      {"ops_pool_per_window_element", &C::ops_pool_per_window_element, 0, 1000,
       "vector ops per pooling window element"},
      {"ops_global_pool_per_input", &C::ops_global_pool_per_input, 0, 1000,
       "vector ops per global-pool input element"},
      {"ops_softmax", &C::ops_softmax, 0, 1000,
       "vector ops per element: softmax (+1 transcendental)"},
      {"ops_layer_norm", &C::ops_layer_norm, 0, 1000,
       "vector ops per element: layer norm (two reductions over c, normalise, scale, shift)"},
      {"ops_depthwise_per_mac", &C::ops_depthwise_per_mac, 0, 1000,
       "vector ops per MAC of a vector-unit convolution"},
      {"conv_scale", &C::conv_scale, 1e-3, 1000, "time multiplier: matrix-unit convolutions"},
      {"depthwise_scale", &C::depthwise_scale, 1e-3, 1000,
       "time multiplier: depthwise convolutions"},
      {"fc_scale", &C::fc_scale, 1e-3, 1000, "time multiplier: fully connected layers"},
      {"elementwise_scale", &C::elementwise_scale, 1e-3, 1000,
       "time multiplier: standalone elementwise kernels"},
      {"pool_scale", &C::pool_scale, 1e-3, 1000, "time multiplier: pooling kernels"},
      {"data_movement_scale", &C::data_movement_scale, 1e-3, 1000,
       "time multiplier: concat/space-to-depth/... kernels"},
  };
  return kFields;
}

uint64_t CalibrationParams::Fingerprint() const {
  uint64_t h = 0x1234567887654321ULL;
  for (const auto& f : CalibrationFields()) h = HashDouble(h, this->*f.member);
  return h;
}

CalibrationParams ParseCalibration(const YAML::Node& root, const std::string& file) {
  ConfigReader r(root, file, "");
  CalibrationParams c;
  c.file = file;
  c.name = r.StringOr("name", "default");
  c.description = r.StringOr("description", "");
  if (r.Has("provenance")) {
    ConfigReader p = r.Map("provenance");
    c.device = p.StringOr("device", "");
    c.stack = p.StringOr("stack", "");
    c.precision = p.StringOr("precision", "");
    c.measurements_file = p.StringOr("measurements_file", "");
    c.measurements_sha256 = p.StringOr("measurements_sha256", "");
    c.date = p.StringOr("date", "");
    c.cpu = p.StringOr("cpu", "");
    if (p.Has("fit")) {
      ConfigReader fit = p.Map("fit");
      for (const auto& key : fit.Keys()) c.fit_metrics[key] = fit.Number(key, -1e300, 1e300);
      fit.Finish();
    }
    p.Finish();
  } else {
    r.Skip("provenance");
  }
  if (r.Has("params")) {
    ConfigReader p = r.Map("params");
    for (const auto& f : CalibrationFields()) {
      c.*f.member = p.NumberOr(f.name, c.*f.member, f.min, f.max);
    }
    p.Finish();
  } else {
    r.Skip("params");
  }
  r.Finish();
  return c;
}

CalibrationParams LoadCalibration(const std::string& name_or_path,
                                  const std::vector<Override>& overrides) {
  const std::string file = ResolveDataFile("calibrated", name_or_path, "calibration");
  if (const std::string marker = IncompleteSetMarker(file); !marker.empty()) {
    throw InputError(file +
                     ": the `dcnas calibrate` run that was writing it with its chart and "
                     "residuals was cut short (" +
                     marker +
                     " lists the set); rerun it, or delete "
                     "the marker to use this profile as it is");
  }
  YAML::Node root = LoadYamlFile(file);
  ApplyOverrides(root, overrides, file);
  CalibrationParams c = ParseCalibration(root, file);
  c.overrides = overrides;
  return c;
}

CalibrationParams DefaultCalibration(const std::vector<Override>& overrides) {
  YAML::Node root;
  root["name"] = "default";
  for (const auto& f : CalibrationFields()) root["params"][f.name] = CalibrationParams().*f.member;
  ApplyOverrides(root, overrides, "<default calibration>");
  CalibrationParams c = ParseCalibration(root, "<default calibration>");
  c.overrides = overrides;
  if (!overrides.empty()) c.name = "default+overrides";
  return c;
}

namespace {

// A number written with the digits it has: the shortest form that reads back to the same double
// (0.8, not the emitter's 0.80000000000000004).
void EmitNumber(YAML::Emitter& out, double v) {
  if (!std::isfinite(v)) {
    out << v;
    return;
  }
  char buffer[32];
  const auto [end, ec] = std::to_chars(buffer, buffer + sizeof(buffer), v);
  out << std::string(buffer, end);
}

}  // namespace

std::string CalibrationToYaml(const CalibrationParams& c) {
  YAML::Emitter out;
  out << YAML::BeginMap;
  out << YAML::Key << "name" << YAML::Value << c.name;
  out << YAML::Key << "description" << YAML::Value << c.description;
  out << YAML::Key << "provenance" << YAML::Value << YAML::BeginMap;
  out << YAML::Key << "device" << YAML::Value << c.device;
  out << YAML::Key << "stack" << YAML::Value << c.stack;
  out << YAML::Key << "precision" << YAML::Value << c.precision;
  out << YAML::Key << "measurements_file" << YAML::Value << c.measurements_file;
  out << YAML::Key << "measurements_sha256" << YAML::Value << c.measurements_sha256;
  out << YAML::Key << "date" << YAML::Value << c.date;
  if (!c.cpu.empty()) out << YAML::Key << "cpu" << YAML::Value << c.cpu;
  out << YAML::Key << "fit" << YAML::Value << YAML::BeginMap;
  for (const auto& [k, v] : c.fit_metrics) {
    out << YAML::Key << k << YAML::Value;
    EmitNumber(out, v);
  }
  out << YAML::EndMap << YAML::EndMap;
  out << YAML::Key << "params" << YAML::Value << YAML::BeginMap;
  for (const auto& f : CalibrationFields()) {
    out << YAML::Key << f.name << YAML::Value;
    EmitNumber(out, c.*f.member);
    out << YAML::Comment(f.doc);
  }
  out << YAML::EndMap << YAML::EndMap;
  return std::string(out.c_str()) + "\n";
}

}  // namespace dcnas::sim
