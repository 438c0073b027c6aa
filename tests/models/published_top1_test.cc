// The zoo's published top-1 table: the shipped file reads, bad rows are named.
#include "models/zoo/published_top1.h"

#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <map>

#include "common/data_dir.h"
#include "common/errors.h"

namespace dcnas::models {
namespace {

using Catch::Contains;

std::string Write(const std::string& name, const std::string& text) {
  const auto path = std::filesystem::temp_directory_path() / ("dcnas-published-" + name);
  std::ofstream(path) << text;
  return path.string();
}

const char* kHeader = "model,top1,resolution,source,note\n";

TEST_CASE("the shipped published top-1 table reads: every row a zoo model, sourced") {
  const auto rows = ReadPublishedTop1(DataPath(kPublishedTop1File));
  CHECK(rows.size() >= 40);
  CHECK(rows.front().model == "efficientnet-b0");
  CHECK(rows.front().top1 == 77.1);
  CHECK(rows.front().resolution == 224);
  for (const auto& r : rows) CHECK_FALSE(r.source.empty());
}

TEST_CASE("the shipped table holds timm's rows; a model's primary row is its ImageNet-1k one") {
  const auto all = ReadPublishedTable(DataPath(kPublishedTop1File));
  int timm = 0;
  for (const auto& r : all) timm += r.model.rfind("timm:", 0) == 0;
  CHECK(timm == 173);  // 178 published rows less the 5 the graph cannot build
  const auto primary = ReadPublishedTop1(DataPath(kPublishedTop1File));
  std::map<std::string, PublishedTop1> by_model;
  for (const auto& r : primary) CHECK(by_model.emplace(r.model, r).second);
  // tf_efficientnet_b0: jft300m-ns 78.68, in1k-ap 77.1, in1k aa 76.882 and in1k 76.542 at 224.
  const PublishedTop1& b0 = by_model.at("timm:tf_efficientnet_b0");
  CHECK(b0.top1 == 76.882);
  CHECK(b0.training_data == "in1k");
  CHECK(b0.recipe == "aa_in1k");
  // An architecture published only after in21k pretraining has no primary row.
  CHECK(by_model.count("timm:tf_efficientnetv2_xl") == 0);
  // The smallest in1k size wins over a better figure at a larger one.
  const PublishedTop1& small = by_model.at("timm:mobilenetv4_conv_small");
  CHECK(small.resolution == 224);
}

TEST_CASE("primary rows: in1k only, smallest resolution, then best top-1, first-seen order") {
  std::vector<PublishedTop1> rows(5);
  rows[0] = {"b", 80.0, 300, "in1k", "x", "s"};
  rows[1] = {"a", 79.0, 224, "in21k", "", "s"};
  rows[2] = {"b", 78.0, 260, "in1k", "y", "s"};
  rows[3] = {"b", 78.5, 260, "in1k", "z", "s"};
  rows[4] = {"a", 70.0, 224, "in1k", "", "s"};
  const auto p = PrimaryRows(rows);
  REQUIRE(p.size() == 2);
  CHECK(p[0].model == "b");
  CHECK(p[0].recipe == "z");
  CHECK(p[1].model == "a");
  CHECK(p[1].top1 == 70.0);
}

TEST_CASE("bad published tables are refused naming the file, line and column") {
  CHECK_THROWS_WITH(
      ReadPublishedTop1(Write("a.csv", std::string(kHeader) + "efficientnet-z,77.1,224,src,\n")),
      Contains("a.csv:2: column 'model': 'efficientnet-z' is not a zoo model"));
  CHECK_THROWS_WITH(
      ReadPublishedTop1(Write("b.csv", std::string(kHeader) + "resnet50,x,224,src,\n")),
      Contains("b.csv:2: column 'top1': not a finite number: 'x'"));
  CHECK_THROWS_WITH(
      ReadPublishedTop1(Write("c.csv", std::string(kHeader) + "resnet50,101,224,src,\n")),
      Contains("not in (0, 100]"));
  CHECK_THROWS_WITH(ReadPublishedTop1(Write("d.csv", "model,top1\n")),
                    Contains("d.csv:1: missing column 'resolution'"));
  CHECK_THROWS_WITH(
      ReadPublishedTop1(Write("e.csv", std::string(kHeader) + "resnet50,76.1,224,s,\n"
                                                              "resnet50,76.1,224,s,\n")),
      Contains("e.csv:3: model 'resnet50' twice"));
  const std::string full = "model,top1,resolution,training_data,recipe,source,note\n";
  CHECK_NOTHROW(ReadPublishedTable(Write("f.csv", full + "resnet50,76.1,224,in1k,a,s,\n"
                                                         "resnet50,77.1,224,in1k,b,s,\n")));
  CHECK_THROWS_WITH(
      ReadPublishedTable(Write("g.csv", full + "resnet50,76.1,224,in1k,a,s,\n"
                                               "resnet50,77.1,224,in1k,a,s,\n")),
      Contains("g.csv:3: model 'resnet50' (training data in1k, recipe 'a', 224 px) twice"));
  CHECK_THROWS_WITH(ReadPublishedTable(Write("h.csv", full + "resnet50,76.1,224,IN 1k,a,s,\n")),
                    Contains("h.csv:2: column 'training_data': 'IN 1k' is not a data token"));
  CHECK_THROWS_WITH(
      ReadPublishedTable(
          Write("i.csv", full + "timm:tf_efficientnet_cc_b0_4e,77.3,224,in1k,,s,\n")),
      Contains("i.csv:2: column 'model': timm:tf_efficientnet_cc_b0_4e cannot be built"));
  CHECK_THROWS_WITH(ReadPublishedTop1(Write("j.csv", full + "resnet50,76.1,224,in21k,a,s,\n"
                                                            "resnet101,77.1,224,in1k,b,s,\n")),
                    Contains("fewer than 3 models with an ImageNet-1k-only row"));
  CHECK_THROWS_WITH(ReadPublishedTable(Write("k.csv", full + "resnet50,76.1,224,in1k,a,,\n")),
                    Contains("k.csv:2: column 'source': empty"));
}

}  // namespace
}  // namespace dcnas::models
