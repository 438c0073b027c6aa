#include "common/table.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <cstdio>

#include "common/errors.h"

namespace dcnas {

void Table::AddRow(std::vector<std::string> row) {
  if (row.size() != header_.size()) {
    throw InternalError("table row has " + std::to_string(row.size()) + " cells, header has " +
                        std::to_string(header_.size()));
  }
  rows_.push_back(std::move(row));
}

std::string Table::ToText() const {
  std::vector<size_t> width(header_.size());
  for (size_t c = 0; c < header_.size(); ++c) width[c] = header_[c].size();
  for (const auto& row : rows_) {
    for (size_t c = 0; c < row.size(); ++c) width[c] = std::max(width[c], row[c].size());
  }
  auto render = [&](const std::vector<std::string>& row) {
    std::string line;
    for (size_t c = 0; c < row.size(); ++c) {
      const bool right = c < right_.size() && right_[c];
      const std::string pad(width[c] - row[c].size(), ' ');
      if (c > 0) line += "  ";
      line += right ? pad + row[c] : row[c] + (c + 1 < row.size() ? pad : "");
    }
    return line + "\n";
  };
  std::string out = render(header_);
  size_t total = 0;
  for (size_t c = 0; c < width.size(); ++c) total += width[c] + (c > 0 ? 2 : 0);
  out += std::string(total, '-') + "\n";
  for (const auto& row : rows_) out += render(row);
  return out;
}

std::string CsvEscape(const std::string& cell) {
  if (cell.find_first_of(",\"\n\r") == std::string::npos) return cell;
  std::string out = "\"";
  for (char ch : cell) {
    if (ch == '"') out += '"';
    out += ch;
  }
  return out + "\"";
}

std::string Table::ToCsv() const {
  auto render = [](const std::vector<std::string>& row) {
    std::string line;
    for (size_t c = 0; c < row.size(); ++c) {
      if (c > 0) line += ',';
      line += CsvEscape(row[c]);
    }
    return line + "\n";
  };
  std::string out = render(header_);
  for (const auto& row : rows_) out += render(row);
  return out;
}

std::string FormatInt(int64_t value) {
  std::string digits = std::to_string(value < 0 ? -value : value);
  std::string out;
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return value < 0 ? "-" + out : out;
}

std::string FormatFixed(double value, int digits) {
  char buffer[64];
  std::snprintf(buffer, sizeof(buffer), "%.*f", digits, value);
  return buffer;
}

std::string FormatShortest(double value) {
  std::array<char, 32> buffer{};
  const auto result = std::to_chars(buffer.data(), buffer.data() + buffer.size(), value);
  return {buffer.data(), result.ptr};
}

std::string FormatShortestReal(double value) {
  std::string text = FormatShortest(value);
  if (std::isfinite(value) && text.find_first_of(".e") == std::string::npos) text += ".0";
  return text;
}

std::string FormatSignificant(double value, int digits) {
  std::array<char, 64> buffer{};
  std::snprintf(buffer.data(), buffer.size(), "%.*g", digits, value);
  return buffer.data();
}

std::string FormatSi(double value, int digits) {
  const char* suffixes[] = {"", "k", "M", "G", "T", "P"};
  int index = 0;
  double v = std::fabs(value);
  while (v >= 1000.0 && index < 5) {
    v /= 1000.0;
    ++index;
  }
  char buffer[64];
  std::snprintf(buffer, sizeof(buffer), "%.*g%s", digits, value < 0 ? -v : v, suffixes[index]);
  return buffer;
}

std::string SpeedupText(double speedup) {
  if (speedup >= 1.0) return FormatFixed(speedup, 2) + "x faster";
  return FormatFixed(1.0 / speedup, 2) + "x slower";
}

}  // namespace dcnas
