// A synthetic regression problem shared by the surrogate tests: y = x0 + 2 x1 - x2 + 0.5 x3 x4
// + N(0, noise^2) on uniform [0, 1) features (terms on absent features are 0); the remaining
// features are distractors.
#pragma once

#include <cstdint>
#include <random>
#include <vector>

#include "surrogate/xgboost.h"

namespace dcnas::surrogate::testing {

struct SyntheticData {
  Matrix x;
  std::vector<float> y;
  LabeledView view() const { return {x.view(), y}; }
};

inline SyntheticData MakeSynthetic(std::size_t rows, std::size_t cols, double noise,
                                   std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<float> u(0.0f, 1.0f);
  std::normal_distribution<double> n(0.0, 1.0);
  SyntheticData d{Matrix(rows, cols), std::vector<float>(rows)};
  for (std::size_t r = 0; r < rows; ++r) {
    for (std::size_t c = 0; c < cols; ++c) d.x.at(r, c) = u(rng);
    auto f = [&](std::size_t c) { return c < cols ? static_cast<double>(d.x.at(r, c)) : 0.0; };
    const double y = f(0) + 2.0 * f(1) - f(2) + 0.5 * f(3) * f(4) + noise * n(rng);
    d.y[r] = static_cast<float>(y);
  }
  return d;
}

}  // namespace dcnas::surrogate::testing
