#include "surrogate/imagenet_surrogate.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <random>

#include "common/errors.h"
#include "common/file_io.h"
#include "common/sha256.h"
#include "common/table.h"
#include "models/counts.h"
#include "models/zoo/published_top1.h"
#include "models/zoo/zoo.h"
#include "surrogate/arch_features.h"

namespace dcnas::surrogate {
namespace {

constexpr const char* kKind = "imagenet-top1";

bool IsReluFamily(models::Activation a) {
  return a == models::Activation::kRelu || a == models::Activation::kRelu6;
}

Matrix FeatureMatrix(const std::vector<std::vector<double>>& rows) {
  Matrix m(rows.size(), rows.empty() ? 0 : rows.front().size());
  for (size_t i = 0; i < rows.size(); ++i) {
    for (size_t j = 0; j < rows[i].size(); ++j) m.at(i, j) = static_cast<float>(rows[i][j]);
  }
  return m;
}

double Mae(const std::vector<double>& a, const std::vector<double>& b) {
  double s = 0.0;
  for (size_t i = 0; i < a.size(); ++i) s += std::fabs(a[i] - b[i]);
  return a.empty() ? std::nan("") : s / static_cast<double>(a.size());
}

}  // namespace

std::vector<std::string> ImageNetFeatureNames() {
  std::vector<std::string> names = {"log10_params",         "log10_flops",    "resolution",
                                    "log10_act_units",      "act.relu_share", "act.swish_share",
                                    "act.hard_swish_share", "act.gelu_share", "act.gates"};
  for (const std::string& g : GraphFeatureNames()) names.push_back(g);
  return names;
}

std::vector<double> ImageNetFeatures(const models::Graph& graph) {
  const models::OpCounts c = models::CountGraph(graph);
  double units = 0.0;
  double relu = 0.0;
  double swish = 0.0;
  double hard_swish = 0.0;
  double gelu = 0.0;
  double gates = 0.0;
  int64_t resolution = 0;
  for (const models::Op& op : graph.ops()) {
    if (op.kind == models::OpKind::kInput) resolution = std::max(resolution, op.out.shape.h);
    if (op.kind != models::OpKind::kActivation) continue;
    const auto n = static_cast<double>(op.out.shape.per_image());
    const models::Activation a = op.attrs.activation;
    if (a == models::Activation::kSigmoid || a == models::Activation::kHardSigmoid) {
      gates += 1;  // squeeze-excite and attention gates: counted, not units
      continue;
    }
    units += n;
    if (IsReluFamily(a)) relu += n;
    if (a == models::Activation::kSwish) swish += n;
    if (a == models::Activation::kHardSwish) hard_swish += n;
    if (a == models::Activation::kGelu) gelu += n;
  }
  const double u = std::max(units, 1.0);
  std::vector<double> f = {std::log10(std::max<double>(1.0, static_cast<double>(c.params))),
                           std::log10(std::max<double>(1.0, static_cast<double>(c.flops))),
                           static_cast<double>(resolution),
                           std::log10(u),
                           relu / u,
                           swish / u,
                           hard_swish / u,
                           gelu / u,
                           gates};
  for (const double g : GraphFeatures(graph)) f.push_back(g);
  return f;
}

EnsembleParams ImageNetEnsembleParams(uint64_t seed) {
  EnsembleParams p;
  p.members = 10;
  p.seed = seed;
  p.member.max_depth = 3;
  p.member.learning_rate = 0.05;
  p.member.max_rounds = 600;
  p.member.early_stopping_rounds = 50;
  p.member.subsample = 0.9;
  p.member.colsample_bytree = 0.8;
  return p;
}

ImageNetFit FitImageNetSurrogate(const std::vector<PublishedNetwork>& networks,
                                 const std::vector<models::Graph>& graphs, uint64_t seed,
                                 int draws) {
  if (networks.size() != graphs.size()) {
    throw InternalError("FitImageNetSurrogate: networks and graphs differ in length");
  }
  if (networks.size() < 10) {
    throw InputError("an ImageNet surrogate needs at least 10 networks, got " +
                     std::to_string(networks.size()));
  }
  std::vector<std::vector<double>> rows;
  std::vector<double> params;
  std::vector<double> flops;
  std::vector<float> labels;
  std::map<std::string, std::vector<size_t>> by_family;
  for (size_t i = 0; i < networks.size(); ++i) {
    rows.push_back(ImageNetFeatures(graphs[i]));
    const models::OpCounts c = models::CountGraph(graphs[i]);
    params.push_back(static_cast<double>(c.params));
    flops.push_back(static_cast<double>(c.flops));
    labels.push_back(static_cast<float>(networks[i].top1));
    by_family[networks[i].family].push_back(i);
  }
  if (by_family.size() < 2) throw InputError("leave-one-family-out needs at least 2 families");
  const Matrix x = FeatureMatrix(rows);
  const EnsembleParams params_e = ImageNetEnsembleParams(seed);

  ImageNetFit fit;
  ImageNetReport& r = fit.report;
  r.networks = networks.size();
  r.predicted.assign(networks.size(), 0.0);
  for (const PublishedNetwork& n : networks) {
    r.models.push_back(n.model);
    r.top1.push_back(n.top1);
  }
  // Leave one family out: fit on the others, predict the family.
  for (const auto& [family, held] : by_family) {
    std::vector<size_t> train;
    for (size_t i = 0; i < networks.size(); ++i) {
      if (networks[i].family != family) train.push_back(i);
    }
    const Matrix xt = SelectRows(x.view(), train);
    const std::vector<float> yt = SelectValues(labels, train);
    const Ensemble e = Ensemble::Train({xt.view(), yt}, {}, params_e);
    const Matrix xh = SelectRows(x.view(), held);
    std::vector<float> mean(held.size());
    std::vector<float> stddev(held.size());
    e.Predict(xh.view(), mean, stddev);
    ImageNetFamilyResult fr;
    fr.family = family;
    fr.networks = held.size();
    std::vector<double> truth;
    std::vector<double> pred;
    std::vector<double> fam_params;
    for (size_t k = 0; k < held.size(); ++k) {
      r.predicted[held[k]] = mean[k];
      truth.push_back(networks[held[k]].top1);
      pred.push_back(mean[k]);
      fam_params.push_back(params[held[k]]);
    }
    fr.tau = held.size() >= 3 ? ::dcnas::KendallTau(pred, truth) : std::nan("");
    fr.params_tau = held.size() >= 3 ? ::dcnas::KendallTau(fam_params, truth) : std::nan("");
    fr.mae = Mae(pred, truth);
    r.families.push_back(fr);
  }
  r.lofo_tau = BootstrapKendallTau(r.predicted, r.top1, draws, 0.95, seed);
  r.params_tau = BootstrapKendallTau(params, r.top1, draws, 0.95, seed);
  r.flops_tau = BootstrapKendallTau(flops, r.top1, draws, 0.95, seed);
  r.lofo_matched = SizeMatchedKendallTau(r.predicted, r.top1, flops, kImageNetMatchedRatio);
  r.params_matched = SizeMatchedKendallTau(params, r.top1, flops, kImageNetMatchedRatio);
  r.flops_matched = SizeMatchedKendallTau(flops, r.top1, flops, kImageNetMatchedRatio);
  r.lofo_mae = Mae(r.predicted, r.top1);

  // The shipped model: every network.
  fit.ensemble.emplace(Ensemble::Train({x.view(), labels}, {}, params_e));
  std::vector<double> lo(rows.front().size(), std::numeric_limits<double>::infinity());
  std::vector<double> hi(rows.front().size(), -std::numeric_limits<double>::infinity());
  for (const auto& row : rows) {
    for (size_t j = 0; j < row.size(); ++j) {
      lo[j] = std::min(lo[j], row[j]);
      hi[j] = std::max(hi[j], row[j]);
    }
  }
  const auto [min_top1, max_top1] = std::minmax_element(labels.begin(), labels.end());
  fit.metadata = {{"kind", kKind},
                  {"feature_names", ImageNetFeatureNames()},
                  {"feature_min", lo},
                  {"feature_max", hi},
                  {"label_range", {*min_top1, *max_top1}},
                  {"networks", r.models},
                  {"ensemble", params_e.ToJson()},
                  {"report", r.ToJson()}};
  return fit;
}

ImageNetFit FitImageNetSurrogateTable(const std::string& published, uint64_t seed, int draws) {
  std::vector<PublishedNetwork> networks;
  std::vector<models::Graph> graphs;
  for (const models::PublishedTop1& row : models::ReadPublishedTop1(published)) {
    models::BuildOptions o;
    o.resolution = row.resolution;
    graphs.push_back(models::BuiltinModels().Build(row.model, o));
    networks.push_back(
        {row.model, models::BuiltinModels().Get(row.model).family, row.resolution, row.top1});
  }
  ImageNetFit fit = FitImageNetSurrogate(networks, graphs, seed, draws);
  fit.metadata["published"] = published;
  fit.metadata["data_sha256"] = Sha256Hex(ReadFile(published));
  return fit;
}

ExtrapolationReport CheckExtrapolation(const ImageNetSurrogate& s, const space::Space& space,
                                       size_t samples, uint64_t seed) {
  std::mt19937_64 rng(seed);
  ExtrapolationReport r;
  std::map<std::string, size_t> counts;
  double sum = 0.0;
  for (size_t i = 0; i < samples; ++i) {
    const models::Graph g = space.BuildFull(space.Sample(rng), space::Scaling{}, {});
    const std::vector<std::string> out = s.OutsideRange(g);
    if (!out.empty()) ++r.outside;
    for (const std::string& f : out) ++counts[f];
    double mean = 0.0;
    double sd = 0.0;
    s.Predict(g, mean, sd);
    sum += mean;
    ++r.sampled;
  }
  r.mean_predicted = r.sampled == 0 ? std::nan("") : sum / static_cast<double>(r.sampled);
  for (const auto& [f, n] : counts) r.features.emplace_back(f, n);
  std::stable_sort(r.features.begin(), r.features.end(),
                   [](const auto& a, const auto& b) { return a.second > b.second; });
  return r;
}

std::string ExtrapolationReport::ToText() const {
  std::string s = std::to_string(outside) + " of " + std::to_string(sampled) +
                  " sampled networks have a feature outside the fitted networks' range (mean "
                  "prediction " +
                  FormatFixed(mean_predicted, 2) + "%)\n";
  Table t({"feature", "networks outside"});
  for (size_t i = 0; i < features.size() && i < 12; ++i) {
    t.AddRow({features[i].first, std::to_string(features[i].second)});
  }
  return s + (features.empty() ? "" : t.ToText());
}

nlohmann::json ExtrapolationReport::ToJson() const {
  nlohmann::json f = nlohmann::json::array();
  for (const auto& [name, n] : features) f.push_back({{"feature", name}, {"networks", n}});
  return {{"sampled", sampled},
          {"outside", outside},
          {"mean_predicted", mean_predicted},
          {"features", f}};
}

nlohmann::json ImageNetReport::ToJson() const {
  auto interval = [](const TauInterval& i) {
    return nlohmann::json{{"tau", i.tau}, {"lo", i.lo}, {"hi", i.hi}};
  };
  auto num = [](double v) { return std::isnan(v) ? nlohmann::json() : nlohmann::json(v); };
  auto matched = [&](const MatchedTau& m) {
    return nlohmann::json{{"tau", num(m.tau)}, {"pairs", m.pairs}};
  };
  nlohmann::json fams = nlohmann::json::array();
  for (const ImageNetFamilyResult& f : families) {
    fams.push_back({{"family", f.family},
                    {"networks", f.networks},
                    {"tau", num(f.tau)},
                    {"params_tau", num(f.params_tau)},
                    {"mae_pp", num(f.mae)}});
  }
  nlohmann::json nets = nlohmann::json::array();
  for (size_t i = 0; i < models.size(); ++i) {
    nets.push_back({{"model", models[i]}, {"top1", top1[i]}, {"lofo_predicted", predicted[i]}});
  }
  return {{"networks", networks},
          {"lofo_tau", interval(lofo_tau)},
          {"params_tau", interval(params_tau)},
          {"flops_tau", interval(flops_tau)},
          {"matched_flops_ratio", kImageNetMatchedRatio},
          {"lofo_matched", matched(lofo_matched)},
          {"params_matched", matched(params_matched)},
          {"flops_matched", matched(flops_matched)},
          {"lofo_mae_pp", num(lofo_mae)},
          {"families", fams},
          {"predictions", nets}};
}

std::string ImageNetReport::ToText() const {
  auto interval = [](const TauInterval& i) {
    return FormatFixed(i.tau, 3) + " [" + FormatFixed(i.lo, 3) + ", " + FormatFixed(i.hi, 3) + "]";
  };
  Table t({"held-out family", "networks", "tau", "params tau", "MAE pp"});
  for (const ImageNetFamilyResult& f : families) {
    t.AddRow({f.family, std::to_string(f.networks), FormatFixed(f.tau, 3),
              FormatFixed(f.params_tau, 3), FormatFixed(f.mae, 2)});
  }
  Table s({"label", "tau vs top-1 [95%]", "FLOPs-matched tau", "pairs"});
  s.AddRow({"surrogate, family held out", interval(lofo_tau), FormatFixed(lofo_matched.tau, 3),
            std::to_string(lofo_matched.pairs)});
  s.AddRow({"full-size params", interval(params_tau), FormatFixed(params_matched.tau, 3),
            std::to_string(params_matched.pairs)});
  s.AddRow({"full-size FLOPs", interval(flops_tau), FormatFixed(flops_matched.tau, 3),
            std::to_string(flops_matched.pairs)});
  return "ImageNet surrogate, leave one family out (" + std::to_string(networks) +
         " networks; MAE " + FormatFixed(lofo_mae, 2) + " pp)\n" + t.ToText() + "\n" + s.ToText();
}

ImageNetSurrogate::ImageNetSurrogate(Surrogate s) : surrogate_(std::move(s)) {
  min_ = surrogate_.metadata.at("feature_min").get<std::vector<double>>();
  max_ = surrogate_.metadata.at("feature_max").get<std::vector<double>>();
}

ImageNetSurrogate ImageNetSurrogate::Load(const std::string& path) {
  Surrogate s = LoadSurrogate(path);
  const nlohmann::json& m = s.metadata;
  if (!m.contains("kind") || m["kind"] != kKind) {
    throw InputError(path + ": metadata.kind: not an ImageNet surrogate (`dcnas surrogate " +
                     "imagenet` fits one; a search space's surrogate is `surrogate:FILE`)");
  }
  try {
    if (m.at("feature_names").get<std::vector<std::string>>() != ImageNetFeatureNames()) {
      throw InputError(path + ": metadata.feature_names: not this build's ImageNet features");
    }
    const auto lo = m.at("feature_min").get<std::vector<double>>();
    const auto hi = m.at("feature_max").get<std::vector<double>>();
    if (lo.size() != ImageNetFeatureNames().size() || hi.size() != lo.size()) {
      throw InputError(path + ": metadata.feature_min/max: one value per feature expected");
    }
  } catch (const nlohmann::json::exception& e) {
    throw InputError(path + ": metadata: " + e.what());
  }
  if (s.ensemble.num_features() != ImageNetFeatureNames().size()) {
    throw InputError(path + ": the models take " + std::to_string(s.ensemble.num_features()) +
                     " features, not " + std::to_string(ImageNetFeatureNames().size()));
  }
  return ImageNetSurrogate(std::move(s));
}

void ImageNetSurrogate::Predict(const models::Graph& graph, double& mean, double& std) const {
  const Matrix x = FeatureMatrix({ImageNetFeatures(graph)});
  float m = 0.0F;
  float s = 0.0F;
  surrogate_.ensemble.Predict(x.view(), {&m, 1}, {&s, 1});
  mean = m;
  std = s;
}

std::vector<std::string> ImageNetSurrogate::OutsideRange(const models::Graph& graph) const {
  const std::vector<double> f = ImageNetFeatures(graph);
  const std::vector<std::string> names = ImageNetFeatureNames();
  std::vector<std::string> out;
  for (size_t j = 0; j < f.size(); ++j) {
    if (f[j] < min_[j] || f[j] > max_[j]) out.push_back(names[j]);
  }
  return out;
}

}  // namespace dcnas::surrogate
