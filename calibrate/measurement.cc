#include "calibrate/measurement.h"

#include <algorithm>
#include <charconv>
#include <cmath>

#include "calibrate/csv_reader.h"
#include "common/errors.h"
#include "common/file_io.h"
#include "common/text.h"
#include "models/registry.h"

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
                                                  kRegimeFrameworkLatency, kRegimeHostCpu};
  return kNames;
}

const std::vector<std::string>& PrecisionNames() {
  static const std::vector<std::string> kNames = {"fp32", "tf32", "fp16", "bf16", "int8"};
  return kNames;
}

const std::vector<std::string>& RequiredColumns() {
  static const std::vector<std::string> kColumns = {
      "model",      "device",     "stack",      "precision",
      "batch_size", "image_size", "latency_ms", "throughput_img_per_s",
      "regime",     "source_id",  "source_ref"};
  return kColumns;
}

std::string Measurement::Extra(const std::string& column) const {
  const auto it = extra.find(column);
  return it == extra.end() ? std::string() : it->second;
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

std::vector<Measurement> Select(const std::vector<Measurement>& rows, const Selection& selection) {
  std::vector<Measurement> out;
  for (const Measurement& m : rows) {
    if (!selection.device.empty() && m.device != selection.device) continue;
    if (!selection.stack.empty() && m.stack != selection.stack) continue;
    if (!selection.precision.empty() && m.precision != selection.precision) continue;
    if (!selection.regime.empty() && m.regime != selection.regime) continue;
    bool match = true;
    for (const auto& [column, value] : selection.where) {
      if (m.Extra(column) != value) match = false;
    }
    if (match) out.push_back(m);
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
