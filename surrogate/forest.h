// A compiled copy of a trained XGBoost regression model for fast batch prediction.
//
// XGBoost's in-place predictor walks each row through every tree in turn. Forest lays each tree
// out flat (12-byte nodes, leaves pointing at themselves) and walks a block of rows through one
// tree at a time for a fixed number of levels, so the rows' walks are independent and branch-free
// and the tree stays in L1. It adds the trees' leaf values to XGBoost's base score in the same
// order and float precision as XGBoost's CPU predictor (cpu_predictor.cc, PredictByAllTrees), so
// its predictions are bit-identical to Booster::Predict (tests hold it to that).
//
// Supported: gbtree models with numerical splits, objective reg:squarederror, one target (what
// Regressor trains). Anything else is refused with an InputError.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "surrogate/xgboost.h"

namespace dcnas::surrogate {

class Forest {
 public:
  // From XGBoost's UBJSON model (Booster::SaveToBuffer(ModelFormat::kUbj)).
  static Forest FromUbj(std::string_view ubj);
  // From XGBoost's JSON or UBJSON model (told apart by the byte after the opening '{').
  static Forest FromModel(std::string_view bytes);
  // Refuses (InputError naming the field) a model that XGBoost's loader must not be given: what
  // FromModel refuses. Checked: learner, objective reg:squarederror, finite base_score,
  // num_feature, gbtree with trees, tree_info and gbtree_model_param.num_trees agreeing (and
  // iteration_indptr when present); per tree: the node arrays (left/right_children, parents,
  // split_indices, split_conditions, split_type, default_left, base_weights, loss_changes,
  // sum_hessian) all tree_param.num_nodes long, children in range and reached once from the
  // root (no cycles), split features below num_feature, finite conditions and leaf values, no
  // categorical splits.
  static void CheckModel(std::string_view bytes);
  static Forest FromBooster(const Booster& booster);

  // One prediction per row of `x` into `out` (x.rows entries); x.cols must be num_features().
  // Stateless: safe to call from any number of threads at once.
  void Predict(MatrixView x, std::span<float> out) const;

  std::size_t num_features() const { return num_features_; }
  std::size_t num_trees() const { return tree_offset_.size(); }
  float base_score() const { return base_score_; }

 private:
  // The parse behind FromUbj and FromModel; FromParsed turns json and std::sto* exceptions of
  // FromJson into InputError.
  static Forest FromParsed(const nlohmann::json& model);
  static Forest FromJson(const nlohmann::json& model);

  // Children are stored next to each other (breadth-first renumbering), so a walk step is
  // `left + !(x[feature] < value)`, without a branch. A leaf has value +inf and left = itself, so
  // finite inputs stay on it; inputs holding NaN or inf take a slower path that checks leaves.
  struct Node {
    float value;            // split condition; +inf for a leaf
    std::uint32_t feature;  // split feature (0 for a leaf)
    std::uint32_t left;     // left child (right child = left + 1); a leaf: itself
  };
  // One walk step on a row that may hold NaN (missing: the default direction) or inf.
  std::uint32_t Step(std::uint32_t id, const float* row) const;
  float PredictRow(const float* row, bool finite) const;

  std::vector<Node> nodes_;
  std::vector<float> leaf_value_;           // per node: the leaf value (0 for inner nodes)
  std::vector<std::uint32_t> tree_offset_;  // first node of each tree in nodes_
  std::vector<std::uint8_t> tree_depth_;    // levels to walk (max leaf depth)
  std::vector<std::uint8_t> default_left_;  // per node: missing values go left
  std::size_t num_features_ = 0;
  float base_score_ = 0.0f;
};

}  // namespace dcnas::surrogate
