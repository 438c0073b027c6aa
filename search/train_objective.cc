#include "search/train_objective.h"

#include "common/errors.h"
#include "proxy/generate.h"

namespace dcnas::search {
namespace {

namespace lt = models::libtorch;

class TrainAccuracy : public AccuracyObjective {
 public:
  TrainAccuracy(const space::Space& space, TrainAccuracyOptions options)
      : space_(space), o_(std::move(options)), data_(lt::TrainingData::Load(o_.data_dir)) {
    proxy_ = proxy::RecipeProxy(space_, o_.recipe);
  }

  double Accuracy(const space::Encoding& e) override {
    std::vector<double> out;
    AccuracyBatch({e}, {}, out);
    return out.at(0);
  }

  void AccuracyBatch(const std::vector<space::Encoding>& encodings,
                     const std::vector<ArchCounts>& /*counts*/, std::vector<double>& out) override {
    std::vector<proxy::ProxyRun> runs;
    for (const space::Encoding& e : encodings) {
      runs.push_back(
          {space_.ToText(e), [this, e] { return space_.BuildProxy(e, {}, proxy_); }, o_.seed});
    }
    out.assign(encodings.size(), 0.0);
    std::string error;
    proxy::TrainProxyRuns(runs, o_.recipe, o_.jobs, data_, o_.data_dir, o_.limit_eval,
                          [&](size_t i, const proxy::TrainedResult& r) {
                            if (!r.error.empty()) {
                              if (error.empty()) error = runs[i].label + ": " + r.error;
                              return;
                            }
                            out[i] =
                                o_.target == "test_accuracy" ? r.test_accuracy : r.val_accuracy;
                          });
    if (!error.empty()) throw InputError("--accuracy train: training " + error);
  }

  nlohmann::json Config() const override {
    return {{"kind", "train"},
            {"recipe", o_.recipe.Key()},
            {"seed", o_.seed},
            {"target", o_.target},
            {"limit_eval", o_.limit_eval}};
  }

 private:
  const space::Space& space_;
  TrainAccuracyOptions o_;
  lt::TrainingData data_;
  space::ProxySettings proxy_;
};

}  // namespace

std::unique_ptr<AccuracyObjective> MakeTrainAccuracy(const space::Space& space,
                                                     const TrainAccuracyOptions& options) {
  proxy::ValidateRecipe(options.recipe, options.jobs);
  if (options.target != "val_accuracy" && options.target != "test_accuracy") {
    throw InputError("unknown training target '" + options.target +
                     "' (val_accuracy, test_accuracy)");
  }
  return std::make_unique<TrainAccuracy>(space, options);
}

}  // namespace dcnas::search
