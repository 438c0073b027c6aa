// A zero-cost label's calibration: a zero-cost score of a benchmark's networks (a table of
// `accuracy-data zero-cost`) against the benchmark's real labels, the log of the error rate
// fitted by least squares (log(100 - accuracy) = offset - scale * f(score); f is log10 for
// synflow, else the identity), so label = 100 - exp(offset - scale * f(score)). The fit keeps the
// score's ranking (its Kendall tau against the real labels is the label's validity there), gives
// it the benchmark's accuracy scale (the search's reward and LACS's equal-accuracy constraint read
// a label in percent), and saturates below 100% for networks far larger than the benchmark's
// instead of passing it. Needs no LibTorch.
#pragma once

#include <map>
#include <nlohmann/json_fwd.hpp>
#include <string>

#include "common/rank_correlation.h"
#include "proxy/accuracy_data.h"
#include "proxy/zero_cost_table.h"

namespace dcnas::proxy {

struct ScoreCalibration {
  std::string reference_file;
  std::string reference_recipe;  // the benchmark's recipe key
  std::string target;            // the reference's label (test_accuracy, val_accuracy)
  std::string table_file;
  std::string table_recipe;  // the scores' proxy settings ("r16_w0.25_rd1")
  int batch = 0;             // the scores' batch
  std::string score;
  size_t networks = 0;       // in both the reference and the table
  ScoreLabel label;          // the fit, rounded as the label's text carries it
  double residual_sd = 0.0;  // pp, of the rounded fit's label against the reference's means
  double r2 = 0.0;           // of the label (percent), not of the log error
  TauInterval tau;           // the score against the reference's mean (95% percentile bootstrap)
  double score_min = 0.0, score_max = 0.0;  // f(score) over the fitted networks
  double label_min = 0.0, label_max = 0.0;  // the reference's means

  // The recipe key of a label of these settings: "r16_w0.25_rd1_b64_zc-naswot-a..-b..".
  std::string RecipeKey() const;
  std::string ToText() const;
  nlohmann::json ToJson() const;
};

// Fits `score` (naswot, synflow, grad_norm, snip) of `table` to the reference's mean accuracy
// under `target` ("" or "auto": ResolveTarget) on the networks both hold. InputError naming the
// file for an unknown score, fewer than 10 shared networks, a table of several recipes or
// batches or without them, a score that does not vary, a mean accuracy of 100% (no log error),
// or a fit whose scale is not positive (a score that ranks backwards is no label).
ScoreCalibration CalibrateScore(const AccuracyData& reference, const std::string& target,
                                const std::map<std::string, ZeroCostEntry>& table,
                                const std::string& table_file, const std::string& score,
                                int draws = 1000, uint64_t seed = 0);

}  // namespace dcnas::proxy
