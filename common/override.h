// One `--set key=value` override of a data file, without the YAML reader that applies it
// (common/config_tree.h), so that headers carrying overrides need not include yaml-cpp.
#pragma once

#include <string>

namespace dcnas {

// A dotted path into the YAML tree (array elements by index, e.g. `on_chip.0.capacity_kib`) and
// the new scalar value.
struct Override {
  std::string path;
  std::string value;
};

// Parses "a.b=1" (and "a.b=1,2,3" for sweeps, which split the value at commas); throws InputError
// on a missing '=' or empty key.
Override ParseOverride(const std::string& text);

}  // namespace dcnas
