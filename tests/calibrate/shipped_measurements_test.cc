// The shipped data/measurements files: every row loads under the real vocabulary, every model is
// buildable, and the zoo's structure agrees with the sources' own MAC counts.
#include <catch2/catch.hpp>

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <set>
#include <sstream>
#include <tuple>

#include "calibrate/csv_reader.h"
#include "calibrate/measurement.h"
#include "common/data_dir.h"
#include "common/file_io.h"
#include "common/sha256.h"
#include "common/text.h"
#include "models/counts.h"
#include "models/zoo/zoo.h"
#include "sim/calibration_params.h"
#include "sim/spec.h"
#include "sim/stack.h"

namespace dcnas::calibrate {
namespace {

// Not imported measurements: dcnas's own CPU timings (host-cpu.csv, written by `dcnas measure`)
// and GPU timings (own_h200.csv, written by scripts/measure_timm_gpu.py), and the transformer
// rows and the MLP-family rows (timm_transformers.csv, timm_mlp_mixers.csv,
// scripts/import_transformer_rows.py), checked separately below. The importer's bookkeeping lives
// in measurements/bookkeeping/.
const std::set<std::string> kNotImported = {"host-cpu.csv", "own_h200.csv", "timm_transformers.csv",
                                            "timm_mlp_mixers.csv", "timm_mbconv_rtx4090.csv"};

std::vector<std::string> MeasurementFiles() {
  std::vector<std::string> files;
  for (const auto& entry : std::filesystem::directory_iterator(DataPath("measurements"))) {
    const std::string name = entry.path().filename().string();
    if (entry.is_regular_file() && entry.path().extension() == ".csv" &&
        !kNotImported.count(name)) {
      files.push_back(entry.path().string());
    }
  }
  std::sort(files.begin(), files.end());
  return files;
}

Vocabulary RealVocabulary() {
  Vocabulary v;
  for (const auto& n : sim::AcceleratorNames()) v.devices.insert(n);
  for (const auto& n : sim::StackNames()) v.stacks.insert(n);
  return v;
}

std::vector<Measurement> AllRows() {
  std::vector<Measurement> rows;
  for (const std::string& file : MeasurementFiles()) {
    for (auto& m : LoadMeasurements(file, RealVocabulary())) rows.push_back(std::move(m));
  }
  return rows;
}

}  // namespace

TEST_CASE("shipped measurements load and every model is in the zoo", "[calibrate][golden]") {
  REQUIRE(MeasurementFiles().size() >= 5);
  const auto rows = AllRows();
  CHECK(rows.size() > 1000);
  const Resolved resolved = ResolveModels(rows, models::BuiltinModels());
  for (const Exclusion& e : resolved.excluded) FAIL_CHECK(e.row.where() << ": " << e.row.model);
  std::set<std::string> regimes;
  for (const Measurement& m : rows) {
    regimes.insert(m.regime);
    CHECK(!m.source_ref.empty());
    CHECK(!m.source_model.empty());
  }
  CHECK(regimes.size() == 4);  // large_batch, engine_latency, framework_latency, training
}

TEST_CASE("NVIDIA DLE PyTorch large-batch rows are the steady state, batch / throughput",
          "[calibrate][golden]") {
  // Those tables' mean latency carries slow iterations (data/README.md): the importer takes
  // batch / throughput and keeps the published mean in the notes.
  int n = 0;
  for (const Measurement& m : AllRows()) {
    if (m.source_id != "dle_pyt_convnets" || m.regime != "large_batch") continue;
    INFO(m.where());
    ++n;
    REQUIRE(m.throughput_img_per_s > 0);
    CHECK(m.latency_ms == Approx(m.batch_size * 1000.0 / m.throughput_img_per_s).epsilon(1e-5));
    const auto notes = m.extra.find("notes");
    REQUIRE(notes != m.extra.end());
    CHECK_THAT(notes->second, Catch::Contains("published mean latency"));
  }
  CHECK(n == 59);
}

TEST_CASE("NVIDIA DLE PyTorch rows record the layout their benchmark ran in",
          "[calibrate][golden]") {
  // launch.py takes each model's configs.yml entry, and every AMP entry sets memory_format: nhwc
  // (data/README.md): fp16 rows are NHWC, fp32 and tf32 rows NCHW, on every chip and model.
  std::map<std::string, int> by_precision;
  std::set<std::string> fp16_models;
  for (const Measurement& m : AllRows()) {
    if (m.source_id != "dle_pyt_convnets") continue;
    INFO(m.where() << " " << m.model << " " << m.precision);
    const auto layout = m.extra.find("layout");
    REQUIRE(layout != m.extra.end());
    CHECK(layout->second == (m.precision == "fp16" ? "NHWC" : "NCHW"));
    ++by_precision[m.precision];
    if (m.precision == "fp16") fp16_models.insert(m.model);
  }
  CHECK(by_precision["fp16"] > 0);
  CHECK(by_precision["fp32"] > 0);
  // Not only the ResNet-50 rows: the ResNeXts and EfficientNets too.
  CHECK(fp16_models.count("resnet50") == 1);
  CHECK(fp16_models.count("resnext101-32x4d") == 1);
  CHECK(fp16_models.count("efficientnet-b0") == 1);
}

TEST_CASE("the timm MBConv-family RTX 4090 rows name timm: networks, in the fitted setting",
          "[calibrate][golden]") {
  // scripts/import_timm_mbconv_latency.py: held out from every shipped profile, the setting of
  // rtx-4090-pytorch-eager-fp16 (PyTorch 2.4.0 cu124, eager, AMP fp16, NCHW, large batch).
  const auto rows =
      LoadMeasurements(DataPath("measurements/timm_mbconv_rtx4090.csv"), RealVocabulary());
  REQUIRE(rows.size() == 86);
  std::set<std::string> models_seen;
  for (const Measurement& m : rows) {
    INFO(m.where());
    CHECK(m.model.rfind("timm:", 0) == 0);
    CHECK(models::BuiltinModels().Contains(m.model));
    CHECK(m.device == "rtx-4090");
    CHECK(m.regime == "large_batch");
    CHECK(m.Extra("stack_version") == "PyTorch 2.4.0 (cu124)");
    CHECK(m.Extra("layout") == "NCHW");
    models_seen.insert(m.model);
  }
  CHECK(models_seen.size() == 65);
}

TEST_CASE("dcnas's own host-cpu timings load and name zoo models", "[calibrate][golden]") {
  const auto rows = LoadMeasurements(DataPath("measurements/host-cpu.csv"), RealVocabulary());
  REQUIRE(rows.size() >= 60);  // >= 20 models x 3 batch sizes
  std::set<std::string> models_seen;
  std::set<int> batches;
  for (const Measurement& m : rows) {
    INFO(m.where());
    CHECK(m.regime == kRegimeHostCpu);
    CHECK(m.device == "epyc-zen4");  // the spec file of the measuring CPU
    CHECK(m.stack == "libtorch-cpu");
    CHECK(models::BuiltinModels().Contains(m.model));
    CHECK(std::stod(m.Extra("latency_spread_ms")) >= 0.0);
    CHECK(std::stoi(m.Extra("repeats")) >= 5);
    models_seen.insert(m.model);
    batches.insert(m.batch_size);
  }
  CHECK(models_seen.size() >= 20);
  CHECK(batches.size() >= 3);
}

TEST_CASE("dcnas's own H200 timings are points of the RTX 4090 timm table", "[calibrate][golden]") {
  const auto rows = LoadMeasurements(DataPath("measurements/own_h200.csv"), RealVocabulary());
  REQUIRE(rows.size() >= 100);
  // The points the measuring script takes: timm_rtx4090.csv's PyTorch 2.4.0 NCHW rows.
  std::map<std::tuple<std::string, int, int>, std::string> points;
  for (const Measurement& m :
       LoadMeasurements(DataPath("measurements/timm_rtx4090.csv"), RealVocabulary())) {
    if (m.Extra("stack_version") == "PyTorch 2.4.0 (cu124)" && m.Extra("layout") == "NCHW") {
      points[{m.source_model, m.batch_size, m.image_size}] = m.model;
    }
  }
  std::set<std::tuple<std::string, int, int>> seen;
  std::set<std::string> models_seen;
  for (const Measurement& m : rows) {
    INFO(m.where());
    CHECK(m.device == "h200");
    CHECK(m.stack == "pytorch-eager");
    CHECK(m.precision == "fp16");
    CHECK(m.regime == "large_batch");
    CHECK(m.Extra("layout") == "NCHW");
    const auto key = std::make_tuple(m.source_model, m.batch_size, m.image_size);
    CHECK(seen.insert(key).second);  // each point once
    const auto point = points.find(key);
    REQUIRE(point != points.end());
    CHECK(point->second == m.model);  // the same zoo model as the 4090's row
    CHECK(models::BuiltinModels().Contains(m.model));
    CHECK(m.throughput_img_per_s == Approx(1000.0 * m.batch_size / m.latency_ms).epsilon(1e-3));
    models_seen.insert(m.model);
  }
  CHECK(models_seen.size() >= 40);
}

TEST_CASE("the model map names only zoo models", "[calibrate][golden]") {
  const auto records =
      ParseCsv(ReadFile(DataPath("measurements/bookkeeping/model_map.csv")), "model_map.csv");
  REQUIRE(records.size() > 50);
  REQUIRE(records[0].fields ==
          std::vector<std::string>{"source", "source_model", "dcnas_model", "decision", "reason"});
  for (size_t i = 1; i < records.size(); ++i) {
    const auto& f = records[i].fields;
    INFO("model_map.csv:" << records[i].line);
    CHECK(!f[4].empty());  // every decision states its reason
    if (f[3] == "mapped") {
      CHECK(models::BuiltinModels().Contains(f[2]));
    } else {
      CHECK(f[2].empty());
    }
  }
}

// The rows of one timm table dcnas imports beside its CNN import: `count` rows of zoo models in
// `families`, on the RTX 3090 / 4090 under the GPU profiles' conditions.
void CheckTimmRows(const std::string& file, size_t count, const std::set<std::string>& families) {
  const auto rows = LoadMeasurements(DataPath("measurements/" + file), RealVocabulary());
  CHECK(rows.size() == count);
  for (const Measurement& m : rows) {
    INFO(file << ": " << m.model << " " << m.device);
    CHECK(families.count(models::BuiltinModels().Get(m.model).family) == 1);
    CHECK((m.device == "rtx-3090" || m.device == "rtx-4090"));
    CHECK(m.stack == "pytorch-eager");
    CHECK(m.regime == "large_batch");
    CHECK(m.Extra("stack_version") == "PyTorch 2.4.0 (cu124)");
  }
}

TEST_CASE("the transformer and MLP-family rows are zoo models on the profiles' conditions",
          "[calibrate][golden]") {
  CheckTimmRows("timm_transformers.csv", 48, {"vit", "swin", "convnext"});
  CheckTimmRows("timm_mlp_mixers.csv", 20, {"mixer", "resmlp"});
}

TEST_CASE("the import summary accounts for every shipped row", "[calibrate][golden]") {
  std::map<std::pair<std::string, std::string>, int> shipped;
  for (const Measurement& m : AllRows()) ++shipped[{m.device, m.regime}];
  const auto records = ParseCsv(ReadFile(DataPath("measurements/bookkeeping/import_summary.csv")),
                                "import_summary.csv");
  std::map<std::pair<std::string, std::string>, int> summary;
  for (size_t i = 1; i < records.size(); ++i) {
    const auto& f = records[i].fields;
    if (f[2] == "imported") summary[{f[0], f[1]}] = std::stoi(f[3]);
  }
  CHECK(summary == shipped);
}

TEST_CASE("zoo MACs agree with the sources' published counts", "[calibrate][golden]") {
  // timm's infer_gmacs (fvcore) also counts some elementwise work (SE scaling, activations) as
  // MACs, so it runs up to ~6% above the convolution/FC MACs dcnas counts; never below it.
  std::map<std::pair<std::string, int>, double> published;
  for (const Measurement& m : AllRows()) {
    const std::string gmacs = m.Extra("source_gmacs");
    if (!gmacs.empty()) published[{m.model, m.image_size}] = std::stod(gmacs);
  }
  REQUIRE(published.size() >= 40);
  for (const auto& [key, gmacs] : published) {
    models::BuildOptions options;
    options.resolution = key.second;
    const auto graph = models::BuiltinModels().Build(key.first, options);
    const double ratio = models::CountGraph(graph).macs / 1e9 / gmacs;
    INFO(key.first << " at " << key.second << " px: dcnas/published MACs = " << ratio);
    CHECK(ratio > 0.93);
    CHECK(ratio < 1.01);
  }
}

}  // namespace dcnas::calibrate

namespace dcnas::calibrate {
namespace {

// Every shipped profile loads, names shipped accelerators and a stack, and was fitted to the
// measurement files as they are now: a changed measurement file needs its profiles refitted
// (scripts/calibrate_profiles.sh).
TEST_CASE("shipped calibrated profiles match the measurements they were fitted to",
          "[calibrate][golden]") {
  const auto names = sim::DataFileNames("calibrated");
  REQUIRE(names.size() >= 10);
  const auto accelerators = sim::AcceleratorNames();
  for (const auto& name : names) {
    INFO(name);
    const std::string path = DataPath("calibrated/" + name + ".yaml");
    CHECK_NOTHROW(sim::LoadCalibration(path));
    const YAML::Node provenance = YAML::LoadFile(path)["provenance"];
    REQUIRE(provenance.IsMap());
    // A profile fitted on several chips names them joined by '+'.
    for (const std::string& device : Split(provenance["device"].as<std::string>(), '+')) {
      INFO(device);
      CHECK(std::find(accelerators.begin(), accelerators.end(), device) != accelerators.end());
    }
    CHECK_NOTHROW(sim::LoadStack(provenance["stack"].as<std::string>()));
    std::string contents;
    for (std::string file : Split(provenance["measurements_file"].as<std::string>(), ',')) {
      file.erase(0, file.find_first_not_of(' '));
      REQUIRE(file.rfind("data/", 0) == 0);
      contents += ReadFile(DataPath(file.substr(5)));
    }
    CHECK(Sha256Hex(contents) == provenance["measurements_sha256"].as<std::string>());
    // Below the comment header, the file is what sim::CalibrationToYaml writes (numbers with
    // the digits they have).
    std::istringstream lines(ReadFile(path));
    std::string body;
    for (std::string line; std::getline(lines, line);) {
      if (line.rfind('#', 0) != 0) body += line + "\n";
    }
    CHECK(body == sim::CalibrationToYaml(sim::LoadCalibration(path)));
  }
}

}  // namespace
}  // namespace dcnas::calibrate
