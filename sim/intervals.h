// Prediction intervals: how far a simulated latency (or a ratio of two) may be from the
// measurement, from the simulator's held-out residuals. The error model
// (data/intervals/error-model.yaml, written by `dcnas intervals` from the calibration reports)
// holds, per regime (large-batch GPU, small-batch GPU, TPU, CPU, GPU training) and per situation
// (the chip in the profile's fit, a pooled profile on a chip outside it, one chip's profile on
// another, the built-in defaults), split-conformal quantiles of r = ln(predicted / measured) at 80%
// and 95%, and the correlation of two predictions' residuals (the same model on two chips; two
// models on one chip), with which a ratio gets its own interval. Formulas and coverage:
// calibrate/README.md, "Prediction intervals".
#pragma once

#include <array>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "common/yaml_fwd.h"

namespace dcnas::sim {

struct SimSetup;

enum class Regime { kLargeBatchGpu, kSmallBatchGpu, kTpu, kCpu, kTrainingGpu };
constexpr int kNumRegimes = 5;
inline constexpr std::array<Regime, kNumRegimes> kRegimes{Regime::kLargeBatchGpu,
                                                          Regime::kSmallBatchGpu, Regime::kTpu,
                                                          Regime::kCpu, Regime::kTrainingGpu};
// GPU inference at this batch or below is the small-batch regime (engine latency at 1-8).
constexpr int kSmallBatchMax = 8;
const char* RegimeName(Regime r);  // large-batch-gpu, small-batch-gpu, tpu, cpu, training-gpu
// The regime of a prediction: the accelerator kind (tpu, gpu, cpu), training or inference, the
// batch (per chip for inference; the global batch for a training step is not used).
Regime ClassifyRegime(const std::string& kind, bool training, int batch);

enum class Situation { kFitted, kPooledTransfer, kChipTransfer, kDefaults };
constexpr int kNumSituations = 4;
inline constexpr std::array<Situation, kNumSituations> kSituations{
    Situation::kFitted, Situation::kPooledTransfer, Situation::kChipTransfer, Situation::kDefaults};
// fitted: the chip is among the profile's fitted chips (its own rows, a new model);
// pooled-transfer: a profile pooled over several chips, used on another chip or a what-if of one;
// chip-transfer: one chip's profile on another chip or a what-if; defaults: no profile.
const char* SituationName(Situation s);
// How a setup stands to its calibration: the profile's provenance chips against the accelerator's
// name, and its overrides (an accelerator, stack or calibration override makes a what-if, i.e. a
// chip outside the fit, except the overrides the profile records as its fit's own, such as
// epyc-zen4's cores=1).
Situation ClassifySituation(const SimSetup& setup);

// Quantiles of the held-out log residual r = ln(predicted / measured) for one (regime,
// situation): the 80% interval is [q10, q90], the 95% interval [q2.5, q97.5], each end the
// split-conformal rank of the calibration residuals. `center` is their median.
struct ErrorBand {
  double center = 0;
  double lo80 = 0, hi80 = 0, lo95 = 0, hi95 = 0;
  // Half-widths of the deviations within one chip (from its chip's median residual): the part a
  // second prediction on another chip can share (a model's own error), or that is all there is
  // between two models on one chip (the chip's bias cancels).
  double within80 = 0, within95 = 0;
  int rows = 0;    // residuals behind it
  int groups = 0;  // distinct devices among them
  // "own", or where a level came from when the regime's rows are too few for it ("all regimes:
  // 95%" when the regime's own rows set the 80% ends and the pooled rows the 95% ends).
  std::string source = "own";
};

// How two predictions' errors combine in a ratio: the correlation of their deviations within
// their chips, and the factors that make the combined half-widths cover their nominal share of
// held-out pairs (split-conformal on the pairs' normalised errors; 1 where the combination is
// exact).
struct PairModel {
  double rho = 0;
  double scale80 = 1;
  double scale95 = 1;
};

struct ErrorModel {
  std::map<std::pair<Regime, Situation>, ErrorBand> bands;
  // Correlation of two predictions' deviations within their chips, per situation: the same model
  // (batch, size) on two chips, and two models on one chip (same batch, size, profile).
  std::array<PairModel, kNumSituations> cross_chip{};
  std::array<PairModel, kNumSituations> cross_model{};
  std::string file;       // where it was read from
  std::string generated;  // how it was made (provenance line)

  const ErrorBand& Band(Regime r, Situation s) const;  // InputError naming the file if absent
};

// Reads an error model file; errors name the file, line and key.
ErrorModel LoadErrorModel(const std::string& path);
ErrorModel ParseErrorModel(const YAML::Node& root, const std::string& file);
std::string ErrorModelToYaml(const ErrorModel& model);
// data/intervals/error-model.yaml, read once per process.
const ErrorModel& ShippedErrorModel();

// An interval around a point: [lo, hi] at 80% and 95%, with where it came from.
struct Interval {
  double point = 0;
  double lo80 = 0, hi80 = 0, lo95 = 0, hi95 = 0;
  std::string regime;
  std::string situation;
  std::string source;
  int rows = 0;
};

// The measured latency's interval given the predicted one: measured = predicted * exp(-r).
Interval LatencyInterval(double predicted, const ErrorBand& band);
// The interval of a measured ratio A / B (a speedup: baseline latency / latency) given the
// predicted ratio, the two predictions' bands and the correlation `rho` of their deviations
// within a chip. The ratio's log error is r_A - r_B. On two chips (same_chip false) the chips'
// biases are independent and the models' own errors correlated: centred at c_A - c_B, each
// half-width sqrt(h_A^2 + h_B^2 - 2 rho w_A w_B) from the matching halves (A's upper with B's
// lower; w the within-chip half-widths). On one chip the bias cancels: centred at 0, half-width
// sqrt(w_A^2 + w_B^2 - 2 rho w_A w_B).
// The half-widths are multiplied by the pair model's scale80 / scale95.
Interval RatioInterval(double predicted_ratio, const ErrorBand& a, const ErrorBand& b,
                       const PairModel& pair, bool same_chip);
// The interval of a throughput (1 / latency): the latency interval inverted.
Interval InverseInterval(const Interval& latency_interval, double point);

// An interval for a setup's prediction from a model: the band of the setup's regime and
// situation (ClassifyRegime, ClassifySituation).
struct IntervalModel {
  const ErrorModel* model = nullptr;  // null: no intervals
  Interval Latency(const SimSetup& setup, bool training, int batch, double predicted) const;
  // Speedup A / B of the same model on two setups (two chips).
  Interval CrossChip(const SimSetup& a, const SimSetup& b, bool training, int batch,
                     double predicted_ratio) const;
  // Speedup A / B of two models on one setup.
  Interval CrossModel(const SimSetup& setup, bool training, int batch,
                      double predicted_ratio) const;
  explicit operator bool() const { return model != nullptr; }
};

// {"lo80", "hi80", "lo95", "hi95", "regime", "situation", "source", "calibration_rows"}, the
// four ends times `scale` (1e3: an interval in seconds written in milliseconds).
nlohmann::json IntervalToJson(const Interval& i, double scale = 1.0);
// The report line of a latency interval given in seconds: "  interval  [a, b] ms at 80%, [c, d]
// ms at 95% (held-out error: REGIME, SITUATION)".
std::string IntervalLine(const Interval& seconds);
// "[11.0, 13.9]", with `digits` decimals.
std::string FormatRange(double lo, double hi, int digits);
// Table columns of an interval: in CSV its four ends (PREFIXlo80SUFFIX, PREFIXhi80SUFFIX, ...
// lo95, hi95), in text one column "80% interval" holding FormatRange of the 80% ends.
std::vector<std::string> IntervalHeader(const std::string& prefix, const std::string& suffix,
                                        bool csv);
std::vector<std::string> IntervalCells(const Interval& i, int digits, bool csv);

}  // namespace dcnas::sim
