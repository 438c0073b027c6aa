// Matrix-unit cost: pure functions from GEMM dimensions and unit geometry to cycles.
// Formulas: sim/README.md, "Matrix units".
#pragma once

#include <cstdint>

namespace dcnas::sim::cost {

// A batch of `groups` independent GEMMs, each (m x k) * (k x n): a convolution as GEMM has
// m = N*Ho*Wo, k = kh*kw*Cin/groups, n = Cout/groups.
struct Gemm {
  int64_t m = 0;
  int64_t k = 0;
  int64_t n = 0;
  int64_t groups = 1;
  int64_t macs() const { return m * k * n * groups; }
};

struct SystolicGeometry {
  int rows = 128;  // K direction
  int cols = 128;  // N direction
  int units_per_core = 1;
  int cores = 1;
  double pipeline_scale = 1.0;  // multiplies weight-load, fill and drain cycles
};

struct MatrixCycles {
  double cycles = 0;       // on the busiest unit
  int64_t passes = 0;      // weight tiles (systolic) or thread-block tiles (tensor core)
  int64_t rounds = 0;      // passes per unit (systolic) or waves (tensor core)
  double utilization = 0;  // useful MACs / (cycles * all units' MACs per cycle)
};

// Weight-stationary systolic array. Each pass loads a (<= rows) x (<= cols) weight tile and
// streams the m rows of activations through it. Groups that fit side by side in one tile share
// a pass (block-diagonal packing); otherwise K and N are padded to whole tiles.
//   passes      = ceil(groups / gpp) if k <= rows and n <= cols (gpp = min(rows/k, cols/n)),
//                 else groups * ceil(k/rows) * ceil(n/cols)
//   m_core      = ceil(m / cores)              (rows of M split over cores)
//   if passes >= units: rounds = ceil(passes/units), m_unit = m_core
//   else:               rounds = 1, m_unit = ceil(m_core / floor(units/passes))
//   load = fill = s*rows, drain = s*cols       (s = pipeline_scale)
//   cycles = load + rounds * (max(m_unit, load) + fill + drain)
// (the first weight load is exposed; later loads are double-buffered under the streaming).
MatrixCycles SystolicCycles(const Gemm& gemm, const SystolicGeometry& geometry);

struct TensorCoreGeometry {
  int tile_m = 128;
  int tile_n = 128;
  int tile_k = 32;
  int tiles_per_core = 1;  // thread blocks resident per SM
  int sms = 1;
  double macs_per_cycle_per_sm = 512;  // tensor cores per SM * MACs per tensor core per cycle
};

// Tensor cores: thread-block tiles over M and N (tile quantisation), K in tile_k steps, tiles
// scheduled in waves over the SMs (wave quantisation).
//   tiles  = groups * ceil(m/tile_m) * ceil(n/tile_n)
//   waves  = ceil(tiles / (sms * tiles_per_core))
//   cycles = waves * ceil(k/tile_k) * tile_k * tile_m * tile_n * tiles_per_core
//            / macs_per_cycle_per_sm
MatrixCycles TensorCoreCycles(const Gemm& gemm, const TensorCoreGeometry& geometry);

// Rounds a channel count up to a multiple of `alignment` (0 or 1: unchanged).
int64_t AlignUp(int64_t value, int64_t alignment);

}  // namespace dcnas::sim::cost
