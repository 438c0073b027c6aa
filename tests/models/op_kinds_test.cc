#include "models/op_kinds.h"

#include <catch2/catch.hpp>

#include "common/errors.h"

namespace dcnas::models {

TEST_CASE("the kinds table is complete and ordered", "[op_kinds]") {
  REQUIRE(AllKinds().size() == static_cast<size_t>(kNumOpKinds));
  for (int i = 0; i < kNumOpKinds; ++i) {
    const auto kind = static_cast<OpKind>(i);
    CHECK(KindInfo(kind).kind == kind);
    CHECK(ParseOpKind(OpKindName(kind)) == kind);
  }
  CHECK_THROWS_AS(ParseOpKind("convolution"), InputError);
}

TEST_CASE("activation and dtype names parse back", "[op_kinds]") {
  for (Activation a :
       {Activation::kRelu, Activation::kRelu6, Activation::kSwish, Activation::kSigmoid,
        Activation::kHardSwish, Activation::kHardSigmoid, Activation::kGelu}) {
    CHECK(ParseActivation(ActivationName(a)) == a);
  }
  CHECK(ParseActivation("silu") == Activation::kSwish);
  CHECK(ParseDType("bf16") == DType::kBf16);
  CHECK(DTypeBytes(DType::kInt8) == 1);
  CHECK_THROWS_WITH(ParseDType("fp64"), Catch::Contains("valid: fp32"));
}

}  // namespace dcnas::models
