// The zoo's published top-1 table: the shipped file reads, bad rows are named.
#include "models/zoo/published_top1.h"

#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>

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
}

}  // namespace
}  // namespace dcnas::models
