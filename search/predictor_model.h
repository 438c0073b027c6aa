// The model the `predictor` strategy learns from its tells: an ensemble of small regressors on the
// one-hot features of a canonical encoding (one feature per choice position and value: the
// one-hot part of space::FeatureNames, which needs no parameter or FLOP counts), each member fitted
// on its own bootstrap sample of the told results, so the ensemble gives a mean and a spread
// (BANANAS, White et al., AAAI 2021: an ensemble's spread for Thompson sampling; NPENAS, Wei et
// al., 2022: the same with a cheap predictor).
//
// Members (PredictorModelKind):
// - ridge: a linear model of the one-hot features (an additive effect per choice value) with an
//   unpenalised intercept, ridge penalty `ridge_lambda`; learns from a handful of results.
// - trees: a regression tree (CART, squared error) whose splits are "position p has value v", a
//   random third of the positions tried at each split (a random forest); learns interactions.
// - mixed: members alternate ridge, tree, ridge, ...
// Ridge is the default: on NAS-Bench-Macro it finds the optimum in about 52 networks (median of
// 60 seeds, UCB), mixed in 73, trees in 63 (329 with Thompson sampling: a forest's spread on a
// few dozen results is too wide).
// Each member's bootstrap sample has min(n, kMaxBootstrapSample) results (beyond that an m-out-of-n
// bootstrap): a refit costs O(m x positions) per tree level and O(m x positions^2 + features^3)
// per ridge member, ~0.5 ms for 1,000 results of an 8-position space (24 features) with 10 ridge
// members, ~2 ms for the 45 positions (111 features) of dc-accelerator.
#pragma once

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "space/space.h"

namespace dcnas::search {

enum class PredictorModelKind { kMixed, kRidge, kTrees };

// "mixed", "ridge", "trees"; ParsePredictorModel throws InputError for another name.
std::string PredictorModelName(PredictorModelKind kind);
PredictorModelKind ParsePredictorModel(const std::string& name);

// The most results in a member's bootstrap sample.
inline constexpr size_t kMaxBootstrapSample = 256;

struct PredictorModelOptions {
  PredictorModelKind kind = PredictorModelKind::kRidge;
  int members = 10;
  double ridge_lambda = 1.0;  // in the units of the one-hot features (0/1)
  int min_leaf = 2;           // trees: fewest results in a leaf
};

class PredictorModel {
 public:
  PredictorModel(const space::Space& space, const PredictorModelOptions& options);

  // Adds one result (a canonical encoding of the space and its target); the prediction changes at
  // the next Refit.
  void Add(const space::Encoding& encoding, double target);
  // Refits every member on its own bootstrap sample (drawn from `rng`) of the results added so far
  // (at least one).
  void Refit(std::mt19937_64& rng);
  // Drops every result, then adds (encodings, targets) and refits.
  void Fit(const std::vector<space::Encoding>& encodings, const std::vector<double>& targets,
           std::mt19937_64& rng);
  size_t size() const { return x_.size(); }
  // Mean and standard deviation over the members of the prediction for `e` (0 and 0 before the
  // first fit).
  void Predict(const space::Encoding& e, double& mean, double& sd) const;
  bool fitted() const { return fitted_; }

 private:
  struct TreeNode {
    int position = -1;  // -1: a leaf
    int value = 0;      // left: encoding[position] == value
    int left = 0, right = 0;
    double prediction = 0.0;
  };
  struct Member {
    bool ridge = true;
    std::vector<double> weights;  // ridge: intercept, then one per feature
    std::vector<TreeNode> tree;
  };

  struct Data {
    const std::vector<space::Encoding>& x;
    const std::vector<double>& y;
  };

  void FitRidge(const Data& d, const std::vector<size_t>& sample, Member& m) const;
  int Grow(const Data& d, std::vector<size_t>& rows, size_t begin, size_t end, std::mt19937_64& rng,
           std::vector<TreeNode>& tree) const;
  double PredictMember(const Member& m, const space::Encoding& e) const;

  const space::Space& space_;
  PredictorModelOptions options_;
  std::vector<size_t> offsets_;  // first one-hot feature of each position
  size_t features_ = 0;
  std::vector<Member> members_;
  std::vector<space::Encoding> x_;  // the results added
  std::vector<double> y_;
  bool fitted_ = false;
};

}  // namespace dcnas::search
