// Calibrating the prediction intervals (sim/intervals.h) on held-out residuals, and measuring
// their coverage on data the intervals were not calibrated on.
//
// The residuals are the calibration reports' per-row predictions by fits that never saw the
// row: leave-one-family-out (the chip in the fit, a new family), leave-one-device-out (a pooled
// fit on a chip outside it), one chip's profile on another chip, and the built-in defaults. A
// sources file lists the tables and what each column is (scripts/interval_residuals.sh writes
// the ones the profiles' reports lack).
#pragma once

#include <string>
#include <vector>

#include "sim/intervals.h"

namespace dcnas::calibrate {

// One residual table: a CSV with model, family, batch_size, image_size, measured_ms and the
// column `prediction`, and optionally device (else `device`).
struct IntervalSource {
  std::string file;       // as resolved (relative paths: to the sources file's folder)
  std::string kind;       // gpu, tpu or cpu
  bool training = false;  // training steps
  sim::Situation situation = sim::Situation::kFitted;
  std::string prediction;  // column: held_out_lofo_ms, held_out_lodo_ms or predicted_ms
  std::string device;      // when the table has no device column
  std::string profile;     // the profile that predicted (pairs two models of one profile)
};

// Reads a sources file (YAML: `sources:` a list of maps with file, kind, training, situation,
// prediction, device, profile); errors name the file, line and key.
std::vector<IntervalSource> LoadIntervalSources(const std::string& path);

struct ResidualRow {
  std::string model, family, device, profile, where;  // where: "FILE:LINE"
  int batch = 0;
  int image = 0;
  double measured_ms = 0;
  double predicted_ms = 0;
  sim::Regime regime = sim::Regime::kLargeBatchGpu;
  sim::Situation situation = sim::Situation::kFitted;
  double r() const;  // ln(predicted / measured)
};

// Every row of every source with a prediction (an empty cell, e.g. a family no fit could leave
// out, is skipped); InputError naming FILE:LINE for a missing column or a bad number.
std::vector<ResidualRow> LoadResiduals(const std::vector<IntervalSource>& sources);

// The split-conformal band of `own` residuals (one regime and situation), with `pooled` (the
// same situation over all regimes) for a level the own rows are too few for: n rows give the
// 80% ends from n >= 9 and the 95% ends from n >= 39 ((n + 1)(1 - a/2) <= n); below that the
// pooled ends, widened to the own rows' extremes. Empty `own` takes the pooled band.
sim::ErrorBand ConformalBand(const std::vector<double>& own, const std::vector<double>& pooled,
                             int groups);

// The band of a situation off the fit (a chip outside it, the defaults), where the residuals of
// one chip share a bias: a hierarchical model with the chips as the exchangeable units. Each
// chip's effect is its median residual; a new chip's effect is predicted as Student's t with
// G - 1 degrees of freedom around their mean, scaled by their standard deviation
// times sqrt(1 + 1/G) (G chips); the deviations within chips are added as they are (the band's
// ends are quantiles of that mixture). Fewer than 3 chips in `own`: the pooled groups' model,
// widened to the own rows' extremes at 95%.
sim::ErrorBand HierarchicalBand(const std::vector<std::vector<double>>& own,
                                const std::vector<std::vector<double>>& pooled, int devices);

// The error model of all rows: one band per regime and situation, and the correlations.
sim::ErrorModel BuildErrorModel(const std::vector<ResidualRow>& rows);

// Held-out coverage of the latency intervals for one regime, situation and scheme (family:
// each family's rows against a band calibrated without that family, in any regime; device: the
// same by chip).
struct CoverageCell {
  sim::Regime regime;
  sim::Situation situation;
  std::string scheme;  // "family" or "device"
  int rows = 0;
  int groups = 0;
  double cover80 = 0, cover95 = 0;  // % of held-out rows inside
  double width80 = 0, width95 = 0;  // mean interval width, % of the point prediction
  bool enough = false;              // >= 40 rows in >= 3 groups: the goal applies
};
std::vector<CoverageCell> MeasureCoverage(const std::vector<ResidualRow>& rows);

// Held-out coverage of ratio intervals (a speedup): pairs of rows of the same model, batch and
// size on two chips ("cross-chip"), or of two models on one chip under one profile
// ("cross-model"), per situation; bands and correlation calibrated without the pair's chips.
// `independent` gives the same with rho = 0 (two intervals combined as if independent).
struct PairCoverage {
  std::string kind;  // cross-chip, cross-model
  sim::Situation situation;
  int pairs = 0;
  double rho = 0;  // measured on all pairs
  double cover80 = 0, cover95 = 0, width80 = 0, width95 = 0;
  double independent_cover80 = 0, independent_cover95 = 0;
  double independent_width80 = 0, independent_width95 = 0;
};
std::vector<PairCoverage> MeasurePairCoverage(const std::vector<ResidualRow>& rows);

// The coverage tables as markdown (the report `dcnas intervals --report` writes).
std::string CoverageMarkdown(const sim::ErrorModel& model, const std::vector<CoverageCell>& cells,
                             const std::vector<PairCoverage>& pairs);

}  // namespace dcnas::calibrate
