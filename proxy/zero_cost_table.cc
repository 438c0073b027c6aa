#include "proxy/zero_cost_table.h"

#include <cmath>

#include "common/errors.h"
#include "common/file_io.h"
#include "common/text.h"

namespace dcnas::proxy {
std::map<std::string, ZeroCostEntry> ReadZeroCostTable(const std::string& path,
                                                       const space::Space& space) {
  const std::vector<std::string> lines = Split(ReadFile(path), '\n');
  if (lines.empty() || lines[0].empty()) throw InputError(path + ": empty (expected a header)");
  const std::vector<std::string> header = Split(lines[0], ',');
  std::map<std::string, size_t> col;
  for (size_t i = 0; i < header.size(); ++i) col[header[i]] = i;
  for (const char* c : {"encoding", "synflow", "naswot", "grad_norm", "snip"}) {
    if (!col.count(c)) {
      throw InputError(path + ":1: missing column '" + std::string(c) +
                       "' (a zero-cost table of `dcnas accuracy-data zero-cost`)");
    }
  }
  std::map<std::string, ZeroCostEntry> table;
  for (size_t ln = 1; ln < lines.size(); ++ln) {
    if (lines[ln].empty() && ln + 1 == lines.size()) break;
    const std::string where = path + ":" + std::to_string(ln + 1);
    const std::vector<std::string> f = Split(lines[ln], ',');
    if (f.size() != header.size()) {
      throw InputError(where + ": " + std::to_string(f.size()) + " fields, header has " +
                       std::to_string(header.size()));
    }
    std::string encoding;
    try {
      encoding = space.ToText(space.Canonical(space.FromText(f[col.at("encoding")])));
    } catch (const InputError& e) {
      throw InputError(where + ": " + e.what());
    }
    ZeroCostEntry entry;
    for (size_t k = 0; k < kZeroCostScores.size(); ++k) {
      entry.scores[k] = ParseNumberField(f[col.at(kZeroCostScores[k])], where, kZeroCostScores[k]);
    }
    entry.time_s =
        col.count("time_s") ? ParseNumberField(f[col.at("time_s")], where, "time_s") : std::nan("");
    if (col.count("recipe")) entry.recipe = f[col.at("recipe")];
    if (col.count("batch")) {
      const double batch = ParseNumberField(f[col.at("batch")], where, "batch");
      if (batch < 1 || batch > 4096 || batch != std::floor(batch)) {
        throw InputError(where + ": column 'batch': not a whole number in [1, 4096]");
      }
      entry.batch = static_cast<int>(batch);
    }
    if (!table.emplace(encoding, entry).second) {
      throw InputError(where + ": network " + encoding + " scored twice");
    }
  }
  if (table.empty()) throw InputError(path + ": no networks");
  return table;
}

}  // namespace dcnas::proxy
