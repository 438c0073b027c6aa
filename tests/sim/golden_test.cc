// Data-driven whole-model cases: tests/sim/golden/*.yaml (model, accelerator, stack, dtype, batch,
// expected latency and kernel count, tolerance, and where the reference comes from).
#include <yaml-cpp/yaml.h>

#include <catch2/catch.hpp>
#include <cstdlib>
#include <filesystem>

#include "models/registry.h"
#include "sim/engine.h"

namespace dcnas::sim {
namespace {

std::string GoldenDir() {
  const char* root = std::getenv("DCNAS_SOURCE_ROOT");
  return std::string(root != nullptr ? root : ".") + "/tests/sim/golden";
}

TEST_CASE("golden whole-model cases") {
  int cases = 0;
  for (const auto& entry : std::filesystem::directory_iterator(GoldenDir())) {
    if (entry.path().extension() != ".yaml") continue;
    const YAML::Node root = YAML::LoadFile(entry.path().string());
    REQUIRE(root["source"]);
    for (const auto& c : root["cases"]) {
      const std::string model = c["model"].as<std::string>();
      const std::string accel = c["accelerator"].as<std::string>();
      INFO(entry.path().filename().string() << ": " << model << " on " << accel);
      const SimSetup s = LoadSetup(accel, c["stack"].as<std::string>(), "", {});
      models::BuildOptions o;
      o.batch = c["batch"].as<int>();
      o.dtype = models::ParseDType(c["dtype"].as<std::string>());
      const Report r =
          Simulate(models::BuiltinModels().Build(model, o), s.spec, s.stack, s.calibration);
      const double expected = c["expected_latency_ms"].as<double>();
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
  CHECK(cases >= 5);
}

}  // namespace
}  // namespace dcnas::sim
