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
  if (g.k <= rows && g.n <= cols) {
    const int64_t gpp = std::max<int64_t>(1, std::min(rows / g.k, cols / g.n));
    out.passes = CeilDiv(g.groups, gpp);
  } else {
    out.passes = g.groups * CeilDiv(g.k, rows) * CeilDiv(g.n, cols);
  }
  const int64_t units = geo.units_per_core;
  const int64_t m_core = CeilDiv(g.m, geo.cores);
  int64_t m_unit = m_core;
  if (out.passes >= units) {
    out.rounds = CeilDiv(out.passes, units);
  } else {
    out.rounds = 1;
    m_unit = CeilDiv(m_core, units / out.passes);
  }
  const double load = geo.pipeline_scale * static_cast<double>(rows);
  const double fill = load;
  const double drain = geo.pipeline_scale * static_cast<double>(cols);
  out.cycles = load + static_cast<double>(out.rounds) *
                          (std::max(static_cast<double>(m_unit), load) + fill + drain);
  const double capacity = out.cycles * static_cast<double>(rows * cols * units * geo.cores);
  out.utilization = static_cast<double>(g.macs()) / capacity;
  return out;
}

MatrixCycles TensorCoreCycles(const Gemm& g, const TensorCoreGeometry& geo) {
  MatrixCycles out;
  if (g.m <= 0 || g.k <= 0 || g.n <= 0 || g.groups <= 0) return out;
  out.passes = g.groups * CeilDiv(g.m, geo.tile_m) * CeilDiv(g.n, geo.tile_n);
  out.rounds = CeilDiv(out.passes, static_cast<int64_t>(geo.sms) * geo.tiles_per_core);
  const double tile_macs = static_cast<double>(CeilDiv(g.k, geo.tile_k) * geo.tile_k) *
                           static_cast<double>(geo.tile_m) * static_cast<double>(geo.tile_n);
  out.cycles =
      static_cast<double>(out.rounds) * tile_macs * geo.tiles_per_core / geo.macs_per_cycle_per_sm;
  out.utilization =
      static_cast<double>(g.macs()) / (out.cycles * geo.macs_per_cycle_per_sm * geo.sms);
  return out;
}

}  // namespace dcnas::sim::cost
