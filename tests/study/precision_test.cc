// The default-precision rule of the simulator commands.
#include <catch2/catch.hpp>

#include "study/precision.h"

namespace dcnas::study {
namespace {

TEST_CASE("each accelerator kind has its default precision") {
  CHECK(DefaultPrecision("tpu") == "bf16");
  CHECK(DefaultPrecision("gpu") == "fp16");
  CHECK(DefaultPrecision("cpu") == "fp32");
  CHECK(DefaultPrecision("fpga") == "fp32");
}

TEST_CASE("a given precision wins over the default") {
  CHECK(PrecisionFor("", "tpu") == "bf16");
  CHECK(PrecisionFor("int8", "tpu") == "int8");
  CHECK(PrecisionFor("fp32", "gpu") == "fp32");
}

TEST_CASE("a model's dtype: --precision, else the default for auto, else the dtype given") {
  CHECK(ResolveDType("auto", "", "gpu") == "fp16");
  CHECK(ResolveDType("auto", "", "tpu") == "bf16");
  CHECK(ResolveDType("fp32", "", "tpu") == "fp32");
  CHECK(ResolveDType("fp32", "int8", "tpu") == "int8");
  CHECK(ResolveDType("auto", "fp32", "gpu") == "fp32");
}

}  // namespace
}  // namespace dcnas::study
