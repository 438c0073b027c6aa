#include "surrogate/accuracy_surrogate.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>
#include <random>

#include "common/errors.h"
#include "common/file_io.h"
#include "common/sha256.h"
#include "common/table.h"
#include "common/text.h"
#include "models/counts.h"
#include "surrogate/arch_features.h"

namespace dcnas::surrogate {
namespace {

namespace sg = surrogate;

constexpr int kSanityArchitectures = 8;  // sampled to sanity-check a loaded surrogate
constexpr std::uint64_t kSanitySeed = 20261205;
constexpr double kRoundTo = 0.1;  // sparse tau: accuracies in percent, 0.1 pp (NAS-Bench-301)

std::string GroupKey(const proxy::AccuracyRow& r) {
  return r.encoding + "|" + std::to_string(r.scaling.depth) + "|" +
         std::to_string(r.scaling.width) + "|" + std::to_string(r.scaling.resolution);
}

double CountTau(const ArchitectureTable& t, const std::vector<size_t>& rows, bool flops) {
  std::vector<float> x, y;
  for (size_t i : rows) {
    x.push_back(static_cast<float>(std::log10(static_cast<double>(
        std::max<int64_t>(1, flops ? t.counts[i].flops : t.counts[i].params)))));
    y.push_back(t.labels[i]);
  }
  return sg::KendallTau(x, y);
}

// The split of `groups` architectures for `holdout`, refused (naming the file) when it leaves
// fewer than kMinFitArchitectures to fit or kMinTestArchitectures to test.
sg::GroupSplit SplitForHoldout(const std::vector<std::string>& keys, const std::string& file,
                               double holdout, uint64_t seed) {
  const size_t g = keys.size();
  if (!(holdout >= 0.0 && holdout < 1.0)) {
    throw InputError("--holdout " + std::to_string(holdout) + ": a fraction in [0, 1)");
  }
  if (g < kMinFitArchitectures) {
    throw InputError(file + ": " + std::to_string(g) +
                     " architectures; a surrogate needs at least " +
                     std::to_string(kMinFitArchitectures) + " to fit on");
  }
  if (holdout == 0.0) {
    sg::GroupSplit all;
    for (size_t i = 0; i < g; ++i) all.train.push_back(i);
    return all;
  }
  const sg::GroupSplit split =
      sg::SplitByGroup(keys, seed, {1.0 - holdout, holdout / 2.0, holdout / 2.0});
  if (split.test.size() < kMinTestArchitectures || split.train.size() < kMinFitArchitectures) {
    const auto n = static_cast<double>(split.test.size());
    const double se = n > 1 ? std::sqrt(2.0 * (2.0 * n + 5.0) / (9.0 * n * (n - 1.0))) : 1.0;
    const double need = std::min(0.9, 2.0 * (kMinTestArchitectures + 0.5) / static_cast<double>(g));
    throw InputError(
        file + ": " + std::to_string(g) + " architectures with --holdout " +
        FormatShortest(holdout) + " leave " + std::to_string(split.train.size()) +
        " to fit on and " + std::to_string(split.test.size()) +
        " to test; a test set needs at least " + std::to_string(kMinTestArchitectures) +
        " (a Kendall tau over n architectures has a " +
        "standard error of about sqrt(2(2n+5)/(9n(n-1))): " + FormatFixed(se, 2) +
        " here, 0.25 at " + std::to_string(kMinTestArchitectures) + ") and the fit at least " +
        std::to_string(kMinFitArchitectures) +
        ". Fit on all of them with --holdout 0 (no held-out " +
        "report; `dcnas surrogate curve` measures the quality by refitting on subsets)" +
        (need * static_cast<double>(g) < static_cast<double>(g) - kMinFitArchitectures
             ? ", or hold out at least " + FormatFixed(need, 2)
             : "") +
        ".");
  }
  return split;
}

}  // namespace

ArchitectureTable GroupArchitectures(const space::Space& space, const proxy::AccuracyData& data,
                                     const std::string& target, const FeatureSpec& features) {
  ArchitectureTable t;
  t.target = proxy::ResolveTarget(data, target);
  t.rows = data.rows.size();
  std::map<std::string, size_t> index;
  std::vector<double> sums;
  std::vector<size_t> first_row;
  for (size_t i = 0; i < data.rows.size(); ++i) {
    const proxy::AccuracyRow& r = data.rows[i];
    if (r.fingerprint != space.fingerprint()) {
      throw InputError(data.file + ":" + std::to_string(i + 2) +
                       ": row of another space (fingerprint " + r.fingerprint + ", expected " +
                       space.fingerprint() + ")");
    }
    const std::string key = GroupKey(r);
    const auto [it, inserted] = index.emplace(key, t.keys.size());
    if (inserted) {
      t.keys.push_back(key);
      t.encodings.push_back(space.FromText(r.encoding));
      t.scalings.push_back(r.scaling);
      t.replicates.emplace_back();
      sums.push_back(0.0);
      first_row.push_back(i);
    }
    const double label = proxy::TargetAccuracy(r, t.target);
    t.replicates[it->second].emplace_back(r.replicate, label);
    sums[it->second] += label;
  }
  for (size_t g = 0; g < t.keys.size(); ++g) {
    t.labels.push_back(static_cast<float>(sums[g] / static_cast<double>(t.replicates[g].size())));
  }
  t.features = SurrogateFeatures(space, t.encodings, t.scalings, &t.counts, features);
  for (size_t i = 0; i < data.rows.size(); ++i) {
    const proxy::AccuracyRow& r = data.rows[i];
    const models::OpCounts& c = t.counts[index.at(GroupKey(r))];
    const bool params_differ = r.params != 0 && r.params != c.params;
    const bool flops_differ = r.flops != 0 && r.flops != c.flops;
    if (!params_differ && !flops_differ) continue;
    if (t.count_mismatches++ == 0) {
      t.first_count_mismatch =
          data.file + ":" + std::to_string(i + 2) + ": " +
          (params_differ ? "params " + std::to_string(r.params) + " (the space's " +
                               std::to_string(c.params) + ")"
                         : "flops " + std::to_string(r.flops) + " (the space's " +
                               std::to_string(c.flops) + ")");
    }
  }
  return t;
}

float ToModelLabel(LabelTransform transform, double accuracy) {
  switch (transform) {
    case LabelTransform::kNone:
      return static_cast<float>(accuracy);
    case LabelTransform::kLogError:
      return static_cast<float>(-std::log(std::max(100.0 - accuracy, kErrorFloorPp)));
  }
  throw InternalError("ToModelLabel: bad transform");
}

double FromModelLabel(LabelTransform transform, double z) {
  switch (transform) {
    case LabelTransform::kNone:
      return z;
    case LabelTransform::kLogError:
      return 100.0 - std::exp(-z);
  }
  throw InternalError("FromModelLabel: bad transform");
}

std::string LabelTransformName(LabelTransform transform) {
  return transform == LabelTransform::kNone ? "none" : "log_error";
}

void PredictAccuracy(const sg::Ensemble& ensemble, LabelTransform transform, sg::MatrixView x,
                     std::span<float> mean, std::span<float> stddev) {
  if (transform == LabelTransform::kNone) {
    ensemble.Predict(x, mean, stddev);  // bit for bit what surrogates fitted before gave
    return;
  }
  if (mean.size() != x.rows || stddev.size() != x.rows) {
    throw InternalError("PredictAccuracy: output buffers must have x.rows entries");
  }
  const size_t n = x.rows, k = ensemble.size();
  std::vector<float> members(k * n);
  ensemble.PredictMembers(x, members);
  for (size_t i = 0; i < n; ++i) {
    double sum = 0.0, ss = 0.0;
    for (size_t m = 0; m < k; ++m) sum += FromModelLabel(transform, members[m * n + i]);
    const double mu = sum / static_cast<double>(k);
    for (size_t m = 0; m < k; ++m) {
      const double d = FromModelLabel(transform, members[m * n + i]) - mu;
      ss += d * d;
    }
    mean[i] = static_cast<float>(mu);
    stddev[i] = static_cast<float>(std::sqrt(ss / static_cast<double>(k)));
  }
}

// The sanity check of a loaded surrogate: every member's prediction (percent) for a few sampled
// architectures must be finite and within the training labels' range widened by half its width
// (at least 5 pp) each side, or without a recorded range (surrogates fitted before it was),
// within the plausible accuracies [-1, 101] percent.
void CheckSamplePredictions(const sg::Ensemble& ensemble, LabelTransform transform,
                            const space::Space& space, const nlohmann::json& m,
                            const std::string& path, const FeatureSpec& features) {
  double lo = -1.0, hi = 101.0;
  std::string range_from = "the plausible accuracies";
  if (m.contains("label_range")) {
    const nlohmann::json& r = m["label_range"];
    if (!r.is_array() || r.size() != 2 || !r[0].is_number() || !r[1].is_number() ||
        !std::isfinite(r[0].get<double>()) || !std::isfinite(r[1].get<double>()) ||
        !(r[0].get<double>() <= r[1].get<double>())) {
      throw InputError(path + ": metadata.label_range: " + r.dump() +
                       " is not [min, max] of finite numbers");
    }
    const double margin = std::max(5.0, 0.5 * (r[1].get<double>() - r[0].get<double>()));
    lo = r[0].get<double>() - margin;
    hi = r[1].get<double>() + margin;
    range_from = "the training labels " + r.dump() + " widened by " + std::to_string(margin);
  }
  std::mt19937_64 rng(kSanitySeed);
  std::vector<space::Encoding> encodings;
  for (int i = 0; i < kSanityArchitectures; ++i) encodings.push_back(space.Sample(rng));
  const std::vector<space::Scaling> scalings(encodings.size());
  const space::FeatureSet f = SurrogateFeatures(space, encodings, scalings, nullptr, features);
  const size_t n = f.rows, k = ensemble.size();
  std::vector<float> members(k * n);
  ensemble.PredictMembers({f.values.data(), f.rows, f.names.size()}, members);
  for (size_t j = 0; j < k; ++j) {
    for (size_t i = 0; i < n; ++i) {
      const double y = FromModelLabel(transform, members[j * n + i]);
      if (!std::isfinite(y) || y < lo || y > hi) {
        throw InputError(path + ": members[" + std::to_string(j) + "] predicts " +
                         std::to_string(y) + "% for a sampled architecture, outside [" +
                         std::to_string(lo) + ", " + std::to_string(hi) + "] (" + range_from +
                         "): the model is corrupt");
      }
    }
  }
}

sg::EnsembleParams AccuracyEnsembleParams() {
  sg::EnsembleParams p;
  p.resampling = sg::Resampling::kSubsample;
  p.row_fraction = 0.8;
  p.member.max_depth = 0;  // by the architectures fitted on
  return p;
}

int AccuracyTreeDepth(size_t architectures) { return architectures < 500 ? 2 : 3; }

sg::EnsembleParams ResolveTreeDepth(sg::EnsembleParams params, size_t architectures) {
  if (params.member.max_depth == 0) params.member.max_depth = AccuracyTreeDepth(architectures);
  return params;
}

sg::Ensemble TrainOnAll(const sg::LabeledView& train, const sg::EnsembleParams& params) {
  const sg::LabeledView none{{nullptr, 0, train.x.cols}, {}};
  return sg::Ensemble::Train(train, none, params);
}

nlohmann::json SurrogateReport::ToJson() const {
  auto num = [](double v) {
    return std::isfinite(v) ? nlohmann::json(v) : nlohmann::json(nullptr);
  };
  return {{"rows", rows},
          {"architectures", groups},
          {"target", target},
          {"holdout", holdout},
          {"early_stopping", valid > 0 ? "validation split" : "out-of-bag rows"},
          {"split", {{"train", train}, {"valid", valid}, {"test", test}}},
          {"data_count_mismatches", count_mismatches},
          {"first_count_mismatch", first_count_mismatch},
          {"test", test > 0 ? test_quality.ToJson() : nlohmann::json(nullptr)},
          {"flops_baseline_tau", num(flops_baseline_tau)},
          {"params_baseline_tau", num(params_baseline_tau)},
          {"learning_curve", sg::LearningCurveToJson(learning_curve)}};
}

SurrogateFit FitAccuracySurrogate(const space::Space& space, const std::string& space_yaml,
                                  const proxy::AccuracyData& data, const std::string& data_sha256,
                                  const SurrogateFitOptions& o) {
  const proxy::ProxyRecipe recipe = proxy::RequireOneRecipe(data);
  if (!(o.holdout >= 0.0 && o.holdout < 1.0)) {
    throw InputError("--holdout " + std::to_string(o.holdout) + ": a fraction in [0, 1)");
  }
  const ArchitectureTable t = GroupArchitectures(space, data, o.target, o.features);
  const sg::GroupSplit split = SplitForHoldout(t.keys, data.file, o.holdout, o.seed);
  const space::FeatureSet& f = t.features;
  const sg::MatrixView all{f.values.data(), f.rows, f.names.size()};
  const sg::Matrix xtr = sg::SelectRows(all, split.train);
  const sg::Matrix xva = sg::SelectRows(all, split.valid);
  const sg::Matrix xte = sg::SelectRows(all, split.test);
  std::vector<float> model_labels;  // what the ensemble is fitted to
  for (const float y : t.labels) model_labels.push_back(ToModelLabel(o.label_transform, y));
  const std::vector<float> ytr = sg::SelectValues(model_labels, split.train);
  const std::vector<float> yva = sg::SelectValues(model_labels, split.valid);
  const std::vector<float> yte = sg::SelectValues(t.labels, split.test);
  const std::vector<float> zte = sg::SelectValues(model_labels, split.test);
  sg::EnsembleParams params = ResolveTreeDepth(o.ensemble, split.train.size());
  params.seed = o.seed;
  const sg::LabeledView train{xtr.view(), ytr}, valid{xva.view(), yva}, test{xte.view(), zte};
  SurrogateFit fit{
      split.valid.empty() ? TrainOnAll(train, params) : sg::Ensemble::Train(train, valid, params),
      {},
      {},
      {}};
  SurrogateReport& r = fit.report;
  r.rows = t.rows;
  r.groups = t.size();
  r.target = t.target;
  r.holdout = o.holdout;
  r.train = split.train.size();
  r.valid = split.valid.size();
  r.test = split.test.size();
  r.count_mismatches = t.count_mismatches;
  r.first_count_mismatch = t.first_count_mismatch;
  r.flops_baseline_tau = r.params_baseline_tau = std::nan("");
  if (!split.test.empty()) {
    std::vector<float> mean(yte.size()), stddev(yte.size());
    PredictAccuracy(fit.ensemble, o.label_transform, xte.view(), mean, stddev);
    r.test_quality = sg::Evaluate(yte, mean, stddev, kRoundTo);
    r.flops_baseline_tau = CountTau(t, split.test, true);
    r.params_baseline_tau = CountTau(t, split.test, false);
    if (o.learning_curve) {
      r.learning_curve = sg::LearningCurve(train, valid, test, params, kRoundTo, o.seed);
    }
    sg::ParityChartOptions chart;
    chart.title = "surrogate parity, " + space.name() + " (" + std::to_string(r.test) +
                  " held-out architectures)";
    chart.note = "Kendall tau " + std::to_string(r.test_quality.kendall_tau).substr(0, 5) +
                 ", FLOPs-only tau " + std::to_string(r.flops_baseline_tau).substr(0, 5);
    fit.parity_svg = sg::ParityChartSvg(yte, mean, stddev, chart);
  } else {
    r.test_quality.kendall_tau = std::nan("");
  }
  fit.metadata = {{"space", space.name()},
                  {"space_fingerprint", space.fingerprint()},
                  {"space_yaml", space_yaml},
                  {"data_file", data.file},
                  {"data_sha256", data_sha256},
                  {"target", t.target},
                  {"recipe", recipe.Key()},
                  {"feature_names", f.names},
                  {"feature_sets", o.features.sets},
                  {"zero_cost_file", o.features.zero_cost_file},
                  {"label_transform", LabelTransformName(o.label_transform)},
                  {"label_range",
                   {*std::min_element(t.labels.begin(), t.labels.end()),
                    *std::max_element(t.labels.begin(), t.labels.end())}},
                  {"ensemble", params.ToJson()},
                  {"report", r.ToJson()}};
  return fit;
}

proxy::AccuracyData ReadAccuracyFiles(const std::vector<std::string>& files,
                                      const space::Space& space, std::string* contents) {
  if (files.empty()) throw InputError("no accuracy files given (the list of data files is empty)");
  std::vector<proxy::AccuracyData> parts;
  for (const std::string& f : files) {
    const std::string text = ReadFile(f);
    parts.push_back(proxy::ParseAccuracyData(text, f, &space));
    if (contents != nullptr) *contents += text;
  }
  return proxy::MergeAccuracyData(parts);
}

SurrogateFit FitAccuracySurrogateFiles(const std::string& space_file,
                                       const std::vector<std::string>& data_files,
                                       const std::string& out, const SurrogateFitOptions& options) {
  sg::CheckSurrogatePath(out);
  const std::string space_yaml = ReadFile(space_file);
  const auto space = space::Space::Parse(space_yaml, space_file);
  std::string contents;
  const auto data = ReadAccuracyFiles(data_files, space, &contents);
  SurrogateFit fit = FitAccuracySurrogate(space, space_yaml, data, Sha256Hex(contents), options);
  WriteFileAtomic(out + ".report.json", fit.metadata["report"].dump(1) + "\n");
  if (fit.parity_svg.empty()) {
    std::filesystem::remove(out + ".parity.svg");  // no test set: no chart (not an old one)
  } else {
    WriteFileAtomic(out + ".parity.svg", fit.parity_svg);
  }
  sg::SaveSurrogate(out, fit.ensemble, fit.metadata);
  return fit;
}

AccuracySurrogate::AccuracySurrogate(surrogate::Surrogate s, space::Space space, std::string file,
                                     LabelTransform transform, FeatureSpec features)
    : ensemble_(std::move(s.ensemble)),
      metadata_(std::move(s.metadata)),
      space_(std::move(space)),
      file_(std::move(file)),
      transform_(transform),
      features_(std::move(features)) {}

AccuracySurrogate AccuracySurrogate::Load(const std::string& path, int nthread) {
  return FromSurrogate(sg::LoadSurrogate(path, nthread), path);
}

AccuracySurrogate AccuracySurrogate::FromSurrogate(sg::Surrogate s, const std::string& path) {
  const nlohmann::json& m = s.metadata;
  for (const char* key : {"space_yaml", "space_fingerprint", "feature_names", "report"}) {
    if (!m.contains(key)) throw InputError(path + ": metadata." + key + ": missing");
  }
  if (!m["space_yaml"].is_string() || !m["space_fingerprint"].is_string()) {
    throw InputError(path + ": metadata.space_yaml / space_fingerprint: expected strings");
  }
  space::Space space =
      space::Space::Parse(m["space_yaml"].get<std::string>(), path + " (embedded space)");
  if (space.fingerprint() != m["space_fingerprint"].get<std::string>()) {
    throw InputError(path + ": metadata.space_fingerprint " +
                     m["space_fingerprint"].get<std::string>() +
                     " does not match its embedded space (" + space.fingerprint() + ")");
  }
  FeatureSpec features;  // surrogates fitted before feature sets: onehot and counts
  if (m.contains("feature_sets")) {
    const nlohmann::json& fs = m["feature_sets"];
    std::vector<std::string> sets;
    if (fs.is_array()) {
      for (const auto& v : fs) {
        if (v.is_string()) sets.push_back(v.get<std::string>());
      }
    }
    if (!fs.is_array() || sets.size() != fs.size()) {
      throw InputError(path + ": metadata.feature_sets: expected an array of names");
    }
    try {
      features = FeatureSpec::Parse(Join(sets, ","));
    } catch (const InputError& e) {
      throw InputError(path + ": metadata.feature_sets: " + e.what());
    }
  }
  if (features.Has("zero-cost")) {
    throw InputError(path + ": fitted with zero-cost features (metadata.feature_sets " +
                     m["feature_sets"].dump() +
                     "), which exist only for the networks of its zero-cost table: such a "
                     "surrogate measures features (surrogate fit / curve reports), it cannot "
                     "predict or search; refit with --features onehot,counts[,graph]");
  }
  const std::vector<std::string> names = SurrogateFeatureNames(space, features);
  if (m["feature_names"] != nlohmann::json(names)) {
    throw InputError(path +
                     ": metadata.feature_names differ from this dcnas's features of the "
                     "space for feature sets " +
                     features.Text() + " (refit the surrogate)");
  }
  if (s.ensemble.num_features() != names.size()) {
    throw InputError(path + ": the models take " + std::to_string(s.ensemble.num_features()) +
                     " features, the space has " + std::to_string(names.size()));
  }
  LabelTransform transform = LabelTransform::kNone;  // surrogates fitted before it was recorded
  if (m.contains("label_transform")) {
    const nlohmann::json& lt = m["label_transform"];
    if (lt == "log_error") {
      transform = LabelTransform::kLogError;
    } else if (lt != "none") {
      throw InputError(path + ": metadata.label_transform: " + lt.dump() +
                       " is not one of: none, log_error");
    }
  }
  CheckSamplePredictions(s.ensemble, transform, space, m, path, features);
  return {std::move(s), std::move(space), path, transform, std::move(features)};
}

void AccuracySurrogate::Save(const std::string& path) const {
  sg::SaveSurrogate(path, ensemble_, metadata_);
}

double AccuracySurrogate::heldout_tau() const {
  const auto& test = metadata_["report"]["test"];
  if (!test.is_object() || !test.contains("kendall_tau")) return std::nan("");
  const auto& t = test["kendall_tau"];
  return t.is_number() ? t.get<double>() : std::nan("");
}

void AccuracySurrogate::RequireUsable(double floor, const std::string& fingerprint) const {
  if (!fingerprint.empty() && fingerprint != space_.fingerprint()) {
    throw InputError(file_ + ": a surrogate of space '" + space_.name() + "' (fingerprint " +
                     space_.fingerprint() + "), not of the space searched (fingerprint " +
                     fingerprint + ")");
  }
  const double tau = heldout_tau();
  if (std::isnan(tau) && floor > -1.0) {
    throw InputError(file_ +
                     ": fitted on every architecture (--holdout 0): no held-out Kendall "
                     "tau to hold against the quality floor " +
                     std::to_string(floor) +
                     " (refit with a holdout, or pass --min-surrogate-tau -1 knowingly)");
  }
  if (!std::isnan(tau) && !(tau >= floor)) {
    throw InputError(file_ + ": held-out Kendall tau " + std::to_string(tau) +
                     " is below the quality floor " + std::to_string(floor) +
                     " (refit on more data, or lower --min-surrogate-tau knowingly)");
  }
}

space::FeatureSet AccuracySurrogate::Features(const std::vector<space::Encoding>& encodings,
                                              const std::vector<space::Scaling>& scalings) const {
  return SurrogateFeatures(space_, encodings, scalings, nullptr, features_);
}

void AccuracySurrogate::PredictFeatures(const space::FeatureSet& f, std::vector<float>& mean,
                                        std::vector<float>& stddev) const {
  mean.assign(f.rows, 0.0F);
  stddev.assign(f.rows, 0.0F);
  PredictAccuracy(ensemble_, transform_, {f.values.data(), f.rows, f.names.size()}, mean, stddev);
}

void AccuracySurrogate::Predict(const std::vector<space::Encoding>& encodings,
                                const std::vector<space::Scaling>& scalings,
                                std::vector<float>& mean, std::vector<float>& stddev) const {
  PredictFeatures(Features(encodings, scalings), mean, stddev);
}

SurrogateEvaluation EvaluateAccuracySurrogate(const AccuracySurrogate& s,
                                              const proxy::AccuracyData& data,
                                              const std::string& target) {
  const ArchitectureTable t = GroupArchitectures(s.space(), data, target, s.features());
  if (t.size() < 2) throw InputError(data.file + ": fewer than two architectures");
  SurrogateEvaluation e;
  e.groups = t.size();
  s.PredictFeatures(t.features, e.mean, e.stddev);
  std::vector<size_t> all(t.size());
  for (size_t i = 0; i < all.size(); ++i) all[i] = i;
  e.truth = t.labels;
  e.quality = sg::Evaluate(e.truth, e.mean, e.stddev, kRoundTo);
  e.flops_baseline_tau = CountTau(t, all, true);
  return e;
}

}  // namespace dcnas::surrogate
