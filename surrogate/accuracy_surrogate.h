// The accuracy surrogate of a search space: an XGBoost ensemble (surrogate/ensemble.h) fitted to
// trained accuracy data, with the space it featurizes embedded, the hash of its training data,
// and its held-out quality. Built only with XGBoost.
//
// Fitting: rows are grouped by architecture (canonical encoding and scaling); the label of a
// group is the mean accuracy of its replicates. Groups are split 80/10/10 (train / early-stopping
// validation / test) with a seed, never one architecture in two splits. The report holds the
// test metrics, a FLOPs-only and a params-only baseline (Kendall tau of log FLOPs or log params
// against accuracy on the same test set), and a learning curve.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "proxy/accuracy_data.h"
#include "space/space.h"
#include "surrogate/surrogate.h"

namespace dcnas::surrogate {

struct SurrogateFitOptions {
  std::string target = "val_accuracy";  // or test_accuracy
  uint64_t seed = 0;                    // the split and the ensemble
  surrogate::EnsembleParams ensemble;   // defaults: surrogate/README.md
  bool learning_curve = true;
};

struct SurrogateReport {
  size_t rows = 0;    // accuracy rows read
  size_t groups = 0;  // distinct architectures
  size_t train = 0, valid = 0, test = 0;
  surrogate::QualityReport test_quality;
  double flops_baseline_tau = 0.0;   // tau(log FLOPs, accuracy) on the test split
  double params_baseline_tau = 0.0;  // tau(log params, accuracy) on the test split
  std::vector<surrogate::LearningCurvePoint> learning_curve;
  nlohmann::json ToJson() const;
};

struct SurrogateFit {
  surrogate::Ensemble ensemble;
  nlohmann::json metadata;
  SurrogateReport report;
  std::string parity_svg;  // test split
};

// Fits the surrogate; throws InputError on too few architectures (at least 20) or rows of
// another space.
SurrogateFit FitAccuracySurrogate(const space::Space& space, const std::string& space_yaml,
                                  const proxy::AccuracyData& data, const std::string& data_sha256,
                                  const SurrogateFitOptions& options);

// `dcnas surrogate fit` on files: refuses an `out` SaveSurrogate could not write (before fitting),
// fits to the accuracy CSVs (one recipe) in the space file (whose text the model embeds), and
// writes OUT.report.json and OUT.parity.svg, then the model at `out` (last, so a model file
// present means a complete set). The data's SHA-256 is the one file's, or that of their
// concatenation in the order given.
SurrogateFit FitAccuracySurrogateFiles(const std::string& space_file,
                                       const std::vector<std::string>& data_files,
                                       const std::string& out, const SurrogateFitOptions& options);

// A surrogate loaded for prediction.
class AccuracySurrogate {
 public:
  static AccuracySurrogate Load(const std::string& path, int nthread = 1);
  const space::Space& space() const { return space_; }
  const nlohmann::json& metadata() const { return metadata_; }
  // The held-out Kendall tau recorded when it was fitted.
  double heldout_tau() const;
  // Refuses (InputError naming the file, its tau and the floor) a surrogate below `floor`, or
  // one of another space than `space_fingerprint` (when given).
  void RequireUsable(double floor, const std::string& space_fingerprint = "") const;
  // Mean and std of the predicted accuracy (percent) per architecture.
  void Predict(const std::vector<space::Encoding>& encodings,
               const std::vector<space::Scaling>& scalings, std::vector<float>& mean,
               std::vector<float>& stddev) const;
  // Features of a batch (for callers that predict many times).
  space::FeatureSet Features(const std::vector<space::Encoding>& encodings,
                             const std::vector<space::Scaling>& scalings) const;
  void PredictFeatures(const space::FeatureSet& f, std::vector<float>& mean,
                       std::vector<float>& stddev) const;

 private:
  AccuracySurrogate(surrogate::Surrogate s, space::Space space, std::string file);
  surrogate::Ensemble ensemble_;
  nlohmann::json metadata_;
  space::Space space_;
  std::string file_;
};

// Held-out evaluation of a surrogate on accuracy data (group means), with the FLOPs baseline.
struct SurrogateEvaluation {
  size_t groups = 0;
  surrogate::QualityReport quality;
  double flops_baseline_tau = 0.0;
  std::vector<float> truth, mean, stddev;
};
SurrogateEvaluation EvaluateAccuracySurrogate(const AccuracySurrogate& s,
                                              const proxy::AccuracyData& data,
                                              const std::string& target);

}  // namespace dcnas::surrogate
