// This machine's CPU as the kernel describes it: vendor, family/model/stepping, name, ISA flags,
// cores, clock and caches, parsed from /proc/cpuinfo and sysfs (glibc's CPUID-based sysconf
// where sysfs has no cache folders, as in some VMs). Parsing is separate from reading so that
// tests feed recorded files.
#pragma once

#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace dcnas {

struct CacheLevel {
  int level = 0;           // 1, 2, 3
  std::string type;        // Data, Instruction, Unified
  int64_t size_kib = 0;    // one instance
  int shared_by_cpus = 1;  // logical CPUs sharing one instance (0: not known)
};

struct HostCpu {
  std::string vendor;      // vendor_id: AuthenticAMD, GenuineIntel, ...
  std::string model_name;  // "model name", e.g. "AMD EPYC"
  int family = -1;         // "cpu family" (decimal in the file; written in hex by Identity)
  int model = -1;
  int stepping = -1;
  std::set<std::string> flags;
  int logical_cpus = 0;  // processor entries
  int cores = 0;         // physical cores: distinct (physical id, core id), else logical_cpus
  double clock_mhz = 0.0;
  std::string clock_source;  // which file or field the clock came from
  std::vector<CacheLevel> caches;
  std::string caches_source;  // "sysfs", "sysconf" or "" (none found)

  bool HasFlag(const std::string& flag) const { return flags.count(flag) > 0; }
  // What a profile records and compares: "<vendor> family 0x<f> model 0x<m>: <model name>".
  std::string Identity() const;
  // The data cache or unified cache of a level, if known.
  std::optional<CacheLevel> Cache(int level) const;
};

// Parses /proc/cpuinfo (the x86 layout: "key<TAB>: value" lines, one block per logical CPU).
// Throws InputError naming `source` when there is no processor block, no vendor_id or a family or
// model that is not a number.
HostCpu ParseCpuInfo(const std::string& text, const std::string& source);

// Reads cache levels from a sysfs cpu folder (e.g. /sys/devices/system/cpu/cpu0): each
// cache/index*/ with level, type, size ("48K", "1024K", "32M") and shared_cpu_list ("0-3,8").
// Returns nothing when the folder has no cache entries. Throws InputError naming the file for a
// size or list it cannot read.
std::vector<CacheLevel> ReadSysfsCaches(const std::string& cpu_dir);

// Logical CPUs named by a sysfs list such as "0-3,8,10-11" (7); throws InputError on bad text.
int CountCpuList(const std::string& list, const std::string& source);

// The warning for a CPU profile timed on `profile_cpu` (an Identity()) used on `host`: empty when
// the profile records no CPU or the same one; else a sentence naming the profile and both CPUs.
std::string OtherCpuWarning(const std::string& profile_name, const std::string& profile_cpu,
                            const HostCpu& host);

// /proc/cpuinfo, then caches from sysfs (else sysconf), the clock from cpufreq's cpuinfo_max_freq
// when present (else "cpu MHz"). Throws InputError when /proc/cpuinfo cannot be read or parsed.
HostCpu DetectHostCpu();

}  // namespace dcnas
