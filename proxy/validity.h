// Proxy validity: how well a cheap proxy training ranks networks the way real labels do. The
// reference is a benchmark's accuracy data (NAS-Bench-Macro's CIFAR-10 means); each candidate is
// accuracy data of one proxy recipe trained on a sample of the same space's networks. For every
// candidate the report gives Kendall tau against the reference with a bootstrap interval and the
// training cost per network, for the final label with 1..R seeds averaged and, from the runs'
// validation curves, after each earlier epoch; free baselines (params, FLOPs) on the same sample.
#pragma once

#include <cstdint>
#include <map>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <vector>

#include "common/rank_correlation.h"
#include "proxy/accuracy_data.h"
#include "proxy/label_noise.h"
#include "proxy/zero_cost_table.h"

namespace dcnas::proxy {

struct ValidityOptions {
  std::string target = "val_accuracy";  // the proxy's label (the curve is validation accuracy)
  int draws = 1000;                     // bootstrap resamples per tau
  double level = 0.95;                  // interval coverage
  uint64_t seed = 0;
};

struct ValidityRow {
  std::string file;    // the candidate's file ("" for the free baselines)
  std::string recipe;  // its recipe key, or "params" / "flops"
  int epochs = 0;      // epochs trained when the label was read (0 for the baselines)
  int of_epochs = 0;   // epochs of the recipe's schedule (the label is the curve's when fewer)
  int seeds = 0;       // trainings averaged per network
  size_t networks = 0;
  TauInterval tau;
  double cost_s = 0.0;         // mean training time per network of this label (all its seeds)
  double mean_accuracy = 0.0;  // of the label, percent (NaN for the baselines)
};

// A candidate's own seed noise (when it has two or more replicates).
struct ProxyNoise {
  std::string file;
  std::string recipe;
  NoiseModel noise;
  TauInterval replicate_tau;  // replicate 0 against replicate 1
};

// A zero-cost score (or a full-size count) as a ranking of the reference's networks: with
// candidates, on their networks (the trained proxies' sample, so the figures compare); without,
// on every network of the table that the reference has.
struct ZeroCostValidity {
  std::string score;  // synflow, naswot, grad_norm, snip, or params / flops for comparison
  size_t networks = 0;
  TauInterval tau;
  // Spearman partial correlation with the reference's accuracy given log params: what the score
  // says beyond size (NaN for params itself).
  double partial_given_params = 0.0;
  double cost_s = 0.0;  // mean time per network (0 for the counts)
};

// Spearman's rank correlation of x and y given z (ranks with ties averaged; NaN when undefined).
double PartialSpearman(const std::vector<double>& x, const std::vector<double>& y,
                       const std::vector<double>& z);

struct ValidityReport {
  std::string reference_file;
  std::string reference_recipe;
  std::string reference_target;
  size_t reference_networks = 0;
  ValidityOptions options;
  std::vector<ValidityRow> rows;
  std::vector<ProxyNoise> noise;
  std::string zero_cost_file;
  std::vector<ZeroCostValidity> zero_cost;

  std::string ToText() const;
  std::string ToCsv() const;  // one line per row
  nlohmann::json ToJson() const;
  // The validity-cost curve as an SVG chart: tau (with its interval) against the cost per network
  // on a log axis, one line per candidate through its per-epoch labels (single seed), its
  // seed-averaged labels as points, the zero-cost scores as labelled points at their cost and the
  // free full-size counts (params, FLOPs) as horizontal lines.
  std::string ToSvg() const;
};

// Throws InputError naming the file: a candidate of several recipes, a candidate or reference
// from another space (fingerprint), a candidate sharing fewer than 3 networks with the reference.
// `zero_cost` (optional, with its file's name): each score's ranking of the reference.
ValidityReport ComputeValidity(const AccuracyData& reference,
                               const std::vector<AccuracyData>& candidates,
                               const ValidityOptions& options,
                               const std::map<std::string, ZeroCostEntry>* zero_cost = nullptr,
                               const std::string& zero_cost_file = "");

}  // namespace dcnas::proxy
