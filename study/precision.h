// The default-precision rule: which dtype a study runs in when the user names none.
#pragma once

#include <string>

namespace dcnas::study {

// The dtype an accelerator kind runs by default: bf16 (tpu), fp16 (gpu), fp32 (anything else).
std::string DefaultPrecision(const std::string& accelerator_kind);

// The dtype of a run: `precision` when given, else DefaultPrecision(accelerator_kind).
std::string PrecisionFor(const std::string& precision, const std::string& accelerator_kind);

// The dtype a model is built with: `precision` when given, else DefaultPrecision() when `dtype`
// is "auto", else `dtype`.
std::string ResolveDType(const std::string& dtype, const std::string& precision,
                         const std::string& accelerator_kind);

}  // namespace dcnas::study
