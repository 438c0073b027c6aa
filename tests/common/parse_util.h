// Readers for what the writers produce, so writer tests can parse their output back and compare
// values: RFC 4180 CSV and the aligned text tables of common/table.h.
#pragma once

#include <string>
#include <vector>

namespace dcnas::testing {

// Parses RFC 4180 CSV (quoted cells may hold commas, doubled quotes and newlines) into rows of
// cells. A final newline does not start a row.
inline std::vector<std::vector<std::string>> ParseCsv(const std::string& text) {
  std::vector<std::vector<std::string>> rows;
  std::vector<std::string> row;
  std::string cell;
  bool quoted = false;
  bool row_open = false;
  for (size_t i = 0; i < text.size(); ++i) {
    const char ch = text[i];
    if (quoted) {
      if (ch == '"' && i + 1 < text.size() && text[i + 1] == '"') {
        cell += '"';
        ++i;
      } else if (ch == '"') {
        quoted = false;
      } else {
        cell += ch;
      }
      continue;
    }
    row_open = true;
    if (ch == '"') {
      quoted = true;
    } else if (ch == ',') {
      row.push_back(cell);
      cell.clear();
    } else if (ch == '\n') {
      row.push_back(cell);
      cell.clear();
      rows.push_back(row);
      row.clear();
      row_open = false;
    } else if (ch != '\r') {
      cell += ch;
    }
  }
  if (row_open) {
    row.push_back(cell);
    rows.push_back(row);
  }
  return rows;
}

// Parses an aligned text table (header, a line of dashes, rows; cells separated by two or more
// spaces, so cells must not be empty or hold two spaces in a row) into rows of cells, header
// first. Lines before the header are skipped: the header is the line above the first dash line.
inline std::vector<std::vector<std::string>> ParseTextTable(const std::string& text) {
  std::vector<std::string> lines;
  size_t start = 0;
  while (start < text.size()) {
    const size_t end = text.find('\n', start);
    lines.push_back(text.substr(start, end == std::string::npos ? std::string::npos : end - start));
    if (end == std::string::npos) break;
    start = end + 1;
  }
  auto split = [](const std::string& line) {
    std::vector<std::string> cells;
    size_t i = line.find_first_not_of(' ');
    while (i != std::string::npos && i < line.size()) {
      size_t gap = line.find("  ", i);
      cells.push_back(line.substr(i, gap == std::string::npos ? std::string::npos : gap - i));
      if (gap == std::string::npos) break;
      i = line.find_first_not_of(' ', gap);
    }
    return cells;
  };
  std::vector<std::vector<std::string>> rows;
  for (size_t l = 1; l < lines.size(); ++l) {
    const std::string& dashes = lines[l];
    if (dashes.empty() || dashes.find_first_not_of('-') != std::string::npos) continue;
    rows.push_back(split(lines[l - 1]));
    for (size_t r = l + 1; r < lines.size() && !lines[r].empty(); ++r)
      rows.push_back(split(lines[r]));
    break;
  }
  return rows;
}

}  // namespace dcnas::testing
