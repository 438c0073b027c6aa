#include "proxy/successive_halving.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <set>

#include "common/errors.h"
#include "common/table.h"
#include "common/text.h"

namespace dcnas::proxy {

std::vector<int> HalvingRungs(int min_epochs, int max_epochs, int eta,
                              const std::string& eta_option, const std::string& min_option) {
  if (eta < 2 || eta > 16) {
    throw InputError(eta_option + ": eta must be in [2, 16], not " + std::to_string(eta));
  }
  if (min_epochs < 1) {
    throw InputError(min_option + " must be at least 1, not " + std::to_string(min_epochs));
  }
  if (min_epochs >= max_epochs) {
    throw InputError(min_option + " " + std::to_string(min_epochs) +
                     " leaves nothing to halve: it must be below the recipe's " +
                     std::to_string(max_epochs) + " epochs");
  }
  std::vector<int> rungs;
  for (int64_t e = min_epochs; e < max_epochs; e *= eta) rungs.push_back(static_cast<int>(e));
  rungs.push_back(max_epochs);
  return rungs;
}

std::vector<size_t> PromoteTop(const std::vector<double>& scores, int eta) {
  if (eta < 1) throw InternalError("PromoteTop: eta below 1");
  const size_t n = scores.size();
  const size_t keep = (n + static_cast<size_t>(eta) - 1) / static_cast<size_t>(eta);
  std::vector<size_t> order(n);
  for (size_t i = 0; i < n; ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return scores[a] > scores[b]; });
  order.resize(keep);
  std::sort(order.begin(), order.end());
  return order;
}

std::string RungFile(const std::string& out, int epochs) {
  const std::filesystem::path p(out);
  std::filesystem::path r = p.parent_path() / p.stem();
  r += ".e" + std::to_string(epochs) + (p.has_extension() ? p.extension().string() : ".csv");
  return r.string();
}

double HalvingRank(size_t rung_reached, double accuracy) {
  return (1000.0 * static_cast<double>(rung_reached)) + accuracy;
}

namespace {

// Each network's mean validation accuracy, seeds summed time, in encoding order.
struct NetworkLabel {
  double accuracy = 0.0;
  double time_s = 0.0;
};

std::map<std::string, NetworkLabel> Labels(const AccuracyData& data) {
  std::map<std::string, std::vector<const AccuracyRow*>> by;
  for (const AccuracyRow& r : data.rows) by[r.encoding].push_back(&r);
  std::map<std::string, NetworkLabel> out;
  for (const auto& [encoding, rows] : by) {
    NetworkLabel l;
    for (const AccuracyRow* r : rows) {
      l.accuracy += r->val_accuracy / static_cast<double>(rows.size());
      if (!std::isnan(r->train_time_s)) l.time_s += r->train_time_s;
    }
    out[encoding] = l;
  }
  return out;
}

std::string Fixed3(double v) { return std::isnan(v) ? "n/a" : FormatFixed(v, 3); }
std::string TauText(const TauInterval& t) {
  return Fixed3(t.tau) + " [" + Fixed3(t.lo) + ", " + Fixed3(t.hi) + "]";
}
nlohmann::json TauJson(const TauInterval& t) {
  const auto num = [](double v) { return std::isnan(v) ? nlohmann::json() : nlohmann::json(v); };
  return {{"tau", num(t.tau)}, {"lo", num(t.lo)}, {"hi", num(t.hi)}};
}

}  // namespace

HalvingReport EvaluateHalving(const std::vector<AccuracyData>& rungs, int eta,
                              const AccuracyData& reference, const AccuracyData* full, int draws,
                              uint64_t seed) {
  if (eta < 2 || eta > 16) {
    throw InputError("--eta must be in [2, 16], not " + std::to_string(eta));
  }
  if (rungs.size() < 2) throw InputError("halving needs the files of at least two rungs");
  HalvingReport report;
  report.eta = eta;
  report.reference_file = reference.file;
  const std::map<std::string, double> truth = MeanAccuracy(reference, ResolveTarget(reference));

  std::vector<std::map<std::string, NetworkLabel>> labels;
  std::vector<ProxyRecipe> recipes;
  for (size_t k = 0; k < rungs.size(); ++k) {
    recipes.push_back(RequireOneRecipe(rungs[k]));
    if (recipes[k].zero_cost()) {
      throw InputError(rungs[k].file + ": a zero-cost label has no epochs to halve");
    }
    if (k > 0) {
      ProxyRecipe same = recipes[k];
      same.epochs = recipes[0].epochs;
      if (same != recipes[0]) {
        throw InputError(rungs[k].file + ": recipe " + recipes[k].Key() + ", the first rung's " +
                         recipes[0].Key() + " (the rungs may differ in epochs only)");
      }
      if (recipes[k].epochs <= recipes[k - 1].epochs) {
        throw InputError(rungs[k].file + ": " + std::to_string(recipes[k].epochs) +
                         " epochs, not more than the rung before (" +
                         std::to_string(recipes[k - 1].epochs) + ")");
      }
    }
    labels.push_back(Labels(rungs[k]));
  }

  // The first rung: its networks that the reference has, in encoding order.
  std::vector<std::string> current;
  for (const auto& [encoding, l] : labels[0]) {
    if (truth.count(encoding)) current.push_back(encoding);
  }
  if (current.size() < 3) {
    throw InputError(rungs[0].file + ": fewer than 3 of its networks are in the reference " +
                     reference.file);
  }
  report.networks = current.size();
  std::map<std::string, size_t> reached;
  std::map<std::string, double> last_accuracy;
  for (size_t k = 0; k < rungs.size(); ++k) {
    HalvingRungReport r;
    r.epochs = recipes[k].epochs;
    r.file = rungs[k].file;
    r.networks = current.size();
    std::vector<double> scores, ref;
    for (const std::string& e : current) {
      const auto it = labels[k].find(e);
      if (it == labels[k].end()) {
        throw InputError(rungs[k].file + ": network " + e + " was promoted to this rung (" +
                         std::to_string(r.epochs) + " epochs) but has no row here");
      }
      scores.push_back(it->second.accuracy);
      ref.push_back(truth.at(e));
      r.cost_s += it->second.time_s;
      reached[e] = k;
      last_accuracy[e] = it->second.accuracy;
    }
    r.tau_reference = BootstrapKendallTau(scores, ref, draws, 0.95, seed);
    report.cost_s += r.cost_s;
    report.rungs.push_back(r);
    if (k + 1 < rungs.size()) {
      std::vector<std::string> next;
      for (size_t i : PromoteTop(scores, eta)) next.push_back(current[i]);
      current = std::move(next);
    }
  }

  std::vector<std::string> networks;
  std::vector<double> rank, ref;
  for (const auto& [e, k] : reached) {
    networks.push_back(e);
    rank.push_back(HalvingRank(k, last_accuracy.at(e)));
    ref.push_back(truth.at(e));
  }
  report.tau_reference = BootstrapKendallTau(rank, ref, draws, 0.95, seed);
  std::vector<size_t> by_rank(networks.size());
  for (size_t i = 0; i < by_rank.size(); ++i) by_rank[i] = i;
  std::stable_sort(by_rank.begin(), by_rank.end(),
                   [&](size_t a, size_t b) { return rank[a] > rank[b]; });
  report.best = networks[by_rank.front()];
  report.best_reference_accuracy = truth.at(report.best);
  for (const auto& [e, acc] : truth) {
    if (reached.count(e) && acc > report.best_reference_accuracy) ++report.best_reference_rank;
  }
  ++report.best_reference_rank;

  if (full != nullptr) {
    report.full_file = full->file;
    const ProxyRecipe full_recipe = RequireOneRecipe(*full);
    if (full_recipe != recipes.back()) {
      throw InputError(full->file + ": recipe " + full_recipe.Key() + ", the top rung's " +
                       recipes.back().Key() + " (full training is the top rung for every network)");
    }
    const std::map<std::string, NetworkLabel> f = Labels(*full);
    std::vector<double> full_acc;
    for (const std::string& e : networks) {
      const auto it = f.find(e);
      if (it == f.end()) {
        throw InputError(full->file + ": network " + e + " of the first rung has no row here");
      }
      full_acc.push_back(it->second.accuracy);
      report.full_cost_s += it->second.time_s;
    }
    report.tau_full = BootstrapKendallTau(rank, full_acc, draws, 0.95, seed);
    report.tau_full_vs_ref = BootstrapKendallTau(full_acc, ref, draws, 0.95, seed);
    std::vector<size_t> by_full(networks.size());
    for (size_t i = 0; i < by_full.size(); ++i) by_full[i] = i;
    std::stable_sort(by_full.begin(), by_full.end(),
                     [&](size_t a, size_t b) { return full_acc[a] > full_acc[b]; });
    const size_t top = report.rungs.back().networks;
    std::set<size_t> best_full(by_full.begin(), by_full.begin() + static_cast<ptrdiff_t>(top));
    for (size_t i = 0; i < top; ++i) report.top_overlap += best_full.count(by_rank[i]);
    for (size_t i = 0; i < by_rank.size(); ++i) {
      if (by_rank[i] == by_full.front()) report.full_best_rank = i + 1;
    }
  }
  return report;
}

std::string HalvingReport::ToText() const {
  std::string out = "successive halving (eta " + std::to_string(eta) + ") over " +
                    std::to_string(networks) + " networks, against " + reference_file +
                    "; Kendall tau [95% bootstrap]\n";
  Table t(
      {"rung", "epochs", "networks", "train time (s)", "tau vs reference (its networks)", "file"});
  for (size_t k = 0; k < rungs.size(); ++k) {
    const HalvingRungReport& r = rungs[k];
    t.AddRow({std::to_string(k), std::to_string(r.epochs), std::to_string(r.networks),
              FormatFixed(r.cost_s, 0), TauText(r.tau_reference), r.file});
  }
  out += t.ToText();
  out +=
      "  halving's ranking (rung reached, then accuracy) vs reference: " + TauText(tau_reference) +
      "\n";
  out += "  its best network " + best + ": reference accuracy " +
         FormatFixed(best_reference_accuracy, 2) + "%, rank " +
         std::to_string(best_reference_rank) + " of " + std::to_string(networks) + "\n";
  out += "  cost " + FormatFixed(cost_s, 0) + " s";
  if (!full_file.empty()) {
    out += ", full training of every network " + FormatFixed(full_cost_s, 0) + " s (" +
           FormatFixed(full_cost_s > 0 ? cost_s / full_cost_s : std::nan(""), 2) + "x)\n";
    out += "  against full training (" + full_file + "): tau " + TauText(tau_full) + "; top " +
           std::to_string(rungs.back().networks) + " shared " + std::to_string(top_overlap) +
           "; full training's best ranks " + std::to_string(full_best_rank) +
           " in halving's; full training vs reference " + TauText(tau_full_vs_ref) + "\n";
  } else {
    out += "\n";
  }
  return out;
}

nlohmann::json HalvingReport::ToJson() const {
  nlohmann::json rs = nlohmann::json::array();
  for (const HalvingRungReport& r : rungs) {
    rs.push_back({{"epochs", r.epochs},
                  {"file", r.file},
                  {"networks", r.networks},
                  {"cost_s", r.cost_s},
                  {"tau_reference", TauJson(r.tau_reference)}});
  }
  nlohmann::json j = {{"eta", eta},
                      {"reference", reference_file},
                      {"networks", networks},
                      {"rungs", rs},
                      {"cost_s", cost_s},
                      {"tau_reference", TauJson(tau_reference)},
                      {"best",
                       {{"network", best},
                        {"reference_accuracy", best_reference_accuracy},
                        {"reference_rank", best_reference_rank}}}};
  if (!full_file.empty()) {
    j["full"] = {
        {"file", full_file},
        {"cost_s", full_cost_s},
        {"cost_ratio", full_cost_s > 0 ? nlohmann::json(cost_s / full_cost_s) : nlohmann::json()},
        {"tau", TauJson(tau_full)},
        {"tau_full_vs_reference", TauJson(tau_full_vs_ref)},
        {"top_overlap", top_overlap},
        {"best_rank_in_halving", full_best_rank}};
  }
  return j;
}

}  // namespace dcnas::proxy
