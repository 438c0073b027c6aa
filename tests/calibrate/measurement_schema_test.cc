// The measurement CSV schema shared by `dcnas measure` (writer) and the calibration (reader).
#include <catch2/catch.hpp>

#include <unistd.h>
#include <algorithm>
#include <cstdlib>
#include <filesystem>

#include "calibrate/measurement.h"
#include "common/errors.h"
#include "common/file_io.h"
#include "common/sha256.h"
#include "common/table.h"

namespace dcnas::calibrate {
namespace {

using Catch::Contains;

std::string SourceRoot() {
  const char* root = std::getenv("DCNAS_SOURCE_ROOT");
  return root != nullptr ? root : ".";
}

Timing Example() {
  return Timing{"resnet50",
                "host-cpu",
                "libtorch-cpu",
                "fp32",
                8,
                224,
                123.4567,
                1.2344,
                64.80001,
                5,
                kRegimeHostCpu,
                "dcnas_measure",
                "dcnas measure 2026-11-30 on CPU",
                "AMD EPYC, 2 cores",
                1,
                "warmup=2; median of 5 runs"};
}

std::string Csv(const std::vector<std::vector<std::string>>& rows) {
  Table t(TimingColumns());
  for (const auto& row : rows) t.AddRow(row);
  return t.ToCsv();
}

TEST_CASE("the required columns are a subset of what `dcnas measure` writes, in its order") {
  const auto& timing = TimingColumns();
  CHECK(timing.size() == 16);
  size_t last = 0;
  for (const std::string& column : RequiredColumns()) {
    const auto it = std::find(timing.begin(), timing.end(), column);
    REQUIRE(it != timing.end());
    const auto index = static_cast<size_t>(it - timing.begin());
    CHECK(index >= last);
    last = index;
  }
  CHECK(RequiredColumns().size() == 11);
  CHECK(std::find(timing.begin(), timing.end(), "source_model") == timing.end());
}

TEST_CASE("the shipped host-cpu timings have exactly the writer's header") {
  const std::string text = ReadFile(SourceRoot() + "/data/measurements/host-cpu.csv");
  const auto rows = ParseTimingRows(text, "host-cpu.csv");
  REQUIRE(rows.has_value());
  CHECK(!rows->empty());
}

TEST_CASE("a timing row written by the writer is read back by both readers") {
  const std::vector<std::string> cells = TimingCells(Example());
  REQUIRE(cells.size() == TimingColumns().size());
  CHECK(TimingCell(cells, "latency_ms") == "123.457");
  CHECK(TimingCell(cells, "latency_spread_ms") == "1.234");
  CHECK(TimingCell(cells, "throughput_img_per_s") == "64.80");
  CHECK(TimingCell(cells, "cpu_model") == "AMD EPYC, 2 cores");
  CHECK_THROWS_AS(TimingCell(cells, "layout"), InternalError);

  const std::string csv = Csv({cells});
  const auto rows = ParseTimingRows(csv, "t.csv");
  REQUIRE(rows.has_value());
  REQUIRE(rows->size() == 1);
  CHECK(rows->front() == cells);

  const std::vector<Measurement> ms = ParseMeasurements(csv, "t.csv", {});
  REQUIRE(ms.size() == 1);
  const Measurement& m = ms.front();
  CHECK(m.model == "resnet50");
  CHECK(m.device == "host-cpu");
  CHECK(m.stack == "libtorch-cpu");
  CHECK(m.batch_size == 8);
  CHECK(m.image_size == 224);
  CHECK(m.latency_ms == Approx(123.457));
  CHECK(m.throughput_img_per_s == Approx(64.80));
  CHECK(m.regime == kRegimeHostCpu);
  CHECK(m.Extra("threads") == "1");
  CHECK(m.Extra("notes") == "warmup=2; median of 5 runs");
  CHECK(m.Extra("cpu_model") == "AMD EPYC, 2 cores");
}

TEST_CASE("timing rows: another header gives nothing, a short row is an error naming its line") {
  CHECK_FALSE(ParseTimingRows("", "t.csv").has_value());
  CHECK_FALSE(ParseTimingRows("model,device\nresnet50,v100\n", "t.csv").has_value());
  std::string csv = Csv({TimingCells(Example())});
  csv += "resnet50,host-cpu\n";
  CHECK_THROWS_AS(ParseTimingRows(csv, "t.csv"), InputError);
  CHECK_THROWS_WITH(ParseTimingRows(csv, "t.csv"),
                    Contains("t.csv:3") && Contains("expected 16 fields, found 2"));
}

TEST_CASE("several measurement files: rows in order, one hash of the contents") {
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("dcnas-schema-test-" + std::to_string(getpid()));
  std::filesystem::create_directories(dir);
  const std::string a = (dir / "a.csv").string();
  const std::string b = (dir / "b.csv").string();
  Timing t = Example();
  const std::string text_a = Csv({TimingCells(t)});
  t.model = "efficientnet-b0";
  const std::string text_b = Csv({TimingCells(t)});
  WriteFileAtomic(a, text_a);
  WriteFileAtomic(b, text_b);
  const LoadedMeasurements loaded = LoadMeasurementFiles({a, b}, {});
  REQUIRE(loaded.rows.size() == 2);
  CHECK(loaded.rows[0].model == "resnet50");
  CHECK(loaded.rows[1].model == "efficientnet-b0");
  CHECK(loaded.rows[1].file == b);
  CHECK(loaded.sha256 == Sha256Hex(text_a + text_b));
  CHECK(LoadMeasurementFiles({b, a}, {}).sha256 != loaded.sha256);
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace dcnas::calibrate
