// Timing on this machine's CPU with LibTorch, shared by `dcnas measure` and `dcnas calibrate-host`:
// calibrate::RunTimings with models/torch's MeasureGraph as the timer.
#pragma once

#include "calibrate/timing_run.h"
#include "models/torch/measure.h"

namespace dcnas::cli {

// Applies the plan's malloc policy, fills its cpu_model, times it (a progress line on a terminal)
// and, when the plan writes a file, says on stderr how many points were timed and kept.
calibrate::TimingRunResult TimeOnHostCpu(calibrate::TimingPlan plan,
                                         models::libtorch::MeasureMode mode);

}  // namespace dcnas::cli
