// JSON I/O of a layer graph, with an exact round trip (write(read(write(g))) == write(g), and
// read(write(g)) == g). Format: models/README.md, "Graph JSON".
#pragma once

#include <string>

#include <nlohmann/json_fwd.hpp>

#include "models/graph.h"

namespace dcnas::models {

// Limits of a graph file, refused with an InputError naming the file: size, ops, JSON nesting.
inline constexpr size_t kMaxGraphFileBytes = size_t{256} << 20;  // 256 MiB
inline constexpr size_t kMaxGraphOps = 1000000;
inline constexpr int kMaxGraphJsonDepth = 64;

nlohmann::json GraphToJson(const Graph& graph);
std::string GraphToJsonString(const Graph& graph);

// Reads and checks a graph. `source` names the file in error messages, which also give the path
// of the bad field (e.g. "g.json: ops[3].kernel: ..."). Throws InputError.
Graph GraphFromJson(const nlohmann::json& json, const std::string& source);
Graph GraphFromJsonString(const std::string& text, const std::string& source);
Graph ReadGraphFile(const std::string& path);
void WriteGraphFile(const Graph& graph, const std::string& path);  // atomic

}  // namespace dcnas::models
