// The simulator's result as a value: per op, per fused group (kernel), per block, and totals,
// with the resolved spec, stack, calibration and tool version embedded so any number can be
// reproduced. Writers render it as text, JSON (keys carry units) or CSV.
#pragma once

#include <optional>

#include <array>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "sim/cost/combine.h"
#include "sim/cost/op_cost.h"
#include "sim/intervals.h"

namespace dcnas::sim {

using cost::Bound;
inline constexpr int kNumBounds = 4;

struct TimeSplit {
  double matrix_s = 0;
  double vector_s = 0;
  double memory_s = 0;
  double overhead_s = 0;
  double total_s = 0;
};

struct OpReport {
  int id = -1;
  int group = -1;
  std::string name;
  std::string kind;
  std::string detail;
  std::string block;
  int stage = -1;
  std::string unit;  // matrix, vector, none
  double flops = 0;
  double macs = 0;
  double matrix_utilization = 0;
  TimeSplit time;  // the op's share of its group's time
};

struct GroupReport {
  int id = -1;
  std::string name;  // anchor op name
  std::vector<int> op_ids;
  double flops = 0;
  double hbm_bytes = 0;
  double onchip_bytes = 0;
  TimeSplit time;
  Bound bound = Bound::kMatrix;
};

struct BlockReport {
  std::string block;
  int stage = -1;
  int num_ops = 0;
  double flops = 0;
  double hbm_bytes = 0;
  TimeSplit time;
  Bound bound = Bound::kMatrix;
};

// What a simulation ran, and on what: the head of the inference and the training reports.
struct RunIdentity {
  std::string tool_version;
  std::string model;
  int resolution = 0;
  std::string dtype;
  std::string accelerator;
  std::string accelerator_file;
  std::string stack;
  std::string stack_file;
  std::string calibration;
  std::string calibration_file;
  // The measured latency's (step time's) prediction interval, in seconds, when asked for.
  std::optional<Interval> interval;
};

struct Report : RunIdentity {
  // What was simulated (with the RunIdentity fields).
  int batch = 1;
  std::vector<std::string> overrides;  // --set values applied
  std::vector<std::string> extends;    // accelerator `extends` chain
  uint64_t context_fingerprint = 0;    // spec + stack + calibration + dtype identity
  // Every CalibrationParams field (filled with the breakdown, SimOptions::details).
  std::vector<std::pair<std::string, double>> calibration_params;
  bool fusion = true;
  // Peaks of the resolved accelerator.
  double peak_flops_per_s = 0;     // at the boost clock (the spec sheet's peak)
  double clock_ghz = 0;            // boost clock
  double sustained_clock_ghz = 0;  // the clock the cost model runs the cores at (PowerSpec)
  double board_w = 0;              // board power limit, 0 when the chip file gives none
  double hbm_bytes_per_s = 0;
  double ridge_flop_per_byte = 0;
  // Totals.
  double latency_s = 0;
  double throughput_img_per_s = 0;
  double flops = 0;
  double macs = 0;
  double hbm_bytes = 0;
  double compulsory_bytes = 0;         // per-op counted bytes, no fusion
  double intensity_flop_per_byte = 0;  // flops / hbm_bytes
  double achieved_flops_per_s = 0;
  double percent_of_peak = 0;
  int num_kernels = 0;
  std::array<double, kNumBounds> time_by_bound_s{};  // group time by its bound
  TimeSplit time;                                    // sums over groups
  // Breakdown (empty when SimOptions::details is false).
  std::vector<OpReport> ops;
  std::vector<GroupReport> groups;
  std::vector<BlockReport> blocks;
};

std::string ReportToText(const Report& report, bool per_op);
std::string ReportToJson(const Report& report);
std::string ReportToCsv(const Report& report, bool per_op);

}  // namespace dcnas::sim
