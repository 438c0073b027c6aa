#include "surrogate/accuracy_surrogate.h"

#include <cmath>
#include <map>

#include "common/errors.h"
#include "common/file_io.h"
#include "common/sha256.h"
#include "models/counts.h"

namespace dcnas::surrogate {
namespace {

namespace sg = surrogate;

constexpr size_t kMinArchitectures = 20;
constexpr double kRoundTo = 0.1;  // sparse tau: accuracies in percent, 0.1 pp (NAS-Bench-301)

// One architecture (encoding and scaling) and the mean label over its replicates.
struct Group {
  std::string key;
  space::Encoding encoding;
  space::Scaling scaling;
  double params = 0.0;
  double flops = 0.0;
  double label_sum = 0.0;
  int count = 0;
  float label() const { return static_cast<float>(label_sum / count); }
};

double Label(const proxy::AccuracyRow& r, const std::string& target) {
  if (target == "val_accuracy") return r.val_accuracy;
  if (target == "test_accuracy") return r.test_accuracy;
  throw InputError("unknown target '" + target + "' (val_accuracy, test_accuracy)");
}

std::vector<Group> GroupRows(const space::Space& space, const proxy::AccuracyData& data,
                             const std::string& target) {
  std::map<std::string, size_t> index;
  std::vector<Group> groups;
  for (size_t i = 0; i < data.rows.size(); ++i) {
    const proxy::AccuracyRow& r = data.rows[i];
    if (r.fingerprint != space.fingerprint()) {
      throw InputError(data.file + ":" + std::to_string(i + 2) +
                       ": row of another space (fingerprint " + r.fingerprint + ", expected " +
                       space.fingerprint() + ")");
    }
    const std::string key = r.encoding + "|" + std::to_string(r.scaling.depth) + "|" +
                            std::to_string(r.scaling.width) + "|" +
                            std::to_string(r.scaling.resolution);
    auto [it, inserted] = index.emplace(key, groups.size());
    if (inserted) {
      Group g;
      g.key = key;
      g.encoding = space.FromText(r.encoding);
      g.scaling = r.scaling;
      g.params = static_cast<double>(r.params);
      g.flops = static_cast<double>(r.flops);
      groups.push_back(g);
    }
    groups[it->second].label_sum += Label(r, target);
    groups[it->second].count += 1;
  }
  return groups;
}

space::FeatureSet GroupFeatures(const space::Space& space, const std::vector<Group>& groups) {
  space::FeatureSet f;
  f.names = space::FeatureNames(space);
  for (const auto& g : groups)
    space::AppendFeatures(space, g.encoding, g.scaling, g.params, g.flops, f);
  return f;
}

double LogTau(const std::vector<Group>& groups, const std::vector<size_t>& rows, bool flops) {
  std::vector<float> x, y;
  for (size_t i : rows) {
    x.push_back(static_cast<float>(std::log10(flops ? groups[i].flops : groups[i].params)));
    y.push_back(groups[i].label());
  }
  return sg::KendallTau(x, y);
}

}  // namespace

nlohmann::json SurrogateReport::ToJson() const {
  return {
      {"rows", rows},
      {"architectures", groups},
      {"split", {{"train", train}, {"valid", valid}, {"test", test}}},
      {"test", test_quality.ToJson()},
      {"flops_baseline_tau", std::isfinite(flops_baseline_tau) ? nlohmann::json(flops_baseline_tau)
                                                               : nlohmann::json(nullptr)},
      {"params_baseline_tau", std::isfinite(params_baseline_tau)
                                  ? nlohmann::json(params_baseline_tau)
                                  : nlohmann::json(nullptr)},
      {"learning_curve", sg::LearningCurveToJson(learning_curve)}};
}

SurrogateFit FitAccuracySurrogate(const space::Space& space, const std::string& space_yaml,
                                  const proxy::AccuracyData& data, const std::string& data_sha256,
                                  const SurrogateFitOptions& o) {
  const proxy::ProxyRecipe recipe = proxy::RequireOneRecipe(data);
  const std::vector<Group> groups = GroupRows(space, data, o.target);
  if (groups.size() < kMinArchitectures) {
    throw InputError(data.file + ": " + std::to_string(groups.size()) +
                     " architectures; a surrogate needs at least " +
                     std::to_string(kMinArchitectures));
  }
  const space::FeatureSet f = GroupFeatures(space, groups);
  const sg::MatrixView all{f.values.data(), f.rows, f.names.size()};
  std::vector<float> labels;
  std::vector<std::string> keys;
  for (const auto& g : groups) {
    labels.push_back(g.label());
    keys.push_back(g.key);
  }
  const sg::GroupSplit split = sg::SplitByGroup(keys, o.seed);
  const sg::Matrix xtr = sg::SelectRows(all, split.train);
  const sg::Matrix xva = sg::SelectRows(all, split.valid);
  const sg::Matrix xte = sg::SelectRows(all, split.test);
  const std::vector<float> ytr = sg::SelectValues(labels, split.train);
  const std::vector<float> yva = sg::SelectValues(labels, split.valid);
  const std::vector<float> yte = sg::SelectValues(labels, split.test);
  sg::EnsembleParams params = o.ensemble;
  params.seed = o.seed;
  const sg::LabeledView train{xtr.view(), ytr}, valid{xva.view(), yva}, test{xte.view(), yte};
  SurrogateFit fit{sg::Ensemble::Train(train, valid, params), {}, {}, {}};
  std::vector<float> mean(yte.size()), stddev(yte.size());
  fit.ensemble.Predict(xte.view(), mean, stddev);
  SurrogateReport& r = fit.report;
  r.rows = data.rows.size();
  r.groups = groups.size();
  r.train = split.train.size();
  r.valid = split.valid.size();
  r.test = split.test.size();
  r.test_quality = sg::Evaluate(yte, mean, stddev, kRoundTo);
  r.flops_baseline_tau = LogTau(groups, split.test, true);
  r.params_baseline_tau = LogTau(groups, split.test, false);
  if (o.learning_curve) {
    r.learning_curve = sg::LearningCurve(train, valid, test, params, kRoundTo, o.seed);
  }
  sg::ParityChartOptions chart;
  chart.title = "surrogate parity, " + space.name() + " (" + std::to_string(r.test) +
                " held-out architectures)";
  chart.note = "Kendall tau " + std::to_string(r.test_quality.kendall_tau).substr(0, 5) +
               ", FLOPs-only tau " + std::to_string(r.flops_baseline_tau).substr(0, 5);
  fit.parity_svg = sg::ParityChartSvg(yte, mean, stddev, chart);
  fit.metadata = {{"space", space.name()},       {"space_fingerprint", space.fingerprint()},
                  {"space_yaml", space_yaml},    {"data_file", data.file},
                  {"data_sha256", data_sha256},  {"target", o.target},
                  {"recipe", recipe.Key()},      {"feature_names", f.names},
                  {"ensemble", params.ToJson()}, {"report", r.ToJson()}};
  return fit;
}

SurrogateFit FitAccuracySurrogateFiles(const std::string& space_file,
                                       const std::vector<std::string>& data_files,
                                       const std::string& out, const SurrogateFitOptions& options) {
  sg::CheckSurrogatePath(out);
  const std::string space_yaml = ReadFile(space_file);
  const auto space = space::Space::Parse(space_yaml, space_file);
  std::vector<proxy::AccuracyData> parts;
  std::string contents;
  for (const std::string& f : data_files) {
    parts.push_back(proxy::ReadAccuracyData(f, &space));
    contents += ReadFile(f);
  }
  const auto data = proxy::MergeAccuracyData(parts);
  SurrogateFit fit = FitAccuracySurrogate(space, space_yaml, data, Sha256Hex(contents), options);
  WriteFileAtomic(out + ".report.json", fit.metadata["report"].dump(1) + "\n");
  WriteFileAtomic(out + ".parity.svg", fit.parity_svg);
  sg::SaveSurrogate(out, fit.ensemble, fit.metadata);
  return fit;
}

AccuracySurrogate::AccuracySurrogate(surrogate::Surrogate s, space::Space space, std::string file)
    : ensemble_(std::move(s.ensemble)),
      metadata_(std::move(s.metadata)),
      space_(std::move(space)),
      file_(std::move(file)) {}

AccuracySurrogate AccuracySurrogate::Load(const std::string& path, int nthread) {
  sg::Surrogate s = sg::LoadSurrogate(path, nthread);
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
  if (m["feature_names"] != nlohmann::json(space::FeatureNames(space))) {
    throw InputError(path +
                     ": metadata.feature_names differ from this dcnas's features of the "
                     "space (refit the surrogate)");
  }
  if (s.ensemble.num_features() != space::FeatureNames(space).size()) {
    throw InputError(path + ": the models take " + std::to_string(s.ensemble.num_features()) +
                     " features, the space has " +
                     std::to_string(space::FeatureNames(space).size()));
  }
  return {std::move(s), std::move(space), path};
}

double AccuracySurrogate::heldout_tau() const {
  const auto& t = metadata_["report"]["test"]["kendall_tau"];
  return t.is_number() ? t.get<double>() : std::nan("");
}

void AccuracySurrogate::RequireUsable(double floor, const std::string& fingerprint) const {
  if (!fingerprint.empty() && fingerprint != space_.fingerprint()) {
    throw InputError(file_ + ": a surrogate of space '" + space_.name() + "' (fingerprint " +
                     space_.fingerprint() + "), not of the space searched (fingerprint " +
                     fingerprint + ")");
  }
  const double tau = heldout_tau();
  if (!(tau >= floor)) {
    throw InputError(file_ + ": held-out Kendall tau " + std::to_string(tau) +
                     " is below the quality floor " + std::to_string(floor) +
                     " (refit on more data, or lower --min-surrogate-tau knowingly)");
  }
}

space::FeatureSet AccuracySurrogate::Features(const std::vector<space::Encoding>& encodings,
                                              const std::vector<space::Scaling>& scalings) const {
  if (encodings.size() != scalings.size()) {
    throw InternalError("AccuracySurrogate::Features: encodings and scalings differ in length");
  }
  space::FeatureSet f;
  f.names = space::FeatureNames(space_);
  for (size_t i = 0; i < encodings.size(); ++i) {
    const auto c = models::CountGraph(space_.BuildFull(encodings[i], scalings[i], {}));
    space::AppendFeatures(space_, encodings[i], scalings[i], static_cast<double>(c.params),
                          static_cast<double>(c.flops), f);
  }
  return f;
}

void AccuracySurrogate::PredictFeatures(const space::FeatureSet& f, std::vector<float>& mean,
                                        std::vector<float>& stddev) const {
  mean.assign(f.rows, 0.0F);
  stddev.assign(f.rows, 0.0F);
  ensemble_.Predict({f.values.data(), f.rows, f.names.size()}, mean, stddev);
}

void AccuracySurrogate::Predict(const std::vector<space::Encoding>& encodings,
                                const std::vector<space::Scaling>& scalings,
                                std::vector<float>& mean, std::vector<float>& stddev) const {
  PredictFeatures(Features(encodings, scalings), mean, stddev);
}

SurrogateEvaluation EvaluateAccuracySurrogate(const AccuracySurrogate& s,
                                              const proxy::AccuracyData& data,
                                              const std::string& target) {
  const std::vector<Group> groups = GroupRows(s.space(), data, target);
  if (groups.size() < 2) throw InputError(data.file + ": fewer than two architectures");
  const space::FeatureSet f = GroupFeatures(s.space(), groups);
  SurrogateEvaluation e;
  e.groups = groups.size();
  s.PredictFeatures(f, e.mean, e.stddev);
  std::vector<size_t> all(groups.size());
  for (size_t i = 0; i < all.size(); ++i) {
    all[i] = i;
    e.truth.push_back(groups[i].label());
  }
  e.quality = sg::Evaluate(e.truth, e.mean, e.stddev, kRoundTo);
  e.flops_baseline_tau = LogTau(groups, all, true);
  return e;
}

}  // namespace dcnas::surrogate
