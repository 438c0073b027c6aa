// The simulator as a LatencyModel: a chosen subset of CalibrationParams fields is fitted for one
// (accelerator, stack) pair; every other field keeps the starting calibration's value.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <tuple>
#include <vector>

#include "calibrate/fit.h"
#include "models/registry.h"
#include "sim/calibration_params.h"
#include "sim/cost_cache.h"
#include "sim/prepared.h"
#include "sim/spec.h"
#include "sim/stack.h"
#include "sim/train_step.h"

namespace dcnas::calibrate {

// The fields fitted when none are named: the achieved matrix, vector and memory efficiencies,
// the overlap of the non-dominant resources, and the per-kernel overhead scale.
const std::vector<std::string>& DefaultFitFields();

// The fitting range of a CalibrationParams field: fractions keep their (0, 1] range, multipliers
// and per-op costs may move a factor kMaxScaleFactor either way from the starting value (within
// the field's documented bounds). Throws InputError naming the valid fields for an unknown one.
ParameterSpec FitRange(const std::string& field, const sim::CalibrationParams& start);

// How far a multiplier may move from its starting value in one calibration.
inline constexpr double kMaxScaleFactor = 10.0;

// The dtype a measurement precision runs in on the simulator (tf32 runs as fp32: the
// accelerator files model fp32 convolutions on tensor cores as TF32 where the chip has them).
models::DType PrecisionDType(const std::string& precision);

class SimLatencyModel : public LatencyModel {
 public:
  // `start` gives the defaults (and the regularisation target) of the fitted fields and the
  // values of all others. The registry must outlive the model.
  SimLatencyModel(sim::AcceleratorSpec spec, sim::StackProfile stack, sim::CalibrationParams start,
                  const std::vector<std::string>& fit_fields,
                  const models::ModelRegistry& registry);

  const std::vector<ParameterSpec>& Parameters() const override { return parameters_; }
  double PredictMs(const std::vector<double>& params, const Measurement& row) const override;
  std::vector<double> PredictAllMs(const std::vector<double>& params,
                                   const std::vector<Measurement>& rows) const override;

  // Pools another chip into the fit: rows of `device` are simulated on `spec`. Once any chip is
  // added, every row must name an added one (the constructor's spec serves rows only until then).
  // One calibration then serves all the chips, each with its own spec sheet.
  void AddDevice(const std::string& device, sim::AcceleratorSpec spec);

  // The calibration with `params` written into the fitted fields.
  sim::CalibrationParams Apply(const std::vector<double>& params) const;
  const sim::StackProfile& stack() const { return stack_; }
  // Number of distinct (model, resolution, batch, dtype) graphs built so far.
  size_t graphs_built() const { return graphs_.size(); }

 private:
  struct BuiltGraph {
    models::Graph graph;
    sim::PreparedGraph prepared;
    std::map<int, sim::TrainGraph> train;  // by optimizer, for training rows
  };
  using GraphKey = std::tuple<std::string, int, int, int>;
  // The graph a row simulates: at the row's batch, or at the per-chip batch of a training row.
  BuiltGraph& Graph(const Measurement& row) const;
  // The chip a row runs on.
  const sim::AcceleratorSpec& SpecOf(const Measurement& row) const;
  // The stack a row runs on: a row whose `layout` column says NHWC runs an NCHW stack in NHWC
  // (no layout transposes: sim::StackInLayout); every other row runs the stack as loaded.
  const sim::StackProfile& StackOf(const Measurement& row) const;
  double Simulate(const sim::CalibrationParams& calibration, const Measurement& row) const;

  sim::AcceleratorSpec spec_;
  std::map<std::string, sim::AcceleratorSpec> devices_;  // pooled chips by device name
  sim::StackProfile stack_;
  sim::StackProfile stack_nhwc_;  // stack_ in NHWC, for the rows measured in NHWC
  sim::CalibrationParams start_;
  std::vector<ParameterSpec> parameters_;
  std::vector<double sim::CalibrationParams::*> members_;
  const models::ModelRegistry& registry_;
  mutable std::map<GraphKey, std::unique_ptr<BuiltGraph>> graphs_;
  mutable sim::CostCache cache_;
};

}  // namespace dcnas::calibrate
