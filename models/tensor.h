// Tensor types of the layer graph: NHWC shapes with a batch dimension, and a dtype.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

namespace dcnas::models {

enum class DType : uint8_t { kFp32, kFp16, kBf16, kInt8 };
// Every dtype, in enum order.
inline constexpr std::array<DType, 4> kAllDTypes = {DType::kFp32, DType::kFp16, DType::kBf16,
                                                    DType::kInt8};

// The names of kAllDTypes, comma-separated ("fp32, fp16, bf16, int8"), for messages.
std::string AllDTypeNames();

// Bytes per element of a dtype.
int DTypeBytes(DType dtype);
std::string_view DTypeName(DType dtype);
// Parses "fp32", "fp16", "bf16", "int8"; throws InputError listing the valid names otherwise.
DType ParseDType(std::string_view name);

// An NHWC shape. Rank-2 tensors (after flatten or a fully connected layer) are {n, 1, 1, c}.
struct Shape {
  int64_t n = 1;
  int64_t h = 1;
  int64_t w = 1;
  int64_t c = 1;

  int64_t elements() const { return n * h * w * c; }
  int64_t per_image() const { return h * w * c; }
  bool operator==(const Shape&) const = default;
};

std::string ShapeString(const Shape& shape);  // "1x224x224x3"

struct TensorType {
  Shape shape;
  DType dtype = DType::kFp32;

  int64_t bytes() const { return shape.elements() * DTypeBytes(dtype); }
  bool operator==(const TensorType&) const = default;
};

}  // namespace dcnas::models
