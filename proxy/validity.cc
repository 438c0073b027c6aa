#include "proxy/validity.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <set>

#include "common/errors.h"
#include "common/svg_chart.h"
#include "common/table.h"
#include "common/text.h"

namespace dcnas::proxy {
namespace {

// One candidate's rows by network, replicate number -> row.
using ByNetwork = std::map<std::string, std::map<int, const AccuracyRow*>>;

ByNetwork GroupRows(const AccuracyData& data) {
  ByNetwork by;
  for (const AccuracyRow& r : data.rows) by[r.encoding][r.replicate] = &r;
  return by;
}

std::string Fixed3(double v) { return std::isnan(v) ? "n/a" : FormatFixed(v, 3); }

std::string TauText(const TauInterval& t) {
  return Fixed3(t.tau) + " [" + Fixed3(t.lo) + ", " + Fixed3(t.hi) + "]";
}

nlohmann::json Num(double v) { return std::isnan(v) ? nlohmann::json() : nlohmann::json(v); }

}  // namespace

namespace {

std::vector<double> Ranks(const std::vector<double>& v) {
  std::vector<size_t> order(v.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) { return v[a] < v[b]; });
  std::vector<double> r(v.size());
  for (size_t i = 0; i < order.size();) {
    size_t j = i;
    while (j + 1 < order.size() && v[order[j + 1]] == v[order[i]]) ++j;
    for (size_t k = i; k <= j; ++k) r[order[k]] = (static_cast<double>(i + j) / 2.0) + 1.0;
    i = j + 1;
  }
  return r;
}

double Pearson(const std::vector<double>& a, const std::vector<double>& b) {
  const auto n = static_cast<double>(a.size());
  double ma = 0, mb = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    ma += a[i] / n;
    mb += b[i] / n;
  }
  double sab = 0, saa = 0, sbb = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    sab += (a[i] - ma) * (b[i] - mb);
    saa += (a[i] - ma) * (a[i] - ma);
    sbb += (b[i] - mb) * (b[i] - mb);
  }
  return saa > 0 && sbb > 0 ? sab / std::sqrt(saa * sbb) : std::nan("");
}

}  // namespace

double PartialSpearman(const std::vector<double>& x, const std::vector<double>& y,
                       const std::vector<double>& z) {
  if (x.size() != y.size() || x.size() != z.size()) {
    throw InternalError("PartialSpearman: samples of different lengths");
  }
  if (x.size() < 4) return std::nan("");
  const std::vector<double> rx = Ranks(x), ry = Ranks(y), rz = Ranks(z);
  const double xy = Pearson(rx, ry), xz = Pearson(rx, rz), yz = Pearson(ry, rz);
  const double d = (1.0 - xz * xz) * (1.0 - yz * yz);
  return d > 0 ? (xy - xz * yz) / std::sqrt(d) : std::nan("");
}

ValidityReport ComputeValidity(const AccuracyData& reference,
                               const std::vector<AccuracyData>& candidates,
                               const ValidityOptions& o,
                               const std::map<std::string, ZeroCostEntry>* zero_cost,
                               const std::string& zero_cost_file) {
  ValidityReport report;
  report.options = o;
  report.reference_file = reference.file;
  report.reference_recipe = RequireOneRecipe(reference).Key();
  report.reference_target = ResolveTarget(reference);
  const std::map<std::string, double> truth = MeanAccuracy(reference, report.reference_target);
  report.reference_networks = truth.size();
  const std::string fingerprint = reference.rows.front().fingerprint;
  std::map<std::string, const AccuracyRow*> ref_row;
  for (const AccuracyRow& r : reference.rows) ref_row.emplace(r.encoding, &r);

  std::set<std::string> sample;  // every candidate network, for the baselines
  uint64_t draw_seed = o.seed;
  for (const AccuracyData& c : candidates) {
    if (c.rows.empty()) throw InputError(c.file + ": no accuracy rows");
    const ProxyRecipe one_recipe = RequireOneRecipe(c);
    const std::string recipe = one_recipe.Key();
    for (size_t i = 0; i < c.rows.size(); ++i) {
      if (c.rows[i].fingerprint != fingerprint) {
        throw InputError(c.file + ":" + std::to_string(i + 2) + ": a network of another space " +
                         "(fingerprint " + c.rows[i].fingerprint + "; the reference " +
                         reference.file + " has " + fingerprint + ")");
      }
    }
    ResolveTarget(c, o.target);  // every row must have the label
    const ByNetwork by = GroupRows(c);
    int max_seeds = 0;
    for (const auto& [enc, reps] : by)
      max_seeds = std::max(max_seeds, static_cast<int>(reps.size()));
    // Label of `enc` averaged over replicates 0..k-1 (NaN where one is missing), and its cost.
    auto label = [&](const std::map<int, const AccuracyRow*>& reps, int k, int epoch,
                     double& cost) {
      double sum = 0.0;
      cost = 0.0;
      for (int r = 0; r < k; ++r) {
        const auto it = reps.find(r);
        if (it == reps.end()) return std::nan("");
        const AccuracyRow& row = *it->second;
        const int epochs = row.recipe.epochs;
        if (epoch < epochs) {
          if (static_cast<int>(row.val_curve.size()) != epochs) return std::nan("");
          sum += row.val_curve[epoch - 1];
        } else {
          sum += TargetAccuracy(row, o.target);
        }
        // A zero-cost label (epochs 0) costs its one scoring.
        const double time = std::isnan(row.train_time_s) ? 0.0 : row.train_time_s;
        cost += epochs > 0 ? time * epoch / epochs : time;
      }
      return sum / k;
    };
    const int epochs = one_recipe.epochs;
    auto add = [&](int k, int epoch) {
      std::vector<double> a, b;
      double cost_sum = 0.0, acc_sum = 0.0;
      for (const auto& [enc, reps] : by) {
        const auto t = truth.find(enc);
        if (t == truth.end()) continue;
        double cost = 0.0;
        const double v = label(reps, k, epoch, cost);
        if (std::isnan(v)) continue;
        a.push_back(v);
        b.push_back(t->second);
        cost_sum += cost;
        acc_sum += v;
        sample.insert(enc);
      }
      if (a.size() < 3) return;
      ValidityRow row;
      row.file = c.file;
      row.recipe = recipe;
      row.epochs = epoch;
      row.of_epochs = epochs;
      row.seeds = k;
      row.networks = a.size();
      row.tau = BootstrapKendallTau(a, b, o.draws, o.level, draw_seed++);
      row.cost_s = cost_sum / static_cast<double>(a.size());
      row.mean_accuracy = acc_sum / static_cast<double>(a.size());
      report.rows.push_back(row);
    };
    const size_t before = report.rows.size();
    if (o.target == "val_accuracy") {
      for (int e = 1; e < epochs; ++e) add(1, e);
    }
    for (int k = 1; k <= max_seeds; ++k) add(k, epochs);
    if (report.rows.size() == before) {
      throw InputError(c.file + ": fewer than 3 of its networks are in the reference " +
                       reference.file + " (a sample of another space or benchmark?)");
    }
    if (max_seeds >= 2) {
      ProxyNoise n;
      n.file = c.file;
      n.recipe = recipe;
      std::vector<std::vector<double>> groups;
      std::vector<double> r0, r1;
      for (const auto& [enc, reps] : by) {
        std::vector<double> g;
        for (const auto& [r, row] : reps) g.push_back(TargetAccuracy(*row, o.target));
        groups.push_back(g);
        if (reps.count(0) && reps.count(1)) {
          r0.push_back(TargetAccuracy(*reps.at(0), o.target));
          r1.push_back(TargetAccuracy(*reps.at(1), o.target));
        }
      }
      n.noise = EstimateNoise(groups);
      n.replicate_tau = BootstrapKendallTau(r0, r1, o.draws, o.level, draw_seed++);
      report.noise.push_back(n);
    }
  }
  if (zero_cost != nullptr) {
    report.zero_cost_file = zero_cost_file;
    // With candidates, their networks (the same sample as the trained proxies'); alone, every
    // network of the table that the reference has.
    std::vector<std::string> nets;
    for (const auto& [enc, e] : *zero_cost) {
      if (truth.count(enc) && (candidates.empty() || sample.count(enc))) nets.push_back(enc);
    }
    if (nets.size() < 3) {
      throw InputError(zero_cost_file + ": fewer than 3 of its networks are in the reference " +
                       reference.file + (candidates.empty() ? "" : " and the candidates"));
    }
    std::vector<double> acc, log_params;
    for (const std::string& enc : nets) {
      acc.push_back(truth.at(enc));
      log_params.push_back(std::log10(std::max<double>(1.0, ref_row.at(enc)->params)));
    }
    for (size_t k = 0; k < kZeroCostScores.size() + 2; ++k) {
      ZeroCostValidity z;
      std::vector<double> v;
      double time = 0.0;
      for (const std::string& enc : nets) {
        if (k < kZeroCostScores.size()) {
          v.push_back(zero_cost->at(enc).scores[k]);
          time += std::isnan(zero_cost->at(enc).time_s) ? 0.0 : zero_cost->at(enc).time_s;
        } else {
          const AccuracyRow& r = *ref_row.at(enc);
          v.push_back(static_cast<double>(k == kZeroCostScores.size() ? r.params : r.flops));
        }
      }
      z.score = k < kZeroCostScores.size() ? kZeroCostScores[k]
                                           : (k == kZeroCostScores.size() ? "params" : "flops");
      z.networks = nets.size();
      z.tau = BootstrapKendallTau(v, acc, o.draws, o.level, draw_seed++);
      z.partial_given_params =
          z.score == "params" ? std::nan("") : PartialSpearman(v, acc, log_params);
      z.cost_s = time / static_cast<double>(nets.size());
      report.zero_cost.push_back(z);
    }
  }
  // The free baselines on the networks of the sample.
  for (const std::string which : {"params", "flops"}) {
    std::vector<double> a, b;
    for (const std::string& enc : sample) {
      const AccuracyRow& r = *ref_row.at(enc);
      a.push_back(static_cast<double>(which == "params" ? r.params : r.flops));
      b.push_back(truth.at(enc));
    }
    if (a.size() < 3) continue;
    ValidityRow row;
    row.recipe = which;
    row.networks = a.size();
    row.tau = BootstrapKendallTau(a, b, o.draws, o.level, draw_seed++);
    row.cost_s = 0.0;
    row.mean_accuracy = std::nan("");
    report.rows.push_back(row);
  }
  return report;
}

std::string ValidityReport::ToText() const {
  std::string out = "proxy validity against " + reference_file + " (" + reference_recipe + ", " +
                    std::to_string(reference_networks) + " networks, label: mean " +
                    reference_target + "); Kendall tau with " +
                    FormatFixed(options.level * 100.0, 0) + "% bootstrap intervals (" +
                    std::to_string(options.draws) + " resamples of the networks)\n";
  Table table({"proxy", "label", "networks", "tau [interval]", "cost s/network", "mean acc %"});
  for (const ValidityRow& r : rows) {
    std::string label;
    if (r.seeds == 0) {
      label = "free (full-size " + r.recipe + ")";
    } else if (r.of_epochs == 0) {
      label = "zero-cost label, " +
              std::string(r.seeds == 1 ? "1 initialisation"
                                       : "mean of " + std::to_string(r.seeds) + " initialisations");
    } else {
      label = "val" + std::string(r.epochs < r.of_epochs ? " after epoch " : ", epochs ") +
              std::to_string(r.epochs) + "/" + std::to_string(r.of_epochs) + ", " +
              (r.seeds == 1 ? "1 seed" : "mean of " + std::to_string(r.seeds) + " seeds");
      if (options.target != "val_accuracy") label = options.target + ", " + label.substr(4);
    }
    table.AddRow({r.recipe, label, std::to_string(r.networks), TauText(r.tau),
                  FormatFixed(r.cost_s, 1),
                  std::isnan(r.mean_accuracy) ? "" : FormatFixed(r.mean_accuracy, 2)});
  }
  out += table.ToText();
  for (const ProxyNoise& n : noise) {
    out += "seed noise of " + n.recipe + " (" + std::to_string(n.noise.replicated) +
           " networks with 2+ seeds): seed-to-seed tau " + TauText(n.replicate_tau) + ", ICC " +
           Fixed3(n.noise.icc) + ", seed sd " + Fixed3(n.noise.noise_sd) + " pp, spread sd " +
           Fixed3(n.noise.spread_sd) + " pp\n";
  }
  if (!zero_cost.empty()) {
    out += "zero-cost scores of " + zero_cost_file + " against the reference (" +
           std::to_string(zero_cost.front().networks) + " networks):\n";
    Table z({"score", "tau [interval]", "partial Spearman given log params", "cost s/network"});
    for (const ZeroCostValidity& r : zero_cost) {
      z.AddRow({r.score, TauText(r.tau), Fixed3(r.partial_given_params), FormatFixed(r.cost_s, 3)});
    }
    out += z.ToText();
  }
  return out;
}

std::string ValidityReport::ToCsv() const {
  std::string out =
      "file,recipe,epochs,of_epochs,seeds,networks,tau,tau_lo,tau_hi,cost_s,mean_accuracy\n";
  for (const ValidityRow& r : rows) {
    out += r.file + "," + r.recipe + "," + std::to_string(r.epochs) + "," +
           std::to_string(r.of_epochs) + "," + std::to_string(r.seeds) + "," +
           std::to_string(r.networks) + "," + FormatShortest(r.tau.tau) + "," +
           FormatShortest(r.tau.lo) + "," + FormatShortest(r.tau.hi) + "," +
           FormatShortest(r.cost_s) + "," +
           (std::isnan(r.mean_accuracy) ? "" : FormatShortest(r.mean_accuracy)) + "\n";
  }
  return out;
}

std::string ValidityReport::ToSvg() const {
  Chart chart;
  chart.title = "proxy validity against " + reference_file + " (" +
                std::to_string(reference_networks) + " networks): Kendall tau with " +
                FormatFixed(100.0 * options.level, 0) + "% bootstrap intervals";
  chart.x = {.title = "cost per network (s of training or scoring)", .log = true};
  chart.y = {.title = "Kendall tau against the reference's mean accuracy"};
  // One line per candidate file through its single-seed labels (per epoch), in epoch order; its
  // seed-averaged labels as a second series of points.
  std::map<std::string, std::pair<ChartSeries, ChartSeries>> by_file;
  std::vector<std::string> order;
  for (const ValidityRow& r : rows) {
    if (r.file.empty() || !(r.cost_s > 0.0) || !std::isfinite(r.tau.tau)) continue;
    auto [it, added] = by_file.try_emplace(r.file);
    if (added) {
      order.push_back(r.file);
      // The file's name: recipe keys are too long for a legend (the table gives them).
      const std::string name = std::filesystem::path(r.file).stem().string();
      it->second.first.label = name;
      it->second.first.style = ChartSeries::Style::kLinePoints;
      it->second.second.label = name + ", seeds averaged";
    }
    ChartSeries& series = r.seeds <= 1 ? it->second.first : it->second.second;
    series.x.push_back(r.cost_s);
    series.y.push_back(r.tau.tau);
    series.y_lo.push_back(std::min(r.tau.lo, r.tau.tau));
    series.y_hi.push_back(std::max(r.tau.hi, r.tau.tau));
    series.point_labels.push_back(r.seeds > 1 ? std::to_string(r.seeds) + " seeds"
                                              : "e" + std::to_string(r.epochs));
  }
  for (const std::string& file : order) {
    auto& [curve, averaged] = by_file.at(file);
    if (!curve.x.empty()) chart.series.push_back(curve);
    if (!averaged.x.empty()) chart.series.push_back(averaged);
  }
  ChartSeries scores{.label = "zero-cost scores"};
  for (const ZeroCostValidity& z : zero_cost) {
    if (z.cost_s > 0.0 && std::isfinite(z.tau.tau)) {
      scores.x.push_back(z.cost_s);
      scores.y.push_back(z.tau.tau);
      scores.y_lo.push_back(std::min(z.tau.lo, z.tau.tau));
      scores.y_hi.push_back(std::max(z.tau.hi, z.tau.tau));
      scores.point_labels.push_back(z.score);
    }
  }
  if (!scores.x.empty()) chart.series.push_back(scores);
  for (const ValidityRow& r : rows) {
    if (r.file.empty() && std::isfinite(r.tau.tau)) {
      chart.references.push_back({.vertical = false,
                                  .value = r.tau.tau,
                                  .label = r.recipe + " (free): " + FormatFixed(r.tau.tau, 3)});
    }
  }
  if (chart.series.empty()) {
    throw InputError("validity chart: no candidate label or zero-cost score with a cost to plot");
  }
  return RenderSvg(chart);
}

nlohmann::json ValidityReport::ToJson() const {
  nlohmann::json j = {{"reference",
                       {{"file", reference_file},
                        {"recipe", reference_recipe},
                        {"target", reference_target},
                        {"networks", reference_networks}}},
                      {"target", options.target},
                      {"draws", options.draws},
                      {"level", options.level},
                      {"rows", nlohmann::json::array()},
                      {"seed_noise", nlohmann::json::array()}};
  for (const ValidityRow& r : rows) {
    j["rows"].push_back({{"file", r.file},
                         {"recipe", r.recipe},
                         {"epochs", r.epochs},
                         {"of_epochs", r.of_epochs},
                         {"seeds", r.seeds},
                         {"networks", r.networks},
                         {"tau", Num(r.tau.tau)},
                         {"tau_lo", Num(r.tau.lo)},
                         {"tau_hi", Num(r.tau.hi)},
                         {"cost_s", Num(r.cost_s)},
                         {"mean_accuracy", Num(r.mean_accuracy)}});
  }
  for (const ProxyNoise& n : noise) {
    j["seed_noise"].push_back({{"file", n.file},
                               {"recipe", n.recipe},
                               {"networks", n.noise.replicated},
                               {"replicate_tau", Num(n.replicate_tau.tau)},
                               {"replicate_tau_lo", Num(n.replicate_tau.lo)},
                               {"replicate_tau_hi", Num(n.replicate_tau.hi)},
                               {"icc", Num(n.noise.icc)},
                               {"noise_sd", Num(n.noise.noise_sd)},
                               {"spread_sd", Num(n.noise.spread_sd)}});
  }
  j["zero_cost_file"] = zero_cost_file;
  j["zero_cost"] = nlohmann::json::array();
  for (const ZeroCostValidity& z : zero_cost) {
    j["zero_cost"].push_back({{"score", z.score},
                              {"networks", z.networks},
                              {"tau", Num(z.tau.tau)},
                              {"tau_lo", Num(z.tau.lo)},
                              {"tau_hi", Num(z.tau.hi)},
                              {"partial_given_params", Num(z.partial_given_params)},
                              {"cost_s", Num(z.cost_s)}});
  }
  return j;
}

}  // namespace dcnas::proxy
