// The table of op kinds: one row per kind with its name, arity, the attributes it uses, and its
// shape-inference and counting functions. Adding an op kind means one row and its functions here
// (plus a lowering in models/torch/ and, if it needs special costing, a rule in sim/).
#pragma once

#include <span>
#include <string_view>
#include <vector>

#include "models/counts.h"
#include "models/op.h"

namespace dcnas::models {

struct OpKindInfo {
  OpKind kind;
  std::string_view name;
  int min_inputs;
  int max_inputs;  // -1: any number
  // JSON attribute keys this kind uses (see graph_json.cc for their encoding).
  std::vector<std::string_view> attrs;
  // Infers the output type; throws InputError naming the op on a broken rule.
  TensorType (*infer)(const Op& op, std::span<const TensorType* const> inputs);
  // Counts the op given its inputs' types (out is op.out).
  OpCounts (*count)(const Op& op, std::span<const TensorType* const> inputs);
};

const OpKindInfo& KindInfo(OpKind kind);
const std::vector<OpKindInfo>& AllKinds();

// FLOPs per element counted for an activation (see counts.h).
int ActivationFlopsPerElement(Activation activation);

}  // namespace dcnas::models
