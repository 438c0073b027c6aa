// JSON parsed strictly: a key given twice in one object is an error (nlohmann::json keeps the last
// value silently), as it is in the project's YAML. The reader behind graph JSON, the journals and
// the LACS trained store, and the benchmark import.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace dcnas {

// A key given twice: the keys of the objects around it, outermost first ("[]" for an array
// element), and the key itself.
struct DuplicateJsonKey {
  std::vector<std::string> path;
  std::string key;
  // "info.format", "ops[].name": the path and key joined.
  std::string Text() const;
};

// Parses `text`, recording the first key given twice in `twice` (the parse goes on; the caller
// words the error). `max_depth` > 0 bounds the nesting: deeper is InputError(`too_deep`). Syntax
// errors throw nlohmann::json::exception as nlohmann::json::parse does.
nlohmann::json ParseJsonKeysOnce(const std::string& text, std::optional<DuplicateJsonKey>& twice,
                                 int max_depth = 0, const std::string& too_deep = "");

}  // namespace dcnas
