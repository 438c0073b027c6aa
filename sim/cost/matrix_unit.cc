#include "sim/cost/matrix_unit.h"

#include <algorithm>

namespace dcnas::sim::cost {
namespace {

int64_t CeilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

}  // namespace

int64_t AlignUp(int64_t value, int64_t alignment) {
  if (alignment <= 1) return value;
  return CeilDiv(value, alignment) * alignment;
}

MatrixCycles SystolicCycles(const Gemm& g, const SystolicGeometry& geo) {
  MatrixCycles out;
  if (g.m <= 0 || g.k <= 0 || g.n <= 0 || g.groups <= 0) return out;
  const int64_t rows = geo.rows;
  const int64_t cols = geo.cols;
  const int64_t m_core = CeilDiv(g.m, geo.cores);
  int64_t temporal = m_core;
  switch (geo.dataflow) {
    case Dataflow::kWeightStationary:
      // Groups pack block-diagonally in one weight tile; the streamed rows serve them all.
      if (g.k <= rows && g.n <= cols) {
        const int64_t gpp = std::max<int64_t>(1, std::min(rows / g.k, cols / g.n));
        out.passes = CeilDiv(g.groups, gpp);
      } else {
        out.passes = g.groups * CeilDiv(g.k, rows) * CeilDiv(g.n, cols);
      }
      break;
    case Dataflow::kOutputStationary: {
      // Outputs M x N stay; groups pack side by side along the columns (N), and their
      // reductions stream one after the other (zero weights for the other groups).
      if (g.n <= cols) {
        const int64_t gpp = std::min(g.groups, std::max<int64_t>(1, cols / g.n));
        out.passes = CeilDiv(g.groups, gpp) * CeilDiv(m_core, rows);
        temporal = gpp * g.k;
      } else {
        out.passes = g.groups * CeilDiv(m_core, rows) * CeilDiv(g.n, cols);
        temporal = g.k;
      }
      break;
    }
    case Dataflow::kInputStationary: {
      // Inputs K x M stay; groups pack along the rows (K), their filters streaming in turn.
      if (g.k <= rows) {
        const int64_t gpp = std::min(g.groups, std::max<int64_t>(1, rows / g.k));
        out.passes = CeilDiv(g.groups, gpp) * CeilDiv(m_core, cols);
        temporal = gpp * g.n;
      } else {
        out.passes = g.groups * CeilDiv(g.k, rows) * CeilDiv(m_core, cols);
        temporal = g.n;
      }
      break;
    }
  }
  const int64_t units = geo.units_per_core;
  int64_t t_unit = temporal;
  if (out.passes >= units) {
    out.rounds = CeilDiv(out.passes, units);
  } else {
    out.rounds = 1;
    t_unit = CeilDiv(temporal, units / out.passes);
  }
  const double fill = geo.pipeline_scale * static_cast<double>(rows);
  const double drain = geo.pipeline_scale * static_cast<double>(cols);
  const auto t = static_cast<double>(t_unit);
  const auto rounds = static_cast<double>(out.rounds);
  if (geo.dataflow == Dataflow::kOutputStationary) {
    // Nothing stationary is loaded: both operands stream in (skewed over the rows) and the
    // outputs accumulate in place, then drain down the columns. Double-buffered accumulators
    // drain a fold's outputs under the next fold's stream; only the last drain is exposed.
    out.cycles = geo.double_buffered ? drain + rounds * (std::max(t, drain) + fill)
                                     : rounds * (fill + drain + t - 2.0);
  } else {
    // The stationary tile (weights, or inputs) is loaded down the rows before the stream.
    const double load = fill;
    out.cycles = geo.double_buffered ? load + rounds * (std::max(t, load) + fill + drain)
                                     : rounds * (load + fill + drain + t - 2.0);
  }
  const double capacity = out.cycles * static_cast<double>(rows * cols * units * geo.cores);
  out.utilization = static_cast<double>(g.macs()) / capacity;
  return out;
}

namespace {

MatrixCycles TileCycles(const Gemm& g, const TensorCoreGeometry& geo, int64_t tm, int64_t tn) {
  const int64_t tiles = g.groups * CeilDiv(g.m, tm) * CeilDiv(g.n, tn);
  const int64_t slots = static_cast<int64_t>(geo.sms) * geo.tiles_per_core;
  const int64_t k_steps = CeilDiv(g.k, geo.tile_k);
  const double tile_area = static_cast<double>(tm) * static_cast<double>(tn);
  double step = tile_area / geo.macs_per_cycle_per_sm;
  if (geo.operand_bytes_per_cycle_per_sm > 0) {
    const double operand =
        static_cast<double>((tm + tn) * geo.element_bytes) / geo.operand_bytes_per_cycle_per_sm;
    step = std::max(step, operand);
  }
  step *= static_cast<double>(geo.tile_k) * geo.tiles_per_core;
  auto with_split = [&](int64_t split) {
    MatrixCycles c;
    c.passes = tiles;
    c.rounds = CeilDiv(tiles * split, slots);
    c.cycles = static_cast<double>(c.rounds) * static_cast<double>(CeilDiv(k_steps, split)) * step;
    if (split > 1 && geo.operand_bytes_per_cycle_per_sm > 0) {
      // Partial sums (fp32) written and read back once per split.
      c.cycles += 2.0 * static_cast<double>(tiles * split) * tile_area * 4.0 /
                  (geo.operand_bytes_per_cycle_per_sm * geo.sms);
    }
    return c;
  };
  MatrixCycles out = with_split(1);
  if (geo.split_k && tiles < slots) {
    // A split-K kernel is a separate candidate: it wins only when the K loop dominates.
    const MatrixCycles split = with_split(std::min(slots / tiles, k_steps));
    if (split.cycles < out.cycles) out = split;
  }
  return out;
}

}  // namespace

MatrixCycles TensorCoreCycles(const Gemm& g, const TensorCoreGeometry& geo) {
  MatrixCycles out;
  if (g.m <= 0 || g.k <= 0 || g.n <= 0 || g.groups <= 0) return out;
  // The accelerator's own tile hides its operand loads (its shortfall is matrix_efficiency);
  // only the smaller candidates pay the operand-bandwidth bound.
  TensorCoreGeometry own = geo;
  own.operand_bytes_per_cycle_per_sm = 0;
  out = TileCycles(g, own, geo.tile_m, geo.tile_n);
  if (geo.min_tile > 0) {
    for (int64_t tm = geo.tile_m; tm >= geo.min_tile; tm /= 2) {
      for (int64_t tn = geo.tile_n; tn >= geo.min_tile; tn /= 2) {
        if (tm == geo.tile_m && tn == geo.tile_n) continue;
        const MatrixCycles c = TileCycles(g, geo, tm, tn);
        if (c.cycles < out.cycles) out = c;
      }
    }
  }
  out.utilization =
      static_cast<double>(g.macs()) / (out.cycles * geo.macs_per_cycle_per_sm * geo.sms);
  return out;
}

}  // namespace dcnas::sim::cost
