#include "calibrate/measurement.h"

#include <catch2/catch.hpp>

#include "common/errors.h"
#include "models/zoo/zoo.h"

namespace dcnas::calibrate {
namespace {

const std::string kHeader =
    "model,device,stack,precision,batch_size,image_size,latency_ms,throughput_img_per_s,regime,"
    "source_id,source_ref,source_model,notes\n";

std::string Row(const std::string& latency, const std::string& device = "v100",
                const std::string& stack = "tensorrt", const std::string& batch = "8",
                const std::string& throughput = "") {
  return "efficientnet-b0," + device + "," + stack + ",fp16," + batch + ",224," + latency + "," +
         throughput + ",engine_latency,src,ref,EfficientNetB0,\"a, note\"\n";
}

const Vocabulary kVocabulary{{"v100", "t4"}, {"tensorrt", "pytorch-eager"}};

}  // namespace

TEST_CASE("measurement rows parse with their provenance and extra columns", "[calibrate]") {
  const auto rows = ParseMeasurements(kHeader + Row("3.5") + Row("", "t4", "tensorrt", "4", "800"),
                                      "m.csv", kVocabulary);
  REQUIRE(rows.size() == 2);
  CHECK(rows[0].model == "efficientnet-b0");
  CHECK(rows[0].latency_ms == 3.5);
  CHECK(rows[0].latency_per_image_ms() == Approx(3.5 / 8));
  CHECK(rows[0].Extra("notes") == "a, note");
  CHECK(rows[0].where() == "m.csv:2");
  // Throughput only: latency per batch = batch / throughput.
  CHECK(rows[1].latency_ms == Approx(4 * 1000.0 / 800));
  CHECK(rows[1].where() == "m.csv:3");
}

TEST_CASE("selections filter on named and extra columns and explain an empty result",
          "[calibrate]") {
  const auto rows = ParseMeasurements(kHeader + Row("3.5") + Row("", "t4", "tensorrt", "4", "800"),
                                      "m.csv", kVocabulary);
  CHECK(rows[1].Cell("batch_size") == "4");
  CHECK(rows[1].Cell("device") == "t4");
  CHECK(rows[0].Cell("model") == "efficientnet-b0");
  CHECK(rows[0].Cell("source_model") == "EfficientNetB0");
  CHECK(rows[0].Cell("no_such_column").empty());
  CHECK(Select(rows, {"", "", "", "", {{"batch_size", "4"}}}).size() == 1);
  CHECK(Select(rows, {"", "", "", "", {{"model", "efficientnet-b0"}}}).size() == 2);
  CHECK(Select(rows, {"v100", "", "", "", {{"batch_size", "4"}}}).empty());
  CHECK_FALSE(FilterableColumn("latency_ms"));
  CHECK_FALSE(FilterableColumn("throughput_img_per_s"));
  CHECK(FilterableColumn("model"));

  const auto missing = WhereMisses(rows, {{"layout", "NCHW"}});
  REQUIRE(missing.size() == 1);
  CHECK(missing[0] == "layout=NCHW: no row has the column");
  const auto values = WhereMisses(rows, {{"batch_size", "2"}});
  REQUIRE(values.size() == 1);
  CHECK(values[0] == "batch_size=2: the column holds '4', '8'");
  const auto capped = WhereMisses(rows, {{"batch_size", "2"}}, 1);
  CHECK(capped[0] == "batch_size=2: the column holds '4', ... (2 values in all)");
  const auto empty_cell = WhereMisses(rows, {{"notes", "x"}});
  CHECK(empty_cell[0] == "notes=x: the column holds 'a, note'");
  // Each filter matches a row, but not the same row.
  const auto apart = WhereMisses(rows, {{"batch_size", "4"}, {"device", "v100"}});
  REQUIRE(apart.size() == 1);
  CHECK(apart[0] == "each filter matches some rows, but no row matches them all");
  CHECK(WhereMisses(rows, {{"batch_size", "8"}}).empty());
}

TEST_CASE("bad measurement files fail with file, line and column", "[calibrate]") {
  SECTION("missing column") {
    CHECK_THROWS_WITH(ParseMeasurements("model,device\nx,v100\n", "m.csv", kVocabulary),
                      Catch::Contains("m.csv:1") && Catch::Contains("missing columns") &&
                          Catch::Contains("latency_ms"));
  }
  SECTION("NaN latency") {
    CHECK_THROWS_WITH(
        ParseMeasurements(kHeader + Row("3") + Row("nan"), "m.csv", kVocabulary),
        Catch::Contains("m.csv:3") && Catch::Contains("latency_ms") && Catch::Contains("finite"));
  }
  SECTION("negative and zero latency") {
    CHECK_THROWS_WITH(ParseMeasurements(kHeader + Row("-1.5"), "m.csv", kVocabulary),
                      Catch::Contains("m.csv:2") && Catch::Contains("'-1.5' must be positive"));
    CHECK_THROWS_WITH(ParseMeasurements(kHeader + Row("0"), "m.csv", kVocabulary),
                      Catch::Contains("must be positive"));
  }
  SECTION("malformed numbers") {
    CHECK_THROWS_WITH(ParseMeasurements(kHeader + Row("3.5ms"), "m.csv", kVocabulary),
                      Catch::Contains("'3.5ms' is not a number"));
    CHECK_THROWS_WITH(
        ParseMeasurements(kHeader + Row("3", "v100", "tensorrt", "8.5"), "m.csv", kVocabulary),
        Catch::Contains("batch_size") && Catch::Contains("not an integer"));
  }
  SECTION("neither latency nor throughput") {
    CHECK_THROWS_WITH(ParseMeasurements(kHeader + Row(""), "m.csv", kVocabulary),
                      Catch::Contains("latency_ms") && Catch::Contains("empty"));
  }
  SECTION("unknown device and stack, with suggestions") {
    CHECK_THROWS_WITH(ParseMeasurements(kHeader + Row("3", "v10"), "m.csv", kVocabulary),
                      Catch::Contains("m.csv:2") && Catch::Contains("unknown device 'v10'") &&
                          Catch::Contains("v100"));
    CHECK_THROWS_WITH(
        ParseMeasurements(kHeader + Row("3", "v100", "tensorflow"), "m.csv", kVocabulary),
        Catch::Contains("unknown stack 'tensorflow'"));
  }
  SECTION("wrong number of fields") {
    CHECK_THROWS_WITH(ParseMeasurements(kHeader + "a,b\n", "m.csv", kVocabulary),
                      Catch::Contains("m.csv:2") && Catch::Contains("2 fields"));
  }
  SECTION("empty file") {
    CHECK_THROWS_WITH(ParseMeasurements("", "m.csv", kVocabulary), Catch::Contains("empty"));
  }
}

TEST_CASE("selection filters and never mixes regimes", "[calibrate]") {
  std::string text = kHeader + Row("3") + Row("4", "t4");
  text += "resnet50,v100,tensorrt,fp16,8,224,5,,large_batch,src,ref,ResNet50,x\n";
  const auto rows = ParseMeasurements(text, "m.csv", kVocabulary);
  CHECK(Select(rows, {"v100", "", "", "", {}}).size() == 2);
  CHECK(Select(rows, {"v100", "tensorrt", "fp16", "engine_latency", {}}).size() == 1);
  CHECK(Select(rows, {"", "", "", "", {{"notes", "x"}}}).size() == 1);
  CHECK_THROWS_WITH(RequireSingleRegime(Select(rows, {"v100", "", "", "", {}})),
                    Catch::Contains("engine_latency (1)") && Catch::Contains("large_batch (1)") &&
                        Catch::Contains("--regime"));
  CHECK_NOTHROW(RequireSingleRegime(Select(rows, {"t4", "", "", "", {}})));
}

TEST_CASE("rows whose model the zoo cannot build are set aside with a reason", "[calibrate]") {
  std::string text = kHeader + Row("3");
  text += "no-such-net,v100,tensorrt,fp16,8,224,5,,engine_latency,src,ref,Foo,x\n";
  const auto rows = ParseMeasurements(text, "m.csv", kVocabulary);
  const Resolved resolved = ResolveModels(rows, models::BuiltinModels());
  REQUIRE(resolved.usable.size() == 1);
  CHECK(resolved.usable[0].model == "efficientnet-b0");
  REQUIRE(resolved.excluded.size() == 1);
  CHECK(resolved.excluded[0].row.model == "no-such-net");
  CHECK(resolved.CountsByReason().at("unknown model") == 1);
}

}  // namespace dcnas::calibrate

namespace dcnas::calibrate {

TEST_CASE("training rows carry their chips and optimizer", "[calibrate]") {
  const std::string header =
      "model,device,stack,precision,batch_size,image_size,latency_ms,throughput_img_per_s,regime,"
      "source_id,source_ref,chips,optimizer\n";
  const auto row = [](const std::string& chips, const std::string& optimizer) {
    return "resnet50,v100,pytorch-eager,fp16,1024,224,41.6,,training,src,ref," + chips + "," +
           optimizer + "\n";
  };
  const auto rows = ParseMeasurements(header + row("16", "lars"), "t.csv", kVocabulary);
  REQUIRE(rows.size() == 1);
  CHECK(rows[0].regime == kRegimeTraining);
  CHECK(rows[0].chips == 16);
  CHECK(rows[0].optimizer == "lars");
  CHECK_THROWS_WITH(ParseMeasurements(header + row("0", "lars"), "t.csv", kVocabulary),
                    Catch::Contains("t.csv:2") && Catch::Contains("'chips'"));
  CHECK_THROWS_WITH(ParseMeasurements(header + row("16", "sgd"), "t.csv", kVocabulary),
                    Catch::Contains("unknown optimizer 'sgd'"));
  // A training row in a file without the columns names what is missing.
  CHECK_THROWS_WITH(
      ParseMeasurements(kHeader + "resnet50,v100,tensorrt,fp16,8,224,3,,training,s,r,m,\n", "u.csv",
                        kVocabulary),
      Catch::Contains("u.csv:2") && Catch::Contains("chips and optimizer"));
}

}  // namespace dcnas::calibrate
