#include "models/tensor.h"

#include <string>
#include <vector>

#include "common/errors.h"
#include "common/text.h"

namespace dcnas::models {

int DTypeBytes(DType dtype) {
  switch (dtype) {
    case DType::kFp32:
      return 4;
    case DType::kFp16:
    case DType::kBf16:
      return 2;
    case DType::kInt8:
      return 1;
  }
  throw InternalError("unknown dtype");
}

std::string_view DTypeName(DType dtype) {
  switch (dtype) {
    case DType::kFp32:
      return "fp32";
    case DType::kFp16:
      return "fp16";
    case DType::kBf16:
      return "bf16";
    case DType::kInt8:
      return "int8";
  }
  throw InternalError("unknown dtype");
}

std::string AllDTypeNames() {
  std::vector<std::string> names;
  for (DType d : kAllDTypes) names.emplace_back(DTypeName(d));
  return Join(names, ", ");
}

DType ParseDType(std::string_view name) {
  for (DType d : kAllDTypes) {
    if (DTypeName(d) == name) return d;
  }
  throw InputError("unknown dtype '" + std::string(name) + "' (valid: " + AllDTypeNames() + ")");
}

std::string ShapeString(const Shape& shape) {
  return std::to_string(shape.n) + "x" + std::to_string(shape.h) + "x" + std::to_string(shape.w) +
         "x" + std::to_string(shape.c);
}

}  // namespace dcnas::models
