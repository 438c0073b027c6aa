// Multi-fidelity proxy training by successive halving (Jamieson & Talwalkar 2016; the inner loop
// of Hyperband, Li et al. 2017): every network is trained briefly, the best 1/eta of them (by
// validation accuracy) are trained again with eta times the epochs, and so on up to the full
// budget. Each rung trains from scratch with its own schedule (warm-up and decay fitted to its
// epochs), so a rung's label is exactly the label of the recipe with that many epochs, and the
// top rung's rows are rows of the full recipe.
//
// Used by `accuracy-data generate --halving` (one accuracy CSV per rung) and by the search's
// training objective (`search --accuracy train --train-halving`, over each round of candidates).
// `accuracy-data halving` measures what it saves and how well it agrees with training every
// network at the full budget. The rules here need no LibTorch.
#pragma once

#include <cstddef>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <vector>

#include "common/rank_correlation.h"
#include "proxy/accuracy_data.h"

namespace dcnas::proxy {

// The epochs of each rung: min_epochs, min_epochs x eta, ... while below max_epochs, then
// max_epochs. Throws InputError naming the option (eta_option, min_option): eta outside 2..16,
// min_epochs < 1, min_epochs >= max_epochs.
std::vector<int> HalvingRungs(int min_epochs, int max_epochs, int eta,
                              const std::string& eta_option = "--halving",
                              const std::string& min_option = "--min-epochs");

// The networks promoted out of a rung: the ceil(n / eta) highest scores (ties to the lower
// index), as indices in ascending order.
std::vector<size_t> PromoteTop(const std::vector<double>& scores, int eta);

// The accuracy CSV of a lower rung beside `out` (the top rung's file): "dir/name.e1.csv" for
// out "dir/name.csv" and 1 epoch.
std::string RungFile(const std::string& out, int epochs);

// The ranking successive halving leaves: networks that reached a higher rung first, then by
// their accuracy at the last rung they reached. One value per network, higher is better.
double HalvingRank(size_t rung_reached, double accuracy);

struct HalvingRungReport {
  int epochs = 0;
  std::string file;
  size_t networks = 0;  // trained at this rung
  double cost_s = 0.0;  // their training time, all seeds
  // Their label against the reference, on the networks of this rung.
  TauInterval tau_reference;
};

struct HalvingReport {
  int eta = 0;
  std::string reference_file;
  std::vector<HalvingRungReport> rungs;
  size_t networks = 0;  // entering the first rung
  double cost_s = 0.0;  // all rungs
  // The ranking halving leaves (HalvingRank) against the reference's labels, over every network.
  TauInterval tau_reference;
  // The best network by halving: its reference accuracy and its rank there (1 = best).
  std::string best;
  double best_reference_accuracy = 0.0;
  size_t best_reference_rank = 0;
  // With a full-budget file (every network trained at the top rung's epochs):
  std::string full_file;
  double full_cost_s = 0.0;     // its training time over the same networks
  TauInterval tau_full;         // halving's ranking against full training's, every network
  TauInterval tau_full_vs_ref;  // full training against the reference
  size_t top_overlap = 0;       // of the top rung's networks, how many full training ranks
                                // among its best as many
  size_t full_best_rank = 0;    // full training's best: its rank in halving's ranking
  std::string ToText() const;
  nlohmann::json ToJson() const;
};

// Recomputes the promotions from the rung files (lowest rung first; each network's label is the
// mean validation accuracy of its seeds) over the networks of the first rung that the reference
// has, and reports cost and agreement. Throws InputError naming the file and network: a promoted
// network missing from the next rung's file, a rung file of another recipe than the first with
// its epochs, rungs whose epochs do not rise, fewer than 3 networks.
HalvingReport EvaluateHalving(const std::vector<AccuracyData>& rungs, int eta,
                              const AccuracyData& reference, const AccuracyData* full,
                              int draws = 1000, uint64_t seed = 0);

}  // namespace dcnas::proxy
