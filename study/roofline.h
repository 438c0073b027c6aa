// The roofline study (the paper's Figure 2): each model's operational intensity and achieved
// FLOP/s against each accelerator's roofline and ridge point, and FLOPs against latency.
#pragma once

#include <optional>
#include <string>

#include <nlohmann/json.hpp>
#include <vector>

#include "models/registry.h"
#include "sim/engine.h"
#include "sim/intervals.h"
#include "study/simulate_models.h"

namespace dcnas::study {

// One model on one accelerator.
struct RooflinePoint {
  std::string model;
  std::string accelerator;
  size_t setup = 0;  // index into the setups
  std::string dtype;
  double gflops_per_image = 0;
  double intensity_flop_per_byte = 0;          // FLOPs / HBM bytes, after fusion
  double unfused_intensity_flop_per_byte = 0;  // FLOPs / per-op counted bytes (no fusion, reuse)
  double achieved_tflop_per_s = 0;
  double latency_ms = 0;
  double ridge_flop_per_byte = 0;  // the accelerator's peak FLOP/s / HBM bandwidth
  double peak_tflop_per_s = 0;
  double bandwidth_gbps = 0;
  // Prediction intervals (AddRooflineIntervals): of the latency (ms) and of the achieved TFLOP/s
  // (the latency's inverted).
  std::optional<sim::Interval> latency_interval;
  std::optional<sim::Interval> achieved_interval;
};

// Fills the points' intervals (each on its setup, at `batch`).
void AddRooflineIntervals(std::vector<RooflinePoint>& points,
                          const std::vector<sim::SimSetup>& setups, int batch,
                          const sim::IntervalModel& intervals);

// The roofline quantities of one simulated report at `batch` images per batch.
RooflinePoint PointOf(const sim::Report& report, int batch);

// Simulates every model on every setup (setups outermost, one cost cache each). Unknown model
// names throw InputError before anything is simulated.
std::vector<RooflinePoint> Roofline(const std::vector<std::string>& model_names,
                                    const std::vector<sim::SimSetup>& setups,
                                    const RunOptions& options,
                                    const models::ModelRegistry& registry);

// The points as `dcnas roofline --format json` prints them: one object per point, with `batch`.
nlohmann::json RooflineToJson(const std::vector<RooflinePoint>& points, int batch);

}  // namespace dcnas::study
