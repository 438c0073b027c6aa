// One surrogate file: an ensemble's members and the caller's metadata in one container.
//
// The container is a JSON document (".json") or the same document as UBJSON (".ubj"):
//   {
//     "format": "dcnas-surrogate",      // fixed
//     "version": 1,                     // kSurrogateFormatVersion
//     "num_features": 97,               // every member's feature count
//     "member_count": 5,                // must equal the length of "members"
//     "metadata": { ... },              // the caller's object, stored as given
//     "members": [
//       {"best_iteration": 287, "best_valid_rmse": 0.41, "rounds_trained": 338,
//        "model_format": "ubj", "model_base64": "...",   // XGBoost's UBJ model, base64
//        "model_sha256": "..."}                          // of the decoded model (optional)
//     ]
//   }
// Unknown keys are refused. Loading never hands XGBoost bytes the project has not checked: a
// member's model_sha256 (written since it was added; files without it still load) must match its
// decoded model, and every model must pass Forest::CheckModel's structural check first. Saving is
// atomic (temporary file + rename).
#pragma once

#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "surrogate/ensemble.h"

namespace dcnas::surrogate {

inline constexpr const char* kSurrogateFormatName = "dcnas-surrogate";
inline constexpr int kSurrogateFormatVersion = 1;

struct Surrogate {
  Ensemble ensemble;
  nlohmann::json metadata;  // an object (space fingerprint, data hash, feature names, report...)
};

// Serialises to the JSON document above (the UBJSON form is nlohmann::json::to_ubjson of it).
nlohmann::json SurrogateToJson(const Ensemble& ensemble, const nlohmann::json& metadata);
// Validates and rebuilds; InputError messages start with `file` and name the key path.
Surrogate SurrogateFromJson(const nlohmann::json& doc, const std::string& file, int nthread = 1);

// Throws the InputError SaveSurrogate would for `path`'s extension (not ".json" or ".ubj"), so a
// command can refuse the name before it spends minutes fitting.
void CheckSurrogatePath(const std::string& path);
// Writes atomically; ".json" or ".ubj" by extension, anything else is an InputError.
// `metadata` must be an object.
void SaveSurrogate(const std::string& path, const Ensemble& ensemble,
                   const nlohmann::json& metadata);
// Reads and validates; every error is an InputError naming the file and the key. Boosters run
// with `nthread` threads.
Surrogate LoadSurrogate(const std::string& path, int nthread = 1);
// LoadSurrogate on a file's contents `bytes`; `path` names it in errors and its extension picks
// the container format.
Surrogate ParseSurrogate(std::string_view bytes, const std::string& path, int nthread = 1);

// Standard base64 (RFC 4648, with padding). Decode throws InputError on malformed input.
std::string EncodeBase64(std::string_view bytes);
std::string DecodeBase64(std::string_view text);

}  // namespace dcnas::surrogate
