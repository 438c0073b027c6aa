#include "proxy/finalists.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

#include "common/append_log.h"
#include "common/errors.h"
#include "common/file_io.h"
#include "common/rank_correlation.h"
#include "common/table.h"
#include "common/text.h"
#include "models/counts.h"
#include "models/zoo/zoo.h"

namespace dcnas::proxy {
namespace {

namespace fs = std::filesystem;

double ParseNumber(const std::string& text, const std::string& where) {
  try {
    size_t used = 0;
    const double v = std::stod(text, &used);
    if (used == text.size() && std::isfinite(v)) return v;
  } catch (const std::exception&) {
  }
  throw InputError(where + ": '" + text + "' is not a finite number");
}

struct FrontRow {
  space::Encoding encoding;
  double accuracy = 0.0, latency_ms = 0.0, reward = 0.0;
};

std::vector<FrontRow> ReadFront(const space::Space& space, const std::string& path) {
  if (!fs::exists(path)) {
    throw InputError(path + ": missing (not the directory of a finished `dcnas search`)");
  }
  const std::vector<std::string> lines = Split(ReadFile(path), '\n');
  const std::string header = "accuracy,latency_ms,reward,params,flops,encoding,blocks";
  if (lines.empty() || lines[0] != header) {
    throw InputError(path + ":1: not a pareto.csv of `dcnas search` (header must be " + header +
                     ")");
  }
  std::vector<FrontRow> rows;
  for (size_t i = 1; i < lines.size(); ++i) {
    if (lines[i].empty()) continue;
    const std::string where = path + ":" + std::to_string(i + 1);
    const std::vector<std::string> f = Split(lines[i], ',');
    if (f.size() != 7)
      throw InputError(where + ": expected 7 columns, found " + std::to_string(f.size()));
    FrontRow r;
    r.accuracy = ParseNumber(f[0], where + ": accuracy");
    r.latency_ms = ParseNumber(f[1], where + ": latency_ms");
    r.reward = ParseNumber(f[2], where + ": reward");
    try {
      r.encoding = space.Canonical(space.FromText(f[5]));
    } catch (const InputError& e) {
      throw InputError(where + ": encoding: " + e.what());
    }
    rows.push_back(r);
  }
  if (rows.empty()) throw InputError(path + ": no architectures");
  return rows;
}

nlohmann::json RecipeJson(const ProxyRecipe& r, uint64_t seed) {
  return {{"recipe", r.Key()}, {"seed", seed}};
}

std::string Opt(const std::optional<double>& v, int digits) {
  return v ? FormatFixed(*v, digits) : std::string("-");
}

}  // namespace

namespace {

// The proxy-size graph of a finalist ({"encoding": ...}) or a zoo reference ({"model": ...})
// under the options' recipe.
std::function<models::Graph()> ProxyBuilder(const space::Space& space, const FinalistsOptions& o,
                                            const nlohmann::json& run) {
  const space::ProxySettings proxy = RecipeProxy(space, o.recipe);
  if (run.contains("encoding")) {
    const space::Encoding e = space.FromText(run["encoding"].get<std::string>());
    return [&space, e, proxy] { return space.BuildProxy(e, {}, proxy); };
  }
  models::BuildOptions zoo_proxy;
  zoo_proxy.resolution = proxy.resolution;
  zoo_proxy.in_channels = proxy.in_channels;
  zoo_proxy.num_classes = proxy.num_classes;
  zoo_proxy.proxy_removed_downsamples = proxy.removed_downsamples;
  zoo_proxy.width_scale = proxy.width;
  const std::string model = run.at("model").get<std::string>();
  return [model, zoo_proxy] { return models::BuiltinModels().Build(model, zoo_proxy); };
}

// The k best-reward architectures of the run's front (pareto.csv).
std::vector<FrontRow> BestOfFront(const space::Space& space, const std::string& path, int k) {
  std::vector<FrontRow> front = ReadFront(space, path);
  std::stable_sort(front.begin(), front.end(),
                   [](const FrontRow& a, const FrontRow& b) { return a.reward > b.reward; });
  if (static_cast<int>(front.size()) > k) front.resize(static_cast<size_t>(k));
  return front;
}

// The run's summary.json, refused when it is a search of another space.
nlohmann::json ReadRunSummary(const space::Space& space, const std::string& summary_path) {
  nlohmann::json summary;
  try {
    summary = nlohmann::json::parse(ReadFile(summary_path));
  } catch (const nlohmann::json::exception& e) {
    throw InputError(summary_path + ": not JSON: " + e.what());
  }
  if (summary.value("space", nlohmann::json::object()).value("fingerprint", "") !=
      space.fingerprint()) {
    throw InputError(summary_path + ": a search of another space (fingerprint " +
                     summary["space"].value("fingerprint", std::string("?")) + ", " + space.name() +
                     " has " + space.fingerprint() + ")");
  }
  return summary;
}

// The finalists (by reward), then the summary's references.
std::vector<Finalist> ListRuns(const space::Space& space, const std::vector<FrontRow>& front,
                               const nlohmann::json& summary) {
  std::vector<Finalist> runs;
  for (const FrontRow& f : front) {
    Finalist x;
    x.role = "finalist";
    x.encoding = x.name = space.ToText(f.encoding);
    x.predicted = f.accuracy;
    x.latency_ms = f.latency_ms;
    runs.push_back(x);
  }
  for (const auto& ref : summary.value("references", nlohmann::json::array())) {
    Finalist x;
    x.role = "reference";
    x.name = ref.at("model").get<std::string>();
    if (ref.value("exact", false)) x.encoding = ref.value("encoding", std::string());
    if (ref.contains("accuracy") && ref["accuracy"].is_number()) x.predicted = ref["accuracy"];
    if (ref.contains("latency_ms") && ref["latency_ms"].is_number()) {
      x.latency_ms = ref["latency_ms"];
    }
    runs.push_back(x);
  }
  return runs;
}

// Sets each run's full-size counts; adds its proxy-size builder to `runs` and its worker payload
// to `payloads`.
void PrepareRuns(const space::Space& space, const FinalistsOptions& o,
                 std::vector<Finalist>& finalists, std::vector<ProxyRun>& runs,
                 std::vector<std::string>& payloads) {
  for (Finalist& x : finalists) {
    const bool in_space = !x.encoding.empty();
    const models::OpCounts c =
        models::CountGraph(in_space ? space.BuildFull(space.FromText(x.encoding), {}, {})
                                    : models::BuiltinModels().Build(x.name, {}));
    x.params = c.params;
    x.flops = c.flops;
    const nlohmann::json payload = {
        {in_space ? "encoding" : "model", in_space ? x.encoding : x.name}, {"seed", o.seed}};
    runs.push_back({x.name, ProxyBuilder(space, o, payload), o.seed});
    payloads.push_back(payload.dump());
  }
}

// Refuses an append_to file whose rows were trained with another recipe.
void CheckAppendRecipe(const space::Space& space, const FinalistsOptions& o) {
  if (!fs::exists(o.append_to) || fs::file_size(o.append_to) == 0) return;
  const AccuracyData existing = ReadAccuracyData(o.append_to, &space, true);
  if (!existing.rows.empty() && RequireOneRecipe(existing) != o.recipe) {
    throw InputError(o.append_to + ": its rows were trained with " +
                     existing.rows.front().recipe.Key() + ", the finalists with " + o.recipe.Key() +
                     " (one file, one recipe)");
  }
}

// The results finalists.jsonl holds, by run name; a line of another recipe is refused.
std::map<std::string, TrainedResult> ReadFinalistsJournal(const AppendLog& journal,
                                                          const nlohmann::json& config) {
  std::map<std::string, TrainedResult> done;
  for (size_t i = 0; i < journal.lines().size(); ++i) {
    const std::string& line = journal.lines()[i];
    if (line.empty()) continue;
    const std::string where = journal.Where(i + 1);
    nlohmann::json j;
    try {
      j = nlohmann::json::parse(line);
    } catch (const nlohmann::json::exception&) {
      throw InputError(where + "not JSON");
    }
    if (!j.is_object() || j.value("config", nlohmann::json()) != config) {
      throw InputError(where + "trained with " +
                       (j.is_object() ? j.value("config", nlohmann::json()) : j).dump() + ", not " +
                       config.dump());
    }
    const auto name = j.find("name");
    if (name == j.end() || !name->is_string()) throw InputError(where + "missing 'name'");
    const TrainedResult r = TrainedFromJson(j, where);
    if (!r.error.empty()) throw InputError(where + "a finalists' journal line holds no error");
    done[name->get<std::string>()] = r;
  }
  return done;
}

// Sets the results the journal holds; returns the indices of the runs still to train.
std::vector<size_t> TakeJournaled(const std::map<std::string, TrainedResult>& done,
                                  std::vector<Finalist>& runs) {
  std::vector<size_t> index;
  for (size_t i = 0; i < runs.size(); ++i) {
    const auto it = done.find(runs[i].name);
    if (it != done.end()) {
      runs[i].trained = it->second;
    } else {
      index.push_back(i);
    }
  }
  return index;
}

// Trains runs[i] for each i of `index`, here (o.jobs forked trainers) or on o.executor's workers
// (their payloads), calling done(i, result) as each ends.
void TrainRuns(const FinalistsOptions& o, const std::vector<ProxyRun>& runs,
               const std::vector<std::string>& payloads, const std::vector<size_t>& index,
               const std::function<void(size_t, const TrainedResult&)>& done) {
  if (o.executor == nullptr) {
    std::vector<ProxyRun> to_train;
    for (size_t i : index) to_train.push_back(runs[i]);
    TrainProxyRuns(to_train, o.recipe, o.jobs, o.data_dir, o.limit_eval,
                   [&](size_t k, const TrainedResult& r) { done(index[k], r); });
    return;
  }
  size_t next = 0;
  o.executor->Run(
      [&]() -> std::optional<exec::WorkItem> {
        if (next >= index.size()) return std::nullopt;
        const size_t k = next++;
        return exec::WorkItem{k, payloads[index[k]]};
      },
      [&](const exec::WorkResult& w) { done(index[w.index], ParseProxyRunResult(w)); });
}

// A finished training: one line of finalists.jsonl and, for an architecture of the space, a row
// of the appender's accuracy data.
void RecordTrained(const space::Space& space, const FinalistsOptions& o, const Finalist& x,
                   const nlohmann::json& config, AppendLog& journal, AccuracyAppender* appender) {
  const TrainedResult& r = x.trained;
  nlohmann::json line = {{"name", x.name}, {"config", config}};
  AddTrainedFields(r, line);
  journal.Append(line.dump());
  if (appender == nullptr || x.encoding.empty()) return;
  Job job{space.FromText(x.encoding), {}, 0, o.seed};
  AccuracyRow row = DescribeJob(space, job, o.recipe);
  AddCounts(space, job, row);
  row.val_accuracy = r.val_accuracy;
  row.test_accuracy = r.test_accuracy;
  row.proxy_params = r.proxy_params;
  row.train_time_s = r.train_time_s;
  appender->Append(row);
}

std::string FinalistsCsv(const FinalistsReport& report) {
  std::ostringstream csv;
  csv << "role,name,encoding,predicted_accuracy,latency_ms,params,flops,val_accuracy,"
         "test_accuracy,train_time_s\n";
  for (const Finalist& x : report.runs) {
    const bool ok = x.trained.error.empty();
    csv << x.role << "," << x.name << "," << x.encoding << ","
        << (x.predicted ? nlohmann::json(*x.predicted).dump() : "") << ","
        << (x.latency_ms ? nlohmann::json(*x.latency_ms).dump() : "") << "," << x.params << ","
        << x.flops << "," << (ok ? nlohmann::json(x.trained.val_accuracy).dump() : "") << ","
        << (ok ? nlohmann::json(x.trained.test_accuracy).dump() : "") << ","
        << (ok ? nlohmann::json(x.trained.train_time_s).dump() : "") << "\n";
  }
  return csv.str();
}

// Per reference that trained, the fastest finalist that trains at least as accurately.
std::string ReferenceLines(const FinalistsReport& report, const ProxyRecipe& recipe) {
  const std::string what = recipe.zero_cost() ? "label" : "trained test";
  std::ostringstream txt;
  for (const Finalist& ref : report.runs) {
    if (ref.role != "reference" || !ref.trained.error.empty() || !ref.latency_ms) continue;
    const Finalist* best = nullptr;
    for (const Finalist& x : report.runs) {
      if (x.role != "finalist" || !x.trained.error.empty() || !x.latency_ms) continue;
      if (x.trained.test_accuracy < ref.trained.test_accuracy) continue;
      if (best == nullptr || *x.latency_ms < *best->latency_ms) best = &x;
    }
    txt << ref.name << " (" << what << " " << FormatFixed(ref.trained.test_accuracy, 2) << "%, "
        << FormatFixed(*ref.latency_ms, 3) << " ms): ";
    if (best == nullptr) {
      txt << (recipe.zero_cost() ? "no finalist reaches its label\n"
                                 : "no finalist trains to its accuracy\n");
    } else {
      txt << "the fastest finalist at least as accurate is " << best->name << ", "
          << FormatFixed(*best->latency_ms, 3) << " ms ("
          << SpeedupText(*ref.latency_ms / *best->latency_ms) << "), "
          << (recipe.zero_cost() ? "label " : "test ")
          << FormatFixed(best->trained.test_accuracy, 2) << "%\n";
    }
  }
  return txt.str();
}

// finalists.txt: the table, the rank agreement of predicted and trained test accuracy of the
// finalists (also set in report.tau), and the references against the finalists.
std::string ReportText(const std::string& run_dir, const FinalistsOptions& o,
                       FinalistsReport& report) {
  // A zero-cost label is one score per network (validation and test alike): one column, named
  // for what it is.
  const bool label = o.recipe.zero_cost();
  std::vector<std::string> header = {"role", "name", "predicted %", "latency ms", "params"};
  if (label) {
    header.push_back("label %");
  } else {
    header.push_back("trained val %");
    header.push_back("trained test %");
  }
  Table t(header);
  std::vector<double> predicted, trained;
  for (const Finalist& x : report.runs) {
    const bool ok = x.trained.error.empty();
    std::vector<std::string> row = {x.role,
                                    x.name,
                                    Opt(x.predicted, 2),
                                    Opt(x.latency_ms, 3),
                                    std::to_string(x.params),
                                    ok ? FormatFixed(x.trained.test_accuracy, 2) : "failed"};
    if (!label) row.insert(row.end() - 1, ok ? FormatFixed(x.trained.val_accuracy, 2) : "failed");
    t.AddRow(row);
    if (x.role == "finalist" && ok && x.predicted) {
      predicted.push_back(*x.predicted);
      trained.push_back(x.trained.test_accuracy);
    }
  }
  std::ostringstream txt;
  txt << "finalists of " << run_dir
      << (label ? " labelled by the zero-cost label of " : " trained with ") << o.recipe.Key()
      << (label ? " (the untrained proxy network's score mapped to percent; no training)" : "")
      << ", seed " << o.seed << "\n"
      << t.ToText();
  if (predicted.size() >= 2) {
    report.tau = KendallTau(predicted, trained);
    txt << "Kendall tau, predicted vs " << (label ? "label" : "trained test accuracy") << " of the "
        << predicted.size() << " finalists: " << FormatFixed(*report.tau, 3) << "\n";
  }
  return txt.str() + ReferenceLines(report, o.recipe);
}

}  // namespace

exec::WorkHandler FinalistWorker(const space::Space& space, const FinalistsOptions& options,
                                 const models::libtorch::TrainingData& data) {
  return [&space, options, &data](const std::string& payload) {
    const nlohmann::json run = nlohmann::json::parse(payload);
    return TrainProxy(ProxyBuilder(space, options, run), run.at("seed").get<uint64_t>(),
                      options.recipe, options.data_dir, options.limit_eval, data);
  };
}

exec::WorkHandler FinalistWorker(const space::Space& space, const FinalistsOptions& options) {
  return WithLoadedData(options.data_dir, [&](const models::libtorch::TrainingData& data) {
    return FinalistWorker(space, options, data);
  });
}

FinalistsReport TrainFinalists(const space::Space& space, const std::string& run_dir,
                               const FinalistsOptions& o, const GenerateProgress& progress) {
  if (o.k < 1) throw InputError("--k must be at least 1 finalist");
  ValidateRecipe(o.recipe, o.jobs);
  const fs::path dir(run_dir);
  const std::vector<FrontRow> front = BestOfFront(space, (dir / "pareto.csv").string(), o.k);
  const nlohmann::json summary = ReadRunSummary(space, (dir / "summary.json").string());
  FinalistsReport report;
  report.runs = ListRuns(space, front, summary);
  // Full-size counts and the proxy-size builders (and, for workers elsewhere, their payloads).
  std::vector<ProxyRun> runs;
  std::vector<std::string> payloads;
  PrepareRuns(space, o, report.runs, runs, payloads);

  std::optional<AccuracyAppender> appender;
  if (!o.append_to.empty()) {
    CheckAppendRecipe(space, o);
    appender.emplace(o.append_to);
  }

  // Earlier results (resume).
  const std::string journal_path = (dir / "finalists.jsonl").string();
  const nlohmann::json config = RecipeJson(o.recipe, o.seed);
  if (fs::exists(journal_path) && !o.resume) {
    throw InputError(journal_path + " exists: --resume continues it (or remove it)");
  }
  // A torn last line (a kill during its write) is cut: that run is trained again.
  AppendLog journal = AppendLog::Open(journal_path);
  const std::vector<size_t> index =
      TakeJournaled(ReadFinalistsJournal(journal, config), report.runs);
  progress(std::to_string(runs.size()) + " trainings (" + std::to_string(front.size()) +
               " finalists, " + std::to_string(runs.size() - front.size()) + " references), " +
               std::to_string(runs.size() - index.size()) + " already in " + journal_path + ", " +
               o.recipe.Key(),
           true);
  size_t finished = runs.size() - index.size();
  TrainRuns(o, runs, payloads, index, [&](size_t i, const TrainedResult& r) {
    Finalist& x = report.runs[i];
    x.trained = r;
    ++finished;
    if (!r.error.empty()) {
      progress(x.name + " failed: " + r.error, true);
      return;
    }
    RecordTrained(space, o, x, config, journal, appender ? &*appender : nullptr);
    progress("[" + std::to_string(finished) + "/" + std::to_string(runs.size()) + "] " + x.name +
                 ": test " + FormatFixed(r.test_accuracy, 2) + "% in " +
                 FormatFixed(r.train_time_s, 0) + " s",
             false);
  });

  // The report.
  report.text = ReportText(run_dir, o, report);
  WriteFileAtomic((dir / "finalists.csv").string(), FinalistsCsv(report));
  WriteFileAtomic((dir / "finalists.txt").string(), report.text);
  return report;
}

}  // namespace dcnas::proxy
