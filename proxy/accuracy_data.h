// Trained accuracy data: one CSV row per finished proxy training of a sampled architecture.
//
// The file is append-only: a row is written with one write() and fsync'ed, so a killed
// generation loses at most the runs in flight. The reader is strict (missing columns, NaN or
// out-of-range accuracies, encodings of another space are errors naming the file and line).
// Columns: proxy/README.md, "Accuracy data".
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common/append_log.h"
#include "space/space.h"

namespace dcnas::proxy {

// The proxy recipe of a run (what, besides the architecture and seed, decides its accuracy).
struct ProxyRecipe {
  int resolution = 32;          // proxy input resolution before scaling
  double width = 0.25;          // proxy width multiplier
  int removed_downsamples = 1;  // stride-2 ops run at stride 1 below this nominal stride
  int epochs = 3;
  int64_t train_images = 10000;  // training subset (fixed, seed-independent selection)
  int batch = 128;
  std::string optimizer = "sgd";
  double learning_rate = 0.0;  // 0: the optimizer's default
  bool operator==(const ProxyRecipe&) const = default;
  std::string Key() const;  // "r32_w0.25_rd1_e3_n10000_b128_sgd_lr0"
  // Reads the parts of a Key ("r16_e2_n5000": any of them, in any order) over this recipe;
  // throws InputError naming a part that is not one.
  ProxyRecipe WithKey(const std::string& key) const;
};

// The space's proxy settings with the recipe's resolution, width and removed downsamples (what a
// proxy training of the space under `recipe` builds).
space::ProxySettings RecipeProxy(const space::Space& space, const ProxyRecipe& recipe);
// The other way: the recipe defaults with the space's proxy resolution, width and removed
// downsamples, what a recipe key given for the space is read over (ProxyRecipe::WithKey).
ProxyRecipe SpaceRecipe(const space::Space& space);

struct AccuracyRow {
  std::string space;        // space name
  std::string fingerprint;  // space fingerprint
  std::string encoding;     // canonical text form
  space::Scaling scaling;
  ProxyRecipe recipe;
  uint64_t seed = 0;
  int replicate = 0;           // 0, 1, ...: runs of the same architecture with different seeds
  double val_accuracy = 0.0;   // percent
  double test_accuracy = 0.0;  // percent
  int64_t params = 0;          // full-size network, 1000 classes
  int64_t flops = 0;           // full-size network, batch 1
  int64_t proxy_params = 0;    // the trained proxy network
  double train_time_s = 0.0;
  std::string blocks;  // block strings, space-separated

  // Identity of the run (architecture, scaling, recipe, replicate): resume skips rows it finds.
  std::string JobKey() const;
};

const std::vector<std::string>& AccuracyColumns();

// One CSV line (with '\n') for a row; throws InternalError if a field would need quoting.
std::string FormatAccuracyRow(const AccuracyRow& row);
std::string AccuracyHeader();  // the header line with '\n'

struct AccuracyData {
  std::string file;
  std::vector<AccuracyRow> rows;
};

// Reads an accuracy CSV. With `space` given, every row must carry its fingerprint and decode in
// it. `allow_torn_tail`: a last line without '\n' (a write cut by a kill) is ignored instead of
// refused. Throws InputError naming the file and line.
AccuracyData ReadAccuracyData(const std::string& path, const space::Space* space,
                              bool allow_torn_tail = false);
// The same, from the file's text (`path` names it in errors).
AccuracyData ParseAccuracyData(const std::string& text, const std::string& path,
                               const space::Space* space, bool allow_torn_tail = false);

// Appends rows to an accuracy CSV, durably. Creates the file with its header if missing; on an
// existing file checks the header and cuts a torn last line (left by a kill during a write).
// The one proxy recipe of all rows; throws InputError naming the file and line of the first row
// trained with another recipe (labels of different recipes are not comparable), or for no rows.
ProxyRecipe RequireOneRecipe(const AccuracyData& data);

// Several accuracy files as one (rows in file order; `file` names them all). Throws InputError
// when the files were trained with different recipes.
AccuracyData MergeAccuracyData(const std::vector<AccuracyData>& parts);

class AccuracyAppender {
 public:
  explicit AccuracyAppender(const std::string& path);
  AccuracyAppender(const AccuracyAppender&) = delete;
  AccuracyAppender& operator=(const AccuracyAppender&) = delete;
  // Writes one row with a single write() and fsync()s the file.
  void Append(const AccuracyRow& row);

 private:
  AppendLog log_;
};

// Label-noise and proxy-validity statistics of accuracy data.
struct ReplicateStats {
  size_t architectures = 0;       // distinct (encoding, scaling) with >= 2 replicates
  double test_tau = 0.0;          // Kendall tau between replicates 0 and 1 (test accuracy)
  double val_tau = 0.0;           // same, validation accuracy
  double mean_abs_diff_pp = 0.0;  // mean |acc0 - acc1| (test), percentage points
  double mean_accuracy = 0.0;     // test accuracy, mean over rows
  double min_accuracy = 0.0, max_accuracy = 0.0;
  double mean_train_time_s = 0.0;  // per run
};
ReplicateStats ComputeReplicateStats(const AccuracyData& data);

// Tau between two data sets on the architectures they share (mean over replicates).
struct AgreementStats {
  size_t architectures = 0;
  double test_tau = 0.0;
  double val_tau = 0.0;
};
AgreementStats ComputeAgreement(const AccuracyData& a, const AccuracyData& b);

}  // namespace dcnas::proxy
