// The accuracy surrogate of a search space: an XGBoost ensemble (surrogate/ensemble.h) fitted to
// trained accuracy data, with the space it featurizes embedded, the hash of its training data,
// and its held-out quality. Built only with XGBoost.
//
// Fitting: rows are grouped by architecture (canonical encoding and scaling); the label of a
// group is the mean accuracy of its replicates. The features are computed from the space
// (surrogate/arch_features.h), for fitting and predicting alike. Groups are split with a seed,
// never one architecture in two splits: by default 80/10/10 (train / early-stopping validation /
// test);
// --holdout 0 fits on every architecture, each member early-stopping on its out-of-bag rows, with
// no test report. The report holds the test metrics, a FLOPs-only and a params-only baseline
// (Kendall tau of FLOPs or params against accuracy on the same test set), and a learning curve.
#pragma once

#include <nlohmann/json.hpp>
#include <span>
#include <string>
#include <vector>

#include "models/counts.h"
#include "proxy/accuracy_data.h"
#include "space/space.h"
#include "surrogate/arch_features.h"
#include "surrogate/surrogate.h"

namespace dcnas::surrogate {

// Accuracy rows grouped by architecture (canonical encoding and scaling): each one's label (the
// mean of its replicates' target accuracy), its replicates, its features and counts from the
// space (never the data file's params and FLOPs).
struct ArchitectureTable {
  std::string target;  // resolved: val_accuracy or test_accuracy
  size_t rows = 0;     // accuracy rows read
  std::vector<std::string> keys;
  std::vector<space::Encoding> encodings;
  std::vector<space::Scaling> scalings;
  std::vector<std::vector<std::pair<int, double>>> replicates;  // (replicate number, accuracy)
  std::vector<float> labels;                                    // mean over the replicates
  space::FeatureSet features;
  std::vector<models::OpCounts> counts;
  // Rows whose recorded params or FLOPs (where recorded: not 0) differ from the space's count:
  // data written by another version of the counting, or of another network.
  size_t count_mismatches = 0;
  std::string first_count_mismatch;  // "FILE:LINE: params 123 (the space's 456)"
  size_t size() const { return keys.size(); }
};
// Throws InputError naming the file and line for a row of another space, and for a target that
// not every row has (`target` "" or "auto": proxy::ResolveTarget's choice).
ArchitectureTable GroupArchitectures(const space::Space& space, const proxy::AccuracyData& data,
                                     const std::string& target, const FeatureSpec& features = {});

// The fewest architectures a surrogate is fitted on, and the fewest a held-out test set may
// have: Kendall tau over n independent points has a standard error of about
// sqrt(2 (2n + 5) / (9 n (n - 1))) (Kendall 1938): 0.25 at 10 points, 0.41 at 5.
inline constexpr size_t kMinFitArchitectures = 20;
inline constexpr size_t kMinTestArchitectures = 10;
// The default --holdout: 10% early-stopping validation and 10% test (NAS-Bench-301's 80/10/10).
inline constexpr double kDefaultHoldout = 0.2;

// What the ensemble is fitted to: the accuracy in percent (kNone, surrogates fitted before
// kLogError), or the log of the error rate, z = -ln(max(100 - accuracy, kErrorFloorPp))
// (kLogError, the default): accuracies crowd below 100%, and on a log scale of the error the
// differences among the good networks weigh as much as those among the poor ones, which squared
// error on raw accuracy lets a few very poor networks dominate. Predictions are transformed back
// member by member, so the surrogate's mean and std are in percent. Measured: surrogate/README.md.
enum class LabelTransform { kNone, kLogError };
inline constexpr double kErrorFloorPp = 1e-3;  // 100% accuracy reads as 99.999% (z finite)
float ToModelLabel(LabelTransform transform, double accuracy);
double FromModelLabel(LabelTransform transform, double z);
std::string LabelTransformName(LabelTransform transform);  // "none", "log_error"
// Mean and std (percent) of the members' predictions, each transformed back.
void PredictAccuracy(const surrogate::Ensemble& ensemble, LabelTransform transform,
                     surrogate::MatrixView x, std::span<float> mean, std::span<float> stddev);

// The accuracy surrogate's ensemble: the generic defaults (surrogate/README.md) but each member
// on a subsample of 80% of the architectures (early-stopping on the other 20% when there is no
// validation split) and trees whose depth follows the architectures fitted on (max_depth 0:
// AccuracyTreeDepth). Measured: surrogate/README.md, "The accuracy surrogate on small data".
surrogate::EnsembleParams AccuracyEnsembleParams();
// max_depth for `architectures` fitted on: 2 below 500, 3 from 500.
int AccuracyTreeDepth(size_t architectures);
// `params` with max_depth 0 replaced by AccuracyTreeDepth(architectures).
surrogate::EnsembleParams ResolveTreeDepth(surrogate::EnsembleParams params, size_t architectures);

struct SurrogateFitOptions {
  std::string target;  // val_accuracy, test_accuracy, or "" / "auto" (proxy::ResolveTarget)
  uint64_t seed = 0;   // the split and the ensemble
  // Fraction of the architectures not fitted on: half early-stop the members, half are the test
  // set of the report. 0: fit on every architecture, members early-stop on their out-of-bag
  // rows, no test report (no tau to check against a quality floor).
  double holdout = kDefaultHoldout;
  LabelTransform label_transform = LabelTransform::kLogError;
  surrogate::EnsembleParams ensemble = AccuracyEnsembleParams();
  bool learning_curve = true;
  FeatureSpec features;  // recorded in the surrogate (metadata.feature_sets)
};

// Trains the ensemble on every row of `train` (members early-stop on their out-of-bag rows): the
// fit of `--holdout 0` and of `surrogate curve`.
surrogate::Ensemble TrainOnAll(const surrogate::LabeledView& train,
                               const surrogate::EnsembleParams& params);

struct SurrogateReport {
  size_t rows = 0;    // accuracy rows read
  size_t groups = 0;  // distinct architectures
  std::string target;
  double holdout = kDefaultHoldout;
  size_t train = 0, valid = 0, test = 0;
  size_t count_mismatches = 0;  // ArchitectureTable::count_mismatches
  std::string first_count_mismatch;
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

// Fits the surrogate; throws InputError on too few architectures (kMinFitArchitectures fitted
// on, kMinTestArchitectures held out for the test when holdout > 0: the message says why and what
// to do) or rows of another space.
SurrogateFit FitAccuracySurrogate(const space::Space& space, const std::string& space_yaml,
                                  const proxy::AccuracyData& data, const std::string& data_sha256,
                                  const SurrogateFitOptions& options);

// Accuracy CSVs of `space` (full or plain form) read as one: every file of one recipe
// (proxy::MergeAccuracyData); `contents`, when given, receives the files' bytes in order.
proxy::AccuracyData ReadAccuracyFiles(const std::vector<std::string>& files,
                                      const space::Space& space, std::string* contents = nullptr);

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
  // A surrogate already read or just fitted (FitAccuracySurrogate's ensemble and metadata);
  // `source` names it in errors. The same checks as Load.
  static AccuracySurrogate FromSurrogate(surrogate::Surrogate s, const std::string& source);
  // Writes it (SaveSurrogate: ".json" or ".ubj", atomically).
  void Save(const std::string& path) const;
  const space::Space& space() const { return space_; }
  const nlohmann::json& metadata() const { return metadata_; }
  // The held-out Kendall tau recorded when it was fitted (NaN: fitted with --holdout 0).
  double heldout_tau() const;
  // Refuses (InputError naming the file, its tau and the floor) a surrogate below `floor`, or
  // one of another space than `space_fingerprint` (when given). A surrogate without a held-out
  // tau passes only a floor of -1 (no floor).
  void RequireUsable(double floor, const std::string& space_fingerprint = "") const;
  // Mean and std of the predicted accuracy (percent) per architecture.
  void Predict(const std::vector<space::Encoding>& encodings,
               const std::vector<space::Scaling>& scalings, std::vector<float>& mean,
               std::vector<float>& stddev) const;
  // Features of a batch (for callers that predict many times): SurrogateFeatures.
  space::FeatureSet Features(const std::vector<space::Encoding>& encodings,
                             const std::vector<space::Scaling>& scalings) const;
  // Predicts rows of Features (or of space::AppendFeatures with the full-size counts: the same).
  void PredictFeatures(const space::FeatureSet& f, std::vector<float>& mean,
                       std::vector<float>& stddev) const;
  LabelTransform label_transform() const { return transform_; }
  const FeatureSpec& features() const { return features_; }

 private:
  AccuracySurrogate(surrogate::Surrogate s, space::Space space, std::string file,
                    LabelTransform transform, FeatureSpec features);
  surrogate::Ensemble ensemble_;
  nlohmann::json metadata_;
  space::Space space_;
  std::string file_;
  LabelTransform transform_;
  FeatureSpec features_;
};

// Held-out evaluation of a surrogate on accuracy data (group means), with the FLOPs baseline;
// `target` as in SurrogateFitOptions.
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
