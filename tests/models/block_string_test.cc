#include "models/block_string.h"

#include <catch2/catch.hpp>

#include <cmath>
#include <limits>

#include "common/errors.h"
#include "models/counts.h"

namespace dcnas::models {

TEST_CASE("block strings parse every key of the reference grammar", "[block_string]") {
  const BlockArgs a = ParseBlockString("r2_k3_s22_e6_i16_o24_se0.25_f1_d2_a1");
  CHECK(a.num_repeat == 2);
  CHECK(a.kernel == 3);
  CHECK(a.stride == 2);
  CHECK(a.expand_ratio == 6.0);
  CHECK(a.input_filters == 16);
  CHECK(a.output_filters == 24);
  REQUIRE(a.se_ratio.has_value());
  CHECK(*a.se_ratio == 0.25);
  CHECK(a.fused);
  CHECK(a.space2depth == 2);
  CHECK(a.activation == Activation::kSwish);
  CHECK(a.id_skip);
  const BlockArgs b = ParseBlockString("r1_k3_s11_e1_i32_o16_a0_c1_noskip");
  CHECK(b.activation == Activation::kRelu);
  CHECK(b.conv_type == 1);
  CHECK_FALSE(b.id_skip);
  CHECK_FALSE(b.se_ratio.has_value());
}

TEST_CASE("block strings round-trip through the encoder", "[block_string]") {
  for (const char* s : {"r1_k3_s11_e1_i32_o16_se0.25_d1_a0", "r2_k5_s22_e6_i24_o40_se0.25_f1_a1",
                        "r4_k5_s22_e6_i112_o192_se0.25", "r1_k3_s11_e6_i192_o320_noskip",
                        "r1_k1_s22_e1_i32_o64_c2", "r1_k3_s22_e1_i16_o32_a0_c3_h24_p1",
                        "r1_k3_s11_e0.25_i64_o64_c4", "r1_k3_s11_e6_i16_o24_h40"}) {
    const BlockArgs a = ParseBlockString(s);
    CHECK(EncodeBlockString(a) == s);
    CHECK(ParseBlockString(EncodeBlockString(a)) == a);
  }
}

TEST_CASE("malformed block strings are rejected with the reason", "[block_string]") {
  auto message = [](const std::string& s) {
    try {
      ParseBlockString(s);
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  CHECK(message("r1_k3_s2_e1_i32_o16").find("two equal non-zero digits") != std::string::npos);
  CHECK(message("r1_k3_s11_e1_i32").find("missing key 'o'") != std::string::npos);
  CHECK(message("r1_k3_s11_e1_i32_o16_zz3").find("unknown key 'zz'") != std::string::npos);
  CHECK(message("r1_k3_s11_e1_i32_o16__se0.25").find("empty token") != std::string::npos);
  CHECK(message("r1_k3_s11_e1_i32_o16_se0.2.5").find("malformed value") != std::string::npos);
  CHECK(message("r1_k3_s11_e1_i32_o16_cc4").find("CondConv") != std::string::npos);
  // Out-of-range values are refused, not ignored or read as something else.
  CHECK(message("r1_k3_s11_e1_i32_o16_se5").find("'se5' must be in [0, 1]") != std::string::npos);
  CHECK(message("r1_k3_s11_e1_i32_o16_a5").find("a0 (relu) or a1 (swish)") != std::string::npos);
  CHECK(message("r1_k3_s11_e1e10_i32_o16").find("expansion 'e' must be in") != std::string::npos);
  CHECK(message("r1000000_k3_s11_e1_i32_o16").find("repeats 'r' must be in 1..1000") !=
        std::string::npos);
  CHECK(message("r1_k99_s11_e1_i32_o16").find("kernel 'k' must be in 1..31") != std::string::npos);
  CHECK(message("r1_k3_s11_e1_i32_o999999").find("filters") != std::string::npos);
  CHECK(ParseBlockString("r1_k3_s11_e1_i32_o16_se0").se_ratio == std::nullopt);
  // A key or a flag given twice is refused, not read once.
  CHECK(message("r1_k3_s11_e1_i32_o16_k5").find("key 'k' given twice") != std::string::npos);
  CHECK(message("r1_k3_s11_e1_i32_o16_noskip_noskip").find("flag 'noskip' given twice") !=
        std::string::npos);
  CHECK(message("r1_k3_s11_e1_i32_o16_c5").find("conv type 'c' must be 0 to 4") !=
        std::string::npos);
  CHECK(message("r1_k3_s11_e1_i32_o16_p2").find("'p2' must be p0 or p1") != std::string::npos);
  CHECK(message("r1_k3_s11_e1_i32_o16_h999999").find("hidden filters 'h' must be in") !=
        std::string::npos);
}

TEST_CASE("plain conv, basic and bottleneck blocks, hidden widths and projections",
          "[block_string]") {
  auto build = [](const std::string& block, int64_t in_channels) {
    BuildOptions o;
    o.resolution = 8;
    GraphBuilder b("t", o);
    int x = b.Input(8, 8, in_channels);
    AppendMBConvBlock(b, x, ParseBlockString(block), 1.0, Activation::kRelu);
    return CountGraph(b.Finish());
  };
  // c2: 1x1 stride 2 conv + BN only.
  CHECK(build("r1_k1_s22_e1_i32_o64_c2", 32).params == 32 * 64 + 2 * 64);
  // c3, hidden 24, stride 2, 16 -> 32 with a projection: 3x3 16->24, 3x3 24->32, 1x1 16->32.
  CHECK(build("r1_k3_s22_e1_i16_o32_c3_h24_p1", 16).params ==
        (16 * 24 * 9 + 48) + (24 * 32 * 9 + 64) + (16 * 32 + 64));
  // Without p1 the shapes differ and there is no shortcut.
  CHECK(build("r1_k3_s22_e1_i16_o32_c3_h24", 16).params == (16 * 24 * 9 + 48) + (24 * 32 * 9 + 64));
  // c4 at e0.25: 1x1 64->16, 3x3 16->16, 1x1 16->64, identity shortcut.
  CHECK(build("r1_k3_s11_e0.25_i64_o64_c4", 64).params ==
        (64 * 16 + 32) + (16 * 16 * 9 + 32) + (16 * 64 + 128));
  // MBConv with an absolute hidden width of 40 instead of 16 x 6.
  CHECK(build("r1_k3_s11_e6_i16_o24_h40", 16).params ==
        (16 * 40 + 80) + (40 * 9 + 80) + (40 * 24 + 48));
}

TEST_CASE("round_filters and round_repeats follow the reference rounding", "[block_string]") {
  CHECK(RoundFilters(32, 1.0) == 32);
  CHECK(RoundFilters(32, 1.1) == 32);  // 35.2 -> 32 (>= 90%)
  CHECK(RoundFilters(40, 1.1) == 48);  // 44 -> 48
  CHECK(RoundFilters(80, 1.1) == 88);
  CHECK(RoundFilters(16, 1.2) == 24);  // 19.2 -> 16 < 0.9*19.2? no: 16 < 17.28 -> 24
  CHECK(RoundFilters(1280, 2.0) == 2560);
  CHECK(RoundFilters(3, 0.1) == 8);  // never below the divisor
  CHECK(RoundRepeats(2, 1.1) == 3);
  CHECK(RoundRepeats(4, 3.1) == 13);
  CHECK(RoundRepeats(1, 1.0) == 1);
  // Scaling that cannot be built is an input error, never undefined float-to-int conversion.
  CHECK_THROWS_AS(RoundRepeats(4, 1e9), InputError);
  CHECK_THROWS_AS(RoundRepeats(4, std::numeric_limits<double>::infinity()), InputError);
  CHECK_THROWS_AS(RoundRepeats(4, 0.0), InputError);
  CHECK_THROWS_AS(RoundFilters(32, std::numeric_limits<double>::infinity()), InputError);
  CHECK_THROWS_AS(RoundFilters(32, std::nan("")), InputError);
  CHECK_THROWS_AS(RoundFilters(32, 1e300), InputError);
}

TEST_CASE("MBConv and Fused-MBConv are built from primitive ops", "[block_string]") {
  BlockNetworkSpec spec;
  spec.blocks =
      ParseBlockStrings({"r1_k3_s11_e1_i32_o16_se0.25", "r2_k3_s22_e6_i16_o24_se0.25_f1"});
  const Graph g = BuildBlockNetwork("tiny", spec, BuildOptions{});
  int depthwise = 0;
  int fused_3x3 = 0;
  int adds = 0;
  int muls = 0;
  for (const Op& op : g.ops()) {
    if (op.kind == OpKind::kConv2d && op.attrs.groups > 1) ++depthwise;
    if (op.kind == OpKind::kConv2d && op.attrs.groups == 1 && op.attrs.kernel_h == 3 &&
        op.stage == 2) {
      ++fused_3x3;
    }
    if (op.kind == OpKind::kAdd) ++adds;
    if (op.kind == OpKind::kMul) ++muls;
  }
  CHECK(depthwise == 1);  // only the stage-1 MBConv
  CHECK(fused_3x3 == 2);  // both repeats of the fused stage
  CHECK(adds == 1);       // second fused repeat: 24 -> 24, stride 1
  CHECK(muls == 3);       // one squeeze-excite per block
}

}  // namespace dcnas::models
