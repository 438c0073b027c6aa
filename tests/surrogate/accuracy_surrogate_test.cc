#include "surrogate/accuracy_surrogate.h"

#include <catch2/catch.hpp>
#include <cmath>
#include <cstdlib>
#include <filesystem>

#include "common/errors.h"
#include "common/file_io.h"
#include "common/sha256.h"
#include "common/text.h"
#include "models/counts.h"

namespace dcnas::surrogate {
namespace {

namespace fs = std::filesystem;
using Catch::Matchers::Contains;

std::string SpacePath() {
  const char* root = std::getenv("DCNAS_SOURCE_ROOT");
  return std::string(root ? root : ".") + "/data/search_spaces/dc-accelerator.yaml";
}

// Synthetic accuracy data: every choice value has its own effect on accuracy (drawn once from a
// fixed seed), plus a small FLOPs term and noise, so that FLOPs alone rank poorly and the choices
// rank well.
proxy::AccuracyData Synthetic(const space::Space& space, int count, uint64_t seed) {
  std::mt19937_64 effects_rng(1234);
  std::normal_distribution<double> unit(0.0, 1.0);
  std::vector<std::vector<double>> effect;
  for (int c : space.choice_counts()) {
    effect.emplace_back();
    for (int v = 0; v < c; ++v) effect.back().push_back(0.6 * unit(effects_rng));
  }
  std::mt19937_64 rng(seed);
  proxy::AccuracyData data;
  data.file = "synthetic.csv";
  for (int i = 0; i < count; ++i) {
    const space::Encoding e = space.Sample(rng);
    const auto counts = models::CountGraph(space.BuildFull(e, {}, models::BuildOptions{}));
    double acc = 85.0 + 0.3 * std::log10(static_cast<double>(counts.flops)) + 0.15 * unit(rng);
    for (size_t j = 0; j < e.size(); ++j) acc += effect[j][static_cast<size_t>(e[j])];
    proxy::AccuracyRow r;
    r.space = space.name();
    r.fingerprint = space.fingerprint();
    r.encoding = space.ToText(e);
    r.seed = static_cast<uint64_t>(i);
    r.val_accuracy = acc;
    r.test_accuracy = acc;
    r.params = counts.params;
    r.flops = counts.flops;
    data.rows.push_back(r);
  }
  return data;
}

TEST_CASE("the surrogate beats a FLOPs-only baseline on held-out architectures; file round trip") {
  const std::string yaml = ReadFile(SpacePath());
  const space::Space space = space::Space::Parse(yaml, SpacePath());
  const proxy::AccuracyData data = Synthetic(space, 400, 1);
  SurrogateFitOptions o;
  o.ensemble.members = 3;
  o.learning_curve = true;
  const SurrogateFit fit = FitAccuracySurrogate(space, yaml, data, "sha", o);
  const auto& r = fit.report;
  CHECK(r.groups == 400);
  CHECK(r.train + r.valid + r.test == 400);
  INFO("tau " << r.test_quality.kendall_tau << " flops tau " << r.flops_baseline_tau);
  CHECK(r.test_quality.kendall_tau > 0.5);
  CHECK(r.test_quality.kendall_tau > r.flops_baseline_tau + 0.2);
  REQUIRE(r.learning_curve.size() >= 4);
  CHECK(r.learning_curve.back().train_rows == r.train);
  CHECK(r.learning_curve.back().test_kendall_tau > r.learning_curve.front().test_kendall_tau);
  CHECK(fit.parity_svg.find("<svg") != std::string::npos);

  const std::string path =
      (fs::temp_directory_path() / ("dcnas-surrogate-" + std::to_string(::getpid()) + ".ubj"))
          .string();
  surrogate::SaveSurrogate(path, fit.ensemble, fit.metadata);
  const AccuracySurrogate loaded = AccuracySurrogate::Load(path);
  CHECK(loaded.space().fingerprint() == space.fingerprint());
  CHECK(loaded.heldout_tau() == Approx(r.test_quality.kendall_tau));
  // Predictions from the file equal the fitted ensemble's, bit for bit.
  std::vector<space::Encoding> es;
  std::mt19937_64 rng(99);
  for (int i = 0; i < 50; ++i) es.push_back(space.Sample(rng));
  const std::vector<space::Scaling> sc(es.size());
  const space::FeatureSet f = loaded.Features(es, sc);
  std::vector<float> mean, stddev, mean2(es.size()), std2(es.size());
  loaded.PredictFeatures(f, mean, stddev);
  fit.ensemble.Predict({f.values.data(), f.rows, f.names.size()}, mean2, std2);
  CHECK(mean == mean2);
  CHECK(stddev == std2);

  // Quality floor and space checks for anything that searches with it.
  CHECK_NOTHROW(loaded.RequireUsable(0.3, space.fingerprint()));
  CHECK_THROWS_WITH(loaded.RequireUsable(0.99),
                    Contains("below the quality floor") && Contains(path));
  CHECK_THROWS_WITH(loaded.RequireUsable(0.0, "0123456789abcdef"),
                    Contains("not of the space searched"));

  // Held-out evaluation on other architectures of the same synthetic law.
  const auto ev = EvaluateAccuracySurrogate(loaded, Synthetic(space, 100, 2), "val_accuracy");
  CHECK(ev.groups == 100);
  CHECK(ev.quality.kendall_tau > ev.flops_baseline_tau);

  // A surrogate whose metadata does not match its embedded space is refused.
  nlohmann::json meta = fit.metadata;
  meta["space_fingerprint"] = "ffffffffffffffff";
  surrogate::SaveSurrogate(path, fit.ensemble, meta);
  CHECK_THROWS_WITH(AccuracySurrogate::Load(path), Contains("space_fingerprint"));
  fs::remove(path);
}

TEST_CASE("too few architectures or rows of another space are refused") {
  const std::string yaml = ReadFile(SpacePath());
  const space::Space space = space::Space::Parse(yaml, SpacePath());
  CHECK_THROWS_WITH(FitAccuracySurrogate(space, yaml, Synthetic(space, 10, 1), "", {}),
                    Contains("at least 20"));
  proxy::AccuracyData d = Synthetic(space, 30, 1);
  d.rows[3].fingerprint = "0000000000000000";
  CHECK_THROWS_WITH(FitAccuracySurrogate(space, yaml, d, "", {}),
                    Contains("synthetic.csv:5") && Contains("another space"));
}

TEST_CASE("fitting from files: the data's hash, the report and chart, then the model") {
  const space::Space space = space::Space::Load(SpacePath());
  const fs::path dir =
      fs::temp_directory_path() / ("dcnas-surrogate-files-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  const std::string a = (dir / "a.csv").string(), b = (dir / "b.csv").string();
  proxy::AccuracyData data = Synthetic(space, 60, 3);
  for (proxy::AccuracyRow& r : data.rows) {
    r.val_accuracy = r.test_accuracy = std::min(r.val_accuracy, 99.0);  // the reader's range
  }
  {
    proxy::AccuracyAppender first(a), second(b);
    for (size_t i = 0; i < data.rows.size(); ++i) (i < 40 ? first : second).Append(data.rows[i]);
  }
  SurrogateFitOptions o;
  o.ensemble.members = 1;
  o.learning_curve = false;
  // The model's name is checked before anything is read or fitted.
  CHECK_THROWS_WITH(FitAccuracySurrogateFiles(SpacePath(), {(dir / "none.csv").string()},
                                              (dir / "m.bin").string(), o),
                    Contains("m.bin"));
  CHECK_FALSE(fs::exists(dir / "m.bin.report.json"));

  const std::string out = (dir / "m.json").string();
  const SurrogateFit fit = FitAccuracySurrogateFiles(SpacePath(), {a, b}, out, o);
  CHECK(fit.report.groups == 60);
  CHECK(fit.metadata["space"] == space.name());
  CHECK(fit.metadata["space_yaml"] == ReadFile(SpacePath()));
  CHECK(fit.metadata["data_sha256"] == Sha256Hex(ReadFile(a) + ReadFile(b)));
  CHECK(nlohmann::json::parse(ReadFile(out + ".report.json")) == fit.metadata["report"]);
  CHECK(ReadFile(out + ".parity.svg") == fit.parity_svg);
  CHECK(AccuracySurrogate::Load(out).space().fingerprint() == space.fingerprint());
  CHECK_THROWS_WITH(
      FitAccuracySurrogateFiles((dir / "none.yaml").string(), {a}, (dir / "n.json").string(), o),
      Contains("none.yaml"));
  fs::remove_all(dir);
}

}  // namespace
}  // namespace dcnas::surrogate
