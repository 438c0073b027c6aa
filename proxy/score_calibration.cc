#include "proxy/score_calibration.h"

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>

#include "common/errors.h"
#include "common/table.h"
#include "common/text.h"

namespace dcnas::proxy {

std::string ScoreCalibration::RecipeKey() const {
  return table_recipe + "_b" + std::to_string(batch) + "_" + label.Text();
}

std::string ScoreCalibration::ToText() const {
  std::string s;
  s += "zero-cost label: " + score + " of " + table_file + " (" + table_recipe + ", batch " +
       std::to_string(batch) + ") against " + reference_file + " (" + reference_recipe + ", mean " +
       target + "), " + std::to_string(networks) + " networks\n";
  s += "  fit:        label = 100 - exp(" + FormatSignificant(label.offset, 6) + " - " +
       FormatSignificant(label.scale, 6) + " x " + (score == "synflow" ? "log10(synflow)" : score) +
       ") percent (least squares on the log error rate)\n";
  s += "  residual sd " + FormatFixed(residual_sd, 3) + " pp, R^2 " + FormatFixed(r2, 3) +
       "; Kendall tau " + FormatFixed(tau.tau, 3) + " [" + FormatFixed(tau.lo, 3) + ", " +
       FormatFixed(tau.hi, 3) + "] (95% bootstrap)\n";
  s += "  fitted over " + (score == "synflow" ? std::string("log10(synflow)") : score) + " " +
       FormatSignificant(score_min, 6) + " .. " + FormatSignificant(score_max, 6) + " (labels " +
       FormatFixed(label_min, 2) + " .. " + FormatFixed(label_max, 2) +
       " %): beyond that range the label extrapolates (towards 100%)\n";
  s += "  label:      " + label.Text() + "\n";
  s += "  recipe:     " + RecipeKey() + "\n";
  return s;
}

nlohmann::json ScoreCalibration::ToJson() const {
  return {{"reference", reference_file},
          {"reference_recipe", reference_recipe},
          {"target", target},
          {"table", table_file},
          {"table_recipe", table_recipe},
          {"batch", batch},
          {"score", score},
          {"networks", networks},
          {"scale", label.scale},
          {"offset", label.offset},
          {"label", label.Text()},
          {"recipe", RecipeKey()},
          {"residual_sd_pp", residual_sd},
          {"r2", r2},
          {"tau", tau.tau},
          {"tau_lo", tau.lo},
          {"tau_hi", tau.hi},
          {"score_min", score_min},
          {"score_max", score_max},
          {"label_min", label_min},
          {"label_max", label_max}};
}

ScoreCalibration CalibrateScore(const AccuracyData& reference, const std::string& target,
                                const std::map<std::string, ZeroCostEntry>& table,
                                const std::string& table_file, const std::string& score, int draws,
                                uint64_t seed) {
  const auto index = std::find(kZeroCostScores.begin(), kZeroCostScores.end(), score);
  if (index == kZeroCostScores.end()) {
    throw InputError("unknown zero-cost score '" + score + "' (synflow, naswot, grad_norm, snip)");
  }
  const auto k = static_cast<size_t>(index - kZeroCostScores.begin());
  ScoreCalibration c;
  c.reference_file = reference.file;
  c.reference_recipe = RequireOneRecipe(reference).Key();
  c.target = ResolveTarget(reference, target);
  c.table_file = table_file;
  c.score = score;
  for (const auto& [encoding, entry] : table) {
    if (entry.recipe.empty() || entry.batch == 0) {
      throw InputError(table_file +
                       ": no recipe and batch columns (a table of `accuracy-data zero-cost` "
                       "records the settings its scores were computed with)");
    }
    if (c.table_recipe.empty()) {
      c.table_recipe = entry.recipe;
      c.batch = entry.batch;
    } else if (entry.recipe != c.table_recipe || entry.batch != c.batch) {
      throw InputError(table_file + ": network " + encoding + " scored with " + entry.recipe +
                       ", batch " + std::to_string(entry.batch) + ", others with " +
                       c.table_recipe + ", batch " + std::to_string(c.batch) +
                       " (one calibration per setting)");
    }
  }
  std::vector<double> x, y;
  for (const auto& [encoding, mean] : MeanAccuracy(reference, c.target)) {
    const auto it = table.find(encoding);
    if (it == table.end()) continue;
    double v = it->second.scores[k];
    if (score == "synflow") {
      if (!(v > 0.0)) {
        throw InputError(table_file + ": network " + encoding +
                         ": synflow must be positive to take its log, got " + FormatShortest(v));
      }
      v = std::log10(v);
    }
    if (!(mean < 100.0)) {
      throw InputError(reference.file + ": network " + encoding +
                       ": mean accuracy 100% leaves no error rate to take the log of");
    }
    x.push_back(v);
    y.push_back(mean);
  }
  c.networks = x.size();
  if (c.networks < 10) {
    throw InputError(table_file + ": " + std::to_string(c.networks) + " networks shared with " +
                     reference.file + " (a calibration needs at least 10)");
  }
  const auto n = static_cast<double>(x.size());
  std::vector<double> log_error(y.size());
  for (size_t i = 0; i < y.size(); ++i) log_error[i] = std::log(100.0 - y[i]);
  double mx = 0.0, my = 0.0, ml = 0.0;
  for (size_t i = 0; i < x.size(); ++i) {
    mx += x[i] / n;
    my += y[i] / n;
    ml += log_error[i] / n;
  }
  double sxx = 0.0, sxl = 0.0, syy = 0.0;
  for (size_t i = 0; i < x.size(); ++i) {
    sxx += (x[i] - mx) * (x[i] - mx);
    sxl += (x[i] - mx) * (log_error[i] - ml);
    syy += (y[i] - my) * (y[i] - my);
  }
  if (*std::min_element(x.begin(), x.end()) == *std::max_element(x.begin(), x.end()) ||
      !(sxx > 0.0)) {
    throw InputError(table_file + ": " + score + " is the same on every network");
  }
  const double scale = -sxl / sxx;
  if (!(scale > 0.0)) {
    throw InputError(table_file + ": " + score + " falls as " + reference.file +
                     "'s accuracy rises (fitted scale " + FormatSignificant(scale, 3) +
                     "): a score that ranks backwards is no label");
  }
  c.label = RoundedScoreLabel(score, scale, ml + scale * mx);
  double ss = 0.0;
  for (size_t i = 0; i < x.size(); ++i) {
    const double r = y[i] - (100.0 - std::exp(c.label.offset - c.label.scale * x[i]));
    ss += r * r;
  }
  c.residual_sd = std::sqrt(ss / n);
  c.r2 = syy > 0.0 ? 1.0 - ss / syy : 0.0;
  c.tau = BootstrapKendallTau(x, y, draws, 0.95, seed);
  c.score_min = *std::min_element(x.begin(), x.end());
  c.score_max = *std::max_element(x.begin(), x.end());
  c.label_min = *std::min_element(y.begin(), y.end());
  c.label_max = *std::max_element(y.begin(), y.end());
  return c;
}

}  // namespace dcnas::proxy
