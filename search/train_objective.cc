#include "search/train_objective.h"

#include "common/errors.h"
#include "proxy/generate.h"
#include "proxy/successive_halving.h"

namespace dcnas::search {
namespace {

namespace lt = models::libtorch;

class TrainAccuracy : public AccuracyObjective {
 public:
  TrainAccuracy(const space::Space& space, TrainAccuracyOptions options)
      : space_(space), o_(std::move(options)), data_(lt::TrainingData::Load(o_.data_dir)) {
    // The recipe names the data by its content (DatasetId), as every trained row does.
    if (o_.recipe.dataset == proxy::kDefaultDataset) o_.recipe.dataset = data_.id();
    proxy_ = proxy::RecipeProxy(space_, o_.recipe);
  }

  double Accuracy(const space::Encoding& e) override {
    std::vector<double> out;
    AccuracyBatch({e}, {}, out);
    return out.at(0);
  }

  void AccuracyBatch(const std::vector<space::Encoding>& encodings,
                     const std::vector<ArchCounts>& /*counts*/, std::vector<double>& out) override {
    out.assign(encodings.size(), 0.0);
    std::vector<size_t> current(encodings.size());
    for (size_t i = 0; i < current.size(); ++i) current[i] = i;
    const std::vector<int> rungs =
        o_.halving_eta > 0 ? proxy::HalvingRungs(o_.min_epochs, o_.recipe.epochs, o_.halving_eta,
                                                 "--train-halving", "--train-min-epochs")
                           : std::vector<int>{o_.recipe.epochs};
    for (size_t k = 0; k < rungs.size(); ++k) {
      proxy::ProxyRecipe recipe = o_.recipe;
      recipe.epochs = rungs[k];
      std::vector<double> val(current.size(), 0.0);
      Train(encodings, current, recipe, out, val);
      if (k + 1 < rungs.size()) {
        std::vector<size_t> next;
        for (size_t p : proxy::PromoteTop(val, o_.halving_eta)) next.push_back(current[p]);
        current = std::move(next);
      }
    }
  }

  nlohmann::json Config() const override {
    nlohmann::json j = {{"kind", "train"},
                        {"recipe", o_.recipe.Key()},
                        {"seed", o_.seed},
                        {"target", o_.target},
                        {"limit_eval", o_.limit_eval}};
    // Only when on, so that the configuration of journals without halving reads as before.
    if (o_.halving_eta > 0) j["halving"] = {{"eta", o_.halving_eta}, {"min_epochs", o_.min_epochs}};
    return j;
  }

 private:
  // Trains encodings[which[i]] with `recipe`: out (the target) and val (validation accuracy, what
  // halving promotes by) at position i of `val`, which[i] of `out`.
  void Train(const std::vector<space::Encoding>& encodings, const std::vector<size_t>& which,
             const proxy::ProxyRecipe& recipe, std::vector<double>& out, std::vector<double>& val) {
    std::vector<proxy::ProxyRun> runs;
    for (size_t i : which) {
      const space::Encoding& e = encodings[i];
      runs.push_back(
          {space_.ToText(e), [this, e] { return space_.BuildProxy(e, {}, proxy_); }, o_.seed});
    }
    std::string error;
    proxy::TrainProxyRuns(runs, recipe, o_.jobs, data_, o_.data_dir, o_.limit_eval,
                          [&](size_t i, const proxy::TrainedResult& r) {
                            if (!r.error.empty()) {
                              if (error.empty()) error = runs[i].label + ": " + r.error;
                              return;
                            }
                            out[which[i]] =
                                o_.target == "test_accuracy" ? r.test_accuracy : r.val_accuracy;
                            val[i] = r.val_accuracy;
                          });
    if (!error.empty()) throw InputError("--accuracy train: training " + error);
  }

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
  if (options.halving_eta != 0) {
    if (options.recipe.zero_cost()) {
      throw InputError("--train-halving: a zero-cost label has no epochs to halve");
    }
    proxy::HalvingRungs(options.min_epochs, options.recipe.epochs, options.halving_eta,
                        "--train-halving", "--train-min-epochs");
  }
  return std::make_unique<TrainAccuracy>(space, options);
}

}  // namespace dcnas::search
