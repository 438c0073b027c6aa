// Zero-cost proxies (models/torch/zero_cost.h) on a network small enough to score by hand: the
// reference values below are computed with plain loops over the same numbers, independently of
// LibTorch and of the implementation's code path.
#include "models/torch/zero_cost_torch.h"

#include <catch2/catch.hpp>

#include <array>
#include <cmath>
#include <vector>

#include "common/errors.h"
#include "models/builder.h"

namespace dcnas::models::libtorch {
namespace {

constexpr int kImages = 3;
constexpr int kFilters = 2;
constexpr int kClasses = 2;

// A 1-channel 4x4 input, a 3x3 convolution of 2 filters (no padding, no bias: a 2x2 output),
// ReLU, global average pooling, a dense layer to 2 classes (no bias).
struct Tiny {
  Graph graph;
  int conv = 0;
  int dense = 0;
};

Tiny BuildTiny() {
  GraphBuilder b(GraphInfo{"zc-tiny", 4, kImages, DType::kFp32, kClasses});
  Tiny t;
  int x = b.Input(4, 4, 1);
  GraphBuilder::ConvOptions valid;
  valid.padding = Padding{};
  t.conv = b.Conv(x, kFilters, 3, valid);
  x = b.Act(t.conv, Activation::kRelu);
  x = b.GlobalPool(x);
  t.dense = b.FullyConnected(x, kClasses, /*bias=*/false);
  t.graph = b.Finish();
  return t;
}

// Values that are multiples of 1/4, so that every product and sum below is exact in float and
// the sign of a pre-activation (zero included) is the same here as in LibTorch.
double Pixel(int n, int i, int j) { return ((n * 16 + i * 4 + j) * 7 % 11 - 5) / 4.0; }
double ConvWeight(int f, int k) { return ((f * 9 + k) * 5 % 7 - 3) / 4.0; }  // k = 3 * a + b
constexpr double kDense[kClasses][kFilters] = {{0.5, -1.0}, {1.5, 0.25}};
constexpr int kLabels[kImages] = {0, 1, 1};

// The hand-computed scores.
struct Expected {
  double synflow = 0, naswot = 0, grad_norm = 0, snip = 0;
};

Expected ComputeByHand() {
  Expected e;
  // Forward: z[n][f][p] (p = 2 * i + j, the 2x2 output positions), ReLU, mean, logits.
  double z[kImages][kFilters][4], g[kImages][kFilters], logits[kImages][kClasses];
  for (int n = 0; n < kImages; ++n) {
    for (int f = 0; f < kFilters; ++f) {
      g[n][f] = 0;
      for (int i = 0; i < 2; ++i) {
        for (int j = 0; j < 2; ++j) {
          double sum = 0;
          for (int a = 0; a < 3; ++a) {
            for (int b = 0; b < 3; ++b) sum += ConvWeight(f, 3 * a + b) * Pixel(n, i + a, j + b);
          }
          z[n][f][2 * i + j] = sum;
          g[n][f] += std::max(sum, 0.0) / 4.0;
        }
      }
    }
    for (int c = 0; c < kClasses; ++c) {
      logits[n][c] = 0;
      for (int f = 0; f < kFilters; ++f) logits[n][c] += kDense[c][f] * g[n][f];
    }
  }
  // Backward of the mean cross-entropy: dL/dlogit = (softmax - onehot) / N.
  double dlogit[kImages][kClasses];
  for (int n = 0; n < kImages; ++n) {
    const double m = std::max(logits[n][0], logits[n][1]);
    const double e0 = std::exp(logits[n][0] - m), e1 = std::exp(logits[n][1] - m);
    dlogit[n][0] = (e0 / (e0 + e1) - (kLabels[n] == 0 ? 1 : 0)) / kImages;
    dlogit[n][1] = (e1 / (e0 + e1) - (kLabels[n] == 1 ? 1 : 0)) / kImages;
  }
  double grad_dense[kClasses][kFilters] = {}, grad_conv[kFilters][9] = {};
  for (int n = 0; n < kImages; ++n) {
    for (int f = 0; f < kFilters; ++f) {
      double dg = 0;  // dL/dg[n][f]
      for (int c = 0; c < kClasses; ++c) {
        grad_dense[c][f] += dlogit[n][c] * g[n][f];
        dg += dlogit[n][c] * kDense[c][f];
      }
      for (int i = 0; i < 2; ++i) {
        for (int j = 0; j < 2; ++j) {
          if (z[n][f][2 * i + j] <= 0) continue;  // ReLU passes no gradient
          for (int a = 0; a < 3; ++a) {
            for (int b = 0; b < 3; ++b)
              grad_conv[f][3 * a + b] += dg / 4.0 * Pixel(n, i + a, j + b);
          }
        }
      }
    }
  }
  double conv_sq = 0, dense_sq = 0;
  for (int f = 0; f < kFilters; ++f) {
    for (int k = 0; k < 9; ++k) {
      conv_sq += grad_conv[f][k] * grad_conv[f][k];
      e.snip += std::abs(ConvWeight(f, k) * grad_conv[f][k]);
    }
    for (int c = 0; c < kClasses; ++c) {
      dense_sq += grad_dense[c][f] * grad_dense[c][f];
      e.snip += std::abs(kDense[c][f] * grad_dense[c][f]);
    }
  }
  e.grad_norm = std::sqrt(conv_sq) + std::sqrt(dense_sq);

  // synflow: |weights|, one image of ones. Every output position of filter f sees the same sum
  // s_f = sum_k |w_fk|; the pooled value is s_f (when positive), R = sum_c sum_f |v_cf| s_f.
  // dR/d|v_cf| = s_f; dR/d|w_fk| = sum_c |v_cf| (4 positions x 1/4 of the mean x input 1).
  for (int f = 0; f < kFilters; ++f) {
    double s = 0;
    for (int k = 0; k < 9; ++k) s += std::abs(ConvWeight(f, k));
    const double on = s > 0 ? 1.0 : 0.0;
    double v_sum = 0;
    for (int c = 0; c < kClasses; ++c) {
      v_sum += std::abs(kDense[c][f]);
      e.synflow += std::abs(kDense[c][f]) * s * on;
    }
    for (int k = 0; k < 9; ++k) e.synflow += std::abs(ConvWeight(f, k)) * v_sum * on;
  }

  // naswot: codes of the 8 ReLU units per image; K_ij = units where images i and j agree.
  double k[kImages][kImages];
  for (int a = 0; a < kImages; ++a) {
    for (int b = 0; b < kImages; ++b) {
      k[a][b] = 0;
      for (int f = 0; f < kFilters; ++f) {
        for (int p = 0; p < 4; ++p) k[a][b] += (z[a][f][p] > 0) == (z[b][f][p] > 0) ? 1 : 0;
      }
    }
  }
  const double det = k[0][0] * (k[1][1] * k[2][2] - k[1][2] * k[2][1]) -
                     k[0][1] * (k[1][0] * k[2][2] - k[1][2] * k[2][0]) +
                     k[0][2] * (k[1][0] * k[2][1] - k[1][1] * k[2][0]);
  REQUIRE(det != 0);  // the example must have distinct codes
  e.naswot = std::log(std::abs(det));
  return e;
}

::torch::Tensor Images() {
  ::torch::Tensor x = ::torch::zeros({kImages, 1, 4, 4});
  for (int n = 0; n < kImages; ++n) {
    for (int i = 0; i < 4; ++i) {
      for (int j = 0; j < 4; ++j) x[n][0][i][j] = Pixel(n, i, j);
    }
  }
  return x;
}

::torch::Tensor Labels() {
  return ::torch::tensor(std::vector<int64_t>(kLabels, kLabels + kImages), ::torch::kLong);
}

GraphModule TinyModule(const Tiny& t) {
  GraphModule module(t.graph);
  ::torch::NoGradGuard no_grad;
  auto params = module->named_parameters();
  ::torch::Tensor& w = params["op" + std::to_string(t.conv) + ".weight"];
  ::torch::Tensor& v = params["op" + std::to_string(t.dense) + ".weight"];
  REQUIRE(w.sizes().vec() == std::vector<int64_t>{kFilters, 1, 3, 3});
  REQUIRE(v.sizes().vec() == std::vector<int64_t>{kClasses, kFilters});
  for (int f = 0; f < kFilters; ++f) {
    for (int k = 0; k < 9; ++k) w[f][0][k / 3][k % 3] = ConvWeight(f, k);
    for (int c = 0; c < kClasses; ++c) v[c][f] = kDense[c][f];
  }
  return module;
}

TEST_CASE("zero-cost scores of a tiny network equal the hand computation") {
  const Tiny t = BuildTiny();
  GraphModule module = TinyModule(t);
  const ::torch::Tensor before = module->parameters()[0].clone();
  const Expected e = ComputeByHand();
  const ZeroCostScores s = ComputeZeroCost(module, Images(), Labels());
  CHECK(s.synflow == Approx(e.synflow).epsilon(1e-9));
  CHECK(s.naswot == Approx(e.naswot).epsilon(1e-9));
  CHECK(s.grad_norm == Approx(e.grad_norm).epsilon(1e-5));
  CHECK(s.snip == Approx(e.snip).epsilon(1e-5));
  CHECK(s.time_s >= 0);
  // The scores are not trivial, and the module keeps its weights.
  CHECK(e.synflow > 0);
  CHECK(e.grad_norm > 0);
  CHECK(::torch::equal(module->parameters()[0], before));
  CHECK(module->parameters()[0].scalar_type() == ::torch::kFloat);
}

TEST_CASE("zero-cost scores are deterministic for a seed") {
  const Tiny t = BuildTiny();
  ::torch::set_num_threads(1);
  const ZeroCostScores a = ComputeZeroCost(t.graph, Images(), Labels(), 7);
  const ZeroCostScores b = ComputeZeroCost(t.graph, Images(), Labels(), 7);
  const ZeroCostScores c = ComputeZeroCost(t.graph, Images(), Labels(), 8);
  CHECK(a.synflow == b.synflow);
  CHECK(a.naswot == b.naswot);
  CHECK(a.grad_norm == b.grad_norm);
  CHECK(a.snip == b.snip);
  CHECK(a.synflow != c.synflow);
}

TEST_CASE("the memory guard refuses a network over the limit, naming it") {
  const Tiny t = BuildTiny();
  // Per image: input 16 + conv 8 + ReLU 8 + pooled 2 + logits 2 = 36 floats; x 3 images x 4
  // bytes x 3 for the backward pass.
  REQUIRE(ZeroCostMemoryBytes(t.graph, kImages) == 36 * 3 * 4 * 3);
  CHECK_NOTHROW(ComputeZeroCost(t.graph, Images(), Labels(), 0, 1296));
  CHECK_THROWS_AS(ComputeZeroCost(t.graph, Images(), Labels(), 0, 1295), InputError);
  CHECK_THROWS_WITH(ComputeZeroCost(t.graph, Images(), Labels(), 0, 1295),
                    Catch::Contains("'zc-tiny'") && Catch::Contains("1296 bytes"));
}

}  // namespace
}  // namespace dcnas::models::libtorch
