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
