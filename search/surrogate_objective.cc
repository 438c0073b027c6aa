#include "search/surrogate_objective.h"

#include "search/accuracy_surrogate.h"

namespace dcnas::search {
namespace {

class SurrogateAccuracy : public AccuracyObjective {
 public:
  SurrogateAccuracy(AccuracySurrogate surrogate, std::string file, double min_tau,
                    std::string sha256)
      : surrogate_(std::move(surrogate)),
        file_(std::move(file)),
        min_tau_(min_tau),
        sha256_(std::move(sha256)),
        names_(FeatureNames(surrogate_.space())) {}

  double Accuracy(const Encoding& e) override {
    surrogate_.Predict({e}, {Scaling{}}, mean_, std_);
    return mean_.at(0);
  }

  void AccuracyBatch(const std::vector<Encoding>& encodings, const std::vector<ArchCounts>& counts,
                     std::vector<double>& out) override {
    out.clear();
    if (counts.size() != encodings.size()) {
      AccuracyObjective::AccuracyBatch(encodings, counts, out);
      return;
    }
    FeatureSet f;
    f.names = names_;
    for (size_t i = 0; i < encodings.size(); ++i) {
      AppendFeatures(surrogate_.space(), encodings[i], {}, counts[i].params, counts[i].flops, f);
    }
    surrogate_.PredictFeatures(f, mean_, std_);
    out.assign(mean_.begin(), mean_.end());
  }

  bool PredictWithStd(const std::vector<Encoding>& encodings, std::vector<double>& mean,
                      std::vector<double>& std) override {
    mean.clear();
    std.clear();
    if (encodings.empty()) return true;
    surrogate_.Predict(encodings, std::vector<Scaling>(encodings.size()), mean_, std_);
    mean.assign(mean_.begin(), mean_.end());
    std.assign(std_.begin(), std_.end());
    return true;
  }

  nlohmann::json Config() const override {
    return {{"kind", "surrogate"},
            {"file", file_},
            {"sha256", sha256_},
            {"heldout_tau", surrogate_.heldout_tau()},
            {"min_tau", min_tau_}};
  }

 private:
  AccuracySurrogate surrogate_;
  std::string file_;
  double min_tau_;
  std::string sha256_;
  std::vector<std::string> names_;
  std::vector<float> mean_, std_;
};

}  // namespace

std::unique_ptr<AccuracyObjective> MakeSurrogateAccuracy(const std::string& path,
                                                         const Space& space, double min_tau,
                                                         const std::string& sha256) {
  AccuracySurrogate surrogate = AccuracySurrogate::Load(path);
  surrogate.RequireUsable(min_tau, space.fingerprint());
  return std::make_unique<SurrogateAccuracy>(std::move(surrogate), path, min_tau, sha256);
}

}  // namespace dcnas::search
