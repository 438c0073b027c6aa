#include "proxy/trained_result.h"

#include <cmath>
#include <nlohmann/json.hpp>

#include "common/errors.h"

namespace dcnas::proxy {
namespace {

double Field(const nlohmann::json& j, const char* key, const std::string& where) {
  const auto it = j.find(key);
  if (it == j.end() || !it->is_number()) {
    throw InputError(where + "missing or non-numeric '" + key + "'");
  }
  const double v = it->get<double>();
  if (!std::isfinite(v)) throw InputError(where + "'" + key + "' is not finite");
  return v;
}

}  // namespace

void AddTrainedFields(const TrainedResult& r, nlohmann::json& j) {
  if (!r.error.empty()) {
    j["error"] = r.error;
    return;
  }
  j["val_accuracy"] = r.val_accuracy;
  j["test_accuracy"] = r.test_accuracy;
  j["proxy_params"] = r.proxy_params;
  j["train_time_s"] = r.train_time_s;
  if (!r.val_curve.empty()) j["val_curve"] = r.val_curve;
}

TrainedResult TrainedFromJson(const nlohmann::json& j, const std::string& where) {
  if (!j.is_object()) throw InputError(where + "not a JSON object");
  TrainedResult r;
  if (const auto it = j.find("error"); it != j.end()) {
    if (!it->is_string() || it->get<std::string>().empty()) {
      throw InputError(where + "'error' must be a non-empty string");
    }
    r.error = it->get<std::string>();
    return r;
  }
  r.val_accuracy = Field(j, "val_accuracy", where);
  r.test_accuracy = Field(j, "test_accuracy", where);
  for (const double a : {r.val_accuracy, r.test_accuracy}) {
    if (a < 0.0 || a > 100.0) throw InputError(where + "accuracy outside 0..100");
  }
  const double params = Field(j, "proxy_params", where);
  if (params < 0.0 || params != std::floor(params)) {
    throw InputError(where + "'proxy_params' must be a non-negative integer");
  }
  r.proxy_params = static_cast<int64_t>(params);
  r.train_time_s = Field(j, "train_time_s", where);
  if (r.train_time_s < 0.0) throw InputError(where + "'train_time_s' is negative");
  if (const auto it = j.find("val_curve"); it != j.end()) {
    if (!it->is_array() || it->empty()) {
      throw InputError(where + "'val_curve' must be a non-empty array of accuracies");
    }
    for (const auto& v : *it) {
      if (!v.is_number() || !std::isfinite(v.get<double>()) || v.get<double>() < 0.0 ||
          v.get<double>() > 100.0) {
        throw InputError(where + "'val_curve' holds a value that is not an accuracy in 0..100");
      }
      r.val_curve.push_back(v.get<double>());
    }
  }
  return r;
}

}  // namespace dcnas::proxy
