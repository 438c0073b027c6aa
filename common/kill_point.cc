#include "common/kill_point.h"

#include <csignal>
#include <cstdlib>
#include <map>
#include <mutex>
#include <string>

namespace dcnas {

void KillPoint(const char* name) {
  const char* want = std::getenv("DCNAS_KILL_AT");
  if (want == nullptr) return;
  const std::string spec(want);
  const size_t colon = spec.rfind(':');
  const std::string point = colon == std::string::npos ? spec : spec.substr(0, colon);
  if (point != name) return;
  const long nth =
      colon == std::string::npos ? 1 : std::strtol(spec.c_str() + colon + 1, nullptr, 10);
  static std::mutex mutex;
  static std::map<std::string, long> hits;
  const std::lock_guard<std::mutex> lock(mutex);
  if (++hits[point] >= nth) std::raise(SIGKILL);
}

}  // namespace dcnas
