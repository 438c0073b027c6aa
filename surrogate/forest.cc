#include "surrogate/forest.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <string>

#include <nlohmann/json.hpp>

#include "common/errors.h"

namespace dcnas::surrogate {
namespace {

// Rows walked through one tree together: enough independent walks to hide load latency, few
// enough that their feature rows stay in L1 (64 rows x 100 features x 4 bytes = 25 KiB).
constexpr std::size_t kBlockRows = 64;
// Blocks of fewer rows than this walk each row through kTreeChunk trees at once instead, so the
// independent walks come from different trees (prediction for one candidate at a time).
constexpr std::size_t kFewRows = 8;
constexpr std::size_t kTreeChunk = 16;

const nlohmann::json& At(const nlohmann::json& j, const char* key, const std::string& where) {
  if (!j.is_object() || !j.contains(key)) {
    throw InputError("XGBoost model: missing " + where + "." + key);
  }
  return j[key];
}

std::string String(const nlohmann::json& j, const char* key, const std::string& where) {
  const auto& v = At(j, key, where);
  if (!v.is_string()) throw InputError("XGBoost model: " + where + "." + key + " is not a string");
  return v.get<std::string>();
}

}  // namespace

Forest Forest::FromBooster(const Booster& booster) {
  return FromUbj(booster.SaveToBuffer(ModelFormat::kUbj));
}

Forest Forest::FromUbj(std::string_view ubj) {
  nlohmann::json model;
  try {
    model = nlohmann::json::from_ubjson(ubj);
  } catch (const nlohmann::json::exception& e) {
    throw InputError(std::string("XGBoost model: not UBJSON: ") + e.what());
  }
  try {
    return FromJson(model);
  } catch (const nlohmann::json::exception& e) {
    throw InputError(std::string("XGBoost model: a field of the wrong type: ") + e.what());
  } catch (const std::logic_error& e) {  // std::stoul and friends: invalid_argument, out_of_range
    if (dynamic_cast<const InternalError*>(&e) != nullptr) throw;
    throw InputError(std::string("XGBoost model: a malformed number: ") + e.what());
  }
}

Forest Forest::FromJson(const nlohmann::json& model) {
  const auto& learner = At(model, "learner", "model");
  const auto objective = String(At(learner, "objective", "learner"), "name", "learner.objective");
  if (objective != "reg:squarederror") {
    throw InputError("XGBoost model: objective '" + objective +
                     "' is not supported (only reg:squarederror)");
  }
  const auto& lmp = At(learner, "learner_model_param", "learner");
  Forest f;
  f.base_score_ = std::strtof(String(lmp, "base_score", "learner_model_param").c_str(), nullptr);
  f.num_features_ = std::stoul(String(lmp, "num_feature", "learner_model_param"));
  const std::string num_target =
      lmp.contains("num_target") ? lmp["num_target"].get<std::string>() : std::string("1");
  if (std::stoi(num_target) > 1) throw InputError("XGBoost model: multi-target models unsupported");
  const auto& gb = At(learner, "gradient_booster", "learner");
  if (String(gb, "name", "gradient_booster") != "gbtree") {
    throw InputError("XGBoost model: only gbtree boosters are supported");
  }
  const auto& trees = At(At(gb, "model", "gradient_booster"), "trees", "gradient_booster.model");
  for (std::size_t t = 0; t < trees.size(); ++t) {
    const std::string where = "trees[" + std::to_string(t) + "]";
    const auto& tree = trees[t];
    const auto left = At(tree, "left_children", where).get<std::vector<std::int64_t>>();
    const auto right = At(tree, "right_children", where).get<std::vector<std::int64_t>>();
    const auto index = At(tree, "split_indices", where).get<std::vector<std::int64_t>>();
    const auto cond = At(tree, "split_conditions", where).get<std::vector<float>>();
    const auto dleft = At(tree, "default_left", where).get<std::vector<int>>();
    const auto type = At(tree, "split_type", where).get<std::vector<int>>();
    const std::size_t n = left.size();
    if (n == 0 || right.size() != n || index.size() != n || cond.size() != n || dleft.size() != n ||
        type.size() != n) {
      throw InputError("XGBoost model: " + where + ": inconsistent node arrays");
    }
    // Renumber breadth first from the root so a tree's nodes are contiguous and ordered by level.
    const auto offset = static_cast<std::uint32_t>(f.nodes_.size());
    std::vector<std::int64_t> order = {0};
    std::vector<std::uint32_t> new_id(n, UINT32_MAX);
    std::vector<int> depth_of(n, 0);
    new_id[0] = 0;
    int depth = 0;
    for (std::size_t i = 0; i < order.size(); ++i) {
      const auto id = order[i];
      if (left[id] < 0) continue;
      if (type[id] != 0) throw InputError("XGBoost model: categorical splits are unsupported");
      for (auto child : {left[id], right[id]}) {
        if (child < 0 || static_cast<std::size_t>(child) >= n || new_id[child] != UINT32_MAX) {
          throw InputError("XGBoost model: " + where + ": malformed tree");
        }
        new_id[child] = static_cast<std::uint32_t>(order.size());
        depth_of[child] = depth_of[id] + 1;
        depth = std::max(depth, depth_of[child]);
        order.push_back(child);
      }
      if (index[id] < 0 || static_cast<std::size_t>(index[id]) >= f.num_features_) {
        throw InputError("XGBoost model: " + where + ": split on feature " +
                         std::to_string(index[id]) + " of " + std::to_string(f.num_features_));
      }
    }
    if (depth > 255) throw InputError("XGBoost model: " + where + " is deeper than 255 levels");
    for (std::size_t i = 0; i < order.size(); ++i) {
      const auto id = order[i];
      const auto self = offset + static_cast<std::uint32_t>(i);
      if (left[id] < 0) {
        f.nodes_.push_back({std::numeric_limits<float>::infinity(), 0u, self});
        f.leaf_value_.push_back(cond[id]);
        f.default_left_.push_back(0);
      } else {
        if (new_id[right[id]] != new_id[left[id]] + 1) {
          throw InternalError("Forest: breadth-first children are not adjacent");
        }
        f.nodes_.push_back(
            {cond[id], static_cast<std::uint32_t>(index[id]), offset + new_id[left[id]]});
        f.leaf_value_.push_back(0.0f);
        f.default_left_.push_back(dleft[id] != 0 ? 1 : 0);
      }
    }
    f.tree_offset_.push_back(offset);
    f.tree_depth_.push_back(static_cast<std::uint8_t>(depth));
  }
  return f;
}

std::uint32_t Forest::Step(std::uint32_t id, const float* row) const {
  const Node& node = nodes_[id];
  if (node.left == id) return id;  // a leaf
  const float v = row[node.feature];
  return node.left +
         static_cast<std::uint32_t>(std::isnan(v) ? default_left_[id] == 0 : !(v < node.value));
}

float Forest::PredictRow(const float* row, bool finite) const {
  const Node* nodes = nodes_.data();
  const std::size_t num_trees = tree_offset_.size();
  std::uint32_t at[kTreeChunk];
  float sum = base_score_;
  for (std::size_t first = 0; first < num_trees; first += kTreeChunk) {
    const std::size_t n = std::min(kTreeChunk, num_trees - first);
    int depth = 0;
    for (std::size_t k = 0; k < n; ++k) {
      at[k] = tree_offset_[first + k];
      depth = std::max<int>(depth, tree_depth_[first + k]);
    }
    for (int level = 0; level < depth; ++level) {
      if (finite) {
        for (std::size_t k = 0; k < n; ++k) {
          const Node& node = nodes[at[k]];
          at[k] = node.left + static_cast<std::uint32_t>(!(row[node.feature] < node.value));
        }
      } else {
        for (std::size_t k = 0; k < n; ++k) at[k] = Step(at[k], row);
      }
    }
    // Leaf values are added in model order, as XGBoost adds them.
    for (std::size_t k = 0; k < n; ++k) sum += leaf_value_[at[k]];
  }
  return sum;
}

void Forest::Predict(MatrixView x, std::span<float> out) const {
  if (out.size() != x.rows) {
    throw InternalError("Forest::Predict: output has " + std::to_string(out.size()) +
                        " entries for " + std::to_string(x.rows) + " rows");
  }
  if (x.rows > 0 && x.cols != num_features_) {
    throw InputError("surrogate expects " + std::to_string(num_features_) + " features, got " +
                     std::to_string(x.cols));
  }
  const Node* nodes = nodes_.data();
  const std::size_t cols = x.cols;
  std::uint32_t at[kBlockRows];
  float sum[kBlockRows];
  for (std::size_t begin = 0; begin < x.rows; begin += kBlockRows) {
    const std::size_t m = std::min(kBlockRows, x.rows - begin);
    const float* rows = x.data + begin * cols;
    bool finite = true;
    for (std::size_t k = 0; k < m * cols; ++k) finite &= std::isfinite(rows[k]);
    if (m < kFewRows) {
      for (std::size_t i = 0; i < m; ++i) out[begin + i] = PredictRow(rows + i * cols, finite);
      continue;
    }
    std::fill(sum, sum + m, base_score_);
    for (std::size_t t = 0; t < tree_offset_.size(); ++t) {
      const int depth = tree_depth_[t];
      std::fill(at, at + m, tree_offset_[t]);
      for (int level = 0; level < depth; ++level) {
        if (finite) {
          for (std::size_t i = 0; i < m; ++i) {
            const Node& node = nodes[at[i]];
            at[i] = node.left +
                    static_cast<std::uint32_t>(!(rows[i * cols + node.feature] < node.value));
          }
        } else {
          for (std::size_t i = 0; i < m; ++i) at[i] = Step(at[i], rows + i * cols);
        }
      }
      for (std::size_t i = 0; i < m; ++i) sum[i] += leaf_value_[at[i]];
    }
    std::copy(sum, sum + m, out.data() + begin);
  }
}

}  // namespace dcnas::surrogate
