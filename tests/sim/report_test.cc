// Round trips of the report writers (sim/report.h): parse the JSON, CSV and text they write and
// compare the values with the Report's.
#include "sim/report.h"

#include <nlohmann/json.hpp>

#include <catch2/catch.hpp>
#include <cstdlib>
#include <string>
#include <vector>

#include "models/builder.h"
#include "sim/engine.h"
#include "tests/common/parse_util.h"
#include "tests/sim/test_util.h"

namespace dcnas::sim {
namespace {

using models::Activation;
using models::DType;

// A small two-block network on the in-code systolic chip, with every breakdown filled.
Report SmallReport(bool fusion = true) {
  models::GraphInfo info;
  info.model = "small";
  info.batch = 4;
  info.resolution = 32;
  info.dtype = DType::kBf16;
  models::GraphBuilder b(info);
  b.SetScope("stem", 0);
  int x = b.Act(b.BatchNorm(b.Conv(b.Input(32, 32, 16), 32, 3)), Activation::kSwish);
  b.SetScope("blocks.0", 1);
  const int y = b.Act(b.BatchNorm(b.Conv(x, 32, 1)), Activation::kRelu);
  x = b.Add(x, y);
  b.SetScope("head", 2);
  b.FullyConnected(b.Flatten(b.GlobalPool(x)), 10);
  const models::Graph g = b.Finish();
  SimOptions options;
  options.fusion = fusion;
  return Simulate(g, testing::SystolicTestChip(), testing::FusingTestStack(), CalibrationParams(),
                  options);
}

// Half a unit in the last printed place of a value written with `digits` decimals.
double HalfUlp(int digits) { return 0.5 * std::pow(10.0, -digits) * (1 + 1e-9); }

TEST_CASE("board power: the cores run at the sustained clock, memory and the peak do not move") {
  models::GraphInfo info;
  info.model = "gemm";
  info.batch = 64;
  info.dtype = DType::kBf16;
  models::GraphBuilder b(info);
  b.FullyConnected(b.Flatten(b.Input(1, 1, 1024)), 1024);
  const models::Graph g = b.Finish();
  AcceleratorSpec chip = testing::SystolicTestChip();
  const Report boost = Simulate(g, chip, testing::FusingTestStack(), CalibrationParams());
  // Demand 4x the board power: half the clock with the default P ~ f^2 curve.
  chip.power.board_w = 100;
  chip.power.core_w_per_ghz = 400 / (chip.cores * chip.clock_ghz);
  const Report capped = Simulate(g, chip, testing::FusingTestStack(), CalibrationParams());
  CHECK(capped.sustained_clock_ghz == Approx(chip.clock_ghz / 2));
  CHECK(capped.clock_ghz == chip.clock_ghz);
  CHECK(capped.time.matrix_s == Approx(2 * boost.time.matrix_s));
  CHECK(capped.time.vector_s == Approx(2 * boost.time.vector_s));
  CHECK(capped.time.memory_s == Approx(boost.time.memory_s));
  CHECK(capped.peak_flops_per_s == boost.peak_flops_per_s);
  CHECK_THAT(ReportToText(capped, false), Catch::Matchers::Contains("GHz sustained within 100 W"));
  CHECK_THAT(ReportToText(boost, false), !Catch::Matchers::Contains("sustained"));
}

TEST_CASE("report JSON round trip: every number parses back to the report's value") {
  const Report r = SmallReport();
  REQUIRE(r.blocks.size() == 3);
  REQUIRE_FALSE(r.groups.empty());
  const nlohmann::json j = nlohmann::json::parse(ReportToJson(r));
  CHECK(j["model"] == r.model);
  CHECK(j["batch"] == r.batch);
  CHECK(j["resolution_px"] == r.resolution);
  CHECK(j["dtype"] == r.dtype);
  CHECK(j["accelerator"] == r.accelerator);
  CHECK(j["stack"] == r.stack);
  CHECK(j["fusion"] == r.fusion);
  CHECK(j["num_kernels"] == r.num_kernels);
  CHECK(j["latency_ms"].get<double>() == r.latency_s * 1e3);
  CHECK(j["latency_per_image_ms"].get<double>() == r.latency_s * 1e3 / r.batch);
  CHECK(j["throughput_img_per_s"].get<double>() == r.throughput_img_per_s);
  CHECK(j["flops"].get<double>() == r.flops);
  CHECK(j["macs"].get<double>() == r.macs);
  CHECK(j["hbm_bytes"].get<double>() == r.hbm_bytes);
  CHECK(j["compulsory_bytes"].get<double>() == r.compulsory_bytes);
  CHECK(j["intensity_flop_per_byte"].get<double>() == r.intensity_flop_per_byte);
  CHECK(j["peak_tflop_per_s"].get<double>() == r.peak_flops_per_s / 1e12);
  CHECK(j["clock_ghz"].get<double>() == r.clock_ghz);
  CHECK(j["sustained_clock_ghz"].get<double>() == r.sustained_clock_ghz);
  CHECK(j["hbm_bandwidth_gb_per_s"].get<double>() == r.hbm_bytes_per_s / 1e9);
  CHECK(std::strtoull(j["context_fingerprint"].get<std::string>().c_str(), nullptr, 16) ==
        r.context_fingerprint);
  for (int b = 0; b < kNumBounds; ++b) {
    const std::string key = std::string(cost::BoundName(static_cast<Bound>(b))) + "_ms";
    CHECK(j["time_by_bound"][key].get<double>() == r.time_by_bound_s[static_cast<size_t>(b)] * 1e3);
  }
  CHECK(j["time_by_unit"]["matrix_ms"].get<double>() == r.time.matrix_s * 1e3);
  CHECK(j["time_by_unit"]["memory_ms"].get<double>() == r.time.memory_s * 1e3);
  REQUIRE(j["calibration_params"].size() == r.calibration_params.size());
  for (const auto& [name, value] : r.calibration_params) {
    CHECK(j["calibration_params"][name].get<double>() == value);
  }
  REQUIRE(j["blocks"].size() == r.blocks.size());
  for (size_t i = 0; i < r.blocks.size(); ++i) {
    const auto& jb = j["blocks"][i];
    CHECK(jb["block"] == r.blocks[i].block);
    CHECK(jb["stage"] == r.blocks[i].stage);
    CHECK(jb["num_ops"] == r.blocks[i].num_ops);
    CHECK(jb["hbm_bytes"].get<double>() == r.blocks[i].hbm_bytes);
    CHECK(jb["latency_ms"].get<double>() == r.blocks[i].time.total_s * 1e3);
    CHECK(jb["time"]["vector_ms"].get<double>() == r.blocks[i].time.vector_s * 1e3);
    CHECK(jb["bound"] == cost::BoundName(r.blocks[i].bound));
  }
  REQUIRE(j["kernels"].size() == r.groups.size());
  for (size_t i = 0; i < r.groups.size(); ++i) {
    const auto& jg = j["kernels"][i];
    CHECK(jg["id"] == r.groups[i].id);
    CHECK(jg["op_ids"].get<std::vector<int>>() == r.groups[i].op_ids);
    CHECK(jg["onchip_bytes"].get<double>() == r.groups[i].onchip_bytes);
    CHECK(jg["latency_ms"].get<double>() == r.groups[i].time.total_s * 1e3);
  }
  REQUIRE(j["layers"].size() == r.ops.size());
  for (size_t i = 0; i < r.ops.size(); ++i) {
    const auto& jo = j["layers"][i];
    CHECK(jo["id"] == r.ops[i].id);
    CHECK(jo["name"] == r.ops[i].name);
    CHECK(jo["unit"] == r.ops[i].unit);
    CHECK(jo["kernel"] == r.ops[i].group);
    CHECK(jo["flops"].get<double>() == r.ops[i].flops);
    CHECK(jo["matrix_utilization_pct"].get<double>() == 100.0 * r.ops[i].matrix_utilization);
    CHECK(jo["latency_ms"].get<double>() == r.ops[i].time.total_s * 1e3);
  }
}

TEST_CASE("report CSV round trip: per-block and per-op rows parse back to the report's values") {
  const Report r = SmallReport();
  const auto blocks = dcnas::testing::ParseCsv(ReportToCsv(r, false));
  REQUIRE(blocks.size() == r.blocks.size() + 1);
  const std::vector<std::string> header = {"block",       "stage",      "num_ops",   "flops",
                                           "hbm_bytes",   "matrix_ms",  "vector_ms", "memory_ms",
                                           "overhead_ms", "latency_ms", "bound"};
  CHECK(blocks[0] == header);
  for (size_t i = 0; i < r.blocks.size(); ++i) {
    const auto& row = blocks[i + 1];
    const BlockReport& b = r.blocks[i];
    REQUIRE(row.size() == header.size());
    CHECK(row[0] == b.block);
    CHECK(std::stoi(row[1]) == b.stage);
    CHECK(std::stoi(row[2]) == b.num_ops);
    CHECK(std::abs(std::stod(row[3]) - b.flops) <= HalfUlp(0));
    CHECK(std::abs(std::stod(row[4]) - b.hbm_bytes) <= HalfUlp(0));
    CHECK(std::abs(std::stod(row[5]) - b.time.matrix_s * 1e3) <= HalfUlp(4));
    CHECK(std::abs(std::stod(row[6]) - b.time.vector_s * 1e3) <= HalfUlp(4));
    CHECK(std::abs(std::stod(row[7]) - b.time.memory_s * 1e3) <= HalfUlp(4));
    CHECK(std::abs(std::stod(row[8]) - b.time.overhead_s * 1e3) <= HalfUlp(4));
    CHECK(std::abs(std::stod(row[9]) - b.time.total_s * 1e3) <= HalfUlp(4));
    CHECK(row[10] == cost::BoundName(b.bound));
  }
  const auto ops = dcnas::testing::ParseCsv(ReportToCsv(r, true));
  REQUIRE(ops.size() == r.ops.size() + 1);
  CHECK(ops[0].front() == "id");
  CHECK(ops[0].back() == "latency_ms");
  for (size_t i = 0; i < r.ops.size(); ++i) {
    const auto& row = ops[i + 1];
    const OpReport& o = r.ops[i];
    REQUIRE(row.size() == 16);
    CHECK(std::stoi(row[0]) == o.id);
    CHECK(row[1] == o.name);
    CHECK(row[2] == o.kind);
    CHECK(row[3] == o.detail);
    CHECK(row[4] == o.block);
    CHECK(row[6] == o.unit);
    CHECK(std::stoi(row[7]) == o.group);
    CHECK(std::abs(std::stod(row[9]) - o.macs) <= HalfUlp(0));
    CHECK(std::abs(std::stod(row[10]) - 100.0 * o.matrix_utilization) <= HalfUlp(3));
    CHECK(std::abs(std::stod(row[15]) - o.time.total_s * 1e3) <= HalfUlp(4));
  }
}

TEST_CASE("report text round trip: the summary and the block table parse back") {
  const Report r = SmallReport(false);
  const std::string text = ReportToText(r, false);
  // "  latency            X ms per batch (Y ms per image)"
  const size_t at = text.find("  latency ");
  REQUIRE(at != std::string::npos);
  CHECK(std::abs(std::stod(text.substr(at + 10)) - r.latency_s * 1e3) <= HalfUlp(3));
  const size_t kernels = text.find(" kernels\n");
  REQUIRE(kernels != std::string::npos);
  const size_t comma = text.rfind(", ", kernels);
  CHECK(std::stoi(text.substr(comma + 2, kernels - comma - 2)) == r.num_kernels);
  CHECK(r.num_kernels == static_cast<int>(r.groups.size()));
  CHECK(text.find(", fusion off") != std::string::npos);

  const auto table = dcnas::testing::ParseTextTable(text);
  REQUIRE(table.size() == r.blocks.size() + 1);
  CHECK(table[0].front() == "block");
  CHECK(table[0].back() == "bound");
  double pct = 0;
  for (size_t i = 0; i < r.blocks.size(); ++i) {
    const auto& row = table[i + 1];
    const BlockReport& b = r.blocks[i];
    REQUIRE(row.size() == 12);
    CHECK(row[0] == b.block);
    CHECK(std::stoi(row[1]) == b.stage);
    CHECK(std::stoi(row[2]) == b.num_ops);
    CHECK(std::abs(std::stod(row[9]) - b.time.total_s * 1e3) <= HalfUlp(4));
    CHECK(row[11] == cost::BoundName(b.bound));
    pct += std::stod(row[10]);
  }
  CHECK(pct == Approx(100).margin(0.05 * static_cast<double>(r.blocks.size())));

  const auto per_op = dcnas::testing::ParseTextTable(ReportToText(r, true));
  REQUIRE(per_op.size() == r.ops.size() + 1);
  for (size_t i = 0; i < r.ops.size(); ++i) {
    CHECK(std::stoi(per_op[i + 1][0]) == r.ops[i].id);
    CHECK(per_op[i + 1][3] == r.ops[i].unit);
    CHECK(std::stoi(per_op[i + 1][4]) == r.ops[i].group);
    CHECK(std::abs(std::stod(per_op[i + 1][7]) - r.ops[i].time.total_s * 1e3) <= HalfUlp(4));
  }
}

}  // namespace
}  // namespace dcnas::sim
