// dcnas surrogate fit | eval | predict | curve | imagenet | imagenet-predict
#include <charconv>
#include <chrono>
#include <cmath>
#include <iostream>
#include <nlohmann/json.hpp>
#include <optional>
#include <thread>
#include <vector>

#include "cli/cli.h"
#include "common/file_io.h"
#include "common/table.h"
#include "common/text.h"
#include "models/zoo/zoo.h"
#include "surrogate/accuracy_curve.h"
#include "surrogate/accuracy_surrogate.h"
#include "surrogate/imagenet_surrogate.h"
#include "surrogate/surrogate_file.h"

namespace dcnas::cli {
namespace {

std::string Metric(double v, int digits = 3) {
  return std::isfinite(v) ? FormatFixed(v, digits) : "n/a";
}

void PrintQuality(const surrogate::QualityReport& q, double flops_tau, Table& t) {
  t.AddRow({"RMSE (pp)", Metric(q.rmse)});
  t.AddRow({"R^2", Metric(q.r_squared)});
  t.AddRow({"Kendall tau", Metric(q.kendall_tau)});
  t.AddRow({"sparse Kendall tau (0.1 pp)", Metric(q.sparse_kendall_tau)});
  t.AddRow({"top-10% recall", Metric(q.top10_recall)});
  t.AddRow({"within 1 / 2 std",
            Metric(q.calibration.within_1_std, 2) + " / " + Metric(q.calibration.within_2_std, 2)});
  t.AddRow({"FLOPs-only baseline tau", Metric(flops_tau)});
}

// A fraction in [0, 1) given as text (--holdout): UsageError naming the option otherwise.
double ParseFraction(const std::string& text, const std::string& option) {
  double v = 0.0;
  const char* end = text.data() + text.size();
  const auto r = std::from_chars(text.data(), end, v);
  if (text.empty() || r.ec != std::errc() || r.ptr != end || !std::isfinite(v) || v < 0.0 ||
      v >= 1.0) {
    throw UsageError("--" + option + " '" + text + "': expected a fraction in [0, 1)");
  }
  return v;
}

// --sizes: comma-separated whole numbers, each in [1, 10000000].
std::vector<size_t> ParseSizes(const std::string& text) {
  std::vector<size_t> sizes;
  for (const std::string& part : Split(text, ',')) {
    size_t v = 0;
    const char* end = part.data() + part.size();
    const auto r = std::from_chars(part.data(), end, v);
    if (part.empty() || r.ec != std::errc() || r.ptr != end || v < 1 || v > 10000000) {
      throw UsageError("--sizes '" + text + "': '" + part +
                       "' is not a whole number in [1, 10000000]");
    }
    sizes.push_back(v);
  }
  return sizes;
}

constexpr const char* kDataHelp =
    "accuracy CSVs of one recipe: the full form (`dcnas accuracy-data`) or the plain form "
    "encoding,accuracy (one row per network or per replicate)";
constexpr const char* kTargetHelp =
    "val_accuracy, test_accuracy, or auto: val_accuracy when every row has one, else "
    "test_accuracy (benchmarks, plain files)";

void PrintFit(const surrogate::SurrogateFit& fit, const std::string& out) {
  const auto& r = fit.report;
  std::cout << "surrogate of " << fit.metadata["space"].get<std::string>() << ": " << r.groups
            << " architectures (" << r.rows << " rows, label: mean " << r.target << "): train "
            << r.train << ", valid " << r.valid << ", test " << r.test << "\n";
  if (r.count_mismatches > 0) {
    std::cerr << "warning: " << r.count_mismatches
              << " rows record params or FLOPs that differ from the space's (the features use "
                 "the space's), e.g. "
              << r.first_count_mismatch << "\n";
  }
  if (r.test == 0) {
    std::cout << "fitted on every architecture (--holdout 0): no held-out report -> " << out
              << " (+ .report.json)\n";
    return;
  }
  Table t({"held-out metric", "value"});
  PrintQuality(r.test_quality, r.flops_baseline_tau, t);
  t.AddRow({"params-only baseline tau", Metric(r.params_baseline_tau)});
  for (const auto& p : r.learning_curve) {
    t.AddRow({"learning curve: tau at " + std::to_string(p.train_rows) + " rows",
              Metric(p.test_kendall_tau)});
  }
  std::cout << t.ToText() << "-> " << out << " (+ .report.json, .parity.svg)\n";
}

constexpr const char* kFeaturesHelp =
    "feature sets, comma-separated: onehot (the encoding's choices), counts (log params and "
    "FLOPs, layers, resolution, scaling), graph (op counts, depth, widths, kernels, per-level "
    "params/FLOPs/activations of the layer graph), zero-cost (synflow, NASWOT, grad-norm, snip "
    "from --zero-cost; such a surrogate measures, it cannot predict or search). The default "
    "adds graph to what surrogates fitted before feature sets have (onehot,counts): it ranked "
    "better at every size on both data sets of the ablation (docs/proxy-validity.md)";

// --features and --zero-cost as a FeatureSpec (the table read against the space file).
surrogate::FeatureSpec ResolveFeatures(const std::string& text, const std::string& zero_cost,
                                       const std::string& space_file) {
  surrogate::FeatureSpec spec = surrogate::FeatureSpec::Parse(text);
  if (spec.Has("zero-cost") != !zero_cost.empty()) {
    throw UsageError(spec.Has("zero-cost")
                         ? "--features zero-cost needs --zero-cost FILE (accuracy-data zero-cost)"
                         : "--zero-cost FILE given without the zero-cost feature set");
  }
  if (!zero_cost.empty()) {
    surrogate::ReadZeroCostTable(zero_cost, space::Space::Load(space_file), spec);
  }
  return spec;
}

int Fit(const Args& args) {
  po::options_description options("options");
  std::vector<std::string> data_files;
  std::string space_file, out, holdout = FormatShortest(surrogate::kDefaultHoldout);
  surrogate::SurrogateFitOptions o;
  bool no_curve = false;
  std::string features = "onehot,counts,graph", zero_cost;
  options.add_options()("data", po::value(&data_files)->multitoken(), kDataHelp)(
      "features", po::value(&features)->default_value(features), kFeaturesHelp)(
      "zero-cost", po::value(&zero_cost), "zero-cost table (accuracy-data zero-cost)")(
      "space", po::value(&space_file),
      "the space the data was sampled from (embedded in the model)")(
      "target", po::value(&o.target)->default_value("auto"), kTargetHelp)(
      "holdout", po::value(&holdout)->default_value(holdout),
      "fraction of the architectures not fitted on: half early-stop the members, half are the "
      "test set; 0: fit on all of them (members early-stop on their out-of-bag rows), no test "
      "report")("seed", po::value(&o.seed)->default_value(0), "seed of the split and the ensemble")(
      "members", po::value(&o.ensemble.members)->default_value(o.ensemble.members),
      "ensemble members (bagged, different seeds)")("no-learning-curve", po::bool_switch(&no_curve),
                                                    "skip the learning curve")(
      "out", po::value(&out),
      "surrogate file (.ubj or .json); also writes OUT.report.json and "
      "OUT.parity.svg");
  po::variables_map vm;
  if (!Parse(args,
             "dcnas surrogate fit --data data.csv [more.csv ...] --space FILE --out model.ubj "
             "[--seed S]",
             "Fits the XGBoost accuracy surrogate: 80/10/10 split by architecture (--holdout), "
             "early stopping on validation, a bagged ensemble, features from the space; reports "
             "held-out RMSE, R^2, Kendall tau, sparse tau, top-10% recall, std calibration, a "
             "FLOPs-only baseline and a learning curve.",
             options, {}, vm)) {
    return 0;
  }
  if (data_files.empty() || space_file.empty() || out.empty()) {
    throw UsageError("surrogate fit: --data, --space and --out are required");
  }
  o.learning_curve = !no_curve;
  o.holdout = ParseFraction(holdout, "holdout");
  o.features = ResolveFeatures(features, zero_cost, space_file);
  PrintFit(surrogate::FitAccuracySurrogateFiles(space_file, data_files, out, o), out);
  return 0;
}

int Eval(const Args& args) {
  po::options_description options("options");
  std::string data_file, model, target, parity;
  options.add_options()("data", po::value(&data_file),
                        "held-out accuracy CSV (full or plain encoding,accuracy)")(
      "model", po::value(&model), "surrogate file")(
      "target", po::value(&target)->default_value("auto"), kTargetHelp)(
      "parity", po::value(&parity), "write a parity chart SVG here");
  po::variables_map vm;
  if (!Parse(args, "dcnas surrogate eval --data held-out.csv --model model.ubj [--parity p.svg]",
             "Scores a surrogate on accuracy data it was not fitted to (architectures averaged "
             "over replicates).",
             options, {}, vm)) {
    return 0;
  }
  if (data_file.empty() || model.empty()) throw UsageError("surrogate eval: --data and --model");
  const auto s = surrogate::AccuracySurrogate::Load(model);
  const auto data = proxy::ReadAccuracyData(data_file, &s.space());
  const auto e = surrogate::EvaluateAccuracySurrogate(s, data, target);
  if (!parity.empty()) {
    WriteFileAtomic(parity, surrogate::ParityChartSvg(e.truth, e.mean, e.stddev));
  }
  Table t({"metric (" + std::to_string(e.groups) + " architectures)", "value"});
  PrintQuality(e.quality, e.flops_baseline_tau, t);
  std::cout << t.ToText();
  return 0;
}

int Predict(const Args& args) {
  po::options_description options("options");
  std::string model, list_file, format;
  std::vector<std::string> encodings;
  std::vector<double> scaling;
  options.add_options()("model", po::value(&model), "surrogate file")(
      "encoding", po::value(&encodings)->multitoken(), "architecture encodings")(
      "file", po::value(&list_file), "a file with one encoding per line")(
      "scaling", po::value(&scaling)->multitoken(), "depth width resolution coefficients")(
      "format", po::value(&format)->default_value("text"), "text or csv");
  po::positional_options_description pos;
  pos.add("encoding", -1);
  po::variables_map vm;
  if (!Parse(args, "dcnas surrogate predict --model model.ubj ENCODING... | --file list.txt",
             "Predicted accuracy (mean and std of the ensemble) of architectures.", options, pos,
             vm)) {
    return 0;
  }
  if (model.empty()) throw UsageError("surrogate predict: --model is required");
  if (!list_file.empty()) {
    for (const auto& line : Split(ReadFile(list_file), '\n')) {
      if (!line.empty()) encodings.push_back(line);
    }
  }
  if (encodings.empty()) throw UsageError("surrogate predict: no encodings");
  space::Scaling sc;
  if (!scaling.empty()) {
    if (scaling.size() != 3)
      throw UsageError("--scaling takes three values: depth width resolution");
    sc = {scaling[0], scaling[1], scaling[2]};
  }
  const auto s = surrogate::AccuracySurrogate::Load(model);
  std::vector<space::Encoding> es;
  for (const auto& text : encodings) es.push_back(s.space().FromText(text));
  std::vector<float> mean, stddev;
  s.Predict(es, std::vector<space::Scaling>(es.size(), sc), mean, stddev);
  Table t({"encoding", "predicted_accuracy", "std"});
  for (size_t i = 0; i < es.size(); ++i) {
    t.AddRow({s.space().ToText(s.space().Canonical(es[i])), FormatFixed(mean[i], 3),
              FormatFixed(stddev[i], 3)});
  }
  std::cout << (ParseFormat(format) == Format::kCsv ? t.ToCsv() : t.ToText());
  return 0;
}

// The progress line of a long curve: fits done, rate, ETA.
std::function<void(size_t, size_t)> CurveProgress() {
  const auto line = StatusLine(/*print_updates_when_piped=*/false);
  const auto start = std::chrono::steady_clock::now();
  return [line, start](size_t done, size_t total) {
    const double s =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    const double rate = static_cast<double>(done) / std::max(s, 1e-9);
    line("surrogate curve: " + std::to_string(done) + "/" + std::to_string(total) + " fits, " +
             FormatFixed(rate, 2) + "/s, ETA " +
             FormatFixed(static_cast<double>(total - done) / std::max(rate, 1e-9), 0) + " s",
         done == total);
  };
}

int Curve(const Args& args) {
  po::options_description options("options");
  std::vector<std::string> data_files;
  std::string space_file, out, sizes = "50,100,200,500,1000";
  surrogate::CurveOptions o;
  std::string features = "onehot,counts,graph", zero_cost;
  options.add_options()("data", po::value(&data_files)->multitoken(), kDataHelp)(
      "features", po::value(&features)->default_value(features), kFeaturesHelp)(
      "zero-cost", po::value(&zero_cost), "zero-cost table (accuracy-data zero-cost)")(
      "space", po::value(&space_file), "the space the data's encodings belong to")(
      "target", po::value(&o.target)->default_value("auto"), kTargetHelp)(
      "sizes", po::value(&sizes)->default_value(sizes), "architectures to fit on, comma-separated")(
      "seeds", po::value(&o.seeds)->default_value(o.seeds), "random draws per size")(
      "seed", po::value(&o.seed)->default_value(0), "base seed of the draws and the ensembles")(
      "members", po::value(&o.ensemble.members)->default_value(o.ensemble.members),
      "ensemble members (bagged, different seeds)")(
      "threads", po::value(&o.threads)->default_value(1),
      "fits side by side (0: one per core); the results do not depend on it")(
      "out", po::value(&out), "output directory: curve.csv, curve.txt, curve.svg, curve.json");
  po::variables_map vm;
  if (!Parse(args,
             "dcnas surrogate curve --data data.csv --space FILE --out DIR [--sizes 50,100,...] "
             "[--seeds 30]",
             "The surrogate's learning curve on one accuracy file: for each size N and seed, fits "
             "on N random architectures (every one fitted on, members early-stopping on their "
             "out-of-bag rows), predicts all the others and reports Kendall tau on them and on "
             "their top half (above the median label), the params-only and FLOPs-only baselines "
             "on the same sets, and the label's ceiling from the replicates.",
             options, {}, vm)) {
    return 0;
  }
  if (data_files.empty() || space_file.empty() || out.empty()) {
    throw UsageError("surrogate curve: --data, --space and --out are required");
  }
  o.sizes = ParseSizes(sizes);
  o.features = ResolveFeatures(features, zero_cost, space_file);
  if (o.threads == 0)
    o.threads = static_cast<int>(std::max(1U, std::thread::hardware_concurrency()));
  const space::Space space = space::Space::Load(space_file);
  const auto data = surrogate::ReadAccuracyFiles(data_files, space);
  const auto curve = surrogate::ComputeAccuracyCurve(space, data, o, CurveProgress());
  surrogate::WriteAccuracyCurve(curve, out);
  std::cout << curve.ToText() << "-> " << out << "/curve.{csv,txt,svg,json}\n";
  return 0;
}

int ImageNet(const Args& args) {
  po::options_description options("options");
  std::string published, out, json, space_file;
  uint64_t seed = 0;
  int draws = 1000;
  size_t samples = 0;
  options.add_options()("published", po::value(&published),
                        "published top-1 table (model,top1,resolution,source[,note]) of zoo "
                        "models, e.g. data/accuracy/published-timm-in1k.csv")(
      "out", po::value(&out), "write the surrogate fitted on every network here (.ubj or .json)")(
      "json", po::value(&json), "write the leave-one-family-out report as JSON")(
      "seed", po::value(&seed)->default_value(0), "seed of the ensembles and bootstrap")(
      "draws", po::value(&draws)->default_value(1000), "bootstrap resamples of each tau")(
      "space", po::value(&space_file),
      "also report where the fitted surrogate extrapolates on this search space")(
      "samples", po::value(&samples)->default_value(1000), "networks sampled from --space");
  po::variables_map vm;
  if (!Parse(args,
             "dcnas surrogate imagenet --published TOP1.csv [--out model.ubj] [--json r.json] "
             "[--space SPACE.yaml]",
             "Fits the ImageNet surrogate: XGBoost on features of each published network's "
             "full-size graph that see operators (size, activation functions, squeeze-excite, "
             "dense/depthwise convs, kernels, widths per level), judged by leaving one design "
             "family out at a time against params and FLOPs. Its file is a search's "
             "`--accuracy imagenet:FILE` (docs/imagenet-labels.md).",
             options, {}, vm)) {
    return 0;
  }
  if (published.empty()) throw UsageError("surrogate imagenet: --published is required");
  if (!out.empty()) surrogate::CheckSurrogatePath(out);
  if (draws < 1) throw UsageError("--draws must be at least 1");
  const surrogate::ImageNetFit fit = surrogate::FitImageNetSurrogateTable(published, seed, draws);
  std::cout << fit.report.ToText();
  if (!json.empty()) WriteFileAtomic(json, fit.report.ToJson().dump(1) + "\n");
  if (!out.empty()) {
    surrogate::SaveSurrogate(out, *fit.ensemble, fit.metadata);
    std::cout << "-> " << out << " (fitted on all " << fit.report.networks << " networks)\n";
  }
  if (!space_file.empty()) {
    if (out.empty()) throw UsageError("surrogate imagenet: --space needs --out");
    const auto r = surrogate::CheckExtrapolation(surrogate::ImageNetSurrogate::Load(out),
                                                 space::Space::Load(space_file), samples, seed);
    std::cout << space_file << ": " << r.ToText();
  }
  return 0;
}

int ImageNetPredict(const Args& args) {
  po::options_description options("options");
  std::string model, space_file, format;
  std::vector<std::string> names;
  options.add_options()("model", po::value(&model), "ImageNet surrogate file")(
      "space", po::value(&space_file), "the arguments are encodings of this search space")(
      "name", po::value(&names)->multitoken(), "zoo models (or encodings with --space)")(
      "format", po::value(&format)->default_value("text"), "text or csv");
  po::positional_options_description pos;
  pos.add("name", -1);
  po::variables_map vm;
  if (!Parse(args,
             "dcnas surrogate imagenet-predict --model imagenet.ubj (MODEL... | --space S.yaml "
             "ENCODING...)",
             "Predicted ImageNet top-1 (mean and std of the ensemble, percent) of zoo models at "
             "their native resolution or of a space's networks at scaling 1, and the features "
             "outside the fitted networks' range (where the prediction extrapolates).",
             options, pos, vm)) {
    return 0;
  }
  if (model.empty() || names.empty()) {
    throw UsageError("surrogate imagenet-predict: --model and at least one name");
  }
  const Format f = ParseFormat(format);
  const auto s = surrogate::ImageNetSurrogate::Load(model);
  std::optional<space::Space> space;
  if (!space_file.empty()) space.emplace(space::Space::Load(space_file));
  Table t({"network", "predicted_top1", "std", "outside_range"});
  for (const std::string& name : names) {
    const models::Graph g = space ? space->BuildFull(space->FromText(name), space::Scaling{}, {})
                                  : models::BuiltinModels().Build(name, models::BuildOptions{});
    double mean = 0.0;
    double sd = 0.0;
    s.Predict(g, mean, sd);
    const auto outside = s.OutsideRange(g);
    t.AddRow({name, FormatFixed(mean, 3), FormatFixed(sd, 3),
              outside.empty() ? "-" : Join(outside, " ")});
  }
  std::cout << (f == Format::kCsv ? t.ToCsv() : t.ToText());
  return 0;
}

}  // namespace

int RunSurrogate(const Args& args) {
  return RunSubcommand(
      "surrogate", args,
      {{"fit", "fit the XGBoost accuracy surrogate to accuracy data, with its held-out report",
        Fit},
       {"eval", "score a surrogate on other accuracy data", Eval},
       {"predict", "predicted accuracy of encodings", Predict},
       {"curve", "the surrogate's learning curve on one accuracy file (tau against N)", Curve},
       {"imagenet",
        "fit the ImageNet surrogate on published top-1 of zoo networks (family held out)",
        ImageNet},
       {"imagenet-predict",
        "ImageNet top-1 of zoo models or a space's networks, and where it extrapolates",
        ImageNetPredict}},
      "");
}

}  // namespace dcnas::cli
