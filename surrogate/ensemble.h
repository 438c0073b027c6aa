// A bagged ensemble of Regressors: K members with different seeds and row resamples, each early
// stopped on the same validation split (or, without one, on its own out-of-bag rows). Predictions
// are the members' mean and standard deviation.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "surrogate/regressor.h"

namespace dcnas::surrogate {

enum class Resampling {
  kBootstrap,  // n rows drawn with replacement
  kSubsample,  // round(row_fraction * n) distinct rows
};

struct EnsembleParams {
  int members = 5;
  Resampling resampling = Resampling::kBootstrap;
  double row_fraction = 0.8;  // kSubsample only
  std::uint64_t seed = 0;     // member k trains with a seed derived from (seed, k)
  RegressorParams member;     // member.seed is ignored (derived from `seed`)

  nlohmann::json ToJson() const;
  // Strict: unknown keys and wrong types throw InputError naming `where` and the key.
  static EnsembleParams FromJson(const nlohmann::json& j, const std::string& where);
};

// The seed member `k` of an ensemble seeded with `seed` uses (SplitMix64 of seed and k).
std::uint64_t MemberSeed(std::uint64_t seed, int k);

class Ensemble {
 public:
  // Trains the members, each early-stopping on `valid`; with an empty `valid` (no rows held out),
  // each member early-stops on its out-of-bag rows instead: the rows its bootstrap did not draw
  // (about 37% of them) or its subsample left out (all rows when none were left out).
  static Ensemble Train(const LabeledView& train, const LabeledView& valid,
                        const EnsembleParams& params);

  // At least one member; all members must take the same number of features.
  explicit Ensemble(std::vector<Regressor> members);

  // Mean and standard deviation (population form, divisor K; 0 for one member) of the members'
  // predictions for each row of `x`, written to caller-provided buffers of x.rows entries.
  // Thread safety: runs the members' compiled Forests, so any number of threads may predict
  // with one Ensemble at once.
  void Predict(MatrixView x, std::span<float> mean, std::span<float> stddev) const;
  // Every member's prediction, member-major: out[k * x.rows + i] (K * x.rows entries).
  void PredictMembers(MatrixView x, std::span<float> out) const;

  std::size_t size() const { return members_.size(); }
  std::size_t num_features() const { return members_.front().num_features(); }
  const std::vector<Regressor>& members() const { return members_; }

 private:
  std::vector<Regressor> members_;
};

}  // namespace dcnas::surrogate
