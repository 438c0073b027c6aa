// Reading a zero-cost table (`dcnas accuracy-data zero-cost`): one row per canonical network of a
// space with its four scores at initialisation and the time they took. Needs no LibTorch.
#pragma once

#include <array>
#include <map>
#include <string>

#include "space/space.h"

namespace dcnas::proxy {

// The scores, in this order: synflow, naswot, grad_norm, snip.
inline constexpr std::array<const char*, 4> kZeroCostScores = {"synflow", "naswot", "grad_norm",
                                                               "snip"};

struct ZeroCostEntry {
  std::array<double, 4> scores{};
  double time_s = 0.0;  // NaN where the table has no time_s column
  // The settings the scores were computed with (columns recipe, e.g. "r16_w0.25_rd1", and
  // batch); "" and 0 where the table has no such column.
  std::string recipe;
  int batch = 0;
};

// Columns encoding, synflow, naswot, grad_norm, snip (time_s optional, others ignored); every
// encoding canonicalised in `space`, each network once. InputError naming the file and line.
std::map<std::string, ZeroCostEntry> ReadZeroCostTable(const std::string& path,
                                                       const space::Space& space);

}  // namespace dcnas::proxy
