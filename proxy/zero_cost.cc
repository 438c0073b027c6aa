#include "proxy/zero_cost.h"

#include <chrono>
#include <filesystem>
#include <set>
#include <vector>

#include "common/append_log.h"
#include "common/errors.h"
#include "common/table.h"
#include "common/text.h"
#include "models/counts.h"
#include "models/torch/dataset.h"
#include "models/torch/format.h"
#include "models/torch/zero_cost.h"

namespace dcnas::proxy {
namespace {

namespace fs = std::filesystem;
namespace lt = models::libtorch;

const std::vector<std::string>& Columns() {
  static const std::vector<std::string> kColumns = {
      "encoding", "synflow", "naswot", "grad_norm", "snip", "proxy_params",
      "time_s",   "space",   "recipe", "batch",     "seed"};
  return kColumns;
}

// The encodings already scored in the log; refuses a file of other settings.
std::set<std::string> ReadDone(const AppendLog& log, const std::vector<std::string>& settings,
                               const std::string& header) {
  std::set<std::string> done;
  const auto& lines = log.lines();
  if (lines.empty()) return done;
  if (lines[0] != header) {
    throw InputError(log.Where(1) + "not a zero-cost CSV of this dcnas (header '" + lines[0] +
                     "', expected '" + header + "')");
  }
  static const char* kOptions[] = {"the space",
                                   "--proxy-resolution/--proxy-width/"
                                   "--removed-downsamples",
                                   "--batch", "--seed"};
  const size_t first = Columns().size() - settings.size();
  for (size_t i = 1; i < lines.size(); ++i) {
    const std::vector<std::string> fields = Split(lines[i], ',');
    if (fields.size() != Columns().size()) {
      throw InputError(log.Where(i + 1) + std::to_string(fields.size()) + " fields, expected " +
                       std::to_string(Columns().size()));
    }
    for (size_t k = 0; k < settings.size(); ++k) {
      if (fields[first + k] != settings[k]) {
        throw InputError(log.Where(i + 1) + Columns()[first + k] + " '" + fields[first + k] +
                         "' differs from this run's '" + settings[k] + "' (" + kOptions[k] +
                         "): resume with the file's settings or write another --out");
      }
    }
    done.insert(fields[0]);
  }
  return done;
}

}  // namespace

std::string ZeroCostHeader() { return Join(Columns(), ","); }

std::string ZeroCostRecipeKey(const ProxyRecipe& recipe) {
  return "r" + std::to_string(recipe.resolution) + "_w" + FormatShortest(recipe.width) + "_rd" +
         std::to_string(recipe.removed_downsamples);
}

ZeroCostSummary ScoreZeroCost(const space::Space& space, const ZeroCostRunOptions& o,
                              const ZeroCostProgress& progress) {
  if (o.out.empty()) throw InputError("--out is required");
  if (o.batch < 2) throw InputError("--batch must be at least 2 (naswot compares images)");
  const auto start = std::chrono::steady_clock::now();
  ZeroCostSummary summary;

  // The distinct networks, in the accuracy CSV's order.
  const AccuracyData data = ReadAccuracyData(o.data, &space);
  std::vector<std::string> networks;
  std::set<std::string> seen;
  for (const AccuracyRow& row : data.rows) {
    if (seen.insert(row.encoding).second) networks.push_back(row.encoding);
  }
  if (networks.empty()) throw InputError(o.data + ": no networks (a header and nothing else)");
  summary.planned = networks.size();

  if (fs::exists(o.out) && !o.resume) {
    throw InputError(o.out + ": exists (use --resume to continue it, or another --out)");
  }
  const std::vector<std::string> settings = {space.name(), ZeroCostRecipeKey(o.recipe),
                                             std::to_string(o.batch), std::to_string(o.seed)};
  const std::string header = ZeroCostHeader();
  AppendLog log = AppendLog::Open(o.out);
  const std::set<std::string> done = ReadDone(log, settings, header);
  std::vector<std::string> pending;
  for (const std::string& n : networks) {
    if (done.count(n)) {
      ++summary.already_done;
    } else {
      pending.push_back(n);
    }
  }
  progress(std::to_string(summary.planned) + " networks in " + o.data + ", " +
               std::to_string(summary.already_done) + " already in " + o.out + ", " +
               std::to_string(pending.size()) + " to score (recipe " + settings[1] + ", batch " +
               settings[2] + ", seed " + settings[3] + ")",
           true);
  if (pending.empty()) return summary;

  const space::ProxySettings proxy = RecipeProxy(space, o.recipe);
  lt::ZeroCostOptions options;
  options.device = o.device;
  options.batch = o.batch;
  options.seed = o.seed;
  options.max_memory_bytes = o.max_memory_bytes;
  // Check every network's memory before loading anything: a refused run writes nothing.
  std::vector<models::Graph> graphs;
  graphs.reserve(pending.size());
  for (const std::string& n : pending) {
    models::Graph g = space.BuildProxy(space.Canonical(space.FromText(n)), {}, proxy);
    g.mutable_info().model = space.name() + ":" + n;
    lt::CheckZeroCostMemory(g, o.batch, o.max_memory_bytes);
    graphs.push_back(std::move(g));
  }
  const lt::TrainingData images = lt::TrainingData::Load(o.data_dir);
  if (log.lines().empty()) log.Append(header);
  const auto scoring_start = std::chrono::steady_clock::now();
  for (size_t i = 0; i < pending.size(); ++i) {
    const lt::ZeroCostScores s = lt::ComputeZeroCost(graphs[i], options, images);
    const int64_t params = models::CountGraph(graphs[i]).params;
    log.Append(Join({pending[i], FormatShortest(s.synflow), FormatShortest(s.naswot),
                     FormatShortest(s.grad_norm), FormatShortest(s.snip), std::to_string(params),
                     FormatFixed(s.time_s, 4), settings[0], settings[1], settings[2], settings[3]},
                    ","));
    ++summary.scored;
    summary.score_time_s += s.time_s;
    const double elapsed =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - scoring_start).count();
    const double rate = static_cast<double>(summary.scored) / elapsed;
    progress("[" + std::to_string(summary.already_done + summary.scored) + "/" +
                 std::to_string(summary.planned) + "] " + FormatFixed(rate, 2) +
                 " networks/s, ETA " +
                 lt::FormatDuration(static_cast<double>(pending.size() - i - 1) / rate) +
                 "  last: " + pending[i] + " synflow " + FormatSignificant(s.synflow, 4) +
                 " naswot " + FormatFixed(s.naswot, 2) + " in " + FormatFixed(s.time_s, 3) + " s",
             false);
  }
  summary.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return summary;
}

}  // namespace dcnas::proxy
