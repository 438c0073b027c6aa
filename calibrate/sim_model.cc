#include "calibrate/sim_model.h"

#include <algorithm>
#include <utility>

#include "common/errors.h"
#include "common/text.h"
#include "sim/engine.h"

namespace dcnas::calibrate {
namespace {

const sim::CalibrationField& FindField(const std::string& name) {
  std::vector<std::string> names;
  for (const sim::CalibrationField& f : sim::CalibrationFields()) {
    if (name == f.name) return f;
    names.emplace_back(f.name);
  }
  throw InputError("unknown calibration parameter '" + name + "'" + DidYouMean(name, names) +
                   " (fittable: " + Join(names, ", ") + ")");
}

}  // namespace

const std::vector<std::string>& DefaultFitFields() {
  static const std::vector<std::string> kFields = {"matrix_efficiency", "vector_efficiency",
                                                   "memory_efficiency", "overlap",
                                                   "kernel_overhead_scale"};
  return kFields;
}

ParameterSpec FitRange(const std::string& field, const sim::CalibrationParams& start) {
  const sim::CalibrationField& f = FindField(field);
  ParameterSpec spec;
  spec.name = f.name;
  spec.meaning = f.doc;
  double value = start.*f.member;
  double lower = f.min;
  // gemm_efficiency 0 means "as matrix_efficiency": a fit of it starts there, above 0.
  if (f.member == &sim::CalibrationParams::gemm_efficiency) {
    if (value == 0) value = start.matrix_efficiency;
    lower = 1e-3;
  }
  if (f.max <= 1.0) {
    spec.lower = lower;
    spec.upper = f.max;
  } else {
    if (!(value > 0)) {
      throw InputError("calibration parameter '" + field + "' starts at " + std::to_string(value) +
                       "; a multiplier must start above 0 to be fitted");
    }
    spec.lower = std::max(f.min, value / kMaxScaleFactor);
    spec.upper = std::min(f.max, value * kMaxScaleFactor);
  }
  // The bounds are open: a start on a bound moves just inside it.
  const double margin = 1e-3 * (spec.upper - spec.lower);
  spec.default_value = std::clamp(value, spec.lower + margin, spec.upper - margin);
  return spec;
}

models::DType PrecisionDType(const std::string& precision) {
  if (precision == "fp32" || precision == "tf32") return models::DType::kFp32;
  return models::ParseDType(precision);
}

SimLatencyModel::SimLatencyModel(sim::AcceleratorSpec spec, sim::StackProfile stack,
                                 sim::CalibrationParams start,
                                 const std::vector<std::string>& fit_fields,
                                 const models::ModelRegistry& registry)
    : spec_(std::move(spec)),
      stack_(std::move(stack)),
      stack_nhwc_(sim::StackInLayout(stack_, "nhwc")),
      start_(std::move(start)),
      registry_(registry) {
  if (fit_fields.empty()) throw InputError("calibration: no parameters to fit");
  for (const std::string& name : fit_fields) {
    if (std::any_of(parameters_.begin(), parameters_.end(),
                    [&](const ParameterSpec& p) { return p.name == name; })) {
      throw InputError("calibration parameter '" + name + "' named twice");
    }
    parameters_.push_back(FitRange(name, start_));
    members_.push_back(FindField(name).member);
  }
}

void SimLatencyModel::AddDevice(const std::string& device, sim::AcceleratorSpec spec) {
  if (!devices_.emplace(device, std::move(spec)).second) {
    throw InputError("calibration: device '" + device + "' named twice");
  }
}

const sim::AcceleratorSpec& SimLatencyModel::SpecOf(const Measurement& row) const {
  if (devices_.empty()) return spec_;
  const auto it = devices_.find(row.device);
  if (it == devices_.end()) {
    throw InputError(row.where() + ": device " + row.device + " is not one of the pooled chips");
  }
  return it->second;
}

const sim::StackProfile& SimLatencyModel::StackOf(const Measurement& row) const {
  const std::string layout = row.Extra("layout");
  return layout == "NHWC" || layout == "nhwc" ? stack_nhwc_ : stack_;
}

sim::CalibrationParams SimLatencyModel::Apply(const std::vector<double>& params) const {
  if (params.size() != members_.size()) {
    throw InternalError("calibration: " + std::to_string(params.size()) + " values for " +
                        std::to_string(members_.size()) + " parameters");
  }
  sim::CalibrationParams c = start_;
  for (size_t i = 0; i < params.size(); ++i) c.*members_[i] = params[i];
  return c;
}

SimLatencyModel::BuiltGraph& SimLatencyModel::Graph(const Measurement& row) const {
  const models::DType dtype = PrecisionDType(row.precision);
  int batch = row.batch_size;
  if (row.regime == kRegimeTraining) {
    try {
      batch = sim::PerChipBatch(row.batch_size, row.chips, SpecOf(row));
    } catch (const InputError& e) {
      throw InputError(row.where() + ": " + e.what());
    }
  }
  const GraphKey key{row.model, row.image_size, batch, static_cast<int>(dtype)};
  auto it = graphs_.find(key);
  if (it == graphs_.end()) {
    models::BuildOptions options;
    options.resolution = row.image_size;
    options.batch = batch;
    options.dtype = dtype;
    auto built = std::make_unique<BuiltGraph>();
    try {
      built->graph = registry_.Build(row.model, options);
    } catch (const InputError& e) {
      throw InputError(row.where() + ": cannot build " + row.model + ": " + e.what());
    }
    built->prepared = sim::Prepare(built->graph);
    it = graphs_.emplace(key, std::move(built)).first;
  }
  return *it->second;
}

double SimLatencyModel::Simulate(const sim::CalibrationParams& calibration,
                                 const Measurement& row) const {
  if (row.regime == kRegimeTraining) {
    BuiltGraph& built = Graph(row);
    const sim::Optimizer optimizer = sim::ParseOptimizer(row.optimizer);
    auto it = built.train.find(static_cast<int>(optimizer));
    if (it == built.train.end()) {
      it = built.train
               .emplace(static_cast<int>(optimizer),
                        sim::BuildTrainGraph(built.prepared, optimizer,
                                             StackOf(row).rematerialize_elementwise))
               .first;
    }
    sim::TrainOptions options;
    options.optimizer = optimizer;
    options.chips = row.chips;
    // The published step ran: the memory model's estimate does not veto a measurement.
    options.enforce_memory = false;
    try {
      return sim::SimulateTrainStep(it->second, SpecOf(row), StackOf(row), calibration, options)
                 .step_s *
             1e3;
    } catch (const InputError& e) {
      throw InputError(row.where() + ": " + e.what());
    }
  }
  sim::SimOptions options;
  options.details = false;
  const sim::Report report =
      sim::Simulate(Graph(row).prepared, SpecOf(row), StackOf(row), calibration, options, &cache_);
  return report.latency_s * 1e3;
}

double SimLatencyModel::PredictMs(const std::vector<double>& params, const Measurement& row) const {
  return Simulate(Apply(params), row);
}

std::vector<double> SimLatencyModel::PredictAllMs(const std::vector<double>& params,
                                                  const std::vector<Measurement>& rows) const {
  const sim::CalibrationParams calibration = Apply(params);
  // Entries for earlier parameter vectors are never hit again: start each evaluation empty.
  cache_.Clear();
  // Rows that share a configuration (repeated measurements) are simulated once.
  using Config = std::tuple<const BuiltGraph*, const sim::AcceleratorSpec*,
                            const sim::StackProfile*, int, std::string>;
  std::map<Config, double> latency_ms;
  std::vector<double> out;
  out.reserve(rows.size());
  for (const Measurement& row : rows) {
    const Config config{&Graph(row), &SpecOf(row), &StackOf(row), row.chips, row.optimizer};
    auto it = latency_ms.find(config);
    if (it == latency_ms.end()) it = latency_ms.emplace(config, Simulate(calibration, row)).first;
    out.push_back(it->second);
  }
  return out;
}

}  // namespace dcnas::calibrate
