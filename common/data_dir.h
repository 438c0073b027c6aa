// Locating dcnas's shipped data (data/accelerators, data/stacks, data/calibrated,
// data/measurements): $DCNAS_DATA_DIR if set, else <datadir>/dcnas of an installed binary (found
// relative to the executable, so a DESTDIR or moved prefix works) or of the installed Python
// module (relative to the module's file), else the source tree's data/ for a binary or module in
// its build tree, else the configured <prefix>/<datadir>/dcnas.
#pragma once

#include <string>

namespace dcnas {

// The data directory; throws InputError (telling the user about DCNAS_DATA_DIR) if none exists.
std::string DataDir();

// DataDir() + "/" + relative, checked to exist; throws InputError naming the path otherwise.
std::string DataPath(const std::string& relative);

}  // namespace dcnas
