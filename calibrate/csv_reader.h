// A strict RFC 4180 CSV reader that remembers where each record starts, so that validation
// errors can name the file and line.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace dcnas::calibrate {

struct CsvRecord {
  int line = 0;  // 1-based line of the record's first character
  std::vector<std::string> fields;
};

// Splits `text` into records. Quoted fields may hold commas, doubled quotes and line breaks;
// "\r\n" and "\n" both end a record; blank lines are skipped. Throws InputError naming
// `file_name` and the line on an unterminated quote or a stray quote inside an unquoted field.
std::vector<CsvRecord> ParseCsv(std::string_view text, const std::string& file_name);

}  // namespace dcnas::calibrate
