// Small CSV files with a header line (published tables, score tables): the columns by name and the
// rows, each checked to have the header's number of fields. A field may be double-quoted (commas
// inside it, "" for a quote), within its line.
#pragma once

#include <map>
#include <string>
#include <vector>

namespace dcnas {

struct CsvFile {
  struct Row {
    std::string where;  // "PATH:LINE", for errors about the row
    std::vector<std::string> fields;
  };
  std::string path;
  std::map<std::string, size_t> column;  // header name -> field index
  std::vector<Row> rows;

  bool Has(const std::string& name) const { return column.count(name) > 0; }
  // The row's field of column `name` (which must be in the header).
  const std::string& Field(const Row& row, const std::string& name) const {
    return row.fields[column.at(name)];
  }
};

// Reads `path`. InputError "PATH: empty (expected a header)", "PATH:1: missing column 'C'
// (WHAT)" for the first of `required` the header lacks, or "PATH:N: F fields, header has H"; a
// last empty line is allowed.
CsvFile ReadCsvFile(const std::string& path, const std::vector<std::string>& required,
                    const std::string& what);

}  // namespace dcnas
