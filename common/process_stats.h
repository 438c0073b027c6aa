// The process's own resource counters (page faults, user and kernel CPU time) and the glibc
// malloc policy for LibTorch's large activation buffers.
//
// glibc serves allocations above its mmap threshold (dynamic, at most 32 MiB on 64-bit) with
// fresh mmap()s and returns freed heap tops to the kernel above its trim threshold, so a LibTorch
// step that frees and re-allocates the same large activation buffers every pass faults their pages
// in again each time (minor page faults, zeroed by the kernel). `KeepLargeAllocations` raises both
// thresholds so those buffers stay in the process's heap from one step to the next.
#pragma once

#include <cstdint>
#include <string>

namespace dcnas {

// Cumulative counters of this process (getrusage(RUSAGE_SELF)).
struct ProcessCounters {
  int64_t minor_faults = 0;
  int64_t major_faults = 0;
  double user_s = 0;
  double system_s = 0;
};
ProcessCounters ReadProcessCounters();

// The difference `after - before`.
ProcessCounters operator-(const ProcessCounters& after, const ProcessCounters& before);

// How dcnas asks glibc to treat large allocations: keep them in the heap (the default of the
// LibTorch commands) or leave glibc's own dynamic thresholds.
enum class MallocPolicy : uint8_t { kKeep, kSystem };
// Throws InputError naming the valid values ("keep", "system").
MallocPolicy ParseMallocPolicy(const std::string& name);
const char* MallocPolicyName(MallocPolicy policy);

// kKeep: mmap threshold 512 MiB, trim threshold 1 GiB (mallopt). kSystem: no change.
void ApplyMallocPolicy(MallocPolicy policy);

}  // namespace dcnas
