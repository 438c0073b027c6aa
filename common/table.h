// A plain table of strings rendered as aligned text or CSV (RFC 4180 quoting). Reports build a
// Table; writers choose the format.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace dcnas {

class Table {
 public:
  explicit Table(std::vector<std::string> header) : header_(std::move(header)) {}
  // Adds a row; throws InternalError if its width differs from the header's.
  void AddRow(std::vector<std::string> row);
  // Columns whose cells are right-aligned in text output (numbers).
  void SetRightAligned(std::vector<bool> right) { right_ = std::move(right); }

  std::string ToText() const;
  std::string ToCsv() const;
  size_t rows() const { return rows_.size(); }

 private:
  std::vector<std::string> header_;
  std::vector<std::vector<std::string>> rows_;
  std::vector<bool> right_;
};

// Number formatting shared by reports.
std::string FormatInt(int64_t value);               // 1234567 -> "1,234,567"
std::string FormatFixed(double value, int digits);  // fixed decimals
// The shortest text that reads back as the same double ("0.1", "15", "1e-07"): for files.
std::string FormatShortest(double value);
// The same, but an integral value keeps its decimal point ("15.0"), as JSON writes a double.
std::string FormatShortestReal(double value);
// `digits` significant digits, as printf's %g ("0.333333", "1e+06"): for messages and labels.
std::string FormatSignificant(double value, int digits = 6);
// A speedup as text: "1.23x faster" (>= 1) or "1.23x slower".
std::string SpeedupText(double speedup);
std::string FormatSi(double value, int digits = 3);  // 1.23G, 456M, 7.8k
std::string CsvEscape(const std::string& cell);

}  // namespace dcnas
