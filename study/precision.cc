#include "study/precision.h"

namespace dcnas::study {

std::string DefaultPrecision(const std::string& accelerator_kind) {
  if (accelerator_kind == "tpu") return "bf16";
  if (accelerator_kind == "gpu") return "fp16";
  return "fp32";
}

std::string PrecisionFor(const std::string& precision, const std::string& accelerator_kind) {
  return precision.empty() ? DefaultPrecision(accelerator_kind) : precision;
}

std::string ResolveDType(const std::string& dtype, const std::string& precision,
                         const std::string& accelerator_kind) {
  if (dtype == "auto" || !precision.empty()) return PrecisionFor(precision, accelerator_kind);
  return dtype;
}

}  // namespace dcnas::study
