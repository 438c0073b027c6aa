// Locating dcnas's shipped data (data/accelerators, data/stacks, data/calibrated,
// data/measurements): $DCNAS_DATA_DIR if set, else the source tree's data/ next to the build
// tree the executable runs from, else <prefix>/share/dcnas/data for an installed binary.
#pragma once

#include <string>

namespace dcnas {

// The data directory; throws InputError (telling the user about DCNAS_DATA_DIR) if none exists.
std::string DataDir();

// DataDir() + "/" + relative, checked to exist; throws InputError naming the path otherwise.
std::string DataPath(const std::string& relative);

}  // namespace dcnas
