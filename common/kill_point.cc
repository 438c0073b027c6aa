#include "common/kill_point.h"

#include <chrono>
#include <csignal>
#include <cstdlib>
#include <map>
#include <mutex>
#include <string>
#include <thread>

namespace dcnas {

namespace {

// True when the point named by environment variable `variable` ("name" or "name:N") is `name`
// and this is its N-th hit.
bool Armed(const char* variable, const char* name) {
  const char* want = std::getenv(variable);
  if (want == nullptr) return false;
  const std::string spec(want);
  const size_t colon = spec.rfind(':');
  const std::string point = colon == std::string::npos ? spec : spec.substr(0, colon);
  if (point != name) return false;
  const long nth =
      colon == std::string::npos ? 1 : std::strtol(spec.c_str() + colon + 1, nullptr, 10);
  static std::mutex mutex;
  static std::map<std::string, long> hits;
  const std::lock_guard<std::mutex> lock(mutex);
  return ++hits[std::string(variable) + point] >= nth;
}

}  // namespace

void KillPoint(const char* name) {
  if (Armed("DCNAS_KILL_AT", name)) std::raise(SIGKILL);
}

void StallPoint(const char* name) {
  if (!Armed("DCNAS_STALL_AT", name)) return;
  while (true) std::this_thread::sleep_for(std::chrono::hours(1));
}

}  // namespace dcnas
