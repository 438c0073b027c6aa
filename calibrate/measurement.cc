#include "calibrate/measurement.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <map>
#include <set>

#include "calibrate/csv_reader.h"
#include "common/errors.h"
#include "common/file_io.h"
#include "common/sha256.h"
#include "common/table.h"
#include "common/text.h"
#include "models/registry.h"
#include "sim/train_step.h"

namespace dcnas::calibrate {
namespace {

std::vector<std::string> SetToVector(const std::set<std::string>& names) {
  return {names.begin(), names.end()};
}

std::string Trim(const std::string& text) {
  const size_t first = text.find_first_not_of(" \t");
  if (first == std::string::npos) return "";
  const size_t last = text.find_last_not_of(" \t");
  return text.substr(first, last - first + 1);
}

class RowReader {
 public:
  RowReader(const std::string& file, int line, const std::map<std::string, size_t>& columns,
            const std::vector<std::string>& fields)
      : file_(file), line_(line), columns_(columns), fields_(fields) {}

  std::string Text(const std::string& column) const { return Trim(fields_[columns_.at(column)]); }

  std::string NonEmpty(const std::string& column) const {
    std::string value = Text(column);
    if (value.empty()) Fail(column, "is empty");
    return value;
  }

  // A finite number > 0; empty allowed when `optional` (returns 0).
  double Positive(const std::string& column, bool optional = false) const {
    const std::string text = Text(column);
    if (text.empty()) {
      if (optional) return 0.0;
      Fail(column, "is empty");
    }
    double value = 0.0;
    const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (ec != std::errc() || ptr != text.data() + text.size()) {
      Fail(column, "'" + text + "' is not a number");
    }
    if (!std::isfinite(value)) Fail(column, "'" + text + "' is not a finite number");
    if (value <= 0.0) Fail(column, "'" + text + "' must be positive");
    return value;
  }

  int PositiveInt(const std::string& column) const {
    const std::string text = NonEmpty(column);
    int value = 0;
    const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (ec != std::errc() || ptr != text.data() + text.size()) {
      Fail(column, "'" + text + "' is not an integer");
    }
    if (value <= 0) Fail(column, "'" + text + "' must be positive");
    return value;
  }

  std::string OneOf(const std::string& column, const std::vector<std::string>& valid,
                    const std::string& what) const {
    std::string value = NonEmpty(column);
    if (!valid.empty() && std::find(valid.begin(), valid.end(), value) == valid.end()) {
      Fail(column, "unknown " + what + " '" + value + "'" + DidYouMean(value, valid) +
                       " (valid: " + Join(valid, ", ") + ")");
    }
    return value;
  }

  [[noreturn]] void Fail(const std::string& column, const std::string& message) const {
    throw InputError(file_ + ":" + std::to_string(line_) + ": column '" + column + "': " + message);
  }

 private:
  const std::string& file_;
  int line_;
  const std::map<std::string, size_t>& columns_;
  const std::vector<std::string>& fields_;
};

}  // namespace

const std::vector<std::string>& RegimeNames() {
  static const std::vector<std::string> kNames = {kRegimeLargeBatch, kRegimeEngineLatency,
                                                  kRegimeFrameworkLatency, kRegimeHostCpu,
                                                  kRegimeTraining};
  return kNames;
}

const std::vector<std::string>& PrecisionNames() {
  static const std::vector<std::string> kNames = {"fp32", "tf32", "fp16", "bf16", "int8"};
  return kNames;
}

const std::vector<MeasurementColumn>& MeasurementColumns() {
  static const std::vector<MeasurementColumn> kColumns = {
      {"model", true, true},
      {"device", true, true},
      {"stack", true, true},
      {"precision", true, true},
      {"batch_size", true, true},
      {"image_size", true, true},
      {"latency_ms", true, true},
      {"latency_spread_ms", false, true},
      {"throughput_img_per_s", true, true},
      {"repeats", false, true},
      {"regime", true, true},
      {"source_id", true, true},
      {"source_ref", true, true},
      {"cpu_model", false, true},
      {"threads", false, true},
      {"notes", false, true},
      {"source_model", false, false},
  };
  return kColumns;
}

const std::vector<std::string>& RequiredColumns() {
  static const std::vector<std::string> kColumns = [] {
    std::vector<std::string> out;
    for (const MeasurementColumn& c : MeasurementColumns()) {
      if (c.required) out.emplace_back(c.name);
    }
    return out;
  }();
  return kColumns;
}

const std::vector<std::string>& TimingColumns() {
  static const std::vector<std::string> kColumns = [] {
    std::vector<std::string> out;
    for (const MeasurementColumn& c : MeasurementColumns()) {
      if (c.timing) out.emplace_back(c.name);
    }
    return out;
  }();
  return kColumns;
}

std::vector<std::string> TimingCells(const Timing& t) {
  const std::map<std::string, std::string> cells = {
      {"model", t.model},
      {"device", t.device},
      {"stack", t.stack},
      {"precision", t.precision},
      {"batch_size", std::to_string(t.batch_size)},
      {"image_size", std::to_string(t.image_size)},
      {"latency_ms", FormatFixed(t.latency_ms, 3)},
      {"latency_spread_ms", FormatFixed(t.latency_spread_ms, 3)},
      {"throughput_img_per_s", FormatFixed(t.throughput_img_per_s, 2)},
      {"repeats", std::to_string(t.repeats)},
      {"regime", t.regime},
      {"source_id", t.source_id},
      {"source_ref", t.source_ref},
      {"cpu_model", t.cpu_model},
      {"threads", std::to_string(t.threads)},
      {"notes", t.notes},
  };
  std::vector<std::string> out;
  for (const std::string& column : TimingColumns()) out.push_back(cells.at(column));
  return out;
}

std::optional<std::vector<std::vector<std::string>>> ParseTimingRows(const std::string& text,
                                                                     const std::string& file_name) {
  const std::vector<CsvRecord> records = ParseCsv(text, file_name);
  const std::vector<std::string>& columns = TimingColumns();
  if (records.empty() || records.front().fields != columns) return std::nullopt;
  std::vector<std::vector<std::string>> rows;
  for (size_t i = 1; i < records.size(); ++i) {
    if (records[i].fields.size() != columns.size()) {
      throw InputError(file_name + ":" + std::to_string(records[i].line) + ": expected " +
                       std::to_string(columns.size()) + " fields, found " +
                       std::to_string(records[i].fields.size()));
    }
    rows.push_back(records[i].fields);
  }
  return rows;
}

const std::string& TimingCell(const std::vector<std::string>& row, const std::string& column) {
  const std::vector<std::string>& columns = TimingColumns();
  const auto it = std::find(columns.begin(), columns.end(), column);
  if (it == columns.end()) throw InternalError("'" + column + "' is not a timing column");
  const auto index = static_cast<size_t>(it - columns.begin());
  if (index >= row.size())
    throw InternalError("timing row has " + std::to_string(row.size()) + " cells, '" + column +
                        "' is column " + std::to_string(index + 1));
  return row[index];
}

std::string Measurement::Extra(const std::string& column) const {
  const auto it = extra.find(column);
  return it == extra.end() ? std::string() : it->second;
}

std::string Measurement::Cell(const std::string& column) const {
  if (column == "model") return model;
  if (column == "device") return device;
  if (column == "stack") return stack;
  if (column == "precision") return precision;
  if (column == "regime") return regime;
  if (column == "batch_size") return std::to_string(batch_size);
  if (column == "image_size") return std::to_string(image_size);
  if (column == "source_id") return source_id;
  if (column == "source_ref") return source_ref;
  if (column == "chips" && regime == kRegimeTraining) return std::to_string(chips);
  if (column == "optimizer" && regime == kRegimeTraining) return optimizer;
  return Extra(column);
}

bool FilterableColumn(const std::string& column) {
  return column != "latency_ms" && column != "throughput_img_per_s";
}

std::vector<Measurement> ParseMeasurements(const std::string& text, const std::string& file_name,
                                           const Vocabulary& vocabulary) {
  const std::vector<CsvRecord> records = ParseCsv(text, file_name);
  if (records.empty()) throw InputError(file_name + ": empty file (no header line)");
  const CsvRecord& header = records.front();
  std::map<std::string, size_t> columns;
  for (size_t i = 0; i < header.fields.size(); ++i) {
    const std::string name = Trim(header.fields[i]);
    if (name.empty()) {
      throw InputError(file_name + ":" + std::to_string(header.line) + ": column " +
                       std::to_string(i + 1) + " has no name");
    }
    if (!columns.emplace(name, i).second) {
      throw InputError(file_name + ":" + std::to_string(header.line) + ": duplicate column '" +
                       name + "'");
    }
  }
  std::vector<std::string> missing;
  for (const std::string& required : RequiredColumns()) {
    if (!columns.count(required)) missing.push_back(required);
  }
  if (!missing.empty()) {
    throw InputError(file_name + ":" + std::to_string(header.line) + ": missing column" +
                     (missing.size() > 1 ? "s " : " ") + Join(missing, ", ") +
                     " (required: " + Join(RequiredColumns(), ", ") + ")");
  }
  const std::vector<std::string> devices = SetToVector(vocabulary.devices);
  const std::vector<std::string> stacks = SetToVector(vocabulary.stacks);
  std::vector<Measurement> rows;
  rows.reserve(records.size() - 1);
  for (size_t r = 1; r < records.size(); ++r) {
    const CsvRecord& record = records[r];
    if (record.fields.size() != header.fields.size()) {
      throw InputError(file_name + ":" + std::to_string(record.line) + ": " +
                       std::to_string(record.fields.size()) + " fields, the header has " +
                       std::to_string(header.fields.size()));
    }
    const RowReader in(file_name, record.line, columns, record.fields);
    Measurement m;
    m.file = file_name;
    m.line = record.line;
    m.model = in.NonEmpty("model");
    m.device = in.OneOf("device", devices, "device");
    m.stack = in.OneOf("stack", stacks, "stack");
    m.precision = in.OneOf("precision", PrecisionNames(), "precision");
    m.batch_size = in.PositiveInt("batch_size");
    m.image_size = in.PositiveInt("image_size");
    m.regime = in.OneOf("regime", RegimeNames(), "regime");
    if (m.regime == kRegimeTraining) {
      for (const char* column : {"chips", "optimizer"}) {
        if (!columns.count(column)) {
          in.Fail(column,
                  "missing: rows of the training regime need the columns chips and "
                  "optimizer");
        }
      }
      m.chips = in.PositiveInt("chips");
      m.optimizer = in.OneOf("optimizer", sim::OptimizerNames(), "optimizer");
    }
    m.source_id = in.NonEmpty("source_id");
    m.source_ref = in.Text("source_ref");
    if (columns.count("source_model")) m.source_model = in.Text("source_model");
    m.throughput_img_per_s = in.Positive("throughput_img_per_s", /*optional=*/true);
    m.latency_ms = in.Positive("latency_ms", /*optional=*/m.throughput_img_per_s > 0);
    if (m.latency_ms == 0.0) m.latency_ms = m.batch_size * 1000.0 / m.throughput_img_per_s;
    for (const auto& [name, index] : columns) {
      if (std::find(RequiredColumns().begin(), RequiredColumns().end(), name) ==
          RequiredColumns().end()) {
        m.extra[name] = record.fields[index];
      }
    }
    rows.push_back(std::move(m));
  }
  return rows;
}

std::vector<Measurement> LoadMeasurements(const std::string& path, const Vocabulary& vocabulary) {
  return ParseMeasurements(ReadFile(path), path, vocabulary);
}

LoadedMeasurements LoadMeasurementFiles(const std::vector<std::string>& paths,
                                        const Vocabulary& vocabulary) {
  LoadedMeasurements out;
  std::string contents;
  for (const std::string& path : paths) {
    const std::string text = ReadFile(path);
    contents += text;
    for (Measurement& m : ParseMeasurements(text, path, vocabulary))
      out.rows.push_back(std::move(m));
  }
  out.sha256 = Sha256Hex(contents);
  return out;
}

std::vector<Measurement> Select(const std::vector<Measurement>& rows, const Selection& selection) {
  std::vector<Measurement> out;
  for (const Measurement& m : rows) {
    if (!selection.device.empty() && m.device != selection.device) continue;
    if (!selection.stack.empty() && m.stack != selection.stack) continue;
    if (!selection.precision.empty() && m.precision != selection.precision) continue;
    if (!selection.regime.empty() && m.regime != selection.regime) continue;
    bool match = true;
    for (const auto& [column, value] : selection.where) {
      if (m.Cell(column) != value) match = false;
    }
    if (match) out.push_back(m);
  }
  return out;
}

std::vector<std::string> WhereMisses(const std::vector<Measurement>& rows,
                                     const std::map<std::string, std::string>& where,
                                     size_t max_values) {
  std::vector<std::string> out;
  bool each_matches = true;
  for (const auto& [column, value] : where) {
    std::set<std::string> values;
    bool present = false;
    for (const Measurement& m : rows) {
      const std::string cell = m.Cell(column);
      present = present || !cell.empty() || m.extra.count(column) > 0;
      values.insert(cell);
    }
    if (values.count(value)) continue;
    each_matches = false;
    if (!present) {
      out.push_back(column + "=" + value + ": no row has the column");
      continue;
    }
    std::vector<std::string> shown;
    for (const std::string& v : values) {
      if (shown.size() == max_values) break;
      shown.push_back(v.empty() ? "\"\"" : "'" + v + "'");
    }
    out.push_back(column + "=" + value + ": the column holds " + Join(shown, ", ") +
                  (values.size() > shown.size()
                       ? ", ... (" + std::to_string(values.size()) + " values in all)"
                       : ""));
  }
  if (each_matches && where.size() > 1 && !rows.empty()) {
    out.emplace_back("each filter matches some rows, but no row matches them all");
  }
  return out;
}

void RequireSingleRegime(const std::vector<Measurement>& rows) {
  std::map<std::string, int> counts;
  for (const Measurement& m : rows) ++counts[m.regime];
  if (counts.size() <= 1) return;
  std::vector<std::string> parts;
  for (const auto& [regime, n] : counts) parts.push_back(regime + " (" + std::to_string(n) + ")");
  throw InputError("the selected measurements span several regimes: " + Join(parts, ", ") +
                   "; regimes are never mixed, choose one with --regime");
}

std::map<std::string, int> Resolved::CountsByReason() const {
  std::map<std::string, int> counts;
  for (const Exclusion& e : excluded) ++counts[e.reason];
  return counts;
}

Resolved ResolveModels(const std::vector<Measurement>& rows,
                       const models::ModelRegistry& registry) {
  Resolved out;
  for (const Measurement& m : rows) {
    if (registry.Contains(m.model)) {
      out.usable.push_back(m);
    } else {
      out.excluded.push_back({m, "unknown model"});
    }
  }
  return out;
}

}  // namespace dcnas::calibrate
