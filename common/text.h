// Small string helpers: edit distance for "did you mean" suggestions, joining, splitting.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace dcnas {

// Levenshtein distance between two strings (case-sensitive).
int EditDistance(std::string_view a, std::string_view b);

// The up-to-`max_count` candidates closest to `name` (by edit distance, then substring match),
// nearest first. Used to answer unknown names with valid ones.
std::vector<std::string> ClosestNames(std::string_view name,
                                      const std::vector<std::string>& candidates,
                                      size_t max_count = 3);

// "unknown X 'name'; did you mean a, b or c?" style suffix: ", did you mean: a, b, c".
std::string DidYouMean(std::string_view name, const std::vector<std::string>& candidates);

std::string Join(const std::vector<std::string>& parts, std::string_view separator);
std::vector<std::string> Split(std::string_view text, char separator);

}  // namespace dcnas
