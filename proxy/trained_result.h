// The outcome of one proxy training, and its JSON form: what a training worker returns, what the
// finalists' journal and the LACS trained-result store keep, and what an accuracy-data row
// records besides the architecture.
#pragma once

#include <cstdint>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <vector>

namespace dcnas::proxy {

struct TrainedResult {
  std::string error;           // empty: trained
  double val_accuracy = 0.0;   // percent
  double test_accuracy = 0.0;  // percent
  int64_t proxy_params = 0;    // parameters of the trained proxy network
  double train_time_s = 0.0;
  // Validation accuracy (percent) after each epoch: the learning curve (empty: not recorded).
  std::vector<double> val_curve;
  bool operator==(const TrainedResult&) const = default;
};

// Sets the four result fields (val_accuracy, test_accuracy, proxy_params, train_time_s) of `j`
// and val_curve when there is one, or only "error" for a failed training.
void AddTrainedFields(const TrainedResult& result, nlohmann::json& j);
// Reads them back: "error" alone is a failed training; otherwise all four must be there, the
// accuracies finite and within 0..100, the parameter count and time non-negative; val_curve
// optional (an array of such accuracies). Throws
// InputError starting with `where` ("FILE:LINE: ").
TrainedResult TrainedFromJson(const nlohmann::json& j, const std::string& where);

}  // namespace dcnas::proxy
