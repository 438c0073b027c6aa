#include "search/surrogate_objective.h"

#include "common/errors.h"
#include "common/file_io.h"
#include "common/sha256.h"
#include "surrogate/accuracy_surrogate.h"
#include "surrogate/imagenet_surrogate.h"

namespace dcnas::search {
namespace {

class SurrogateAccuracy : public AccuracyObjective {
 public:
  SurrogateAccuracy(surrogate::AccuracySurrogate surrogate, std::string file, double min_tau,
                    std::string sha256)
      : surrogate_(std::move(surrogate)),
        file_(std::move(file)),
        min_tau_(min_tau),
        sha256_(std::move(sha256)) {
    features_.names = space::FeatureNames(surrogate_.space());
  }

  double Accuracy(const space::Encoding& e) override {
    surrogate_.Predict({e}, {space::Scaling{}}, mean_, std_);
    return mean_.at(0);
  }

  void AccuracyBatch(const std::vector<space::Encoding>& encodings,
                     const std::vector<ArchCounts>& counts, std::vector<double>& out) override {
    out.clear();
    // The fast path (counts the search already has) holds the default features only; graph
    // features need each network's graph.
    if (counts.size() != encodings.size() || !(surrogate_.features() == surrogate::FeatureSpec{})) {
      AccuracyObjective::AccuracyBatch(encodings, counts, out);
      return;
    }
    features_.values.clear();
    features_.rows = 0;
    for (size_t i = 0; i < encodings.size(); ++i) {
      space::AppendFeatures(surrogate_.space(), encodings[i], {}, counts[i].params, counts[i].flops,
                            features_);
    }
    surrogate_.PredictFeatures(features_, mean_, std_);
    out.assign(mean_.begin(), mean_.end());
  }

  bool PredictWithStd(const std::vector<space::Encoding>& encodings, std::vector<double>& mean,
                      std::vector<double>& std) override {
    mean.clear();
    std.clear();
    if (encodings.empty()) return true;
    surrogate_.Predict(encodings, std::vector<space::Scaling>(encodings.size()), mean_, std_);
    mean.assign(mean_.begin(), mean_.end());
    std.assign(std_.begin(), std_.end());
    return true;
  }

  const space::Space& space() const { return surrogate_.space(); }

  nlohmann::json Config() const override {
    nlohmann::json c = {{"kind", "surrogate"},
                        {"file", file_},
                        {"sha256", sha256_},
                        {"heldout_tau", surrogate_.heldout_tau()},
                        {"min_tau", min_tau_}};
    // The recipe of its training data (surrogates fitted since it was recorded).
    if (surrogate_.metadata().contains("recipe")) c["recipe"] = surrogate_.metadata()["recipe"];
    return c;
  }

 private:
  surrogate::AccuracySurrogate surrogate_;
  std::string file_;
  double min_tau_;
  std::string sha256_;
  space::FeatureSet features_;  // the rows of a batch (names set once)
  std::vector<float> mean_, std_;
};

// Wraps a surrogate objective of another space: each candidate is mapped to its counterpart.
class CounterpartAccuracy : public AccuracyObjective {
 public:
  CounterpartAccuracy(const space::Space& space, std::unique_ptr<SurrogateAccuracy> inner,
                      const space::Space& inner_space)
      : space_(space), inner_(std::move(inner)), inner_space_(inner_space) {}

  double Accuracy(const space::Encoding& e) override { return inner_->Accuracy(Map(e)); }

  void AccuracyBatch(const std::vector<space::Encoding>& encodings,
                     const std::vector<ArchCounts>& /*counts: of the other network*/,
                     std::vector<double>& out) override {
    std::vector<space::Encoding> mapped;
    mapped.reserve(encodings.size());
    for (const space::Encoding& e : encodings) mapped.push_back(Map(e));
    std::vector<double> std;
    inner_->PredictWithStd(mapped, out, std);
  }

  bool PredictWithStd(const std::vector<space::Encoding>& encodings, std::vector<double>& mean,
                      std::vector<double>& std) override {
    std::vector<space::Encoding> mapped;
    mapped.reserve(encodings.size());
    for (const space::Encoding& e : encodings) mapped.push_back(Map(e));
    return inner_->PredictWithStd(mapped, mean, std);
  }

  nlohmann::json Config() const override {
    return {{"kind", "counterpart"},
            {"surrogate", inner_->Config()},
            {"counterpart_space",
             {{"name", inner_space_.name()}, {"fingerprint", inner_space_.fingerprint()}}}};
  }

 private:
  space::Encoding Map(const space::Encoding& e) const {
    std::optional<space::Encoding> m = space::ProjectEncoding(space_, inner_space_, e);
    if (!m) {
      throw InputError("architecture " + space_.ToText(e) + " of space " + space_.name() +
                       " has no counterpart in the surrogate's space " + inner_space_.name());
    }
    return *m;
  }

  const space::Space& space_;
  std::unique_ptr<SurrogateAccuracy> inner_;
  const space::Space& inner_space_;
};

class LoadedImageNetTop1 : public ImageNetTop1 {
 public:
  LoadedImageNetTop1(surrogate::ImageNetSurrogate s, std::string path, std::string sha256)
      : surrogate_(std::move(s)), path_(std::move(path)), sha256_(std::move(sha256)) {}
  double Predict(const models::Graph& full_size) const override {
    double mean = 0.0;
    double sd = 0.0;
    surrogate_.Predict(full_size, mean, sd);
    return mean;
  }
  void Predict(const models::Graph& full_size, double& mean, double& sd) const {
    surrogate_.Predict(full_size, mean, sd);
  }
  nlohmann::json Config() const override {
    return {{"kind", "imagenet"},
            {"file", path_},
            {"sha256", sha256_},
            {"lofo_tau", surrogate_.metadata()["report"]["lofo_tau"]["tau"]}};
  }

 private:
  surrogate::ImageNetSurrogate surrogate_;
  std::string path_;
  std::string sha256_;
};

// The surrogate at `path`, refused below `min_tau` (its leave-one-family-out tau).
surrogate::ImageNetSurrogate LoadImageNet(const std::string& path, double min_tau) {
  surrogate::ImageNetSurrogate s = surrogate::ImageNetSurrogate::Load(path);
  const nlohmann::json& m = s.metadata();
  const double tau = m.contains("report") ? m["report"]["lofo_tau"].value("tau", -2.0) : -2.0;
  if (!(tau >= min_tau)) {
    throw InputError(path + ": leave-one-family-out tau " + std::to_string(tau) +
                     " is below --min-surrogate-tau " + std::to_string(min_tau));
  }
  return s;
}

// Published ImageNet top-1 predicted from each candidate's full-size graph (scaling 1).
class ImageNetAccuracy : public AccuracyObjective {
 public:
  ImageNetAccuracy(LoadedImageNetTop1 top1, const space::Space& space, double min_tau)
      : top1_(std::move(top1)), space_(space), min_tau_(min_tau) {}

  double Accuracy(const space::Encoding& e) override {
    return top1_.Predict(space_.BuildFull(e, space::Scaling{}, {}));
  }

  bool PredictWithStd(const std::vector<space::Encoding>& encodings, std::vector<double>& mean,
                      std::vector<double>& std) override {
    mean.assign(encodings.size(), 0.0);
    std.assign(encodings.size(), 0.0);
    for (size_t i = 0; i < encodings.size(); ++i) {
      top1_.Predict(space_.BuildFull(encodings[i], space::Scaling{}, {}), mean[i], std[i]);
    }
    return true;
  }

  nlohmann::json Config() const override {
    nlohmann::json c = top1_.Config();
    c["min_tau"] = min_tau_;
    return c;
  }

 private:
  LoadedImageNetTop1 top1_;
  const space::Space& space_;
  double min_tau_;
};

}  // namespace

std::unique_ptr<ImageNetTop1> ImageNetTop1::Load(const std::string& path, double min_tau) {
  return std::make_unique<LoadedImageNetTop1>(LoadImageNet(path, min_tau), path,
                                              Sha256Hex(ReadFile(path)));
}

std::unique_ptr<AccuracyObjective> MakeImageNetAccuracy(const std::string& path,
                                                        const space::Space& space, double min_tau,
                                                        const std::string& sha256) {
  return std::make_unique<ImageNetAccuracy>(
      LoadedImageNetTop1(LoadImageNet(path, min_tau), path, sha256), space, min_tau);
}

std::unique_ptr<AccuracyObjective> MakeCounterpartSurrogateAccuracy(const std::string& path,
                                                                    const space::Space& space,
                                                                    double min_tau,
                                                                    const std::string& sha256) {
  surrogate::AccuracySurrogate surrogate = surrogate::AccuracySurrogate::Load(path);
  surrogate.RequireUsable(min_tau);
  auto inner = std::make_unique<SurrogateAccuracy>(std::move(surrogate), path, min_tau, sha256);
  const space::Space& inner_space = inner->space();
  if (space.units().size() != inner_space.units().size()) {
    throw InputError(path + ": the surrogate's space " + inner_space.name() + " has " +
                     std::to_string(inner_space.units().size()) + " units, " + space.name() +
                     " has " + std::to_string(space.units().size()) +
                     ": no counterparts between them");
  }
  return std::make_unique<CounterpartAccuracy>(space, std::move(inner), inner_space);
}

std::unique_ptr<AccuracyObjective> MakeSurrogateAccuracy(const std::string& path,
                                                         const space::Space& space, double min_tau,
                                                         const std::string& sha256) {
  surrogate::AccuracySurrogate surrogate = surrogate::AccuracySurrogate::Load(path);
  surrogate.RequireUsable(min_tau, space.fingerprint());
  return std::make_unique<SurrogateAccuracy>(std::move(surrogate), path, min_tau, sha256);
}

}  // namespace dcnas::search
