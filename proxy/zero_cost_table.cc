#include "proxy/zero_cost_table.h"

#include <cmath>

#include "common/csv_file.h"
#include "common/errors.h"
#include "common/text.h"

namespace dcnas::proxy {
std::map<std::string, ZeroCostEntry> ReadZeroCostTable(const std::string& path,
                                                       const space::Space& space) {
  const CsvFile csv = ReadCsvFile(path, {"encoding", "synflow", "naswot", "grad_norm", "snip"},
                                  "a zero-cost table of `dcnas accuracy-data zero-cost`");
  std::map<std::string, ZeroCostEntry> table;
  for (const CsvFile::Row& row : csv.rows) {
    const std::string& where = row.where;
    std::string encoding;
    try {
      encoding = space.ToText(space.Canonical(space.FromText(csv.Field(row, "encoding"))));
    } catch (const InputError& e) {
      throw InputError(where + ": " + e.what());
    }
    ZeroCostEntry entry;
    for (size_t k = 0; k < kZeroCostScores.size(); ++k) {
      entry.scores[k] =
          ParseNumberField(csv.Field(row, kZeroCostScores[k]), where, kZeroCostScores[k]);
    }
    entry.time_s = csv.Has("time_s") ? ParseNumberField(csv.Field(row, "time_s"), where, "time_s")
                                     : std::nan("");
    if (csv.Has("recipe")) entry.recipe = csv.Field(row, "recipe");
    if (csv.Has("batch")) {
      const double batch = ParseNumberField(csv.Field(row, "batch"), where, "batch");
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
