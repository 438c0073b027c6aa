// Matrix-unit cost: pure functions from GEMM dimensions and unit geometry to cycles.
// Formulas: sim/README.md, "Matrix units".
#pragma once

#include <cstdint>

#include "sim/cost/types.h"

namespace dcnas::sim::cost {

// The systolic arrays a GEMM runs on.
struct SystolicGeometry {
  int rows = 128;  // R
  int cols = 128;  // C
  int units_per_core = 1;
  int cores = 1;
  double pipeline_scale = 1.0;  // multiplies the stationary-operand load, fill and drain cycles
  Dataflow dataflow = Dataflow::kWeightStationary;
  bool double_buffered = true;
};

// Cycles of one GEMM on the matrix unit, with its tiling.
struct MatrixCycles {
  double cycles = 0;       // on the busiest unit
  int64_t passes = 0;      // folds (systolic) or thread-block tiles (tensor core)
  int64_t rounds = 0;      // passes per unit (systolic) or waves (tensor core)
  double utilization = 0;  // useful MACs / (cycles * all units' MACs per cycle)
};

// A systolic array of R x C PEs. The dataflow decides which operand stays in the PEs and which
// dimension streams through in time (SCALE-Sim's mapping), with m = ceil(m / cores) first (the
// rows of M split over cores):
//   ws (weights K x N stay, T = m):  groups pack block-diagonally in one tile:
//     passes = ceil(groups / gpp) if k <= R and n <= C (gpp = min(R/k, C/n)),
//              else groups * ceil(k/R) * ceil(n/C)
//   os (outputs M x N stay, T = k):  groups pack along the columns, their reductions streaming in
//     turn: gpp = min(groups, C/n), passes = ceil(groups/gpp) * ceil(m/R), T = gpp * k
//     (n > C: passes = groups * ceil(m/R) * ceil(n/C), T = k)
//   is (inputs K x M stay, T = n):   groups pack along the rows: gpp = min(groups, R/k),
//     passes = ceil(groups/gpp) * ceil(m/C), T = gpp * n
//     (k > R: passes = groups * ceil(k/R) * ceil(m/C), T = n)
//   if passes >= units: rounds = ceil(passes/units), T_unit = T
//   else:               rounds = 1, T_unit = ceil(T / floor(units/passes))
//   load = fill = s*R, drain = s*C       (s = pipeline_scale)
// ws and is load a stationary tile down the rows before each stream:
//   double-buffered (the next fold's tile moves in while the current one streams; the first
//   load is exposed):  cycles = load + rounds * (max(T_unit, load) + fill + drain)
//   not double-buffered (every fold pays its load; SCALE-Sim v2's (2R + C + T - 2) per fold at
//   s = 1):            cycles = rounds * (load + fill + drain + T_unit - 2)
// os loads nothing: both operands stream in and the outputs accumulate in place, then drain:
//   double-buffered (a fold's outputs drain under the next fold's stream; the last drain is
//   exposed):          cycles = drain + rounds * (max(T_unit, drain) + fill)
//   not double-buffered (SCALE-Sim v2's output-stationary fold, (R + C + T - 2) at s = 1):
//                      cycles = rounds * (fill + drain + T_unit - 2)
MatrixCycles SystolicCycles(const Gemm& gemm, const SystolicGeometry& geometry);

// The SMs, tiles and rates a tensor-core (or CUDA-core) GEMM runs with.
struct TensorCoreGeometry {
  int tile_m = 128;
  int tile_n = 128;
  int tile_k = 32;
  int tiles_per_core = 1;  // thread blocks resident per SM
  int sms = 1;
  double macs_per_cycle_per_sm = 512;  // tensor cores per SM * MACs per tensor core per cycle
  // Kernel selection (0: the one tile above). Otherwise every tile tile_m/2^i x tile_n/2^j with
  // both edges >= min_tile is a candidate and the fastest is chosen, as TensorRT's autotuner and
  // cuDNN's heuristics pick among kernels: small tiles fill more SMs when M or N is small.
  int min_tile = 0;
  // Split-K: when one wave has idle SMs, the K loop of each tile is split over them and the
  // partial sums are reduced through on-chip memory.
  bool split_k = false;
  // On-chip (L2) bandwidth per SM for the operand tiles, bytes per cycle (0: not limiting). Each
  // K step of a tm x tn tile reads (tm + tn) x tile_k operand elements and does tm x tn x tile_k
  // MACs: a small tile reuses each loaded element less and becomes bandwidth-bound.
  double operand_bytes_per_cycle_per_sm = 0;
  int element_bytes = 2;
};

// Tensor cores (and CUDA-core GEMMs, with the CUDA-core rate): thread-block tiles over M and N
// (tile quantisation), K in tile_k steps, tiles scheduled in waves over the SMs (wave
// quantisation). For each candidate tile tm x tn (see min_tile):
//   tiles  = groups * ceil(m/tm) * ceil(n/tn);  slots = sms * tiles_per_core
//   split  = 1, or (split_k && tiles < slots, a second candidate) min(floor(slots/tiles),
//   ceil(k/tile_k)) waves  = ceil(tiles * split / slots) step   = tiles_per_core * tile_k *
//   max(tm*tn / macs_per_cycle_per_sm,
//                                          (tm+tn) * element_bytes /
//                                          operand_bytes_per_cycle_per_sm)
//   cycles = waves * ceil(ceil(k/tile_k) / split) * step
//            + (split > 1 ? 2 * tiles * split * tm*tn * 4 / (operand_bytes_per_cycle_per_sm*sms) :
//            0)
// and the candidate with the fewest cycles is used. The accelerator's own tile (tile_m x tile_n)
// is exempt from the operand bound: its shortfall is part of matrix_efficiency.
MatrixCycles TensorCoreCycles(const Gemm& gemm, const TensorCoreGeometry& geometry);

// Rounds a channel count up to a multiple of `alignment` (0 or 1: unchanged).
int64_t AlignUp(int64_t value, int64_t alignment);

}  // namespace dcnas::sim::cost
