// The accuracy surrogate's learning curve on one accuracy file (`dcnas surrogate curve`): for
// each training size N and seed, fit the surrogate on N random architectures (the fit of
// `surrogate fit --holdout 0`: every one fitted on, members early-stopping on their out-of-bag
// rows), predict all the others, and rank them against their label (the mean over replicates):
// Kendall tau on all of them and on their top half (those above the median label), with the
// params-only and FLOPs-only rankings of the same sets as baselines. The label's own ceiling
// comes from the replicates: the tau a perfect predictor of the mean reaches against
// single-replicate labels, and the replicate-to-replicate tau.
#pragma once

#include <cstdint>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "proxy/accuracy_data.h"
#include "space/space.h"
#include "surrogate/accuracy_surrogate.h"
#include "surrogate/ensemble.h"

namespace dcnas::surrogate {

inline constexpr size_t kDefaultCurveSizes[] = {50, 100, 200, 500, 1000};
inline constexpr int kDefaultCurveSeeds = 30;

struct CurveOptions {
  std::vector<size_t> sizes{std::begin(kDefaultCurveSizes), std::end(kDefaultCurveSizes)};
  int seeds = kDefaultCurveSeeds;
  uint64_t seed = 0;   // base seed: seed k of size N draws its architectures from (seed, k)
  std::string target;  // as SurrogateFitOptions::target
  LabelTransform label_transform = LabelTransform::kLogError;
  EnsembleParams ensemble = AccuracyEnsembleParams();
  int threads = 1;  // fits side by side (each single-threaded); results do not depend on it
  FeatureSpec features;
};

// One fit: N architectures, the rest predicted.
struct CurvePoint {
  size_t size = 0;
  int seed = 0;
  size_t predicted = 0;  // architectures ranked (all but the N fitted)
  double tau = 0.0, top_half_tau = 0.0;
  double params_tau = 0.0, flops_tau = 0.0;  // baselines on the same architectures
  double top_half_params_tau = 0.0, top_half_flops_tau = 0.0;
};

// Quartiles of one quantity over the seeds of one size.
struct Quartiles {
  double q1 = 0.0, median = 0.0, q3 = 0.0;
};
struct CurveSizeSummary {
  size_t size = 0;
  Quartiles tau, top_half_tau, params_tau, flops_tau, top_half_params_tau, top_half_flops_tau;
};

// The label's ceiling, from the architectures with at least two replicates (NaN without them).
struct LabelCeiling {
  size_t architectures = 0;
  int replicates = 0;  // most replicates of one architecture
  // Kendall tau of each architecture's mean against one replicate's accuracy, the mean over the
  // replicate numbers; on all of them and on the top half by mean.
  double mean_vs_single_tau = 0.0;
  double top_half_mean_vs_single_tau = 0.0;
  // Kendall tau between two replicates, the mean over the pairs of replicate numbers.
  double replicate_tau = 0.0;
  double top_half_replicate_tau = 0.0;
  // The ceiling of what the curve scores: a perfect predictor of each architecture's true mean
  // against the label (the mean of label_seeds trainings, the most common replicate count), from
  // the replicates' noise model (proxy/label_noise.h): simulated from the data's own spread, and
  // under normality. NaN without replicates.
  int label_seeds = 1;
  double icc = 0.0;
  double ceiling_tau = 0.0;
  double normal_ceiling_tau = 0.0;
};

struct AccuracyCurve {
  std::string space;
  std::string data_file;
  std::string target;
  size_t rows = 0;
  size_t architectures = 0;
  CurveOptions options;
  std::vector<CurvePoint> points;  // by size, then seed
  std::vector<CurveSizeSummary> summary;
  LabelCeiling ceiling;

  std::string ToCsv() const;   // one line per point
  std::string ToText() const;  // medians and quartiles per size, the ceiling
  std::string ToSvg() const;   // tau against N: medians, quartiles, baselines, ceiling
  nlohmann::json ToJson() const;
};

// Throws InputError (naming the file) for a size below kMinFitArchitectures, or one that leaves
// fewer than kMinTestArchitectures architectures to predict. `progress(done, total)` is called
// after each fit, from the calling thread only.
AccuracyCurve ComputeAccuracyCurve(const space::Space& space, const proxy::AccuracyData& data,
                                   const CurveOptions& options,
                                   const std::function<void(size_t, size_t)>& progress = {});

// Writes DIR/curve.csv, curve.txt, curve.svg and curve.json (each atomically; DIR is created).
void WriteAccuracyCurve(const AccuracyCurve& curve, const std::string& dir);

// Kendall tau of `pred` against `truth` on the rows whose truth is above the median truth (the
// curve's top half).
double TopHalfKendallTau(const std::vector<float>& truth, const std::vector<float>& pred);

}  // namespace dcnas::surrogate
