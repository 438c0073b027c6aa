#include "surrogate/regressor.h"

#include <charconv>
#include <cmath>
#include <limits>
#include <nlohmann/json.hpp>
#include <sstream>

#include "common/errors.h"
#include "common/file_io.h"
#include "common/table.h"

namespace dcnas::surrogate {
namespace {

constexpr const char* kBestIterationAttr = "best_iteration";
constexpr const char* kBestScoreAttr = "best_score";

void CheckLabeled(const LabeledView& d, const char* what) {
  if (d.y.size() != d.x.rows) {
    throw InputError(std::string(what) + ": " + std::to_string(d.y.size()) + " labels for " +
                     std::to_string(d.x.rows) + " rows");
  }
  for (float v : d.y) {
    if (!std::isfinite(v)) throw InputError(std::string(what) + ": label is not finite");
  }
}

// Parses the value after the last "-rmse:" in XGBoost's evaluation line.
double ParseRmse(const std::string& line) {
  const auto pos = line.rfind("-rmse:");
  if (pos == std::string::npos) throw InternalError("no rmse in XGBoost eval line: " + line);
  return std::stod(line.substr(pos + 6));
}

void Configure(Booster& b, const RegressorParams& p, double base_score) {
  b.SetParam("verbosity", "0");
  b.SetParam("objective", "reg:squarederror");
  b.SetParam("tree_method", "hist");
  b.SetParam("eval_metric", "rmse");
  b.SetParam("eta", FormatShortest(p.learning_rate));
  b.SetParam("max_depth", std::to_string(p.max_depth));
  b.SetParam("min_child_weight", FormatShortest(p.min_child_weight));
  b.SetParam("subsample", FormatShortest(p.subsample));
  b.SetParam("colsample_bytree", FormatShortest(p.colsample_bytree));
  b.SetParam("lambda", FormatShortest(p.reg_lambda));
  b.SetParam("alpha", FormatShortest(p.reg_alpha));
  b.SetParam("max_bin", std::to_string(p.max_bin));
  b.SetParam("base_score", FormatShortest(base_score));
  // XGBoost's seed is a 32-bit int; fold the 64-bit seed into it.
  b.SetParam("seed", std::to_string(static_cast<std::int32_t>(p.seed ^ (p.seed >> 32))));
  b.SetParam("nthread", std::to_string(p.nthread));
}

void ValidateParams(const RegressorParams& p) {
  if (p.max_rounds < 1) throw InputError("max_rounds must be >= 1");
  if (p.early_stopping_rounds < 0) throw InputError("early_stopping_rounds must be >= 0");
  if (!(p.learning_rate > 0.0)) throw InputError("learning_rate must be > 0");
  if (p.max_depth < 1) throw InputError("max_depth must be >= 1");
  if (!(p.subsample > 0.0 && p.subsample <= 1.0)) throw InputError("subsample must be in (0, 1]");
  if (!(p.colsample_bytree > 0.0 && p.colsample_bytree <= 1.0))
    throw InputError("colsample_bytree must be in (0, 1]");
  if (p.nthread < 1) throw InputError("nthread must be >= 1");
}

TrainingHistory HistoryFromAttrs(const Booster& b) {
  TrainingHistory h;
  h.rounds_trained = b.BoostedRounds();
  h.best_iteration = h.rounds_trained - 1;
  const std::string best = b.GetAttr(kBestIterationAttr);
  if (!best.empty()) h.best_iteration = std::stoi(best);
  const std::string score = b.GetAttr(kBestScoreAttr);
  if (!score.empty()) h.best_valid_rmse = std::stod(score);
  return h;
}

template <typename T>
void Read(const nlohmann::json& j, const std::string& where, const char* key, T& out) {
  const auto it = j.find(key);
  if (it == j.end()) return;
  try {
    out = it->get<T>();
  } catch (const nlohmann::json::exception&) {
    throw InputError(where + "." + key + ": wrong type: " + it->dump());
  }
}

}  // namespace

nlohmann::json RegressorParams::ToJson() const {
  nlohmann::json j = {{"max_rounds", max_rounds},
                      {"early_stopping_rounds", early_stopping_rounds},
                      {"learning_rate", learning_rate},
                      {"max_depth", max_depth},
                      {"min_child_weight", min_child_weight},
                      {"subsample", subsample},
                      {"colsample_bytree", colsample_bytree},
                      {"reg_lambda", reg_lambda},
                      {"reg_alpha", reg_alpha},
                      {"max_bin", max_bin},
                      {"seed", seed},
                      {"nthread", nthread}};
  j["base_score"] = base_score ? nlohmann::json(*base_score) : nlohmann::json(nullptr);
  return j;
}

RegressorParams RegressorParams::FromJson(const nlohmann::json& j, const std::string& where) {
  if (!j.is_object()) throw InputError(where + ": expected an object");
  RegressorParams p;
  static const char* const kKeys[] = {"max_rounds",
                                      "early_stopping_rounds",
                                      "learning_rate",
                                      "max_depth",
                                      "min_child_weight",
                                      "subsample",
                                      "colsample_bytree",
                                      "reg_lambda",
                                      "reg_alpha",
                                      "max_bin",
                                      "seed",
                                      "nthread",
                                      "base_score"};
  for (const auto& [key, value] : j.items()) {
    bool known = false;
    for (const char* k : kKeys) known = known || key == k;
    if (!known) throw InputError(where + "." + key + ": unknown key");
  }
  Read(j, where, "max_rounds", p.max_rounds);
  Read(j, where, "early_stopping_rounds", p.early_stopping_rounds);
  Read(j, where, "learning_rate", p.learning_rate);
  Read(j, where, "max_depth", p.max_depth);
  Read(j, where, "min_child_weight", p.min_child_weight);
  Read(j, where, "subsample", p.subsample);
  Read(j, where, "colsample_bytree", p.colsample_bytree);
  Read(j, where, "reg_lambda", p.reg_lambda);
  Read(j, where, "reg_alpha", p.reg_alpha);
  Read(j, where, "max_bin", p.max_bin);
  Read(j, where, "seed", p.seed);
  Read(j, where, "nthread", p.nthread);
  if (j.contains("base_score") && !j["base_score"].is_null()) {
    double v = 0.0;
    Read(j, where, "base_score", v);
    p.base_score = v;
  }
  return p;
}

Regressor Regressor::Train(const LabeledView& train, const LabeledView& valid,
                           const RegressorParams& params) {
  ValidateParams(params);
  CheckLabeled(train, "training set");
  const bool early_stopping = params.early_stopping_rounds > 0;
  if (early_stopping) {
    CheckLabeled(valid, "validation set");
    if (valid.x.rows == 0) throw InputError("early stopping needs a non-empty validation set");
    if (valid.x.cols != train.x.cols) {
      throw InputError("validation set has " + std::to_string(valid.x.cols) +
                       " features, training set " + std::to_string(train.x.cols));
    }
  }
  double base_score = 0.0;
  if (params.base_score) {
    base_score = *params.base_score;
  } else {
    for (float v : train.y) base_score += v;
    base_score /= static_cast<double>(train.y.size());
  }

  DMatrix dtrain(train.x, train.y, params.nthread);
  std::optional<DMatrix> dvalid;
  if (early_stopping) dvalid.emplace(valid.x, valid.y, params.nthread);
  std::vector<const DMatrix*> cache = {&dtrain};
  if (dvalid) cache.push_back(&*dvalid);
  Booster booster(cache);
  Configure(booster, params, base_score);

  TrainingHistory history;
  history.best_valid_rmse = std::numeric_limits<double>::infinity();
  const DMatrix* eval_sets[] = {dvalid ? &*dvalid : nullptr};
  const std::string eval_names[] = {"valid"};
  for (int round = 0; round < params.max_rounds; ++round) {
    booster.UpdateOneIter(round, dtrain);
    history.rounds_trained = round + 1;
    if (!early_stopping) continue;
    const double rmse = ParseRmse(booster.EvalOneIter(round, eval_sets, eval_names));
    history.valid_rmse.push_back(rmse);
    if (rmse < history.best_valid_rmse) {
      history.best_valid_rmse = rmse;
      history.best_iteration = round;
    } else if (round - history.best_iteration >= params.early_stopping_rounds) {
      history.stopped_early = true;
      break;
    }
  }
  if (!early_stopping) {
    history.best_iteration = history.rounds_trained - 1;
    history.best_valid_rmse = 0.0;
  }
  // Slicing also yields a booster free of the (about to be freed) training matrices' caches.
  Booster best = booster.Slice(0, history.best_iteration + 1);
  best.SetAttr(kBestIterationAttr, std::to_string(history.best_iteration));
  best.SetAttr(kBestScoreAttr, FormatShortest(history.best_valid_rmse));
  return {std::move(best), std::move(history), params.nthread};
}

Regressor::Regressor(Booster booster, TrainingHistory history, int nthread)
    : booster_(std::move(booster)),
      forest_(Forest::FromBooster(booster_)),
      history_(std::move(history)) {
  booster_.SetParam("verbosity", "0");
  booster_.SetParam("nthread", std::to_string(nthread));
  num_features_ = booster_.NumFeatures();
  num_rounds_ = booster_.BoostedRounds();
  if (forest_.num_features() != num_features_) {
    throw InternalError("compiled forest and booster disagree on the feature count");
  }
}

void Regressor::Predict(MatrixView x, std::span<float> out) const { forest_.Predict(x, out); }

std::vector<float> Regressor::Predict(MatrixView x) const {
  std::vector<float> out(x.rows);
  Predict(x, out);
  return out;
}

void Regressor::Save(const std::string& path) const { booster_.Save(path); }

Regressor Regressor::Load(const std::string& path, int nthread) {
  (void)ModelFormatFromPath(path);
  // XGBoost's loader trusts the model's structure (a bad child index or tree_info crashes it):
  // it reads only what Forest's parse has accepted.
  try {
    Forest::CheckModel(ReadFile(path));
  } catch (const InputError& e) {
    throw InputError(path + ": " + e.what());
  }
  Booster b = Booster::Load(path);
  TrainingHistory h = HistoryFromAttrs(b);
  return {std::move(b), std::move(h), nthread};
}

Regressor Regressor::FromBuffer(std::string_view bytes, int nthread) {
  Forest::CheckModel(bytes);  // before XGBoost's loader, which trusts the model's structure
  Booster b = Booster::FromBuffer(bytes);
  TrainingHistory h = HistoryFromAttrs(b);
  return {std::move(b), std::move(h), nthread};
}

}  // namespace dcnas::surrogate
