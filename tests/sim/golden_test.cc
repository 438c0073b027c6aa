// Data-driven whole-graph cases (suite: golden), two kinds side by side in tests/sim/golden/:
// - drift_*.yaml: zoo models whose latencies were recorded from this simulator; they catch any
//   change of a formula, a default or a data file (regression references, not measurements);
// - closed_form_*.yaml: one-op graphs whose latencies were computed by hand from the formulas,
//   with the derivation in the file's `source`.
// Each case: model or graph, accelerator, stack, dtype, batch, overrides, expected latency (ms),
// kernel count and bound, tolerance.
#include <yaml-cpp/yaml.h>

#include <catch2/catch.hpp>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "common/config_tree.h"
#include "models/zoo/zoo.h"
#include "sim/engine.h"
#include "tests/sim/test_util.h"

namespace dcnas::sim {
namespace {

std::string GoldenDir() {
  const char* root = std::getenv("DCNAS_SOURCE_ROOT");
  return std::string(root != nullptr ? root : ".") + "/tests/sim/golden";
}

std::vector<Override> Overrides(const YAML::Node& list) {
  std::vector<Override> out;
  if (!list) return out;
  for (const auto& item : list) out.push_back(ParseOverride(item.as<std::string>()));
  return out;
}

// The graph of a case: a zoo model (`model`, `batch`) or a one-op graph (`graph`).
models::Graph CaseGraph(const YAML::Node& c, models::DType dtype) {
  if (c["model"]) {
    models::BuildOptions o;
    o.batch = c["batch"].as<int>();
    o.dtype = dtype;
    return models::BuiltinModels().Build(c["model"].as<std::string>(), o);
  }
  const YAML::Node g = c["graph"];
  const auto kind = g["kind"].as<std::string>();
  const int batch = g["batch"].as<int>();
  const int hw = g["hw"].as<int>();
  if (kind == "conv") {
    return testing::ConvGraph(batch, hw, g["cin"].as<int>(), g["cout"].as<int>(),
                              g["kernel"].as<int>(), dtype);
  }
  REQUIRE(kind == "relu");
  return testing::ReluGraph(batch, hw, g["c"].as<int>(), dtype);
}

// Runs every case of the files whose names start with `prefix`; returns the number of cases.
int RunGoldenFiles(const std::string& prefix) {
  int cases = 0;
  for (const auto& entry : std::filesystem::directory_iterator(GoldenDir())) {
    const std::string file = entry.path().filename().string();
    if (entry.path().extension() != ".yaml" || file.rfind(prefix, 0) != 0) continue;
    const YAML::Node root = YAML::LoadFile(entry.path().string());
    REQUIRE(root["source"]);
    const std::vector<Override> file_set = Overrides(root["set"]);
    for (const auto& c : root["cases"]) {
      const auto accel = c["accelerator"].as<std::string>();
      const std::string what = c["model"] ? c["model"].as<std::string>()
                                          : c["graph"]["kind"].as<std::string>() + " graph";
      INFO(file << ": " << what << " on " << accel);
      std::vector<Override> set = file_set;
      for (const Override& o : Overrides(c["set"])) set.push_back(o);
      const SimSetup s = LoadSetup(accel, c["stack"].as<std::string>(), "", set);
      const models::DType dtype = models::ParseDType(c["dtype"].as<std::string>());
      const Report r = Simulate(CaseGraph(c, dtype), s.spec, s.stack, s.calibration);
      const auto expected = c["expected_latency_ms"].as<double>();
      const double tol = c["tolerance_pct"].as<double>() / 100.0;
      CHECK(r.latency_s * 1e3 == Approx(expected).epsilon(tol));
      if (c["expected_kernels"]) CHECK(r.num_kernels == c["expected_kernels"].as<int>());
      if (c["expected_bound"]) {
        size_t best = 0;
        for (size_t b = 1; b < r.time_by_bound_s.size(); ++b) {
          if (r.time_by_bound_s[b] > r.time_by_bound_s[best]) best = b;
        }
        CHECK(std::string(cost::BoundName(static_cast<Bound>(best))) ==
              c["expected_bound"].as<std::string>());
      }
      ++cases;
    }
  }
  return cases;
}

TEST_CASE("drift check: recorded whole-model latencies (golden/drift_*.yaml)") {
  CHECK(RunGoldenFiles("drift_") >= 5);
}

TEST_CASE("closed-form kernels match hand-computed latencies (golden/closed_form_*.yaml)") {
  CHECK(RunGoldenFiles("closed_form_") >= 10);
}

}  // namespace
}  // namespace dcnas::sim
