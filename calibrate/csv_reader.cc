#include "calibrate/csv_reader.h"

#include "common/errors.h"

namespace dcnas::calibrate {

std::vector<CsvRecord> ParseCsv(std::string_view text, const std::string& file_name) {
  std::vector<CsvRecord> records;
  CsvRecord record;
  std::string field;
  int line = 1;
  size_t i = 0;
  bool record_open = false;   // any character of the current record seen
  bool field_quoted = false;  // current field started with a quote
  const auto end_field = [&]() {
    record.fields.push_back(std::move(field));
    field.clear();
    field_quoted = false;
  };
  const auto end_record = [&]() {
    end_field();
    records.push_back(std::move(record));
    record = CsvRecord{};
    record_open = false;
  };
  while (i < text.size()) {
    const char c = text[i];
    if (!record_open) {
      if (c == '\n' || c == '\r') {  // blank line
        if (c == '\n') ++line;
        ++i;
        continue;
      }
      record_open = true;
      record.line = line;
    }
    if (c == '"' && field.empty() && !field_quoted) {
      field_quoted = true;
      const int quote_line = line;
      ++i;
      while (true) {
        if (i >= text.size()) {
          throw InputError(file_name + ":" + std::to_string(quote_line) +
                           ": unterminated quoted field");
        }
        if (text[i] == '"') {
          if (i + 1 < text.size() && text[i + 1] == '"') {
            field += '"';
            i += 2;
            continue;
          }
          ++i;
          break;
        }
        if (text[i] == '\n') ++line;
        field += text[i++];
      }
      if (i < text.size() && text[i] != ',' && text[i] != '\n' && text[i] != '\r') {
        throw InputError(file_name + ":" + std::to_string(line) +
                         ": unexpected character after a closing quote");
      }
      continue;
    }
    if (c == '"') {
      throw InputError(file_name + ":" + std::to_string(line) +
                       ": quote inside an unquoted field (quote the whole field)");
    }
    if (c == ',') {
      end_field();
      ++i;
      continue;
    }
    if (c == '\r' || c == '\n') {
      end_record();
      if (c == '\r' && i + 1 < text.size() && text[i + 1] == '\n') ++i;
      ++line;
      ++i;
      continue;
    }
    field += c;
    ++i;
  }
  if (record_open) end_record();
  return records;
}

}  // namespace dcnas::calibrate
