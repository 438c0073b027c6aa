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
  return FromParsed(model);
}

namespace {

// A number XGBoost writes as a string ("6.5E1", or "[6.5E1]" from XGBoost 3): the whole text
// must parse, and the value must be finite.
float ParseFloatField(const std::string& text, const std::string& where) {
  std::string t = text;
  if (t.size() >= 2 && t.front() == '[' && t.back() == ']') t = t.substr(1, t.size() - 2);
  char* end = nullptr;
  const float v = t.empty() ? 0.0f : std::strtof(t.c_str(), &end);
  if (t.empty() || end != t.c_str() + t.size() || !std::isfinite(v)) {
    throw InputError("XGBoost model: " + where + ": '" + text + "' is not a finite number");
  }
  return v;
}

// A non-negative integer written as a string ("97"); at most `max`.
std::size_t ParseCountField(const std::string& text, const std::string& where, std::size_t max) {
  std::size_t v = 0;
  bool ok = !text.empty() && text.size() <= 18;
  for (char c : text) {
    if (c < '0' || c > '9') {
      ok = false;
      break;
    }
    v = v * 10 + static_cast<std::size_t>(c - '0');
  }
  if (!ok || v > max) {
    throw InputError("XGBoost model: " + where + ": '" + text + "' is not a count in [0, " +
                     std::to_string(max) + "]");
  }
  return v;
}

// A count that XGBoost writes as a string, or (other writers) as a JSON integer.
std::size_t CountField(const nlohmann::json& j, const char* key, const std::string& where,
                       std::size_t max) {
  const auto& v = At(j, key, where);
  if (v.is_number_unsigned() && v.get<std::uint64_t>() <= max) return v.get<std::size_t>();
  if (v.is_string()) return ParseCountField(v.get<std::string>(), where + "." + key, max);
  throw InputError("XGBoost model: " + where + "." + key + ": " + v.dump() +
                   " is not a count in [0, " + std::to_string(max) + "]");
}

template <typename T>
std::vector<T> Array(const nlohmann::json& j, const char* key, const std::string& where) {
  const auto& v = At(j, key, where);
  if (!v.is_array()) throw InputError("XGBoost model: " + where + "." + key + " is not an array");
  return v.get<std::vector<T>>();
}

// Limits beyond which a model is refused as implausible for a surrogate (and so that sizes and
// indices fit the 32-bit node ids).
constexpr std::size_t kMaxFeatures = 1u << 20;
constexpr std::size_t kMaxNodes = 1u << 24;
constexpr std::size_t kMaxTrees = 1u << 20;

}  // namespace

void Forest::CheckModel(std::string_view bytes) { (void)FromModel(bytes); }

Forest Forest::FromModel(std::string_view bytes) {
  // UBJSON's '{' is followed by a type marker ('i', 'U', 'L', '$', '#', ...), JSON's by
  // whitespace, '"' or '}'.
  std::size_t i = 1;
  while (i < bytes.size() &&
         (bytes[i] == ' ' || bytes[i] == '\n' || bytes[i] == '\r' || bytes[i] == '\t')) {
    ++i;
  }
  const bool json = !bytes.empty() && bytes[0] == '{' &&
                    (i > 1 || (i < bytes.size() && (bytes[i] == '"' || bytes[i] == '}')));
  if (!json) return FromUbj(bytes);
  nlohmann::json model;
  try {
    model = nlohmann::json::parse(bytes);
  } catch (const nlohmann::json::exception& e) {
    throw InputError(std::string("XGBoost model: not JSON: ") + e.what());
  }
  return FromParsed(model);
}

Forest Forest::FromParsed(const nlohmann::json& model) {
  try {
    return FromJson(model);
  } catch (const nlohmann::json::exception& e) {
    throw InputError(std::string("XGBoost model: a field of the wrong type: ") + e.what());
  } catch (const std::logic_error& e) {  // std::sto* and friends: invalid_argument, out_of_range
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
  f.base_score_ = ParseFloatField(String(lmp, "base_score", "learner_model_param"),
                                  "learner_model_param.base_score");
  f.num_features_ = CountField(lmp, "num_feature", "learner_model_param", kMaxFeatures);
  if (f.num_features_ == 0) {
    throw InputError("XGBoost model: learner_model_param.num_feature: 0 features");
  }
  if (lmp.contains("num_target") &&
      CountField(lmp, "num_target", "learner_model_param", kMaxFeatures) > 1) {
    throw InputError("XGBoost model: multi-target models unsupported");
  }
  if (lmp.contains("num_class") &&
      CountField(lmp, "num_class", "learner_model_param", kMaxFeatures) > 1) {
    throw InputError(
        "XGBoost model: learner_model_param.num_class: multi-class models "
        "unsupported");
  }
  const auto& gb = At(learner, "gradient_booster", "learner");
  if (String(gb, "name", "gradient_booster") != "gbtree") {
    throw InputError("XGBoost model: only gbtree boosters are supported");
  }
  const auto& gbm = At(gb, "model", "gradient_booster");
  const auto& trees = At(gbm, "trees", "gradient_booster.model");
  if (!trees.is_array())
    throw InputError("XGBoost model: gradient_booster.model.trees: not an array");
  if (trees.size() > kMaxTrees) {
    throw InputError(
        "XGBoost model: gradient_booster.model.trees: " + std::to_string(trees.size()) +
        " trees (at most " + std::to_string(kMaxTrees) + ")");
  }
  const std::size_t num_trees = trees.size();
  // XGBoost indexes tree_info, gbtree_model_param.num_trees and iteration_indptr by tree without
  // checking them against each other.
  const auto tree_info = Array<std::int64_t>(gbm, "tree_info", "gradient_booster.model");
  if (tree_info.size() != num_trees) {
    throw InputError(
        "XGBoost model: gradient_booster.model.tree_info: " + std::to_string(tree_info.size()) +
        " entries for " + std::to_string(num_trees) + " trees");
  }
  for (std::size_t t = 0; t < num_trees; ++t) {
    if (tree_info[t] != 0) {
      throw InputError("XGBoost model: gradient_booster.model.tree_info[" + std::to_string(t) +
                       "]: group " + std::to_string(tree_info[t]) + " (one target: only 0)");
    }
  }
  const std::string gmp = "gradient_booster.model.gbtree_model_param";
  const auto& gbtree_param = At(gbm, "gbtree_model_param", "gradient_booster.model");
  const std::size_t declared_trees = CountField(gbtree_param, "num_trees", gmp, kMaxTrees);
  if (declared_trees != num_trees) {
    throw InputError("XGBoost model: " + gmp + ".num_trees: " + std::to_string(declared_trees) +
                     " but trees has " + std::to_string(num_trees));
  }
  if (gbtree_param.contains("num_parallel_tree") &&
      CountField(gbtree_param, "num_parallel_tree", gmp, kMaxTrees) != 1) {
    throw InputError("XGBoost model: " + gmp + ".num_parallel_tree: only 1 is supported");
  }
  if (gbm.contains("iteration_indptr")) {
    const auto indptr = Array<std::int64_t>(gbm, "iteration_indptr", "gradient_booster.model");
    bool ok = !indptr.empty() && indptr.front() == 0 &&
              indptr.back() == static_cast<std::int64_t>(num_trees);
    for (std::size_t k = 1; ok && k < indptr.size(); ++k) ok = indptr[k] >= indptr[k - 1];
    if (!ok) {
      throw InputError(
          "XGBoost model: gradient_booster.model.iteration_indptr: not a "
          "non-decreasing list from 0 to the number of trees (" +
          std::to_string(num_trees) + ")");
    }
  }
  std::vector<bool> tree_id_seen(num_trees, false);
  for (std::size_t t = 0; t < num_trees; ++t) {
    const std::string where = "trees[" + std::to_string(t) + "]";
    const auto& tree = trees[t];
    if (tree.contains("id")) {
      const auto& id = tree["id"];
      if (!id.is_number_integer() || id.get<std::int64_t>() < 0 ||
          id.get<std::uint64_t>() >= num_trees || tree_id_seen[id.get<std::size_t>()]) {
        throw InputError("XGBoost model: " + where + ".id: " + id.dump() +
                         " is not a distinct tree index below " + std::to_string(num_trees));
      }
      tree_id_seen[id.get<std::size_t>()] = true;
    }
    const auto left = Array<std::int64_t>(tree, "left_children", where);
    const auto right = Array<std::int64_t>(tree, "right_children", where);
    const auto index = Array<std::int64_t>(tree, "split_indices", where);
    const auto cond = Array<float>(tree, "split_conditions", where);
    const auto dleft = Array<int>(tree, "default_left", where);
    const auto type = Array<int>(tree, "split_type", where);
    const std::size_t n = left.size();
    const std::size_t num_nodes =
        CountField(At(tree, "tree_param", where), "num_nodes", where + ".tree_param", kMaxNodes);
    if (n == 0 || n != num_nodes) {
      throw InputError("XGBoost model: " + where + ".left_children: " + std::to_string(n) +
                       " nodes but tree_param.num_nodes is " + std::to_string(num_nodes));
    }
    const auto same_length = [&](const char* key, std::size_t size) {
      if (size != n) {
        throw InputError("XGBoost model: " + where + "." + key + ": " + std::to_string(size) +
                         " entries for " + std::to_string(n) + " nodes");
      }
    };
    same_length("right_children", right.size());
    same_length("split_indices", index.size());
    same_length("split_conditions", cond.size());
    same_length("default_left", dleft.size());
    same_length("split_type", type.size());
    for (const char* key : {"base_weights", "loss_changes", "sum_hessian"}) {
      const auto values = Array<float>(tree, key, where);
      same_length(key, values.size());
      for (std::size_t i = 0; i < n; ++i) {
        if (!std::isfinite(values[i])) {
          throw InputError("XGBoost model: " + where + "." + key + "[" + std::to_string(i) +
                           "]: not finite");
        }
      }
    }
    const auto parents = Array<std::int64_t>(tree, "parents", where);
    same_length("parents", parents.size());
    for (const char* key :
         {"categories", "categories_nodes", "categories_segments", "categories_sizes"}) {
      if (tree.contains(key) && !(tree[key].is_array() && tree[key].empty())) {
        throw InputError("XGBoost model: " + where + "." + key +
                         ": categorical splits are unsupported");
      }
    }
    // Every node, reachable or not (XGBoost's loader visits them all): children in range (both
    // -1 for a leaf), split feature in range, finite split condition or leaf value, numerical.
    for (std::size_t id = 0; id < n; ++id) {
      const std::string node = where + " node " + std::to_string(id);
      if (!std::isfinite(cond[id])) {
        throw InputError("XGBoost model: " + where + ".split_conditions[" + std::to_string(id) +
                         "]: not finite");
      }
      if (type[id] != 0) throw InputError("XGBoost model: categorical splits are unsupported");
      if (left[id] == -1 && right[id] == -1) continue;
      for (auto child : {left[id], right[id]}) {
        if (child <= 0 || static_cast<std::size_t>(child) >= n) {
          throw InputError("XGBoost model: " + node + ": child index " + std::to_string(child) +
                           " out of range [1, " + std::to_string(n) + ")");
        }
      }
      if (left[id] == right[id]) {
        throw InputError("XGBoost model: " + node + ": both children are node " +
                         std::to_string(left[id]));
      }
      if (index[id] < 0 || static_cast<std::size_t>(index[id]) >= f.num_features_) {
        throw InputError("XGBoost model: " + where + ": split on feature " +
                         std::to_string(index[id]) + " of " + std::to_string(f.num_features_));
      }
    }
    // Renumber breadth first from the root so a tree's nodes are contiguous and ordered by level.
    // A node reached twice (a cycle or a shared child) is refused.
    const auto offset = static_cast<std::uint32_t>(f.nodes_.size());
    std::vector<std::int64_t> order = {0};
    std::vector<std::uint32_t> new_id(n, UINT32_MAX);
    std::vector<int> depth_of(n, 0);
    new_id[0] = 0;
    int depth = 0;
    for (std::size_t i = 0; i < order.size(); ++i) {
      const auto id = order[i];
      if (left[id] < 0) continue;
      for (auto child : {left[id], right[id]}) {
        if (new_id[child] != UINT32_MAX) {
          throw InputError("XGBoost model: " + where + " node " + std::to_string(id) + ": child " +
                           std::to_string(child) + " is reached twice (a cycle or a shared node)");
        }
        if (parents[child] != id) {
          throw InputError("XGBoost model: " + where + ".parents[" + std::to_string(child) +
                           "]: " + std::to_string(parents[child]) + ", but node " +
                           std::to_string(id) + " is its parent");
        }
        new_id[child] = static_cast<std::uint32_t>(order.size());
        depth_of[child] = depth_of[id] + 1;
        depth = std::max(depth, depth_of[child]);
        order.push_back(child);
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
