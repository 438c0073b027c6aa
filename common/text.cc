#include "common/text.h"

#include <algorithm>
#include <cctype>
#include <utility>

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

}  // namespace dcnas
