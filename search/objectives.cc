#include "search/objectives.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <sstream>

#include "common/errors.h"
#include "common/file_io.h"
#include "common/table.h"
#include "common/text.h"
#include "models/tensor.h"
#include "models/zoo/zoo.h"

namespace dcnas::search {

bool AccuracyObjective::PredictWithStd(const std::vector<space::Encoding>& /*encodings*/,
                                       std::vector<double>& /*mean*/,
                                       std::vector<double>& /*std*/) {
  return false;
}

void AccuracyObjective::AccuracyBatch(const std::vector<space::Encoding>& encodings,
                                      const std::vector<ArchCounts>& /*counts*/,
                                      std::vector<double>& out) {
  out.clear();
  for (const space::Encoding& e : encodings) out.push_back(Accuracy(e));
}

std::optional<double> LatencyObjective::ModelLatencyMs(const std::string& /*model*/) {
  return std::nullopt;
}

double LatencyObjective::LatencyAndCounts(const space::Encoding& e,
                                          std::optional<ArchCounts>& counts) {
  counts.reset();
  return LatencyMs(e);
}

namespace {

std::string Trim(std::string s) {
  while (!s.empty() && (s.back() == '\r' || s.back() == ' ')) s.pop_back();
  while (!s.empty() && s.front() == ' ') s.erase(s.begin());
  return s;
}

// A table objective's lookup and configuration, shared by accuracy and latency tables.
class TableLookup {
 public:
  TableLookup(ObjectiveTable table, const space::Space& space, std::string sha256)
      : table_(std::move(table)), space_(space), sha256_(std::move(sha256)) {}
  double Get(const space::Encoding& e, const char* what) const {
    const std::string text = space_.ToText(e);
    const auto it = table_.values.find(text);
    if (it == table_.values.end()) {
      throw InputError(table_.file + ": no " + what + " for architecture " + text +
                       " (the table must cover every architecture the search proposes)");
    }
    return it->second;
  }
  nlohmann::json Config() const {
    return {{"kind", "table"},
            {"file", table_.file},
            {"sha256", sha256_},
            {"rows", table_.values.size()}};
  }

 private:
  ObjectiveTable table_;
  const space::Space& space_;
  std::string sha256_;
};

class TableAccuracy : public AccuracyObjective {
 public:
  explicit TableAccuracy(TableLookup lookup) : lookup_(std::move(lookup)) {}
  double Accuracy(const space::Encoding& e) override { return lookup_.Get(e, "accuracy"); }
  nlohmann::json Config() const override { return lookup_.Config(); }

 private:
  TableLookup lookup_;
};

class TableLatency : public LatencyObjective {
 public:
  explicit TableLatency(TableLookup lookup) : lookup_(std::move(lookup)) {}
  double LatencyMs(const space::Encoding& e) override { return lookup_.Get(e, "latency"); }
  std::unique_ptr<LatencyObjective> Clone() const override {
    return std::make_unique<TableLatency>(*this);
  }
  nlohmann::json Config() const override { return lookup_.Config(); }

 private:
  TableLookup lookup_;
};

}  // namespace

namespace {

// ReadObjectiveTable on the file's text; with `average`, a network listed several times (the
// replicates of an accuracy file) takes the mean of its values instead of needing one value.
// `max` bounds the values from above (inclusive; infinity for none).
ObjectiveTable ReadTable(const std::string& path, const std::string& file_text,
                         const std::string& column, const space::Space& space, double min,
                         bool min_exclusive, bool average,
                         double max = std::numeric_limits<double>::infinity()) {
  ObjectiveTable table{path, column, {}};
  std::unordered_map<std::string, int> counts;
  std::istringstream in(file_text);
  std::string line;
  int line_no = 0;
  int encoding_col = -1, value_col = -1;
  size_t columns = 0;
  while (std::getline(in, line)) {
    ++line_no;
    line = Trim(line);
    if (line.empty()) continue;
    const std::vector<std::string> fields = Split(line, ',');
    const std::string where = path + ":" + std::to_string(line_no) + ": ";
    if (encoding_col < 0) {
      for (size_t i = 0; i < fields.size(); ++i) {
        const std::string name = Trim(fields[i]);
        if (name == "encoding") encoding_col = static_cast<int>(i);
        if (name == column) value_col = static_cast<int>(i);
      }
      if (encoding_col < 0 || value_col < 0) {
        throw InputError(where + "missing column '" + (encoding_col < 0 ? "encoding" : column) +
                         "' (a table needs a header with 'encoding' and '" + column + "')");
      }
      columns = fields.size();
      continue;
    }
    if (fields.size() != columns) {
      throw InputError(where + std::to_string(fields.size()) + " fields, the header has " +
                       std::to_string(columns));
    }
    const std::string text = Trim(fields[encoding_col]);
    std::string canonical;
    try {
      canonical = space.ToText(space.Canonical(space.FromText(text)));
    } catch (const InputError& e) {
      throw InputError(where + "encoding '" + text + "' of another space than " + space.name() +
                       ": " + e.what());
    }
    const std::string value_text = Trim(fields[value_col]);
    char* end = nullptr;
    const double value = std::strtod(value_text.c_str(), &end);
    if (value_text.empty() || *end != '\0' || !std::isfinite(value) ||
        (min_exclusive ? !(value > min) : !(value >= min)) || value > max) {
      throw InputError(where + "column '" + column + "': bad value '" + value_text + "' (a finite" +
                       " number " + (min_exclusive ? "above " : "at least ") + FormatFixed(min, 0) +
                       (std::isfinite(max) ? " and at most " + FormatFixed(max, 0) + ": percent"
                                           : std::string()) +
                       ")");
    }
    const auto [it, inserted] = table.values.emplace(canonical, value);
    counts[canonical] += 1;
    if (!inserted && average) {
      it->second += value;
    } else if (!inserted && it->second != value) {
      throw InputError(where + "architecture " + canonical + " listed twice with different " +
                       column + " values");
    }
  }
  if (encoding_col < 0) throw InputError(path + ": empty table (no header)");
  if (table.values.empty()) throw InputError(path + ": no rows");
  if (average) {
    for (auto& [canonical, sum] : table.values) sum /= counts[canonical];
  }
  return table;
}

// The accuracy column of an accuracy table: `accuracy` (the plain form), or for the full
// accuracy CSV (proxy/README.md) val_accuracy when every row has one, else test_accuracy (the
// rule of proxy::ResolveTarget, which the surrogate follows too).
std::string AccuracyColumn(const std::string& text) {
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line) && Trim(line).empty()) {
  }
  std::vector<std::string> header = Split(Trim(line), ',');
  for (std::string& h : header) h = Trim(h);
  const auto col = std::find(header.begin(), header.end(), "val_accuracy");
  if (std::find(header.begin(), header.end(), "accuracy") != header.end() || col == header.end()) {
    return "accuracy";
  }
  const size_t i = static_cast<size_t>(col - header.begin());
  while (std::getline(in, line)) {
    const std::vector<std::string> fields = Split(Trim(line), ',');
    if (!Trim(line).empty() && (i >= fields.size() || Trim(fields[i]).empty())) {
      return "test_accuracy";
    }
  }
  return "val_accuracy";
}

}  // namespace

ObjectiveTable ReadObjectiveTable(const std::string& path, const std::string& column,
                                  const space::Space& space, double min, bool min_exclusive) {
  return ReadTable(path, ReadFile(path), column, space, min, min_exclusive, false);
}

ObjectiveTable ReadAccuracyTable(const std::string& path, const space::Space& space) {
  const std::string text = ReadFile(path);
  return ReadTable(path, text, AccuracyColumn(text), space, 0.0, false, true, 100.0);
}

std::unique_ptr<AccuracyObjective> MakeTableAccuracy(const std::string& path,
                                                     const space::Space& space,
                                                     const std::string& sha256) {
  return std::make_unique<TableAccuracy>(
      TableLookup(ReadAccuracyTable(path, space), space, sha256));
}

std::unique_ptr<LatencyObjective> MakeTableLatency(const std::string& path,
                                                   const space::Space& space,
                                                   const std::string& sha256) {
  return std::make_unique<TableLatency>(
      TableLookup(ReadObjectiveTable(path, "latency_ms", space, 0.0, true), space, sha256));
}

SimLatency::SimLatency(const space::Space& space, sim::SimSetup setup)
    : space_(space), setup_(std::move(setup)) {
  if (setup_.batch < 1) {
    throw InputError("--batch must be at least 1 (got " + std::to_string(setup_.batch) + ")");
  }
}

double SimLatency::LatencyMs(const space::Encoding& e) {
  std::optional<ArchCounts> counts;
  return LatencyAndCounts(e, counts);
}

double SimLatency::LatencyAndCounts(const space::Encoding& e, std::optional<ArchCounts>& counts) {
  const sim::NetworkCost c = sim::SimulateBlockNetwork(
      space_.LayoutFull(e, {}, setup_.GraphOptions()), setup_, blocks_, &cache_, scratch_);
  // Parameters do not depend on the batch; every op's FLOPs are linear in it.
  counts = ArchCounts{static_cast<double>(c.counts.params),
                      static_cast<double>(c.counts.flops) / static_cast<double>(setup_.batch)};
  return c.latency_s * 1e3;
}

std::unique_ptr<LatencyObjective> SimLatency::Clone() const {
  return std::make_unique<SimLatency>(*this);
}

std::optional<double> SimLatency::ModelLatencyMs(const std::string& model) {
  const models::Graph graph = models::BuiltinModels().Build(model, setup_.GraphOptions());
  const sim::Report r = sim::Simulate(graph, setup_.spec, setup_.stack, setup_.calibration,
                                      setup_.Options(), &cache_);
  return r.latency_s * 1e3;
}

nlohmann::json SimLatency::Config() const {
  nlohmann::json sets = nlohmann::json::array();
  for (const auto& o : setup_.overrides) sets.push_back(o.path + "=" + o.value);
  char calibration_fp[17];
  std::snprintf(calibration_fp, sizeof calibration_fp, "%016llx",
                static_cast<unsigned long long>(setup_.calibration.Fingerprint()));
  return {{"kind", "sim"},
          {"accelerator", setup_.spec.name},
          {"stack", setup_.stack.name},
          {"calibration", setup_.calibration.name},
          {"calibration_fingerprint", calibration_fp},
          {"precision", models::DTypeName(setup_.dtype)},
          {"batch", setup_.batch},
          {"fusion", setup_.fusion},
          {"sets", sets}};
}

}  // namespace dcnas::search
