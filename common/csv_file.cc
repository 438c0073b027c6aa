#include "common/csv_file.h"

#include "common/errors.h"
#include "common/file_io.h"
#include "common/text.h"

namespace dcnas {
namespace {

// One line's fields: split at commas outside double quotes; a quoted field loses its quotes and
// "" inside it is one quote (RFC 4180, fields within one line).
std::vector<std::string> SplitCsvLine(const std::string& line, const std::string& where) {
  if (line.find('"') == std::string::npos) return Split(line, ',');
  std::vector<std::string> fields(1);
  bool quoted = false;
  for (size_t i = 0; i < line.size(); ++i) {
    const char ch = line[i];
    if (quoted) {
      if (ch != '"') {
        fields.back() += ch;
      } else if (i + 1 < line.size() && line[i + 1] == '"') {
        fields.back() += '"';
        ++i;
      } else {
        quoted = false;
        if (i + 1 < line.size() && line[i + 1] != ',') {
          throw InputError(where + ": text after a closing quote in field " +
                           std::to_string(fields.size()));
        }
      }
    } else if (ch == ',') {
      fields.emplace_back();
    } else if (ch == '"' && fields.back().empty()) {
      quoted = true;
    } else {
      fields.back() += ch;
    }
  }
  if (quoted)
    throw InputError(where + ": unterminated quote in field " + std::to_string(fields.size()));
  return fields;
}

}  // namespace

CsvFile ReadCsvFile(const std::string& path, const std::vector<std::string>& required,
                    const std::string& what) {
  std::vector<std::string> lines = Split(ReadFile(path), '\n');
  for (std::string& line : lines) {  // CRLF files read as LF ones
    if (!line.empty() && line.back() == '\r') line.pop_back();
  }
  if (lines.empty() || lines[0].empty()) throw InputError(path + ": empty (expected a header)");
  CsvFile csv;
  csv.path = path;
  const std::vector<std::string> header = SplitCsvLine(lines[0], path + ":1");
  for (size_t i = 0; i < header.size(); ++i) csv.column[header[i]] = i;
  for (const std::string& c : required) {
    if (!csv.Has(c)) throw InputError(path + ":1: missing column '" + c + "' (" + what + ")");
  }
  for (size_t ln = 1; ln < lines.size(); ++ln) {
    if (lines[ln].empty() && ln + 1 == lines.size()) break;
    const std::string where = path + ":" + std::to_string(ln + 1);
    CsvFile::Row row{where, SplitCsvLine(lines[ln], where)};
    if (row.fields.size() != header.size()) {
      throw InputError(row.where + ": " + std::to_string(row.fields.size()) +
                       " fields, header has " + std::to_string(header.size()));
    }
    csv.rows.push_back(std::move(row));
  }
  return csv;
}

}  // namespace dcnas
