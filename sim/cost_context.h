// MakeCostContext: resolves an accelerator, a software stack and a calibration for one dtype into
// the plain cost::CostContext the cost layer (sim/cost/) computes with.
#pragma once

#include "models/tensor.h"
#include "sim/calibration_params.h"
#include "sim/cost/op_cost.h"
#include "sim/spec.h"
#include "sim/stack.h"

namespace dcnas::sim {

// The cost context of (spec, stack, calibration, dtype): peak rates, usable on-chip capacity,
// kernel overhead, alignment, the stack's kernel rules, the calibration's parameters and their
// combined fingerprint.
cost::CostContext MakeCostContext(const AcceleratorSpec& spec, const StackProfile& stack,
                                  const CalibrationParams& calibration, models::DType dtype);

}  // namespace dcnas::sim
