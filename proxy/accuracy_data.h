// Trained accuracy data: one CSV row per finished proxy training of a sampled architecture (or
// per training a benchmark published: proxy/benchmark_import.h).
//
// The file is append-only: a row is written with one write() and fsync'ed, so a killed
// generation loses at most the runs in flight. The reader is strict (missing or unknown columns,
// NaN or out-of-range accuracies, encodings of another space are errors naming the file and
// line). It also reads the plain form `encoding,accuracy` (one row per network or per replicate).
// Columns: proxy/README.md, "Accuracy data".
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "common/append_log.h"
#include "space/space.h"

namespace dcnas::proxy {

// A dataset a recipe trains on: what the trained network takes and predicts. One row per dataset
// in accuracy_data.cc (kDatasets), each with its source.
struct DatasetInfo {
  std::string name;
  int in_channels = 0;
  int num_classes = 0;
  int resolution = 0;        // native image size (px); 0: not fixed (image folders)
  int64_t train_images = 0;  // the dataset's training set; 0: not known from the name
};
inline constexpr const char* kDefaultDataset = "fashion-mnist";
const std::vector<DatasetInfo>& Datasets();
// A row of Datasets() by name, or a trained dataset's identity (models/torch/image_datasets.h,
// DatasetId): "<row>@<16 hex digits of its content hash>" (the row's facts) or
// "imagefolder-<classes>@<16 hex digits>" (3 channels). Throws InputError naming `name` and the
// valid forms otherwise.
DatasetInfo FindDataset(const std::string& name);

// The proxy recipe of a run (what, besides the architecture and seed, decides its accuracy).
struct ProxyRecipe {
  int resolution = 32;          // proxy input resolution before scaling
  double width = 0.25;          // proxy width multiplier
  int removed_downsamples = 1;  // stride-2 ops run at stride 1 below this nominal stride
  int epochs = 3;
  int64_t train_images = 10000;  // training subset (fixed, seed-independent selection)
  int batch = 128;
  std::string optimizer = "sgd";
  double learning_rate = 0.0;  // 0: the optimizer's default (or not recorded)
  // The training data (a row of Datasets()); "" only in Unrecorded().
  std::string dataset = kDefaultDataset;
  // How the label is obtained: "" for the accuracy of a training; otherwise a zero-cost label
  // (ScoreLabel's text, "zc-naswot-a0.008-b7.6"): the untrained proxy network's score on one
  // batch of `batch` images, mapped to percent by a calibration against a benchmark's real labels
  // (`accuracy-data calibrate-score`). Such a recipe has epochs 0, train_images = batch,
  // optimizer sgd and learning rate 0 (WithZeroCostLabel).
  std::string label;
  bool operator==(const ProxyRecipe&) const = default;
  // "r32_w0.25_rd1_e3_n10000_b128_sgd_lr0", with "_data-cifar10" when the dataset is not the
  // default (so every Fashion-MNIST key reads as before); "unrecorded" for Unrecorded(). A
  // zero-cost label's recipe: "r16_w0.25_rd1_b64_zc-naswot-a0.0963-b25.7" (no training parts).
  std::string Key() const;
  // Reads the parts of a Key ("r16_e2_n5000", "data-cifar10", "zc-...": any of them, in any
  // order) over this recipe; throws InputError naming a part that is not one, or training parts
  // (e, n, optimizer, lr) beside a zero-cost label.
  ProxyRecipe WithKey(const std::string& key) const;
  // This recipe with zero-cost label `label` (checked with ParseScoreLabel): epochs 0,
  // train_images = batch, optimizer sgd, learning rate 0.
  ProxyRecipe WithZeroCostLabel(const std::string& label) const;
  bool zero_cost() const { return !label.empty(); }
  // The recipe of rows that recorded none (the plain `encoding,accuracy` form): a recipe of its
  // own, so such rows never mix with rows of a known recipe.
  static ProxyRecipe Unrecorded();
  bool recorded() const { return !dataset.empty(); }
};

// A zero-cost label: label = 100 - exp(offset - scale * f(score)) percent (the error rate falls
// exponentially as the score rises; the label never passes 100), where f is log10 for synflow (a
// product over layers, 1e20 .. 1e40) and the identity for the others.
struct ScoreLabel {
  std::string score;  // naswot, synflow, grad_norm or snip
  double scale = 0.0;
  double offset = 0.0;
  // "zc-<score>-a<scale>-b<offset>" (grad_norm written gradnorm: a key's parts hold no '_'),
  // numbers with 6 significant digits, so a text read back prints the same.
  std::string Text() const;
  double Apply(double raw_score) const;
};
// The calibration rounded as Text() writes it (what a label made from a fit carries).
ScoreLabel RoundedScoreLabel(const std::string& score, double scale, double offset);
// Reads ScoreLabel::Text(); InputError naming `text` for another form, an unknown score, a
// non-finite or zero scale.
ScoreLabel ParseScoreLabel(const std::string& text);

// The space's proxy settings with the recipe's resolution, width and removed downsamples (what a
// proxy training of the space under `recipe` builds); for a dataset other than the default, its
// input channels and classes too.
space::ProxySettings RecipeProxy(const space::Space& space, const ProxyRecipe& recipe);
// The other way: the recipe defaults with the space's proxy resolution, width and removed
// downsamples, what a recipe key given for the space is read over (ProxyRecipe::WithKey).
ProxyRecipe SpaceRecipe(const space::Space& space);

// Where rows come from: trained by dcnas, read from a plain `encoding,accuracy` file, or imported
// from a published benchmark ("nas-bench-macro:<SHA-256 of its file>").
inline constexpr const char* kSourceTrained = "trained";
inline constexpr const char* kSourcePlain = "plain";

struct AccuracyRow {
  std::string space;        // space name
  std::string fingerprint;  // space fingerprint
  std::string encoding;     // canonical text form
  space::Scaling scaling;
  ProxyRecipe recipe;
  uint64_t seed = 0;
  int replicate = 0;  // 0, 1, ...: runs of the same architecture with different seeds
  // Percent; NaN where the run has none (an empty field: a benchmark that publishes only test
  // accuracy, a plain file's one accuracy is read as test_accuracy).
  double val_accuracy = 0.0;
  double test_accuracy = 0.0;
  int64_t params = 0;         // full-size network, 1000 classes (0: not recorded, plain files)
  int64_t flops = 0;          // full-size network, batch 1 (0: not recorded)
  int64_t proxy_params = 0;   // the trained proxy network
  double train_time_s = 0.0;  // NaN: not recorded (an empty field)
  std::string blocks;         // block strings, space-separated
  std::string source = kSourceTrained;
  // Validation accuracy (percent) after each epoch of the run (column val_curve, the values
  // separated by ';'); empty where not recorded.
  std::vector<double> val_curve;

  // Identity of the run (architecture, scaling, recipe, replicate): resume skips rows it finds.
  std::string JobKey() const;
};

// The columns this dcnas writes; those of files written before `dataset` and `source` (read as
// fashion-mnist and trained); those of files written before `val_curve`; and those written
// before `label` (trained rows). The appender keeps appending to an older file in its own form.
const std::vector<std::string>& AccuracyColumns();
const std::vector<std::string>& LegacyAccuracyColumns();
const std::vector<std::string>& CurvelessAccuracyColumns();
const std::vector<std::string>& LabellessAccuracyColumns();

// One CSV line (with '\n') for a row in `columns` (AccuracyColumns() or LegacyAccuracyColumns());
// throws InternalError if a field would need quoting, or a row the legacy form cannot hold.
std::string FormatAccuracyRow(const AccuracyRow& row);
std::string FormatAccuracyRow(const AccuracyRow& row, const std::vector<std::string>& columns);
std::string AccuracyHeader();  // the header line with '\n'

struct AccuracyData {
  std::string file;
  std::vector<AccuracyRow> rows;
};

// The label a target names ("val_accuracy" or "test_accuracy"; InputError otherwise).
double TargetAccuracy(const AccuracyRow& row, const std::string& target);
// The target to use when none is asked for ("" or "auto"): val_accuracy when every row has one,
// else test_accuracy when every row has one (benchmarks, plain files). An explicit target must
// be in every row. InputError naming the file and line of the first row without it.
std::string ResolveTarget(const AccuracyData& data, const std::string& target = "");

// Reads an accuracy CSV: the full form (AccuracyColumns(), or the legacy columns) or the plain
// form, a header `encoding,accuracy` and one row per network or per replicate (replicates
// numbered in file order; recipe Unrecorded(), source "plain", the accuracy as test_accuracy,
// no validation accuracy, params and FLOPs 0). With `space` given, every row must carry its
// fingerprint (plain rows take it) and decode in it; encodings are canonicalised.
// `allow_torn_tail`: a last line without '\n' (a write cut by a kill) is ignored instead of
// refused. Throws InputError naming the file and line.
AccuracyData ReadAccuracyData(const std::string& path, const space::Space* space,
                              bool allow_torn_tail = false);
// The same, from the file's text (`path` names it in errors).
AccuracyData ParseAccuracyData(const std::string& text, const std::string& path,
                               const space::Space* space, bool allow_torn_tail = false);

// The one proxy recipe of all rows; throws InputError naming the file and line of the first row
// trained with another recipe (labels of different recipes are not comparable), or for no rows.
ProxyRecipe RequireOneRecipe(const AccuracyData& data);

// Several accuracy files as one (rows in file order; `file` names them all). Throws InputError
// when the files were trained with different recipes.
AccuracyData MergeAccuracyData(const std::vector<AccuracyData>& parts);

// Appends rows to an accuracy CSV, durably. Creates the file with its header if missing; on an
// existing file checks the header and cuts a torn last line (left by a kill during a write).
class AccuracyAppender {
 public:
  explicit AccuracyAppender(const std::string& path);
  AccuracyAppender(const AccuracyAppender&) = delete;
  AccuracyAppender& operator=(const AccuracyAppender&) = delete;
  // Writes one row with a single write() and fsync()s the file (in the file's own columns: a
  // file of the legacy form takes only rows it can hold, else InputError).
  void Append(const AccuracyRow& row);

 private:
  AppendLog log_;
  std::string path_;
  const std::vector<std::string>* columns_ = nullptr;
};

// Label-noise and proxy-validity statistics of accuracy data, over all replicates.
struct ReplicateStats {
  size_t architectures = 0;    // distinct (encoding, scaling, recipe) with >= 2 replicates
  int max_replicates = 0;      // the most replicates of one architecture
  size_t replicate_pairs = 0;  // pairs of replicate numbers (i < j) the taus average over
  // Kendall tau between replicates i and j over the architectures that have both, the mean over
  // all pairs (i < j); NaN when there is no pair (or no validation accuracy).
  double test_tau = 0.0;
  double val_tau = 0.0;
  // One-way random-effects intra-class correlation ICC(1) over the architectures with >= 2
  // replicates (Shrout and Fleiss 1979; unbalanced groups by the n0 of Snedecor and Cochran):
  // the share of the label's variance that is the architecture's, not the seed's.
  double test_icc = 0.0;
  double val_icc = 0.0;
  double mean_abs_diff_pp = 0.0;  // mean |acc_i - acc_j| (test) over the pairs, pp
  double mean_accuracy = 0.0;     // test accuracy, mean over rows
  double min_accuracy = 0.0, max_accuracy = 0.0;
  double mean_train_time_s = 0.0;  // per run that recorded it; NaN when none did
};
ReplicateStats ComputeReplicateStats(const AccuracyData& data);
// ICC(1) of groups of repeated measurements (groups of fewer than two values are skipped); NaN
// with fewer than two groups or no spread.
double IntraClassCorrelation(const std::vector<std::vector<double>>& groups);

// Tau between two data sets on the architectures they share (mean over replicates).
struct AgreementStats {
  size_t architectures = 0;
  double test_tau = 0.0;
  double val_tau = 0.0;
};
AgreementStats ComputeAgreement(const AccuracyData& a, const AccuracyData& b);

// Each network's mean accuracy over its replicates (and scalings' and recipes' rows alike: give
// data of one recipe) under `target` ("" or "auto": ResolveTarget), keyed by encoding, in
// encoding order.
std::map<std::string, double> MeanAccuracy(const AccuracyData& data,
                                           const std::string& target = "");

// `count` networks of `reference` (accuracy data of one space, a benchmark's for instance)
// stratified over its accuracy range: the networks sorted by mean accuracy (MeanAccuracy) fall
// into `count` consecutive strata of (nearly) equal size and one network is drawn from each. The
// result is shuffled, both by `seed`, so that every prefix samples the whole range. InputError
// when the data holds fewer than `count` networks.
std::vector<std::string> StratifiedSample(const AccuracyData& reference, int count, uint64_t seed);

}  // namespace dcnas::proxy
