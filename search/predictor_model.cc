#include "search/predictor_model.h"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "common/errors.h"
#include "common/table.h"

namespace dcnas::search {
namespace {

// A random forest tries this fraction of the positions at each split (Breiman's p/3 for
// regression), at least one.
constexpr double kTreePositionFraction = 1.0 / 3.0;

// Solves (a) x = b for a symmetric positive definite `a` (n x n, row-major) by Cholesky; `a` and
// `b` are overwritten. False when `a` is not positive definite.
bool SolveSpd(std::vector<double>& a, std::vector<double>& b, size_t n) {
  for (size_t j = 0; j < n; ++j) {
    double d = a[j * n + j];
    for (size_t k = 0; k < j; ++k) d -= a[j * n + k] * a[j * n + k];
    if (!(d > 0.0)) return false;
    d = std::sqrt(d);
    a[j * n + j] = d;
    for (size_t i = j + 1; i < n; ++i) {
      double s = a[i * n + j];
      for (size_t k = 0; k < j; ++k) s -= a[i * n + k] * a[j * n + k];
      a[i * n + j] = s / d;
    }
  }
  for (size_t i = 0; i < n; ++i) {  // L y = b
    double s = b[i];
    for (size_t k = 0; k < i; ++k) s -= a[i * n + k] * b[k];
    b[i] = s / a[i * n + i];
  }
  for (size_t i = n; i-- > 0;) {  // L^T x = y
    double s = b[i];
    for (size_t k = i + 1; k < n; ++k) s -= a[k * n + i] * b[k];
    b[i] = s / a[i * n + i];
  }
  return true;
}

}  // namespace

std::string PredictorModelName(PredictorModelKind kind) {
  switch (kind) {
    case PredictorModelKind::kMixed:
      return "mixed";
    case PredictorModelKind::kRidge:
      return "ridge";
    case PredictorModelKind::kTrees:
      return "trees";
  }
  throw InternalError("unknown PredictorModelKind");
}

PredictorModelKind ParsePredictorModel(const std::string& name) {
  for (const PredictorModelKind k :
       {PredictorModelKind::kMixed, PredictorModelKind::kRidge, PredictorModelKind::kTrees}) {
    if (PredictorModelName(k) == name) return k;
  }
  throw InputError("--model '" + name + "': not a predictor model (valid: mixed, ridge, trees)");
}

PredictorModel::PredictorModel(const space::Space& space, const PredictorModelOptions& options)
    : space_(space), options_(options) {
  if (options_.members < 1) {
    throw InputError("--ensemble " + std::to_string(options_.members) + ": must be >= 1");
  }
  if (!(options_.ridge_lambda > 0.0) || !std::isfinite(options_.ridge_lambda)) {
    throw InputError("ridge_lambda " + FormatSignificant(options_.ridge_lambda) + ": must be > 0");
  }
  if (options_.min_leaf < 1) {
    throw InputError("min_leaf " + std::to_string(options_.min_leaf) + ": must be >= 1");
  }
  for (int count : space.choice_counts()) {
    offsets_.push_back(features_);
    features_ += static_cast<size_t>(count);
  }
}

void PredictorModel::Add(const space::Encoding& encoding, double target) {
  if (encoding.size() != offsets_.size()) {
    throw InternalError("PredictorModel::Add: an encoding of " + std::to_string(encoding.size()) +
                        " positions for a space of " + std::to_string(offsets_.size()));
  }
  x_.push_back(encoding);
  y_.push_back(target);
}

void PredictorModel::Fit(const std::vector<space::Encoding>& encodings,
                         const std::vector<double>& targets, std::mt19937_64& rng) {
  if (encodings.empty() || encodings.size() != targets.size()) {
    throw InternalError("PredictorModel::Fit: " + std::to_string(encodings.size()) +
                        " encodings, " + std::to_string(targets.size()) + " targets");
  }
  x_.clear();
  y_.clear();
  for (size_t i = 0; i < encodings.size(); ++i) Add(encodings[i], targets[i]);
  Refit(rng);
}

void PredictorModel::Refit(std::mt19937_64& rng) {
  if (x_.empty()) throw InternalError("PredictorModel::Refit with no result");
  const Data d{x_, y_};
  const size_t n = x_.size();
  const size_t m = std::min(n, kMaxBootstrapSample);
  members_.assign(static_cast<size_t>(options_.members), {});
  for (size_t k = 0; k < members_.size(); ++k) {
    Member& member = members_[k];
    member.ridge = options_.kind == PredictorModelKind::kRidge ||
                   (options_.kind == PredictorModelKind::kMixed && k % 2 == 0);
    std::vector<size_t> sample(m);
    for (size_t& s : sample) s = static_cast<size_t>(rng() % n);
    if (member.ridge) {
      FitRidge(d, sample, member);
    } else {
      member.tree.clear();
      Grow(d, sample, 0, m, rng, member.tree);
    }
  }
  fitted_ = true;
}

void PredictorModel::FitRidge(const Data& d, const std::vector<size_t>& sample, Member& m) const {
  const size_t f = features_;
  const auto n = static_cast<double>(sample.size());
  // Centred features and targets: the intercept is not penalised.
  std::vector<double> mean_x(f, 0.0);
  double mean_y = 0.0;
  for (size_t r : sample) {
    for (size_t p = 0; p < offsets_.size(); ++p) {
      mean_x[offsets_[p] + static_cast<size_t>(d.x[r][p])] += 1.0;
    }
    mean_y += d.y[r];
  }
  for (double& v : mean_x) v /= n;
  mean_y /= n;
  // X^T X of the one-hot rows is a count matrix; centring subtracts n * mean mean^T.
  std::vector<double> a(f * f, 0.0), b(f, 0.0);
  std::vector<size_t> active(offsets_.size());
  for (size_t r : sample) {
    for (size_t p = 0; p < offsets_.size(); ++p) {
      active[p] = offsets_[p] + static_cast<size_t>(d.x[r][p]);
    }
    const double yc = d.y[r] - mean_y;
    for (size_t i : active) {
      b[i] += yc;
      for (size_t j : active) a[i * f + j] += 1.0;
    }
  }
  for (size_t i = 0; i < f; ++i) {
    for (size_t j = 0; j < f; ++j) a[i * f + j] -= n * mean_x[i] * mean_x[j];
    a[i * f + i] += options_.ridge_lambda;
  }
  if (!SolveSpd(a, b, f)) throw InternalError("ridge system not positive definite");
  m.weights.assign(f + 1, 0.0);
  double intercept = mean_y;
  for (size_t i = 0; i < f; ++i) {
    m.weights[i + 1] = b[i];
    intercept -= mean_x[i] * b[i];
  }
  m.weights[0] = intercept;
}

int PredictorModel::Grow(const Data& d, std::vector<size_t>& rows, size_t begin, size_t end,
                         std::mt19937_64& rng, std::vector<TreeNode>& tree) const {
  const int index = static_cast<int>(tree.size());
  tree.emplace_back();
  const size_t n = end - begin;
  double sum = 0.0;
  for (size_t i = begin; i < end; ++i) sum += d.y[rows[i]];
  tree[static_cast<size_t>(index)].prediction = sum / static_cast<double>(n);
  const auto min_leaf = static_cast<size_t>(options_.min_leaf);
  if (n < 2 * min_leaf) return index;

  // The positions tried: a random subset (partial Fisher-Yates).
  const size_t positions = offsets_.size();
  std::vector<size_t> order(positions);
  std::iota(order.begin(), order.end(), size_t{0});
  const auto tried = std::max<size_t>(
      1, static_cast<size_t>(std::ceil(kTreePositionFraction * static_cast<double>(positions))));
  const double base = sum * sum / static_cast<double>(n);
  double best_gain = 1e-12 * (1.0 + std::abs(base));
  int best_position = -1, best_value = 0;
  std::vector<double> sums;
  std::vector<size_t> counts;
  for (size_t t = 0; t < tried; ++t) {
    std::swap(order[t], order[t + static_cast<size_t>(rng() % (positions - t))]);
    const size_t p = order[t];
    const auto values = static_cast<size_t>(space_.choice_counts()[p]);
    sums.assign(values, 0.0);
    counts.assign(values, 0);
    for (size_t i = begin; i < end; ++i) {
      const auto v = static_cast<size_t>(d.x[rows[i]][p]);
      sums[v] += d.y[rows[i]];
      ++counts[v];
    }
    for (size_t v = 0; v < values; ++v) {
      if (counts[v] < min_leaf || n - counts[v] < min_leaf) continue;
      const double rest = sum - sums[v];
      const double gain = sums[v] * sums[v] / static_cast<double>(counts[v]) +
                          rest * rest / static_cast<double>(n - counts[v]) - base;
      if (gain > best_gain) {
        best_gain = gain;
        best_position = static_cast<int>(p);
        best_value = static_cast<int>(v);
      }
    }
  }
  if (best_position < 0) return index;
  const auto middle = std::partition(
      rows.begin() + static_cast<std::ptrdiff_t>(begin),
      rows.begin() + static_cast<std::ptrdiff_t>(end),
      [&](size_t r) { return d.x[r][static_cast<size_t>(best_position)] == best_value; });
  const auto split = static_cast<size_t>(middle - rows.begin());
  const int left = Grow(d, rows, begin, split, rng, tree);
  const int right = Grow(d, rows, split, end, rng, tree);
  TreeNode& node = tree[static_cast<size_t>(index)];
  node.position = best_position;
  node.value = best_value;
  node.left = left;
  node.right = right;
  return index;
}

double PredictorModel::PredictMember(const Member& m, const space::Encoding& e) const {
  if (m.ridge) {
    double s = m.weights[0];
    for (size_t p = 0; p < offsets_.size(); ++p) {
      s += m.weights[1 + offsets_[p] + static_cast<size_t>(e[p])];
    }
    return s;
  }
  size_t i = 0;
  while (m.tree[i].position >= 0) {
    const TreeNode& node = m.tree[i];
    i = static_cast<size_t>(e[static_cast<size_t>(node.position)] == node.value ? node.left
                                                                                : node.right);
  }
  return m.tree[i].prediction;
}

void PredictorModel::Predict(const space::Encoding& e, double& mean, double& sd) const {
  mean = 0.0;
  sd = 0.0;
  if (!fitted_) return;
  double sum = 0.0, sum2 = 0.0;
  for (const Member& m : members_) {
    const double v = PredictMember(m, e);
    sum += v;
    sum2 += v * v;
  }
  const auto k = static_cast<double>(members_.size());
  mean = sum / k;
  sd = std::sqrt(std::max(0.0, sum2 / k - mean * mean));
}

}  // namespace dcnas::search
