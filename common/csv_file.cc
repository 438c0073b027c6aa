#include "common/csv_file.h"

#include "common/errors.h"
#include "common/file_io.h"
#include "common/text.h"

namespace dcnas {

CsvFile ReadCsvFile(const std::string& path, const std::vector<std::string>& required,
                    const std::string& what) {
  const std::vector<std::string> lines = Split(ReadFile(path), '\n');
  if (lines.empty() || lines[0].empty()) throw InputError(path + ": empty (expected a header)");
  CsvFile csv;
  csv.path = path;
  const std::vector<std::string> header = Split(lines[0], ',');
  for (size_t i = 0; i < header.size(); ++i) csv.column[header[i]] = i;
  for (const std::string& c : required) {
    if (!csv.Has(c)) throw InputError(path + ":1: missing column '" + c + "' (" + what + ")");
  }
  for (size_t ln = 1; ln < lines.size(); ++ln) {
    if (lines[ln].empty() && ln + 1 == lines.size()) break;
    CsvFile::Row row{path + ":" + std::to_string(ln + 1), Split(lines[ln], ',')};
    if (row.fields.size() != header.size()) {
      throw InputError(row.where + ": " + std::to_string(row.fields.size()) +
                       " fields, header has " + std::to_string(header.size()));
    }
    csv.rows.push_back(std::move(row));
  }
  return csv;
}

}  // namespace dcnas
