#include "common/text.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <utility>

#include "common/errors.h"

namespace dcnas {

int EditDistance(std::string_view a, std::string_view b) {
  std::vector<int> prev(b.size() + 1);
  std::vector<int> cur(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) prev[j] = static_cast<int>(j);
  for (size_t i = 1; i <= a.size(); ++i) {
    cur[0] = static_cast<int>(i);
    for (size_t j = 1; j <= b.size(); ++j) {
      const int substitution = prev[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1);
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, substitution});
    }
    std::swap(prev, cur);
  }
  return prev[b.size()];
}

std::vector<std::string> ClosestNames(std::string_view name,
                                      const std::vector<std::string>& candidates,
                                      size_t max_count) {
  std::vector<std::pair<int, std::string>> scored;
  scored.reserve(candidates.size());
  for (const auto& candidate : candidates) {
    int score = EditDistance(name, candidate);
    if (!name.empty() && candidate.find(name) != std::string::npos) score = std::min(score, 1);
    scored.emplace_back(score, candidate);
  }
  std::stable_sort(scored.begin(), scored.end(),
                   [](const auto& x, const auto& y) { return x.first < y.first; });
  std::vector<std::string> result;
  for (const auto& [score, candidate] : scored) {
    if (result.size() >= max_count) break;
    result.push_back(candidate);
  }
  return result;
}

std::string DidYouMean(std::string_view name, const std::vector<std::string>& candidates) {
  const auto closest = ClosestNames(name, candidates);
  if (closest.empty()) return "";
  return "; did you mean: " + Join(closest, ", ") + "?";
}

std::string Join(const std::vector<std::string>& parts, std::string_view separator) {
  std::string out;
  for (size_t i = 0; i < parts.size(); ++i) {
    if (i > 0) out += separator;
    out += parts[i];
  }
  return out;
}

std::vector<std::string> Split(std::string_view text, char separator) {
  std::vector<std::string> parts;
  size_t start = 0;
  while (true) {
    const size_t pos = text.find(separator, start);
    if (pos == std::string_view::npos) {
      parts.emplace_back(text.substr(start));
      break;
    }
    parts.emplace_back(text.substr(start, pos - start));
    start = pos + 1;
  }
  return parts;
}

namespace {

// The length of the well-formed UTF-8 sequence at text[i], or 0.
size_t Utf8Length(std::string_view text, size_t i) {
  const auto byte = [&](size_t k) { return static_cast<unsigned char>(text[k]); };
  const unsigned char b = byte(i);
  if (b < 0x80) return 1;
  size_t n = 0;
  uint32_t cp = 0;
  if ((b & 0xE0) == 0xC0) {
    n = 2;
    cp = b & 0x1F;
  } else if ((b & 0xF0) == 0xE0) {
    n = 3;
    cp = b & 0x0F;
  } else if ((b & 0xF8) == 0xF0) {
    n = 4;
    cp = b & 0x07;
  } else {
    return 0;
  }
  if (i + n > text.size()) return 0;
  for (size_t k = 1; k < n; ++k) {
    if ((byte(i + k) & 0xC0) != 0x80) return 0;
    cp = (cp << 6) | (byte(i + k) & 0x3F);
  }
  static constexpr uint32_t kMin[] = {0, 0, 0x80, 0x800, 0x10000};
  if (cp < kMin[n] || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return 0;
  return n;
}

}  // namespace

bool IsValidUtf8(std::string_view text) {
  for (size_t i = 0; i < text.size();) {
    const size_t n = Utf8Length(text, i);
    if (n == 0) return false;
    i += n;
  }
  return true;
}

std::string BoundedMessage(std::string_view message, size_t max_word) {
  // Escape first, then cut long words (the cut counts escaped bytes, and never splits an escape
  // or a UTF-8 sequence: it moves back to a character boundary).
  std::string escaped;
  for (size_t i = 0; i < message.size();) {
    const size_t n = Utf8Length(message, i);
    const auto b = static_cast<unsigned char>(message[i]);
    if (n == 0 || (n == 1 && b < 0x20 && b != '\n' && b != '\t') || b == 0x7F) {
      static constexpr char kHex[] = "0123456789abcdef";
      escaped += "\\x";
      escaped += kHex[b >> 4];
      escaped += kHex[b & 0xF];
      ++i;
      continue;
    }
    escaped.append(message.substr(i, n));
    i += n;
  }
  std::string out;
  for (size_t i = 0; i < escaped.size();) {
    if (escaped[i] == ' ' || escaped[i] == '\n' || escaped[i] == '\t') {
      out += escaped[i++];
      continue;
    }
    size_t end = i;
    while (end < escaped.size() && escaped[end] != ' ' && escaped[end] != '\n' &&
           escaped[end] != '\t') {
      ++end;
    }
    const size_t length = end - i;
    if (length <= max_word) {
      out.append(escaped, i, length);
    } else {
      size_t keep = max_word / 2;
      while (keep > 0 && (static_cast<unsigned char>(escaped[i + keep]) & 0xC0) == 0x80) --keep;
      out.append(escaped, i, keep);
      out += "... (" + std::to_string(length) + " bytes)";
    }
    i = end;
  }
  return out;
}

double ParseNumberField(const std::string& text, const std::string& where,
                        const std::string& column) {
  double v = 0.0;
  const auto r = std::from_chars(text.data(), text.data() + text.size(), v);
  if (text.empty() || r.ec != std::errc() || r.ptr != text.data() + text.size() ||
      !std::isfinite(v)) {
    throw InputError(where + ": column '" + column + "': not a finite number: '" + text + "'");
  }
  return v;
}

}  // namespace dcnas
