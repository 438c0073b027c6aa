// Constant folding for ONNX import: small N-d tensors of known values (shapes, indices, masks)
// and the ONNX operators that compute them, with numpy broadcasting. Values are held as doubles
// with a kind (float, integer, bool) that decides integer division and casts.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace dcnas::models::onnx_import {

enum class ElemKind : uint8_t { kFloat, kInt, kBool };

struct Array {
  std::vector<int64_t> dims;
  std::vector<double> v;
  ElemKind kind = ElemKind::kFloat;

  int64_t size() const;
  int rank() const { return static_cast<int>(dims.size()); }
  // The values as integers (shape operands); throws InputError naming `what` if not integral.
  std::vector<int64_t> Ints(const std::string& what) const;
};

// Element count of dims (1 for a scalar).
int64_t Elements(const std::vector<int64_t>& dims);
// Numpy broadcast of two shapes; throws InputError with `what` when they do not broadcast.
std::vector<int64_t> BroadcastDims(const std::vector<int64_t>& a, const std::vector<int64_t>& b,
                                   const std::string& what);
// Normalises a possibly negative axis against rank; throws InputError naming `what`.
int NormAxis(int64_t axis, int rank, const std::string& what);

// Attributes of the node being evaluated.
struct NodeAttrs {
  std::function<bool(const char*)> has;
  std::function<int64_t(const char*, int64_t)> i;
  std::function<double(const char*, double)> f;
  std::function<std::vector<int64_t>(const char*)> ints;
};

// Whether op_type can be folded when all its inputs are known.
bool Foldable(const std::string& op_type);

// Evaluates a foldable node on known inputs (absent optional inputs are nullptr). Throws
// InputError naming `where` on a malformed node.
Array Evaluate(const std::string& op_type, const std::vector<const Array*>& inputs,
               const NodeAttrs& attrs, const std::string& where);

// Output dims of Reshape given the input dims and the shape operand (0 copies, -1 infers).
std::vector<int64_t> ReshapeDims(const std::vector<int64_t>& in, const std::vector<int64_t>& shape,
                                 bool allow_zero, const std::string& where);

// Slice parameters resolved per axis: start, step and output length (ONNX clamping rules).
struct SliceAxis {
  int axis = 0;
  int64_t start = 0;
  int64_t step = 1;
  int64_t length = 0;
};
std::vector<SliceAxis> ResolveSlice(const std::vector<int64_t>& dims,
                                    const std::vector<int64_t>& starts,
                                    const std::vector<int64_t>& ends,
                                    const std::vector<int64_t>& axes,
                                    const std::vector<int64_t>& steps, const std::string& where);

}  // namespace dcnas::models::onnx_import
