// Shared option handling for the simulator commands (sim, roofline, sweep, compare).
#pragma once

#include <string>
#include <vector>

#include "cli/cli.h"
#include "sim/engine.h"
#include "sim/intervals.h"
#include "study/simulate_models.h"

namespace dcnas::cli {

// --accel/--stack/--calibration/--set/--precision options shared by the simulator commands.
struct SimSelection {
  std::string accel = "tpu-v3";
  std::string stack;
  std::string calibration;
  std::string precision;
  std::vector<std::string> sets;
  bool no_fusion = false;
  std::string intervals;  // --intervals: an error model file, "none", or empty (the shipped one)

  void AddOptions(po::options_description& options, bool multi_accel);
  std::vector<Override> Overrides() const;
  // The precision for an accelerator kind: --precision if given, else study::DefaultPrecision.
  std::string PrecisionFor(const std::string& accelerator_kind) const;
  // Sets the model's dtype from --precision (or the kind's default) unless it is a --graph,
  // whose dtype is fixed: there --precision is refused.
  void ApplyPrecision(ModelSelection& selection, const std::string& accelerator_kind) const;
  sim::SimOptions Options() const;
  // Options for a study: `batch`, `resolution`, --precision, fusion; no per-op details.
  study::RunOptions StudyOptions(int batch, int resolution = 0) const;
  // Loads each accelerator with --stack, --calibration and --set.
  std::vector<sim::SimSetup> LoadSetups(const std::vector<std::string>& accels) const;
  // The whole setup of --accel, --stack, --calibration and --set, at --precision (or the kind's
  // default), `batch` and --no-fusion.
  sim::SimSetup LoadSetup(int batch) const;
  // The error model of --intervals (the shipped data/intervals/error-model.yaml by default; an
  // empty model, no intervals, for "none").
  sim::IntervalModel Intervals() const;
};

// Prints a warning to stderr when a CPU setup's calibration records a CPU other than this
// machine's (common/host_cpu.h), once per calibration file and process.
void WarnIfOtherCpu(const sim::SimSetup& setup);

// Prints a warning to stderr when the chip file gives the dtype no rate on either unit
// (AcceleratorSpec::UnlistedDTypeNote), once per chip, dtype and process.
void WarnIfUnlistedDType(const sim::SimSetup& setup, const std::string& dtype);

// Comma-separated list, trimmed, empty entries dropped.
std::vector<std::string> SplitList(const std::string& text);

}  // namespace dcnas::cli
