#include "lacs/train.h"

#include <map>

#include "common/table.h"
#include "proxy/generate.h"

namespace dcnas::lacs {

TrainedAccuracy::TrainedAccuracy(std::shared_ptr<TrainedStore> store, TrainSettings settings,
                                 ScaleProgress progress)
    : store_(std::move(store)), s_(std::move(settings)), progress_(std::move(progress)) {
  proxy::ValidateRecipe(s_.recipe, s_.jobs);
}

std::string TrainedAccuracy::NetworkKey(const ProxyRequest& request) const {
  return ProxyGraphKey(BuildProxyNetwork(request, s_.recipe, s_.in_channels, s_.num_classes));
}

std::vector<std::optional<proxy::TrainedResult>> TrainedAccuracy::Evaluate(
    const std::vector<ProxyRequest>& requests) {
  std::vector<std::string> keys;
  std::vector<proxy::ProxyRun> runs;
  std::map<std::string, size_t> queued;  // key -> index into runs (one training per network)
  for (const ProxyRequest& r : requests) {
    models::Graph g = BuildProxyNetwork(r, s_.recipe, s_.in_channels, s_.num_classes);
    const std::string key = StoreKey(ProxyGraphKey(g), s_.recipe, s_.seed, s_.limit_eval);
    keys.push_back(key);
    if (store_->Find(key) || queued.count(key)) continue;
    queued[key] = runs.size();
    runs.push_back({r.label, [g] { return g; }, s_.seed});
  }
  const nlohmann::json config = Config();
  if (!runs.empty()) {
    progress_(std::to_string(requests.size()) +
              " networks: " + std::to_string(requests.size() - runs.size()) + " already in " +
              store_->path() + " (or the same proxy network), " + std::to_string(runs.size()) +
              " to train (" + s_.recipe.Key() + ", " + std::to_string(s_.jobs) + " at a time)");
    std::vector<std::string> run_keys(runs.size());
    for (const auto& [key, i] : queued) run_keys[i] = key;
    size_t finished = 0;
    proxy::TrainProxyRuns(
        runs, s_.recipe, s_.jobs, s_.data_dir, s_.limit_eval,
        [&](size_t i, const proxy::TrainedResult& r) {
          ++finished;
          if (!r.error.empty()) {
            progress_("[" + std::to_string(finished) + "/" + std::to_string(runs.size()) + "] " +
                      runs[i].label + " failed: " + r.error);
            return;
          }
          store_->Add(run_keys[i], runs[i].label, config, r);
          progress_("[" + std::to_string(finished) + "/" + std::to_string(runs.size()) + "] " +
                    runs[i].label + ": val " + FormatFixed(r.val_accuracy, 2) + "% in " +
                    FormatFixed(r.train_time_s, 0) + " s");
        });
  }
  std::vector<std::optional<proxy::TrainedResult>> out;
  out.reserve(keys.size());
  for (const std::string& k : keys) out.push_back(store_->Find(k));
  return out;
}

nlohmann::json TrainedAccuracy::Config() const {
  return {{"kind", "trained"},
          {"file", store_->path()},
          {"recipe", s_.recipe.Key()},
          {"seed", s_.seed},
          {"limit_eval", s_.limit_eval}};
}

}  // namespace dcnas::lacs
