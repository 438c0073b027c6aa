// Proxy accuracy by real training (LibTorch builds): the networks the store lacks are trained with
// search::TrainProxyRuns (forked workers, `jobs` at a time) and appended to the store as each ends,
// so a killed scaling resumes where it stopped.
#pragma once

#include <memory>
#include <string>

#include "lacs/family.h"
#include "proxy/accuracy_data.h"

namespace dcnas::lacs {

struct TrainSettings {
  proxy::ProxyRecipe recipe;
  uint64_t seed = 0;
  int jobs = 1;
  std::string data_dir;    // Fashion-MNIST directory
  int64_t limit_eval = 0;  // > 0: validate and test on at most this many images (smoke tests)
  int in_channels = 1;
  int num_classes = 10;
};

class TrainedAccuracy : public ProxyAccuracy {
 public:
  TrainedAccuracy(std::shared_ptr<TrainedStore> store, TrainSettings settings,
                  ScaleProgress progress);
  std::vector<std::optional<proxy::TrainedResult>> Evaluate(
      const std::vector<ProxyRequest>& requests) override;
  nlohmann::json Config() const override;
  std::string NetworkKey(const ProxyRequest& request) const override;

 private:
  std::shared_ptr<TrainedStore> store_;
  TrainSettings s_;
  ScaleProgress progress_;
};

}  // namespace dcnas::lacs
