// One gradient-boosted regressor (XGBoost, reg:squarederror, tree_method hist) trained round by
// round with early stopping on a validation set. The returned model holds only the rounds up to
// and including the best validation round, so every prediction uses exactly those trees.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "surrogate/forest.h"
#include "surrogate/xgboost.h"

namespace dcnas::surrogate {

// Hyperparameters. Defaults are XGBoost's own unless the README says otherwise.
struct RegressorParams {
  int max_rounds = 1000;             // upper bound on boosting rounds
  int early_stopping_rounds = 50;    // patience: stop after this many rounds without a better
                                     // validation RMSE (0: train all max_rounds)
  double learning_rate = 0.05;       // eta
  int max_depth = 6;                 // XGBoost default
  double min_child_weight = 1.0;     // XGBoost default
  double subsample = 0.8;            // row subsample per tree
  double colsample_bytree = 0.8;     // column subsample per tree
  double reg_lambda = 1.0;           // L2 on leaf weights (XGBoost default)
  double reg_alpha = 0.0;            // L1 on leaf weights (XGBoost default)
  int max_bin = 256;                 // hist bins (XGBoost default)
  std::optional<double> base_score;  // unset: the mean training label
  std::uint64_t seed = 0;
  int nthread = 1;  // per booster; never a global setting

  nlohmann::json ToJson() const;
  // Strict: unknown keys and wrong types throw InputError naming `where` and the key.
  static RegressorParams FromJson(const nlohmann::json& j, const std::string& where);
};

struct TrainingHistory {
  std::vector<double> valid_rmse;  // one per round trained (XGBoost's rmse on the valid set)
  int best_iteration = -1;         // 0-based round with the lowest validation RMSE
  double best_valid_rmse = 0.0;
  int rounds_trained = 0;
  bool stopped_early = false;
};

class Regressor {
 public:
  // Trains on `train`, early-stopping on `valid` (which must be non-empty when
  // params.early_stopping_rounds > 0). Throws InputError on empty or mismatched data.
  static Regressor Train(const LabeledView& train, const LabeledView& valid,
                         const RegressorParams& params);

  // Wraps an already trained booster (e.g. loaded from a file); sets its nthread.
  Regressor(Booster booster, TrainingHistory history, int nthread = 1);

  // One prediction per row of `x` into `out` (x.rows entries). x.cols must equal num_features().
  // Runs the compiled Forest (bit-identical to booster().Predict, faster, and thread-safe).
  void Predict(MatrixView x, std::span<float> out) const;
  std::vector<float> Predict(MatrixView x) const;

  // Model files: .json or .ubj by extension (anything else: InputError); written atomically.
  // The training history's best iteration and score travel as booster attributes.
  void Save(const std::string& path) const;
  static Regressor Load(const std::string& path, int nthread = 1);
  std::string SaveToBuffer(ModelFormat format) const { return booster_.SaveToBuffer(format); }
  // Load and FromBuffer refuse (InputError) a model Forest::CheckModel refuses before XGBoost
  // reads it.
  static Regressor FromBuffer(std::string_view bytes, int nthread = 1);

  const TrainingHistory& history() const { return history_; }
  void set_history(TrainingHistory history) { history_ = std::move(history); }
  const Booster& booster() const { return booster_; }
  const Forest& forest() const { return forest_; }
  std::size_t num_features() const { return num_features_; }
  int num_rounds() const { return num_rounds_; }

 private:
  Booster booster_;
  Forest forest_;
  TrainingHistory history_;
  std::size_t num_features_ = 0;
  int num_rounds_ = 0;
};

}  // namespace dcnas::surrogate
