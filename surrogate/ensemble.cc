#include "surrogate/ensemble.h"

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>
#include <vector>

#include "common/errors.h"
#include "surrogate/random.h"

namespace dcnas::surrogate {

nlohmann::json EnsembleParams::ToJson() const {
  return {{"members", members},
          {"resampling", resampling == Resampling::kBootstrap ? "bootstrap" : "subsample"},
          {"row_fraction", row_fraction},
          {"seed", seed},
          {"member", member.ToJson()}};
}

EnsembleParams EnsembleParams::FromJson(const nlohmann::json& j, const std::string& where) {
  if (!j.is_object()) throw InputError(where + ": expected an object");
  EnsembleParams p;
  for (const auto& [key, value] : j.items()) {
    try {
      if (key == "members") {
        p.members = value.get<int>();
      } else if (key == "resampling") {
        const auto s = value.get<std::string>();
        if (s == "bootstrap") {
          p.resampling = Resampling::kBootstrap;
        } else if (s == "subsample") {
          p.resampling = Resampling::kSubsample;
        } else {
          throw InputError(where + ".resampling: '" + s + "' is not one of: bootstrap, subsample");
        }
      } else if (key == "row_fraction") {
        p.row_fraction = value.get<double>();
      } else if (key == "seed") {
        p.seed = value.get<std::uint64_t>();
      } else if (key == "member") {
        p.member = RegressorParams::FromJson(value, where + ".member");
      } else {
        throw InputError(where + "." + key + ": unknown key");
      }
    } catch (const nlohmann::json::exception&) {
      throw InputError(where + "." + key + ": wrong type: " + value.dump());
    }
  }
  return p;
}

std::uint64_t MemberSeed(std::uint64_t seed, int k) {
  std::uint64_t state = seed ^ (0x9E3779B97F4A7C15ull * static_cast<std::uint64_t>(k + 1));
  return SplitMix64(state);
}

Ensemble Ensemble::Train(const LabeledView& train, const LabeledView& valid,
                         const EnsembleParams& params) {
  if (params.members < 1) throw InputError("ensemble needs at least one member");
  if (params.resampling == Resampling::kSubsample &&
      !(params.row_fraction > 0.0 && params.row_fraction <= 1.0)) {
    throw InputError("row_fraction must be in (0, 1]");
  }
  if (train.y.size() != train.x.rows) {
    throw InputError("training set: " + std::to_string(train.y.size()) + " labels for " +
                     std::to_string(train.x.rows) + " rows");
  }
  const std::size_t n = train.x.rows;
  if (n == 0) throw InputError("training set is empty");
  std::vector<Regressor> members;
  for (int k = 0; k < params.members; ++k) {
    const std::uint64_t seed = MemberSeed(params.seed, k);
    Rng rng(seed);
    std::vector<std::size_t> rows;
    if (params.resampling == Resampling::kBootstrap) {
      rows.resize(n);
      for (auto& r : rows) r = UniformBelow(rng, n);
    } else {
      rows.resize(n);
      for (std::size_t i = 0; i < n; ++i) rows[i] = i;
      Shuffle(rows, rng);
      const auto keep = std::max<std::size_t>(
          1, static_cast<std::size_t>(std::llround(params.row_fraction * static_cast<double>(n))));
      rows.resize(keep);
    }
    const Matrix x = SelectRows(train.x, rows);
    const std::vector<float> y = SelectValues(train.y, rows);
    RegressorParams member = params.member;
    member.seed = seed;
    if (valid.x.rows > 0 || member.early_stopping_rounds == 0) {
      members.push_back(Regressor::Train({x.view(), y}, valid, member));
      continue;
    }
    // No validation split: the member early-stops on the rows its resample left out.
    std::vector<bool> drawn(n, false);
    for (std::size_t r : rows) drawn[r] = true;
    std::vector<std::size_t> out_of_bag;
    for (std::size_t i = 0; i < n; ++i) {
      if (!drawn[i]) out_of_bag.push_back(i);
    }
    if (out_of_bag.empty()) {  // every row drawn (only likely for a handful of rows)
      out_of_bag.resize(n);
      for (std::size_t i = 0; i < n; ++i) out_of_bag[i] = i;
    }
    const Matrix xo = SelectRows(train.x, out_of_bag);
    const std::vector<float> yo = SelectValues(train.y, out_of_bag);
    members.push_back(Regressor::Train({x.view(), y}, {xo.view(), yo}, member));
  }
  return Ensemble(std::move(members));
}

Ensemble::Ensemble(std::vector<Regressor> members) : members_(std::move(members)) {
  if (members_.empty()) throw InputError("ensemble needs at least one member");
  for (const auto& m : members_) {
    if (m.num_features() != members_.front().num_features()) {
      throw InputError("ensemble members take different feature counts (" +
                       std::to_string(m.num_features()) + " vs " +
                       std::to_string(members_.front().num_features()) + ")");
    }
  }
}

void Ensemble::PredictMembers(MatrixView x, std::span<float> out) const {
  if (out.size() != members_.size() * x.rows) {
    throw InternalError("Ensemble::PredictMembers: output size " + std::to_string(out.size()));
  }
  for (std::size_t k = 0; k < members_.size(); ++k) {
    members_[k].Predict(x, out.subspan(k * x.rows, x.rows));
  }
}

void Ensemble::Predict(MatrixView x, std::span<float> mean, std::span<float> stddev) const {
  if (mean.size() != x.rows || stddev.size() != x.rows) {
    throw InternalError("Ensemble::Predict: output buffers must have x.rows entries");
  }
  const std::size_t n = x.rows;
  if (n == 0) return;
  // Two passes in double over the members' float predictions: the result depends only on the
  // members' outputs, so a reloaded ensemble reproduces it bit for bit.
  std::vector<float> preds(members_.size() * n);
  PredictMembers(x, preds);
  const auto k = static_cast<double>(members_.size());
  for (std::size_t i = 0; i < n; ++i) {
    double sum = 0.0;
    for (std::size_t m = 0; m < members_.size(); ++m) sum += preds[m * n + i];
    const double mu = sum / k;
    double ss = 0.0;
    for (std::size_t m = 0; m < members_.size(); ++m) {
      const double d = preds[m * n + i] - mu;
      ss += d * d;
    }
    mean[i] = static_cast<float>(mu);
    stddev[i] = static_cast<float>(std::sqrt(ss / k));
  }
}

}  // namespace dcnas::surrogate
