#include "common/progress.h"

#include <cmath>
#include <cstdlib>
#include <string>

namespace dcnas {

std::chrono::steady_clock::duration ProgressInterval() {
  static const std::chrono::steady_clock::duration kInterval = [] {
    const char* text = std::getenv("DCNAS_PROGRESS_S");
    double seconds = 5.0;
    if (text != nullptr) {
      char* end = nullptr;
      const double v = std::strtod(text, &end);
      if (end != text && *end == '\0' && std::isfinite(v) && v >= 0.0 && v <= 86400.0) seconds = v;
    }
    return std::chrono::duration_cast<std::chrono::steady_clock::duration>(
        std::chrono::duration<double>(seconds));
  }();
  return kInterval;
}

bool ProgressDue(std::chrono::steady_clock::time_point& last) {
  const auto now = std::chrono::steady_clock::now();
  if (now - last < ProgressInterval()) return false;
  last = now;
  return true;
}

}  // namespace dcnas
