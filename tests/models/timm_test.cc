// timm's EfficientNet builder rebuilt from the shipped table: every buildable row's parameter count
// equals the table's exact count, MACs agree with an independent count, bad input is named.
#include "models/zoo/timm.h"

#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>

#include "common/data_dir.h"
#include "common/errors.h"
#include "models/counts.h"
#include "models/zoo/zoo.h"

namespace dcnas::models::timm {
namespace {

using Catch::Contains;

std::string Write(const std::string& name, const std::string& text) {
  const auto path = std::filesystem::temp_directory_path() / ("dcnas-timm-" + name);
  std::ofstream(path) << text;
  return path.string();
}

TEST_CASE("timm: every row of the shipped table builds with its exact parameter count") {
  const Table& table = ShippedTable();
  REQUIRE(table.rows.size() == 178);
  REQUIRE(table.archs.size() == 86);
  int built = 0;
  int refused = 0;
  for (const auto& [name, arch] : table.archs) {
    INFO(name);
    if (!Unsupported(arch).empty()) {
      CHECK_THROWS_AS(BuiltinModels().Build(kTimmPrefix + name, {}), InputError);
      ++refused;
      continue;
    }
    const Graph g = BuiltinModels().Build(kTimmPrefix + name, {});
    CHECK(CountGraph(g).params == arch.params_exact);
    ++built;
  }
  // CondConv (3 networks), GroupNorm and EvoNorm (one test net each) are refused by name.
  CHECK(refused == 5);
  CHECK(built == 81);
}

TEST_CASE("timm: rows per architecture, published figures and the rows the IR refuses") {
  const Table& table = ShippedTable();
  int rows_buildable = 0;
  for (const Row& r : table.rows) {
    if (Unsupported(table.archs.at(r.arch)).empty()) ++rows_buildable;
  }
  CHECK(rows_buildable == 173);
  const Arch& b0 = table.archs.at("efficientnet_b0");
  CHECK(b0.params_exact == 5288548);
  CHECK(b0.native_resolution == 224);
  CHECK_THAT(Unsupported(table.archs.at("tf_efficientnet_cc_b0_4e")), Contains("CondConv"));
  CHECK_THAT(Unsupported(table.archs.at("test_efficientnet_gn")), Contains("GroupNorm"));
}

// MACs of EfficientNet-B0 and MobileNetV2-1.0 as the papers and torchvision count them (0.39 G and
// 0.30 G at 224 px), and B0 equal to the zoo's own EfficientNet-B0 op for op.
TEST_CASE("timm: MACs agree with the independent counts") {
  BuildOptions at224;
  at224.resolution = 224;
  const OpCounts b0 = CountGraph(BuiltinModels().Build("timm:efficientnet_b0", at224));
  const OpCounts zoo_b0 = CountGraph(BuiltinModels().Build("efficientnet-b0", at224));
  CHECK(b0.params == zoo_b0.params);
  CHECK(b0.macs == zoo_b0.macs);
  const OpCounts v2 = CountGraph(BuiltinModels().Build("timm:mobilenetv2_100", at224));
  const OpCounts tv_v2 = CountGraph(BuiltinModels().Build("mobilenetv2-1.0", at224));
  CHECK(v2.params == 3504872);
  CHECK(v2.macs == tv_v2.macs);
  const OpCounts v3 = CountGraph(BuiltinModels().Build("timm:mobilenetv3_large_100", at224));
  CHECK(v3.params == 5483032);
  // torchvision's MobileNetV3-Large: 0.22 GMACs (217 M).
  CHECK(v3.macs > 210'000'000);
  CHECK(v3.macs < 225'000'000);
}

TEST_CASE("timm: the builder follows the options (resolution, classes, width)") {
  BuildOptions o;
  o.resolution = 32;
  o.num_classes = 10;
  const Graph g = BuiltinModels().Build("timm:efficientnet_b0", o);
  CHECK(g.info().resolution == 32);
  o.width_scale = 0.5;
  const Graph half = BuiltinModels().Build("timm:efficientnet_b0", o);
  CHECK(CountGraph(half).params < CountGraph(g).params / 2);
}

TEST_CASE("timm: block strings outside the grammar are named") {
  CHECK(ParseBlock("ir_r2_k3_s2_e6_c24_se0.25").out_chs == 24);
  CHECK(ParseBlock("uir_r1_a3_k0_s1_e4_c192").kernel == std::vector<int>{0});
  CHECK(ParseBlock("ds_r1_k3.5.7_s1_c16").kernel == std::vector<int>{3, 5, 7});
  CHECK(ParseBlock("er_r1_k3_s1_e4_c24_fc24_noskip").skip == std::optional<bool>(false));
  CHECK_THROWS_WITH(ParseBlock("xx_r1_k3_s1_c16"), Contains("unknown block type 'xx'"));
  CHECK_THROWS_WITH(ParseBlock("ir_r1_k3_s1_c16"), Contains("option 'e' missing"));
  CHECK_THROWS_WITH(ParseBlock("ir_r1_k3_s3_e6_c16"), Contains("'s3'"));
  CHECK_THROWS_WITH(ParseBlock("ir_r1_k3_s1_e6_c16_zz4"), Contains("'zz' is not an option"));
  CHECK_THROWS_WITH(ParseBlock("ir_r1_k3_s1_e6_c16_nmi"), Contains("mish"));
  CHECK_THROWS_WITH(ParseBlock("ir_r1_k0_s1_e6_c16"), Contains("kernel 0"));
}

TEST_CASE("timm: a malformed table is refused naming the file, line and column") {
  const std::string shipped = DataPath(kTimmTableFile);
  std::ifstream in(shipped);
  std::string header;
  std::string first;
  std::getline(in, header);
  std::getline(in, first);
  // A block string timm's grammar does not define.
  std::string bad = first;
  bad.replace(bad.find("ds_r1_k3"), 8, "qq_r1_k3");
  CHECK_THROWS_WITH(
      ReadTable(Write("badblock.csv", header + "\n" + bad + "\n")),
      Contains("badblock.csv:2: column 'arch_def'") && Contains("unknown block type 'qq'"));
  // A stage depth the rules do not give.
  bad = first;
  bad.replace(bad.rfind("6|11|11|16|16|22|6"), 18, "6|11|11|16|16|22|7");
  const Table depth = ReadTable(Write("baddepth.csv", header + "\n" + bad + "\n"));
  CHECK_THROWS_WITH(Build(depth.archs.at("tf_efficientnet_l2"), {}),
                    Contains("baddepth.csv:2: column 'stage_depths': stage 7"));
  // Two rows of one architecture that disagree.
  bad = first;
  bad.replace(bad.find(",5504,"), 6, ",5512,");
  bad.replace(bad.find("ns_jft_in1k,"), 12, "ns_jft_in1k2,");
  bad.replace(bad.find("ns_jft_in1k,"), 12, "ns_jft_in1k2,");
  CHECK_THROWS_WITH(ReadTable(Write("disagree.csv", header + "\n" + first + "\n" + bad + "\n")),
                    Contains("disagree.csv:3: column 'num_features'"));
  // An unknown name under the prefix lists the closest.
  CHECK_THROWS_WITH(BuiltinModels().Get("timm:efficientnet_b00"),
                    Contains("did you mean") && Contains("timm:efficientnet_b0"));
}

}  // namespace
}  // namespace dcnas::models::timm
