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

// Whether `text` is well-formed UTF-8 (no overlong forms, surrogates or code points past U+10FFFF).
bool IsValidUtf8(std::string_view text);

// A message as it may be printed: bytes that are not UTF-8 and control characters (but newline and
// tab) as \xNN, and every word (a run without whitespace) longer than `max_word` bytes cut to its
// first max_word / 2 bytes and "... (N bytes)", so that a 100 kB input quoted in an error stays a
// line. The CLI prints every error through it.
std::string BoundedMessage(std::string_view message, size_t max_word = 512);
std::vector<std::string> Split(std::string_view text, char separator);

// A CSV field that must be a finite number; InputError "WHERE: column 'COLUMN': not a finite
// number: 'TEXT'" otherwise (WHERE names the file and line).
double ParseNumberField(const std::string& text, const std::string& where,
                        const std::string& column);

}  // namespace dcnas
