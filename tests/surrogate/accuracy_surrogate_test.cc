#include "surrogate/accuracy_surrogate.h"

#include <unistd.h>

#include <catch2/catch.hpp>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <random>

#include "common/errors.h"
#include "common/file_io.h"
#include "common/sha256.h"
#include "common/table.h"
#include "common/text.h"
#include "models/counts.h"
#include "surrogate/surrogate_file.h"
#include "tests/surrogate/synthetic_accuracy.h"

namespace dcnas::surrogate {
namespace {

namespace fs = std::filesystem;
using Catch::Matchers::Contains;

std::string SpacePath() {
  const char* root = std::getenv("DCNAS_SOURCE_ROOT");
  return std::string(root ? root : ".") + "/data/search_spaces/dc-accelerator.yaml";
}

proxy::AccuracyData Synthetic(const space::Space& space, int count, uint64_t seed) {
  return testing::SyntheticAccuracy(space, count, seed);
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
  PredictAccuracy(fit.ensemble, LabelTransform::kLogError,
                  {f.values.data(), f.rows, f.names.size()}, mean2, std2);
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
  const proxy::AccuracyData data = Synthetic(space, 120, 3);  // 12 to test: kMinTestArchitectures
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
  CHECK_THROWS_WITH(FitAccuracySurrogateFiles(SpacePath(), {}, (dir / "m.json").string(), o),
                    Contains("list of data files is empty"));

  const std::string out = (dir / "m.json").string();
  const SurrogateFit fit = FitAccuracySurrogateFiles(SpacePath(), {a, b}, out, o);
  CHECK(fit.report.groups == 120);
  CHECK(fit.metadata["space"] == space.name());
  CHECK(fit.metadata["space_yaml"] == ReadFile(SpacePath()));
  CHECK(fit.metadata["data_sha256"] == Sha256Hex(ReadFile(a) + ReadFile(b)));
  CHECK(nlohmann::json::parse(ReadFile(out + ".report.json")) == fit.metadata["report"]);
  CHECK(ReadFile(out + ".parity.svg") == fit.parity_svg);
  CHECK(AccuracySurrogate::Load(out).space().fingerprint() == space.fingerprint());
  // The labels' range, which bounds the prediction sanity check of Load.
  REQUIRE(fit.metadata["label_range"].size() == 2);
  CHECK(fit.metadata["label_range"][0].get<double>() <=
        fit.metadata["label_range"][1].get<double>());
  CHECK_THROWS_WITH(
      FitAccuracySurrogateFiles((dir / "none.yaml").string(), {a}, (dir / "n.json").string(), o),
      Contains("none.yaml"));
  fs::remove_all(dir);
}

std::string TempPath(const std::string& name) {
  return (fs::temp_directory_path() / ("dcnas-acc-sur-" + std::to_string(::getpid()) + "-" + name))
      .string();
}

std::string ShippedPath() {
  const char* root = std::getenv("DCNAS_SOURCE_ROOT");
  return std::string(root ? root : ".") + "/data/surrogates/dc-accelerator.ubj";
}

TEST_CASE("the shipped surrogate passes the structural and prediction checks, as it predicted") {
  // Predictions of the shipped members through the compiled Forest and through XGBoost agree bit
  // for bit, and sampled architectures land within plausible accuracies.
  const Surrogate raw = LoadSurrogate(ShippedPath());
  const AccuracySurrogate s = AccuracySurrogate::Load(ShippedPath());
  std::mt19937_64 rng(11);
  std::vector<space::Encoding> es;
  for (int i = 0; i < 16; ++i) es.push_back(s.space().Sample(rng));
  const space::FeatureSet f = s.Features(es, std::vector<space::Scaling>(es.size()));
  const MatrixView x{f.values.data(), f.rows, f.names.size()};
  for (const Regressor& m : raw.ensemble.members()) {
    std::vector<float> booster(x.rows);
    m.booster().Predict(x, booster);
    CHECK(m.Predict(x) == booster);
  }
  std::vector<float> mean, stddev;
  s.PredictFeatures(f, mean, stddev);
  for (const float y : mean) {
    CHECK(y > 40.0F);
    CHECK(y < 90.0F);
  }
}

TEST_CASE("one changed character in the shipped surrogate: refused or loaded, never a crash") {
  const std::string bytes = ReadFile(ShippedPath());
  const nlohmann::json doc = nlohmann::json::from_ubjson(bytes);
  const std::string b64 = doc["members"][0]["model_base64"].get<std::string>();
  const size_t at = bytes.find(b64);
  REQUIRE(at != std::string::npos);
  const std::string path = TempPath("changed.ubj");
  std::mt19937_64 rng(3);
  int refused = 0;
  for (int trial = 0; trial < 12; ++trial) {
    std::string changed = bytes;
    const size_t pos = at + rng() % b64.size();
    const char* alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    char c = alphabet[rng() % 64];
    if (c == changed[pos]) c = c == 'A' ? 'B' : 'A';
    changed[pos] = c;
    WriteFileAtomic(path, changed);
    INFO("offset " << pos);
    try {
      (void)AccuracySurrogate::Load(path);
    } catch (const InputError& e) {
      ++refused;
      CHECK_THAT(e.what(), Contains(path));
    }
  }
  (void)refused;  // the shipped file has no checksums: a changed leaf digit may still load
  fs::remove(path);
}

TEST_CASE("a member predicting implausible accuracies is refused when the surrogate loads") {
  nlohmann::json doc = nlohmann::json::from_ubjson(ReadFile(ShippedPath()));
  auto& member = doc["members"][2];
  nlohmann::json model =
      nlohmann::json::from_ubjson(DecodeBase64(member["model_base64"].get<std::string>()));
  // A finite base_score the structural check cannot fault, but far off the labels.
  model["learner"]["learner_model_param"]["base_score"] = "-1E3";
  const std::string text = model.dump();
  member["model_format"] = "json";
  member["model_base64"] = EncodeBase64(text);
  member["model_sha256"] = Sha256Hex(text);
  const std::string path = TempPath("implausible.ubj");
  const std::vector<std::uint8_t> ubj = nlohmann::json::to_ubjson(doc);
  WriteFileAtomic(path, std::string(ubj.begin(), ubj.end()));
  CHECK_NOTHROW(LoadSurrogate(path));  // the container and models are well formed
  CHECK_THROWS_AS(AccuracySurrogate::Load(path), InputError);
  CHECK_THROWS_WITH(AccuracySurrogate::Load(path),
                    Contains(path) && Contains("members[2]") && Contains("predicts"));
  fs::remove(path);
}

TEST_CASE("fit and predict see identical features for one encoding, computed from the space") {
  const std::string yaml = ReadFile(SpacePath());
  const space::Space space = space::Space::Parse(yaml, SpacePath());
  proxy::AccuracyData data = Synthetic(space, 120, 5);
  data.rows[0].params += 12345;  // a wrong count in the file: reported, never a feature
  const ArchitectureTable t = GroupArchitectures(space, data, "");
  CHECK(t.target == "val_accuracy");
  CHECK(t.count_mismatches == 1);
  CHECK_THAT(t.first_count_mismatch, Contains("synthetic.csv:2: params"));
  SurrogateFitOptions o;
  o.ensemble.members = 2;
  o.learning_curve = false;
  const SurrogateFit fit = FitAccuracySurrogate(space, yaml, data, "sha", o);
  CHECK(fit.report.count_mismatches == 1);
  const std::string path = TempPath("features.ubj");
  SaveSurrogate(path, fit.ensemble, fit.metadata);
  const AccuracySurrogate loaded = AccuracySurrogate::Load(path);
  fs::remove(path);
  CHECK(loaded.label_transform() == LabelTransform::kLogError);
  const size_t width = t.features.names.size();
  CHECK(fit.metadata["feature_names"] == nlohmann::json(t.features.names));
  // The row the fit saw for the first architecture is the row prediction computes.
  const space::Encoding e = space.FromText(data.rows[0].encoding);
  const space::FeatureSet predicted = loaded.Features({e}, {space::Scaling{}});
  const std::vector<float> fitted(t.features.values.begin(),
                                  t.features.values.begin() + static_cast<std::ptrdiff_t>(width));
  CHECK(predicted.values == fitted);
  // The search's batch path hands in space::AppendFeatures rows built from its own counts: the
  // same row, predicted the same.
  space::FeatureSet base;
  const auto c = models::CountGraph(space.BuildFull(e, {}, models::BuildOptions{}));
  space::AppendFeatures(space, e, {}, static_cast<double>(c.params), static_cast<double>(c.flops),
                        base);
  CHECK(base.values == predicted.values);
  std::vector<float> m1, s1, m2, s2;
  loaded.PredictFeatures(base, m1, s1);
  loaded.PredictFeatures(predicted, m2, s2);
  CHECK(m1 == m2);
  CHECK(s1 == s2);
  CHECK(m1[0] > 50.0F);  // percent, not the log error rate the ensemble was fitted to
  CHECK(m1[0] < 100.0F);
}

TEST_CASE("--holdout: 0 fits on every architecture; a test set too small is refused with why") {
  const std::string yaml = ReadFile(SpacePath());
  const space::Space space = space::Space::Parse(yaml, SpacePath());
  const proxy::AccuracyData data = Synthetic(space, 60, 3);
  SurrogateFitOptions o;
  o.ensemble.members = 2;
  o.learning_curve = false;
  CHECK_THROWS_WITH(
      FitAccuracySurrogate(space, yaml, data, "", o),
      Contains("60 architectures with --holdout 0.2 leave 48 to fit on and 6 to test") &&
          Contains("standard error") && Contains("--holdout 0") &&
          Contains("hold out at least 0.35"));
  o.holdout = 0.4;
  const SurrogateFit held = FitAccuracySurrogate(space, yaml, data, "", o);
  CHECK(held.report.test >= kMinTestArchitectures);
  CHECK(held.report.train + held.report.valid + held.report.test == 60);
  o.holdout = 0.0;
  const SurrogateFit all = FitAccuracySurrogate(space, yaml, data, "", o);
  CHECK(all.report.train == 60);
  CHECK(all.report.valid == 0);
  CHECK(all.report.test == 0);
  CHECK(all.parity_svg.empty());
  CHECK(all.metadata["report"]["test"].is_null());
  CHECK(all.metadata["report"]["early_stopping"] == "out-of-bag rows");
  const std::string path = TempPath("all.ubj");
  SaveSurrogate(path, all.ensemble, all.metadata);
  const AccuracySurrogate loaded = AccuracySurrogate::Load(path);
  fs::remove(path);
  CHECK(std::isnan(loaded.heldout_tau()));
  CHECK_THROWS_WITH(loaded.RequireUsable(0.3), Contains("--holdout 0") && Contains(path));
  CHECK_NOTHROW(loaded.RequireUsable(-1.0));
  o.holdout = 1.0;
  CHECK_THROWS_WITH(FitAccuracySurrogate(space, yaml, data, "", o), Contains("[0, 1)"));
}

TEST_CASE("a plain encoding,accuracy file fits like the full form of the same accuracies") {
  const space::Space space = space::Space::Load(SpacePath());
  const proxy::AccuracyData data = Synthetic(space, 120, 7);
  const std::string full = TempPath("full.csv"), plain = TempPath("plain.csv");
  std::string full_text = proxy::AccuracyHeader(), plain_text = "encoding,accuracy\n";
  for (const proxy::AccuracyRow& r : data.rows) {
    full_text += proxy::FormatAccuracyRow(r);
    plain_text += r.encoding + "," + FormatShortest(r.test_accuracy) + "\n";
  }
  WriteFileAtomic(full, full_text);
  WriteFileAtomic(plain, plain_text);
  SurrogateFitOptions o;
  o.ensemble.members = 2;
  o.learning_curve = false;
  const std::string yaml = ReadFile(SpacePath());
  const SurrogateFit a = FitAccuracySurrogate(space, yaml, ReadAccuracyFiles({full}, space), "", o);
  const SurrogateFit b =
      FitAccuracySurrogate(space, yaml, ReadAccuracyFiles({plain}, space), "", o);
  CHECK(a.metadata["target"] == "val_accuracy");
  CHECK(b.metadata["target"] == "test_accuracy");
  CHECK(b.metadata["recipe"] == "unrecorded");
  CHECK(a.report.test_quality.kendall_tau == b.report.test_quality.kendall_tau);
  CHECK_THROWS_WITH(ReadAccuracyFiles({full, plain}, space), Contains("recipe"));
  fs::remove(full);
  fs::remove(plain);
}

TEST_CASE("the label transform: fitted to the log error rate, predicting percent") {
  for (const double acc : {45.0, 90.0, 99.5}) {
    CHECK(FromModelLabel(LabelTransform::kLogError, ToModelLabel(LabelTransform::kLogError, acc)) ==
          Approx(acc).epsilon(1e-6));
  }
  CHECK(std::isfinite(ToModelLabel(LabelTransform::kLogError, 100.0)));
  CHECK(ToModelLabel(LabelTransform::kLogError, 90.0) >
        ToModelLabel(LabelTransform::kLogError, 80.0));
  CHECK(ToModelLabel(LabelTransform::kNone, 80.0) == 80.0F);
}

TEST_CASE(
    "the shipped surrogate (fitted before the label transform) loads and predicts as it was") {
  const char* root = std::getenv("DCNAS_SOURCE_ROOT");
  const std::string path = std::string(root ? root : ".") + "/data/surrogates/dc-accelerator.ubj";
  const AccuracySurrogate s = AccuracySurrogate::Load(path);
  CHECK(s.label_transform() == LabelTransform::kNone);
  std::mt19937_64 rng(5);
  const std::vector<space::Encoding> es = {s.space().Sample(rng), s.space().Sample(rng)};
  std::vector<float> mean, stddev;
  s.Predict(es, std::vector<space::Scaling>(2), mean, stddev);
  CHECK(std::isfinite(mean[0]));
  CHECK(mean[0] > 0.0F);
  // Raw labels: exactly the ensemble's own mean and std, as before.
  const space::FeatureSet f = s.Features(es, std::vector<space::Scaling>(2));
  const Surrogate raw = LoadSurrogate(path);
  std::vector<float> m2(2), s2(2);
  raw.ensemble.Predict({f.values.data(), f.rows, f.names.size()}, m2, s2);
  CHECK(mean == m2);
  CHECK(stddev == s2);
}

}  // namespace
}  // namespace dcnas::surrogate
