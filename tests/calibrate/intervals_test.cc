// Prediction intervals: the error model file, the regime and situation of a setup, latency and
// ratio intervals; calibrate/intervals: conformal ranks, the hierarchical band, held-out coverage.
#include "sim/intervals.h"

#include <catch2/catch.hpp>
#include <cmath>
#include <filesystem>
#include <fstream>

#include "calibrate/intervals.h"
#include "common/data_dir.h"
#include "common/errors.h"
#include "common/file_io.h"
#include "sim/engine.h"

using namespace dcnas;
using Catch::Matchers::Contains;

namespace {

sim::ErrorBand Band(double c, double lo80, double hi80, double lo95, double hi95, double w80,
                    double w95) {
  sim::ErrorBand b;
  b.center = c;
  b.lo80 = lo80;
  b.hi80 = hi80;
  b.lo95 = lo95;
  b.hi95 = hi95;
  b.within80 = w80;
  b.within95 = w95;
  return b;
}

std::string TempDir(const std::string& name) {
  const auto dir = std::filesystem::temp_directory_path() / ("dcnas-intervals-" + name);
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir.string();
}

}  // namespace

TEST_CASE("regimes by accelerator kind, mode and batch", "[intervals]") {
  CHECK(sim::ClassifyRegime("gpu", false, 128) == sim::Regime::kLargeBatchGpu);
  CHECK(sim::ClassifyRegime("gpu", false, 8) == sim::Regime::kSmallBatchGpu);
  CHECK(sim::ClassifyRegime("gpu", false, 9) == sim::Regime::kLargeBatchGpu);
  CHECK(sim::ClassifyRegime("gpu", true, 8) == sim::Regime::kTrainingGpu);
  CHECK(sim::ClassifyRegime("tpu", true, 8) == sim::Regime::kTpu);
  CHECK(sim::ClassifyRegime("cpu", false, 1) == sim::Regime::kCpu);
}

TEST_CASE("situations from the profile's chips and the overrides", "[intervals]") {
  using S = sim::Situation;
  CHECK(sim::ClassifySituation(sim::LoadSetup("tpu-v3", "", "", {})) == S::kDefaults);
  CHECK(sim::ClassifySituation(sim::LoadSetup("tpu-v3", "", "tpu-v3-xla-tpu-bf16", {})) ==
        S::kFitted);
  // A what-if of the fitted chip is a chip outside the fit.
  CHECK(sim::ClassifySituation(sim::LoadSetup("tpu-v3", "", "tpu-v3-xla-tpu-bf16",
                                              {{"hbm.bandwidth_gbps", "1800"}})) ==
        S::kChipTransfer);
  CHECK(sim::ClassifySituation(sim::LoadSetup("tpu-v3-hbm2x", "", "tpu-v3-xla-tpu-bf16", {})) ==
        S::kChipTransfer);
  CHECK(sim::ClassifySituation(sim::LoadSetup("h100", "pytorch-eager", "gpus-pytorch-eager-fp16",
                                              {})) == S::kPooledTransfer);
  CHECK(sim::ClassifySituation(
            sim::LoadSetup("v100", "pytorch-eager", "gpus-pytorch-eager-fp16", {})) == S::kFitted);
  // The override the fit itself ran with keeps the chip fitted; another does not.
  CHECK(sim::ClassifySituation(sim::LoadSetup("epyc-zen4", "", "epyc-zen4-libtorch-cpu-fp32",
                                              {{"cores", "1"}})) == S::kFitted);
  CHECK(sim::ClassifySituation(sim::LoadSetup("epyc-zen4", "", "epyc-zen4-libtorch-cpu-fp32",
                                              {{"cores", "2"}})) == S::kChipTransfer);
}

TEST_CASE("a latency interval inverts the residual quantiles", "[intervals]") {
  // r = ln(predicted / measured): a prediction 10% fast at the upper end means measured up to
  // predicted * exp(0.1).
  const sim::ErrorBand b = Band(0.0, -0.1, 0.2, -0.3, 0.4, 0.1, 0.2);
  const sim::Interval i = sim::LatencyInterval(10.0, b);
  CHECK(i.lo80 == Approx(10.0 * std::exp(-0.2)));
  CHECK(i.hi80 == Approx(10.0 * std::exp(0.1)));
  CHECK(i.lo95 == Approx(10.0 * std::exp(-0.4)));
  CHECK(i.hi95 == Approx(10.0 * std::exp(0.3)));
  const sim::Interval t = sim::InverseInterval(i, 5.0);  // throughput = k / latency
  CHECK(t.lo80 == Approx(5.0 * std::exp(-0.1)));
  CHECK(t.hi80 == Approx(5.0 * std::exp(0.2)));
}

TEST_CASE("a ratio interval combines the two errors with their correlation", "[intervals]") {
  const sim::ErrorBand a = Band(0.05, -0.05, 0.25, -0.15, 0.35, 0.1, 0.2);
  const sim::ErrorBand b = Band(-0.05, -0.25, 0.05, -0.35, 0.15, 0.1, 0.2);
  sim::PairModel pm;
  pm.rho = 0.5;
  // Two chips: centred at c_a - c_b = 0.1; A's upper half (0.2) with B's lower (0.2), A's lower
  // (0.1) with B's upper (0.1), each sqrt(h_a^2 + h_b^2 - 2 rho w_a w_b).
  const sim::Interval i = sim::RatioInterval(2.0, a, b, pm, false);
  const double up = std::sqrt(0.04 + 0.04 - 2 * 0.5 * 0.01);
  const double down = std::sqrt(0.01 + 0.01 - 2 * 0.5 * 0.01);
  CHECK(i.lo80 == Approx(2.0 * std::exp(-(0.1 + up))));
  CHECK(i.hi80 == Approx(2.0 * std::exp(-(0.1 - down))));
  // One chip: the bias cancels, only the within-chip parts remain.
  const sim::Interval j = sim::RatioInterval(2.0, a, b, pm, true);
  const double w = std::sqrt(0.01 + 0.01 - 2 * 0.5 * 0.01);
  CHECK(j.lo80 == Approx(2.0 * std::exp(-w)));
  CHECK(j.hi80 == Approx(2.0 * std::exp(w)));
  // Perfectly correlated identical errors on one chip: no error left in the ratio.
  pm.rho = 1.0;
  const sim::Interval k = sim::RatioInterval(2.0, a, a, pm, true);
  CHECK(k.lo95 == Approx(2.0));
  CHECK(k.hi95 == Approx(2.0));
  // The pair model's factors scale the halves.
  pm.rho = 0.0;
  pm.scale80 = 2.0;
  const sim::Interval m = sim::RatioInterval(1.0, a, a, pm, true);
  CHECK(std::log(m.hi80) == Approx(2.0 * std::sqrt(0.02)));
}

TEST_CASE("conformal ranks and borrowing", "[intervals]") {
  std::vector<double> own;
  for (int i = 1; i <= 39; ++i) own.push_back(i / 100.0);
  // n = 39: the 95% ends are the 1st and 39th smallest; the 80% ends the 4th and 36th.
  sim::ErrorBand b = calibrate::ConformalBand(own, own, 1);
  CHECK(b.lo95 == Approx(0.01));
  CHECK(b.hi95 == Approx(0.39));
  CHECK(b.lo80 == Approx(0.04));
  CHECK(b.hi80 == Approx(0.36));
  CHECK(b.source == "own");
  // n = 10 cannot set 95% ends: they come from the pooled rows, widened to the own extremes.
  std::vector<double> few(own.begin(), own.begin() + 10);
  std::vector<double> pooled;
  for (int i = -50; i <= 50; ++i) pooled.push_back(i / 1000.0);
  b = calibrate::ConformalBand(few, pooled, 1);
  CHECK(b.source.find("95% from all regimes") != std::string::npos);
  CHECK(b.hi95 == Approx(0.10));  // the own maximum, above the pooled 97.5% end
  CHECK(b.lo95 <= b.lo80);
  CHECK_THROWS_AS(calibrate::ConformalBand({}, {}, 0), InputError);
}

TEST_CASE("the hierarchical band widens for a chip outside the fit", "[intervals]") {
  // Three chips with biases -0.1, 0, +0.1 and small spreads within each.
  std::vector<std::vector<double>> chips{{-0.11, -0.1, -0.09}, {-0.01, 0, 0.01}, {0.09, 0.1, 0.11}};
  const sim::ErrorBand b = calibrate::HierarchicalBand(chips, chips, 3);
  CHECK(b.center == Approx(0.0).margin(1e-3));  // 200 x 9 atoms
  // A new chip's bias is t with 2 degrees of freedom, scale 0.1 sqrt(4/3): far wider than the
  // rows' own spread (-0.11 .. 0.11).
  CHECK(b.hi80 > 0.15);
  CHECK(b.hi95 > 0.4);
  CHECK(b.lo80 == Approx(-b.hi80).margin(1e-3));
  CHECK(b.within95 == 0.0);  // filled by BuildErrorModel, not here
}

TEST_CASE("error model files: round trip and strict reading", "[intervals]") {
  const sim::ErrorModel& shipped = sim::ShippedErrorModel();
  const std::string dir = TempDir("roundtrip");
  const std::string path = dir + "/m.yaml";
  WriteFileAtomic(path, sim::ErrorModelToYaml(shipped));
  const sim::ErrorModel back = sim::LoadErrorModel(path);
  CHECK(sim::ErrorModelToYaml(back) == sim::ErrorModelToYaml(shipped));
  std::string text = sim::ErrorModelToYaml(shipped);
  const size_t at = text.find("lo80: ");
  text.replace(at, 6, "lo80: 9");  // out of range
  WriteFileAtomic(path, text);
  CHECK_THROWS_WITH(sim::LoadErrorModel(path), Contains(path) && Contains("lo80"));
}

TEST_CASE("the shipped error model is what its sources give", "[intervals][shipped]") {
  const auto sources = calibrate::LoadIntervalSources(DataPath("intervals/sources.yaml"));
  const auto rows = calibrate::LoadResiduals(sources);
  sim::ErrorModel rebuilt = calibrate::BuildErrorModel(rows);
  rebuilt.generated = sim::ShippedErrorModel().generated;
  CHECK(sim::ErrorModelToYaml(rebuilt) == sim::ErrorModelToYaml(sim::ShippedErrorModel()));
  // Held-out coverage in the regime with the most chips, where the chip is in the fit.
  for (const auto& c : calibrate::MeasureCoverage(rows)) {
    if (c.regime == sim::Regime::kLargeBatchGpu && c.situation == sim::Situation::kFitted) {
      CHECK(c.cover80 == Approx(80).margin(5));
      CHECK(c.cover95 == Approx(95).margin(5));
    }
  }
}

TEST_CASE("bad residual tables name the file and line", "[intervals]") {
  const std::string dir = TempDir("bad");
  WriteFileAtomic(dir + "/r.csv",
                  "model,family,batch_size,image_size,measured_ms,predicted_ms\n"
                  "resnet50,resnet,128,224,10,11\nresnet50,resnet,128,224,abc,11\n");
  WriteFileAtomic(dir + "/s.yaml",
                  "sources:\n  - {file: r.csv, kind: gpu, situation: fitted, prediction: "
                  "predicted_ms, profile: p, device: v100}\n");
  CHECK_THROWS_WITH(calibrate::LoadResiduals(calibrate::LoadIntervalSources(dir + "/s.yaml")),
                    Contains("r.csv:3") && Contains("measured_ms"));
  WriteFileAtomic(dir + "/s.yaml",
                  "sources:\n  - {file: r.csv, kind: gpu, situation: refitted, prediction: "
                  "predicted_ms, profile: p, device: v100}\n");
  CHECK_THROWS_WITH(calibrate::LoadIntervalSources(dir + "/s.yaml"),
                    Contains("s.yaml") && Contains("situation"));
  WriteFileAtomic(dir + "/s.yaml",
                  "sources:\n  - {file: r.csv, kind: gpu, situation: fitted, prediction: "
                  "predicted_ms, profile: p}\n");
  CHECK_THROWS_WITH(calibrate::LoadResiduals(calibrate::LoadIntervalSources(dir + "/s.yaml")),
                    Contains("device"));
}
