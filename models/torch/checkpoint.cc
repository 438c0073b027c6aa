#include "models/torch/checkpoint.h"

#include <cstdio>
#include <filesystem>

#include "common/errors.h"
#include "common/file_io.h"
#include "common/kill_point.h"
#include "models/counts.h"

namespace dcnas::models::libtorch {
namespace {

namespace fs = std::filesystem;

// An epoch's checkpoint is one directory, epoch-NNNN/ (checkpoint.pt, optimizer.pt), written as
// epoch-NNNN.tmp/, every file synced, then renamed; state.json, written atomically after it, names
// the checkpoint it goes with and is the commit point. A kill at any moment leaves state.json
// naming a whole checkpoint of the epochs it lists: a resume never retrains an epoch on weights
// that already had it.
std::string EpochDirName(size_t epochs) {
  char name[32];
  std::snprintf(name, sizeof name, "epoch-%04zu", epochs);
  return name;
}

// Removes what an interrupted save left: *.tmp entries, and epoch directories other than `keep`.
void RemoveStray(const fs::path& dir, const std::string& keep) {
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(dir, ec)) {
    const std::string name = entry.path().filename().string();
    const bool tmp = name.size() > 4 && name.compare(name.size() - 4, 4, ".tmp") == 0;
    const bool epoch = name.rfind("epoch-", 0) == 0;
    if (tmp || (epoch && name != keep)) fs::remove_all(entry.path(), ec);
  }
}

}  // namespace

nlohmann::json RunConfig(const Graph& graph, const TrainOptions& o, double lr,
                         double weight_decay) {
  nlohmann::json config = {{"model", graph.info().model},
                           {"resolution_px", graph.op(graph.Inputs().at(0)).out.shape.h},
                           {"params", CountGraph(graph).params},
                           {"dataset", o.dataset},
                           {"epochs", o.epochs},
                           {"batch", o.batch},
                           {"optimizer", OptimizerName(o.optimizer)},
                           {"lr", lr},
                           {"weight_decay", weight_decay},
                           {"warmup_epochs", o.warmup_epochs},
                           {"label_smoothing", o.label_smoothing},
                           {"augment", o.augment},
                           {"validation_images", o.validation_images},
                           {"limit_train", o.limit_train},
                           {"limit_eval", o.limit_eval},
                           {"seed", o.seed}};
  if (o.crop_pad > 0) config["crop_pad"] = o.crop_pad;  // absent = 0 (runs made before it existed)
  return config;
}

nlohmann::json MetricsJson(const EpochMetrics& m) {
  return {{"epoch", m.epoch},
          {"lr", m.learning_rate},
          {"train_loss", m.train_loss},
          {"train_accuracy", m.train_accuracy},
          {"val_loss", m.val_loss},
          {"val_accuracy", m.val_accuracy},
          {"images_per_s", m.images_per_s},
          {"epoch_time_s", m.epoch_time_s}};
}

EpochMetrics MetricsFromJson(const nlohmann::json& j) {
  EpochMetrics m;
  m.epoch = j.at("epoch").get<int>();
  m.learning_rate = j.at("lr").get<double>();
  m.train_loss = j.at("train_loss").get<double>();
  m.train_accuracy = j.at("train_accuracy").get<double>();
  m.val_loss = j.at("val_loss").get<double>();
  m.val_accuracy = j.at("val_accuracy").get<double>();
  m.images_per_s = j.at("images_per_s").get<double>();
  m.epoch_time_s = j.at("epoch_time_s").get<double>();
  return m;
}

RunDirectory::RunDirectory(std::string dir, nlohmann::json config)
    : dir_(std::move(dir)), config_(std::move(config)) {
  fs::create_directories(dir_);
}

std::vector<EpochMetrics> RunDirectory::Start(GraphModule& module,
                                              ::torch::optim::Optimizer& optimizer, bool resume,
                                              const ProgressFn& progress) {
  const fs::path dir(dir_);
  const fs::path state_path = dir / "state.json";
  std::vector<EpochMetrics> history;
  if (fs::exists(state_path)) {
    if (!resume) {
      throw InputError(dir_ +
                       " already holds a run (state.json); pass --resume to continue "
                       "it or choose another --out");
    }
    nlohmann::json state;
    try {
      state = nlohmann::json::parse(ReadFile(state_path.string()));
      (void)state.at("config");
      (void)state.at("history").size();
      (void)state.at("epochs_done").get<int>();
    } catch (const nlohmann::json::exception& e) {
      throw InputError(state_path.string() + ": not a dcnas train state: " + e.what());
    }
    if (state.at("config") != config_) {
      throw InputError(state_path.string() + ": the checkpoint was made with other settings: " +
                       state.at("config").dump() + " (this run: " + config_.dump() + ")");
    }
    // Runs written before epoch directories keep their files at the top.
    const std::string checkpoint = state.value("checkpoint", std::string());
    const fs::path from = checkpoint.empty() ? dir : dir / checkpoint;
    if (!checkpoint.empty() && !fs::exists(from / "checkpoint.pt")) {
      throw InputError(state_path.string() + ": names checkpoint " + checkpoint +
                       ", which is missing");
    }
    if (checkpoint.find('/') != std::string::npos || checkpoint.starts_with(".")) {
      throw InputError(state_path.string() + ": checkpoint '" + checkpoint +
                       "' is not an epoch directory of this run");
    }
    try {
      ::torch::load(module, (from / "checkpoint.pt").string());
      ::torch::load(optimizer, (from / "optimizer.pt").string());
    } catch (const c10::Error& e) {
      throw InputError(
          (from / "checkpoint.pt").string() +
          ": unreadable checkpoint (or one of another network): " + e.what_without_backtrace());
    }
    RemoveStray(dir, checkpoint);
    try {
      for (const auto& m : state.at("history")) history.push_back(MetricsFromJson(m));
    } catch (const nlohmann::json::exception& e) {
      throw InputError(state_path.string() + ": history: " + e.what());
    }
    if (static_cast<int>(history.size()) != state.at("epochs_done").get<int>()) {
      throw InputError(state_path.string() + ": epochs_done is " + state.at("epochs_done").dump() +
                       " but the history has " + std::to_string(history.size()) + " epochs");
    }
  } else if (resume && progress) {
    progress("no checkpoint in " + dir_ + ": starting from scratch", true);
  }
  WriteMetrics(history);
  return history;
}

void RunDirectory::SaveEpoch(GraphModule& module, ::torch::optim::Optimizer& optimizer,
                             const std::vector<EpochMetrics>& history) {
  const fs::path dir(dir_);
  const std::string name = EpochDirName(history.size());
  const fs::path tmp = dir / (name + ".tmp");
  std::error_code ec;
  fs::remove_all(tmp, ec);
  fs::create_directories(tmp);
  ::torch::save(module, (tmp / "checkpoint.pt").string());
  ::torch::save(optimizer, (tmp / "optimizer.pt").string());
  SyncPath((tmp / "checkpoint.pt").string());
  SyncPath((tmp / "optimizer.pt").string());
  SyncPath(tmp.string());
  fs::remove_all(dir / name, ec);
  fs::rename(tmp, dir / name);
  SyncPath(dir.string());
  KillPoint("train.epoch-dir-renamed");  // the new epoch is on disk, state.json still names the old
  nlohmann::json lines = nlohmann::json::array();
  for (const auto& h : history) lines.push_back(MetricsJson(h));
  WriteFileAtomic((dir / "state.json").string(),
                  nlohmann::json{{"config", config_},
                                 {"epochs_done", static_cast<int>(history.size())},
                                 {"checkpoint", name},
                                 {"history", lines}}
                          .dump(1) +
                      "\n");
  SyncPath(dir.string());
  KillPoint("train.state-written");  // committed; the superseded epoch not yet removed
  RemoveStray(dir, name);            // the previous epoch's checkpoint, now superseded
  WriteMetrics(history);
}

void RunDirectory::WriteResult(const TrainResult& result, int threads, int64_t test_images) {
  const nlohmann::json j = {{"model", result.model},
                            {"params", result.params},
                            {"config", config_},
                            {"threads", threads},
                            {"epochs", result.epochs},
                            {"test_images", test_images},
                            {"test_loss", result.test_loss},
                            {"test_accuracy", result.test_accuracy},
                            {"val_accuracy", result.val_accuracy},
                            {"train_time_s", result.train_time_s},
                            {"images_per_s", result.images_per_s}};
  WriteFileAtomic((fs::path(dir_) / "result.json").string(), j.dump(1) + "\n");
}

void RunDirectory::WriteMetrics(const std::vector<EpochMetrics>& history) {
  std::string lines;
  for (const auto& m : history) lines += MetricsJson(m).dump() + "\n";
  WriteFileAtomic((fs::path(dir_) / "metrics.jsonl").string(), lines);
}

}  // namespace dcnas::models::libtorch
