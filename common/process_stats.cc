#include "common/process_stats.h"

#include <malloc.h>
#include <sys/resource.h>

#include "common/errors.h"

namespace dcnas {
namespace {

// glibc's dynamic mmap threshold stops at 32 MiB on 64-bit; set explicitly, larger buffers come
// from the heap, and the heap top is kept up to 1 GiB.
constexpr int kMmapThresholdBytes = 512 << 20;
constexpr int kTrimThresholdBytes = 1 << 30;

double Seconds(const timeval& t) {
  return static_cast<double>(t.tv_sec) + 1e-6 * static_cast<double>(t.tv_usec);
}

}  // namespace

ProcessCounters ReadProcessCounters() {
  rusage u{};
  ProcessCounters c;
  if (getrusage(RUSAGE_SELF, &u) != 0) return c;
  c.minor_faults = u.ru_minflt;
  c.major_faults = u.ru_majflt;
  c.user_s = Seconds(u.ru_utime);
  c.system_s = Seconds(u.ru_stime);
  return c;
}

ProcessCounters operator-(const ProcessCounters& after, const ProcessCounters& before) {
  return ProcessCounters{after.minor_faults - before.minor_faults,
                         after.major_faults - before.major_faults, after.user_s - before.user_s,
                         after.system_s - before.system_s};
}

MallocPolicy ParseMallocPolicy(const std::string& name) {
  if (name == "keep") return MallocPolicy::kKeep;
  if (name == "system") return MallocPolicy::kSystem;
  throw InputError("unknown malloc policy '" + name + "' (valid: keep, system)");
}

const char* MallocPolicyName(MallocPolicy policy) {
  return policy == MallocPolicy::kKeep ? "keep" : "system";
}

void ApplyMallocPolicy(MallocPolicy policy) {
  if (policy != MallocPolicy::kKeep) return;
  ::mallopt(M_MMAP_THRESHOLD, kMmapThresholdBytes);
  ::mallopt(M_TRIM_THRESHOLD, kTrimThresholdBytes);
}

}  // namespace dcnas
