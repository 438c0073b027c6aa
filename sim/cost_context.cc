#include "sim/cost_context.h"

#include "common/config_tree.h"

namespace dcnas::sim {

cost::CostContext MakeCostContext(const AcceleratorSpec& spec, const StackProfile& stack,
                                  const CalibrationParams& calibration, models::DType dtype) {
  cost::CostContext c;
  c.dtype = dtype;
  c.matrix_unit = spec.matrix_unit;
  c.cores = spec.cores;
  c.kernels = static_cast<const cost::KernelRules&>(stack);
  c.params = static_cast<const cost::CostParams&>(calibration);
  // The cores run at the clock the board power sustains (the boost clock unless a power section
  // lowers it); the HBM and L2 rates are the chip's own.
  c.clock_hz = spec.sustained_clock_hz();
  c.vector_ops_per_s = spec.PeakVectorOpsPerS(dtype) * (c.clock_hz / spec.clock_hz());
  c.transcendentals_per_s = spec.vector_unit.transcendentals_per_cycle * spec.cores * c.clock_hz;
  c.hbm_bytes_per_s = spec.HbmBytesPerS();
  c.memory_efficiency = cost::AchievedMemoryEfficiency(calibration.memory_efficiency,
                                                       calibration.core_stream_bytes_per_cycle,
                                                       spec.cores * c.clock_hz, c.hbm_bytes_per_s);
  c.onchip_bytes_per_s = spec.ReuseLevel().bandwidth_gbps * 1e9;
  c.usable_onchip_bytes = spec.ReuseCapacityBytes() * calibration.onchip_usable_fraction;
  c.usable_hold_bytes =
      spec.ReuseLevel().per_core ? c.usable_onchip_bytes / spec.cores : c.usable_onchip_bytes;
  c.kernel_overhead_s = stack.kernel_overhead_us * 1e-6 * calibration.kernel_overhead_scale;
  c.matrix_supports_dtype = spec.MatrixSupports(dtype);
  c.alignment = stack.Alignment(dtype);
  c.autocast = stack.autocast && (dtype == models::DType::kFp16 || dtype == models::DType::kBf16);
  uint64_t h = HashMix(spec.fingerprint, stack.fingerprint);
  h = HashMix(h, calibration.Fingerprint());
  c.fingerprint = HashMix(h, static_cast<uint64_t>(dtype));
  return c;
}

}  // namespace dcnas::sim
