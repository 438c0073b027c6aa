// The malloc policy keeps large buffers in the heap: re-allocating them does not fault their
// pages in again (common/process_stats.h). The policy is process-wide, so this file's own
// executable runs it: glibc's defaults first, then kKeep.
#include "common/process_stats.h"

#include <catch2/catch.hpp>
#include <cstdlib>
#include <cstring>

#include "common/errors.h"

namespace dcnas {
namespace {

#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define DCNAS_ASAN 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__)
#define DCNAS_ASAN 1
#endif

#ifndef DCNAS_ASAN
// (Under AddressSanitizer malloc is ASan's own and mallopt has no effect: only the parsing and
// counter checks run.)
constexpr size_t kBuffer = size_t{8} << 20;  // an activation-sized buffer
constexpr int kBuffers = 8;
char* volatile g_escape = nullptr;  // keeps the compiler from eliding the allocations

// Minor page faults of allocating and touching kBuffers buffers, then freeing them all (as a
// training step does with its activations).
int64_t FaultsOfOneStep() {
  const ProcessCounters before = ReadProcessCounters();
  char* p[kBuffers];
  for (auto& b : p) {
    b = static_cast<char*>(std::malloc(kBuffer));
    REQUIRE(b != nullptr);
    std::memset(b, 1, kBuffer);
    g_escape = b;
  }
  for (int i = kBuffers - 1; i >= 0; --i) std::free(p[i]);
  return (ReadProcessCounters() - before).minor_faults;
}
#endif

TEST_CASE("kept large allocations are not faulted in again") {
  CHECK(ParseMallocPolicy("keep") == MallocPolicy::kKeep);
  CHECK(ParseMallocPolicy("system") == MallocPolicy::kSystem);
  CHECK_THROWS_AS(ParseMallocPolicy("tcmalloc"), InputError);
  const ProcessCounters a = ReadProcessCounters();
  const ProcessCounters b = ReadProcessCounters();
  CHECK(b.minor_faults >= a.minor_faults);
  CHECK(b.user_s + b.system_s >= a.user_s + a.system_s);
#ifndef DCNAS_ASAN
  // glibc's defaults: freeing the buffers trims the heap top (or unmaps them), so the next step
  // faults their pages in again.
  FaultsOfOneStep();
  const int64_t system = FaultsOfOneStep();
  // Kept: after the first step, the heap holds the pages.
  ApplyMallocPolicy(MallocPolicy::kKeep);
  const int64_t first = FaultsOfOneStep();
  const int64_t second = FaultsOfOneStep();
  const int64_t kept = FaultsOfOneStep();
  INFO("first " << first << " second " << second);
  INFO("minor faults per step of 8 x 8 MiB: system " << system << ", kept " << kept);
  CHECK(system >= 1000);
  CHECK(kept * 10 <= system);
#endif
}

}  // namespace
}  // namespace dcnas
