// The host CPU's name, for measurement files (no LibTorch: callers that only label a file do not
// load the module).
#include <fstream>
#include <string>

#include "models/torch/measure.h"

namespace dcnas::models::libtorch {

std::string CpuModelName() {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("model name", 0) != 0) continue;
    const size_t colon = line.find(':');
    if (colon == std::string::npos) continue;
    std::string name = line.substr(colon + 1);
    const size_t first = name.find_first_not_of(" \t");
    const size_t last = name.find_last_not_of(" \t\r");
    if (first == std::string::npos) continue;
    return name.substr(first, last - first + 1);
  }
  return "unknown-cpu";
}

}  // namespace dcnas::models::libtorch
