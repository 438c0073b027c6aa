#include "models/op.h"

#include <algorithm>
#include <string>

#include "common/errors.h"
#include "common/text.h"
#include "models/op_kinds.h"

namespace dcnas::models {
namespace {

constexpr std::array<std::string_view, 7> kActivationNames = {
    "relu", "relu6", "swish", "sigmoid", "hard_swish", "hard_sigmoid", "gelu"};

int SamePad(int64_t in, int kernel, int stride, int dilation) {
  const int64_t out = (in + stride - 1) / stride;
  const int64_t effective = static_cast<int64_t>(kernel - 1) * dilation + 1;
  return static_cast<int>(std::max<int64_t>((out - 1) * stride + effective - in, 0));
}

}  // namespace

std::string_view OpKindName(OpKind kind) { return KindInfo(kind).name; }

OpKind ParseOpKind(std::string_view name) {
  std::vector<std::string> names;
  for (const auto& info : AllKinds()) {
    if (info.name == name) return info.kind;
    names.emplace_back(info.name);
  }
  throw InputError("unknown op kind '" + std::string(name) + "' (valid: " + Join(names, ", ") +
                   ")");
}

std::string_view ActivationName(Activation activation) {
  return kActivationNames.at(static_cast<size_t>(activation));
}

Activation ParseActivation(std::string_view name) {
  for (size_t i = 0; i < kActivationNames.size(); ++i) {
    if (kActivationNames[i] == name) return static_cast<Activation>(i);
  }
  if (name == "silu") return Activation::kSwish;
  throw InputError("unknown activation '" + std::string(name) +
                   "' (valid: relu, relu6, swish (silu), sigmoid, hard_swish, hard_sigmoid, gelu)");
}

std::string_view PoolModeName(PoolMode mode) { return mode == PoolMode::kAvg ? "avg" : "max"; }

PoolMode ParsePoolMode(std::string_view name) {
  if (name == "avg") return PoolMode::kAvg;
  if (name == "max") return PoolMode::kMax;
  throw InputError("unknown pool mode '" + std::string(name) + "' (valid: avg, max)");
}

ResolvedPadding ResolvePadding(const OpAttrs& attrs, int64_t in_h, int64_t in_w) {
  const Padding& p = attrs.padding;
  if (!p.same) return ResolvedPadding{p.top, p.bottom, p.left, p.right};
  const int total_h = SamePad(in_h, attrs.kernel_h, attrs.stride_h, attrs.dilation_h);
  const int total_w = SamePad(in_w, attrs.kernel_w, attrs.stride_w, attrs.dilation_w);
  return ResolvedPadding{total_h / 2, total_h - total_h / 2, total_w / 2, total_w - total_w / 2};
}

}  // namespace dcnas::models

namespace dcnas::models {

std::string OpDetail(const Op& op) {
  const OpAttrs& a = op.attrs;
  auto window = [&] {
    std::string s = std::to_string(a.kernel_h) + "x" + std::to_string(a.kernel_w);
    if (a.stride_h != 1 || a.stride_w != 1) s += "/" + std::to_string(a.stride_h);
    if (a.dilation_h != 1) s += " d" + std::to_string(a.dilation_h);
    return s;
  };
  switch (op.kind) {
    case OpKind::kConv2d: {
      std::string s = "conv " + window();
      if (a.groups > 1) {
        s = (a.groups == a.out_channels ? "dwconv " : "gconv ") + window();
        if (a.groups != a.out_channels) s += " g" + std::to_string(a.groups);
      }
      if (a.bias) s += " +b";
      return s;
    }
    case OpKind::kActivation:
      return std::string(ActivationName(a.activation));
    case OpKind::kPool:
      return std::string(PoolModeName(a.pool)) + "pool " + window();
    case OpKind::kGlobalPool:
      return "global " + std::string(PoolModeName(a.pool)) + "pool";
    case OpKind::kFullyConnected:
      return std::string("fc") + (a.bias ? " +b" : "");
    case OpKind::kSpaceToDepth:
      return "space_to_depth b" + std::to_string(a.block_size);
    case OpKind::kSpaceToBatch:
      return "space_to_batch b" + std::to_string(a.block_size);
    case OpKind::kBatchToSpace:
      return "batch_to_space b" + std::to_string(a.block_size);
    case OpKind::kTranspose:
      return "transpose " + std::to_string(a.perm[0]) + std::to_string(a.perm[1]) +
             std::to_string(a.perm[2]) + std::to_string(a.perm[3]);
    case OpKind::kConstant:
      return a.learned ? "parameter" : "constant";
    case OpKind::kConcat:
      return a.axis == 3 ? "concat" : "concat axis " + std::to_string(a.axis);
    default:
      return std::string(OpKindName(op.kind));
  }
}

}  // namespace dcnas::models
