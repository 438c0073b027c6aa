#include "sim/cost/matrix_unit.h"

#include <catch2/catch.hpp>

namespace dcnas::sim::cost {
namespace {

SystolicGeometry OneArray() {
  SystolicGeometry g;
  g.rows = 128;
  g.cols = 128;
  g.units_per_core = 1;
  g.cores = 1;
  return g;
}

TEST_CASE("systolic: K = N = 128 GEMM takes M plus load, fill and drain cycles") {
  for (int64_t m : {128, 1000, 4096, 100352}) {
    const MatrixCycles c = SystolicCycles(Gemm{m, 128, 128, 1}, OneArray());
    CHECK(c.passes == 1);
    CHECK(c.rounds == 1);
    // load 128 (exposed once) + stream M + fill 128 + drain 128
    CHECK(c.cycles == Approx(static_cast<double>(m) + 128 + 128 + 128));
    CHECK(c.utilization == Approx(static_cast<double>(m) / (m + 384.0)));
  }
}

TEST_CASE("systolic: K = N = 32 uses 1/16 of the array") {
  const int64_t m = 1 << 20;
  const MatrixCycles full = SystolicCycles(Gemm{m, 128, 128, 1}, OneArray());
  const MatrixCycles thin = SystolicCycles(Gemm{m, 32, 32, 1}, OneArray());
  CHECK(thin.cycles == Approx(full.cycles));
  CHECK(thin.utilization == Approx(full.utilization / 16.0));
}

TEST_CASE("systolic: K and N are padded to whole tiles") {
  const int64_t m = 10000;
  const MatrixCycles c129 = SystolicCycles(Gemm{m, 129, 128, 1}, OneArray());
  CHECK(c129.passes == 2);
  CHECK(c129.cycles == Approx(128 + 2 * (m + 256.0)));
  const MatrixCycles c256 = SystolicCycles(Gemm{m, 256, 256, 1}, OneArray());
  CHECK(c256.passes == 4);
  CHECK(c256.cycles == Approx(128 + 4 * (m + 256.0)));
}

TEST_CASE("systolic: short M is bounded by the weight load") {
  const MatrixCycles c = SystolicCycles(Gemm{8, 128, 128, 1}, OneArray());
  CHECK(c.cycles == Approx(128 + 128 + 256.0));
}

TEST_CASE("systolic: passes spread over units and M over cores") {
  SystolicGeometry g = OneArray();
  g.units_per_core = 2;
  g.cores = 2;
  const int64_t m = 8192;
  // 4 passes over 2 units: 2 rounds; M split over 2 cores.
  const MatrixCycles c = SystolicCycles(Gemm{m, 256, 256, 1}, g);
  CHECK(c.rounds == 2);
  CHECK(c.cycles == Approx(128 + 2 * (m / 2.0 + 256.0)));
  // One pass, two units: M split between them as well.
  const MatrixCycles one = SystolicCycles(Gemm{m, 128, 128, 1}, g);
  CHECK(one.rounds == 1);
  CHECK(one.cycles == Approx(128 + (m / 4.0 + 256.0)));
}

TEST_CASE("systolic: depthwise groups are packed block-diagonally") {
  // 3x3 depthwise: K = 9, N = 1 per group; 14 groups per 128x128 pass.
  const MatrixCycles c = SystolicCycles(Gemm{1000, 9, 1, 140}, OneArray());
  CHECK(c.passes == 10);
  CHECK(c.utilization < 0.01);
}

TEST_CASE("systolic: pipeline scale multiplies load, fill and drain") {
  SystolicGeometry g = OneArray();
  g.pipeline_scale = 0.0;
  CHECK(SystolicCycles(Gemm{5000, 128, 128, 1}, g).cycles == Approx(5000));
}

TensorCoreGeometry V100Like() {
  TensorCoreGeometry g;
  g.tile_m = 128;
  g.tile_n = 128;
  g.tile_k = 32;
  g.tiles_per_core = 1;
  g.sms = 80;
  g.macs_per_cycle_per_sm = 512;
  return g;
}

TEST_CASE("tensor cores: wave quantisation over SMs") {
  const TensorCoreGeometry g = V100Like();
  const MatrixCycles full = TensorCoreCycles(Gemm{int64_t{128} * 80, 256, 128, 1}, g);
  CHECK(full.passes == 80);
  CHECK(full.rounds == 1);
  CHECK(full.cycles == Approx(256.0 * 128 * 128 / 512));
  CHECK(full.utilization == Approx(1.0));
  // One more tile needs a second wave: twice the time for 1.25% more work.
  const MatrixCycles extra = TensorCoreCycles(Gemm{int64_t{128} * 81, 256, 128, 1}, g);
  CHECK(extra.rounds == 2);
  CHECK(extra.cycles == Approx(2 * full.cycles));
  CHECK(extra.utilization == Approx(81.0 / 160.0));
}

TEST_CASE("tensor cores: tile quantisation pads M, N and K") {
  const TensorCoreGeometry g = V100Like();
  const MatrixCycles a = TensorCoreCycles(Gemm{100, 20, 10, 1}, g);
  const MatrixCycles b = TensorCoreCycles(Gemm{128, 32, 128, 1}, g);
  CHECK(a.cycles == Approx(b.cycles));
  CHECK(a.passes == 1);
}

TEST_CASE("AlignUp") {
  CHECK(AlignUp(27, 8) == 32);
  CHECK(AlignUp(32, 8) == 32);
  CHECK(AlignUp(27, 0) == 27);
  CHECK(AlignUp(27, 1) == 27);
}

TEST_CASE("tensor cores: kernel selection picks a smaller tile when M and N are small") {
  TensorCoreGeometry g = V100Like();
  // Batch 1 at 7x7: M = 49, K = 3x3x512, N = 512. The 128x128 tile gives 4 tiles on 80 SMs.
  const Gemm gemm{49, 4608, 512, 1};
  const MatrixCycles fixed = TensorCoreCycles(gemm, g);
  CHECK(fixed.passes == 4);
  CHECK(fixed.cycles == Approx(144.0 * 32 * 128 * 128 / 512));
  g.min_tile = 32;
  // 32x32 tiles: 2 x 16 = 32 tiles, one wave, 16x fewer cycles per K step.
  const MatrixCycles chosen = TensorCoreCycles(gemm, g);
  CHECK(chosen.passes == 32);
  CHECK(chosen.rounds == 1);
  CHECK(chosen.cycles == Approx(144.0 * 32 * 32 * 32 / 512));
  // A GEMM that fills the chip keeps the big tile.
  const Gemm big{int64_t{128} * 80, 256, 128, 1};
  CHECK(TensorCoreCycles(big, g).cycles == Approx(TensorCoreCycles(big, V100Like()).cycles));
}

TEST_CASE("tensor cores: split-K spreads the K loop over idle SMs") {
  TensorCoreGeometry g = V100Like();
  g.min_tile = 32;
  g.split_k = true;
  // Best candidate: 32x64 tiles, 2 x 8 = 16 tiles, K split 5 ways (80 slots), ceil(144 / 5) = 29
  // K steps each (32x32 tiles split only 2 ways: 72 steps of half the MACs, 4608 cycles).
  const MatrixCycles c = TensorCoreCycles(Gemm{49, 4608, 512, 1}, g);
  CHECK(c.passes == 16);
  CHECK(c.rounds == 1);
  CHECK(c.cycles == Approx(29.0 * 32 * 32 * 64 / 512));
  // With an on-chip bandwidth, the partial sums (fp32) are written and read back once.
  g.operand_bytes_per_cycle_per_sm = 1e9;
  const MatrixCycles r = TensorCoreCycles(Gemm{49, 4608, 512, 1}, g);
  CHECK(r.cycles > c.cycles);
  CHECK(r.cycles == Approx(c.cycles + 2.0 * 80 * 32 * 64 * 4 / (1e9 * 80)));
}

TEST_CASE("tensor cores: small tiles become bound by operand bandwidth") {
  TensorCoreGeometry g = V100Like();
  g.tile_m = 64;
  g.tile_n = 64;
  g.min_tile = 32;
  g.element_bytes = 2;
  g.operand_bytes_per_cycle_per_sm = 32;
  // The own 64x64 tile: 2 K steps x 32 x 4096 / 512 = 512 cycles (exempt from the operand bound).
  // A 32x32 tile reads 64 operands (128 bytes: 4 cycles) per K element for 1024 MACs (2 cycles).
  const MatrixCycles c = TensorCoreCycles(Gemm{32, 64, 32, 1}, g);
  CHECK(c.passes == 1);
  CHECK(c.cycles == Approx(64.0 * 4));
  g.operand_bytes_per_cycle_per_sm = 1e6;
  CHECK(TensorCoreCycles(Gemm{32, 64, 32, 1}, g).cycles == Approx(64.0 * 2));
}

}  // namespace
}  // namespace dcnas::sim::cost

namespace dcnas::sim::cost {
namespace {

// SCALE-Sim v2's compute models (ARM-software/scale-sim-v2, scalesim/compute/
// systolic_compute_{ws,os,is}.py; Samajdar et al., arXiv:1811.02883 and ISPASS 2020): a layer
// mapped onto an R x C array with spatial extents Sr x Sc and temporal extent T runs
// ceil(Sr / R) * ceil(Sc / C) folds, each as long as its demand matrices:
//   ws, is: a prefix of R rows (the stationary operand loaded), T rows of stream, a suffix of
//           C - 1 (the outputs drain), skewed over the R rows (+ R - 1): 2R + C + T - 2;
//   os:     no prefix (nothing stationary is loaded): T + C - 1, skewed (+ R - 1): R + C + T - 2;
// with (Sr, Sc, T) = (K, N, M) weight-stationary, (M, N, K) output-stationary and (K, M, N)
// input-stationary (M = output pixels x batch, K = window x channels, N = filters).
double ScaleSimCycles(Dataflow dataflow, int64_t r, int64_t c, int64_t sr, int64_t sc, int64_t t) {
  const auto folds = static_cast<double>(((sr + r - 1) / r) * ((sc + c - 1) / c));
  const int64_t load = dataflow == Dataflow::kOutputStationary ? 0 : r;
  return static_cast<double>(load + r + c + t - 2) * folds;
}

SystolicGeometry ScaleSimArray(Dataflow dataflow, int rows, int cols) {
  SystolicGeometry g;
  g.rows = rows;
  g.cols = cols;
  g.units_per_core = 1;
  g.cores = 1;
  g.dataflow = dataflow;
  g.double_buffered = false;
  return g;
}

TEST_CASE("the three dataflows reproduce SCALE-Sim's compute cycles") {
  struct Layer {
    int64_t m, k, n;
  };
  // Single-fold and multi-fold layers: a 1x1 conv, a 3x3 conv, an FC, a thin and a wide GEMM.
  const std::vector<Layer> layers = {
      {196, 64, 64}, {3136, 576, 64}, {32, 2048, 1000}, {50176, 27, 32}, {49, 4608, 512}};
  for (const auto& [rows, cols] : {std::pair{128, 128}, std::pair{32, 64}, std::pair{256, 16}}) {
    for (const Layer& l : layers) {
      INFO("array " << rows << "x" << cols << ", M=" << l.m << " K=" << l.k << " N=" << l.n);
      const Gemm gemm{l.m, l.k, l.n, 1};
      CHECK(SystolicCycles(gemm, ScaleSimArray(Dataflow::kWeightStationary, rows, cols)).cycles ==
            ScaleSimCycles(Dataflow::kWeightStationary, rows, cols, l.k, l.n, l.m));
      CHECK(SystolicCycles(gemm, ScaleSimArray(Dataflow::kOutputStationary, rows, cols)).cycles ==
            ScaleSimCycles(Dataflow::kOutputStationary, rows, cols, l.m, l.n, l.k));
      CHECK(SystolicCycles(gemm, ScaleSimArray(Dataflow::kInputStationary, rows, cols)).cycles ==
            ScaleSimCycles(Dataflow::kInputStationary, rows, cols, l.k, l.m, l.n));
    }
  }
}

TEST_CASE("SCALE-Sim v2's fold lengths, spelled out for one layer per dataflow") {
  // A 3x3 convolution of 64 to 128 channels over a 28 x 28 map at batch 1 on 128 x 128:
  // M = 784 output pixels, K = 576, N = 128.
  const Gemm conv{784, 576, 128, 1};
  // ws: 5 x 1 folds of weights (K = 576 over 128 rows), each 2*128 + 128 + 784 - 2 = 1166.
  CHECK(SystolicCycles(conv, ScaleSimArray(Dataflow::kWeightStationary, 128, 128)).cycles ==
        5 * 1166);
  // os: 7 x 1 folds of outputs (M = 784 over 128 rows), each 128 + 128 + 576 - 2 = 830 (the
  // weight-stationary form would charge 958: the load of a stationary operand os never has).
  CHECK(SystolicCycles(conv, ScaleSimArray(Dataflow::kOutputStationary, 128, 128)).cycles ==
        7 * 830);
  // is: 5 x 7 folds of inputs (K = 576 over the rows, M = 784 over the columns), each
  // 2*128 + 128 + 128 - 2 = 510.
  CHECK(SystolicCycles(conv, ScaleSimArray(Dataflow::kInputStationary, 128, 128)).cycles ==
        35 * 510);
}

TEST_CASE("double-buffered output accumulators drain under the next fold's stream") {
  // 7 folds of outputs, a 576-long reduction each: the drain (128) hides under the stream, the
  // last one is exposed: 128 + 7 * (576 + 128).
  const Gemm conv{784, 576, 128, 1};
  SystolicGeometry os = ScaleSimArray(Dataflow::kOutputStationary, 128, 128);
  os.double_buffered = true;
  CHECK(SystolicCycles(conv, os).cycles == 128 + 7 * (576 + 128));
  // A reduction shorter than the drain: the drain sets the pace.
  const Gemm shallow{784, 16, 128, 1};
  CHECK(SystolicCycles(shallow, os).cycles == 128 + 7 * (128 + 128));
}

TEST_CASE("double buffering hides every stationary load after the first") {
  // 4 x 4 = 16 folds of a 512 x 512 weight tile, M = 1000 rows streamed per fold.
  const Gemm gemm{1000, 512, 512, 1};
  SystolicGeometry g = ScaleSimArray(Dataflow::kWeightStationary, 128, 128);
  const double every_fold = SystolicCycles(gemm, g).cycles;
  CHECK(every_fold == 16 * (2 * 128 + 128 + 1000 - 2));
  g.double_buffered = true;
  const MatrixCycles hidden = SystolicCycles(gemm, g);
  CHECK(hidden.cycles == 128 + 16 * (1000 + 128 + 128));
  CHECK(hidden.passes == 16);
  // A single fold pays its load either way; the forms differ by the 2-cycle skew only.
  const Gemm one{1000, 128, 128, 1};
  g.double_buffered = false;
  const double single_off = SystolicCycles(one, g).cycles;
  g.double_buffered = true;
  CHECK(SystolicCycles(one, g).cycles - single_off == 2);
}

TEST_CASE("output-stationary arrays suit long reductions, weight-stationary long streams") {
  SystolicGeometry ws = ScaleSimArray(Dataflow::kWeightStationary, 128, 128);
  SystolicGeometry os = ScaleSimArray(Dataflow::kOutputStationary, 128, 128);
  // A weight gradient: few outputs (576 x 64), a reduction over 100k pixels: weight-stationary
  // folds the reduction 784 times (784 x 958 cycles), output-stationary folds the 576 outputs 5
  // times and streams the reduction (5 x 100606).
  const Gemm wgrad{576, 100352, 64, 1};
  CHECK(SystolicCycles(wgrad, ws).cycles == 784 * 958);
  CHECK(SystolicCycles(wgrad, os).cycles == 5 * 100606);
  // A forward 1x1 conv over a large map: many output rows, a short reduction; the reverse.
  const Gemm conv{100352, 64, 64, 1};
  CHECK(SystolicCycles(conv, ws).cycles == 100734);
  CHECK(SystolicCycles(conv, os).cycles == 784 * 318);
  // A depthwise layer (128 channels, 3x3): output-stationary packs the 128 one-column groups
  // side by side and streams their 9-tap reductions in turn: 98 folds of 128 x 9 cycles of stream.
  const Gemm dw{12544, 9, 1, 128};
  CHECK(SystolicCycles(dw, os).passes == 98);
  CHECK(SystolicCycles(dw, os).cycles == 98 * (128 + 128 + 128 * 9 - 2));
  // Input-stationary packs 14 groups of 9 channels along the rows.
  SystolicGeometry is = ScaleSimArray(Dataflow::kInputStationary, 128, 128);
  CHECK(SystolicCycles(dw, is).passes == 10 * 98);
  CHECK(SystolicCycles(dw, is).cycles == 10 * 98 * (2 * 128 + 128 + 14 - 2));
  // Utilisation never exceeds 1 under any dataflow.
  for (Dataflow d :
       {Dataflow::kWeightStationary, Dataflow::kOutputStationary, Dataflow::kInputStationary}) {
    SystolicGeometry g = ScaleSimArray(d, 128, 128);
    CHECK(SystolicCycles(wgrad, g).utilization <= 1.0);
    CHECK(SystolicCycles(conv, g).utilization <= 1.0);
    CHECK(SystolicCycles(dw, g).utilization <= 1.0);
  }
}

}  // namespace
}  // namespace dcnas::sim::cost
