#include "common/host_cpu.h"

#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <filesystem>
#include <map>
#include <utility>

#include "common/errors.h"
#include "common/file_io.h"
#include "common/text.h"

namespace dcnas {
namespace {

std::string Trim(const std::string& s) {
  size_t b = 0;
  size_t e = s.size();
  while (b < e && std::isspace(static_cast<unsigned char>(s[b])) != 0) ++b;
  while (e > b && std::isspace(static_cast<unsigned char>(s[e - 1])) != 0) --e;
  return s.substr(b, e - b);
}

// A whole non-negative decimal integer, or nullopt.
std::optional<long long> ParseCount(const std::string& text) {
  if (text.empty() || text.size() > 18) return std::nullopt;
  long long v = 0;
  for (char c : text) {
    if (std::isdigit(static_cast<unsigned char>(c)) == 0) return std::nullopt;
    v = v * 10 + (c - '0');
  }
  return v;
}

int RequireInt(const std::string& value, const std::string& key, const std::string& where) {
  const auto v = ParseCount(value);
  if (!v || *v > 1'000'000) {
    throw InputError(where + ": '" + key + "' is not a whole number: '" + value.substr(0, 40) +
                     "'");
  }
  return static_cast<int>(*v);
}

std::string Hex(int v) {
  char buffer[16];
  std::snprintf(buffer, sizeof(buffer), "0x%02x", v);
  return buffer;
}

std::string ReadTrimmed(const std::string& path) { return Trim(ReadFile(path, 1 << 16)); }

}  // namespace

std::string HostCpu::Identity() const {
  return vendor + " family " + Hex(family) + " model " + Hex(model) + ": " + model_name;
}

std::optional<CacheLevel> HostCpu::Cache(int level) const {
  for (const CacheLevel& c : caches) {
    if (c.level == level && c.type != "Instruction") return c;
  }
  return std::nullopt;
}

HostCpu ParseCpuInfo(const std::string& text, const std::string& source) {
  HostCpu cpu;
  std::set<std::pair<std::string, std::string>> physical_cores;  // (physical id, core id)
  std::string socket;                                            // the current block's physical id
  int line_no = 0;
  bool first_block_done = false;
  for (const std::string& raw : Split(text, '\n')) {
    ++line_no;
    const std::string line = Trim(raw);
    if (line.empty()) {
      if (cpu.logical_cpus > 0) first_block_done = true;
      socket.clear();
      continue;
    }
    const size_t colon = raw.find(':');
    if (colon == std::string::npos) continue;  // e.g. "power management" headers without values
    const std::string key = Trim(raw.substr(0, colon));
    const std::string value = Trim(raw.substr(colon + 1));
    const std::string where = source + ":" + std::to_string(line_no);
    if (key == "processor") {
      ++cpu.logical_cpus;
      continue;
    }
    if (key == "physical id") {
      socket = value;  // listed before "core id" in each block
      continue;
    }
    if (key == "core id") {
      physical_cores.insert({socket, value});
      continue;
    }
    if (first_block_done) continue;  // the first CPU describes the identity and features
    if (key == "vendor_id") {
      cpu.vendor = value;
    } else if (key == "model name") {
      cpu.model_name = value;
    } else if (key == "cpu family") {
      cpu.family = RequireInt(value, key, where);
    } else if (key == "model") {
      cpu.model = RequireInt(value, key, where);
    } else if (key == "stepping") {
      cpu.stepping = ParseCount(value).has_value() ? RequireInt(value, key, where) : -1;
    } else if (key == "flags") {
      for (const std::string& f : Split(value, ' ')) {
        if (!f.empty()) cpu.flags.insert(f);
      }
    } else if (key == "cpu MHz" && cpu.clock_mhz == 0.0) {
      try {
        size_t used = 0;
        const double mhz = std::stod(value, &used);
        if (used == value.size() && mhz > 0 && mhz < 1e5) {
          cpu.clock_mhz = mhz;
          cpu.clock_source = "/proc/cpuinfo cpu MHz";
        }
      } catch (const std::exception&) {
        throw InputError(where + ": 'cpu MHz' is not a number: '" + value.substr(0, 40) + "'");
      }
    }
  }
  if (cpu.logical_cpus == 0) throw InputError(source + ": no 'processor' entry");
  if (cpu.vendor.empty()) throw InputError(source + ": no 'vendor_id' entry");
  if (cpu.family < 0 || cpu.model < 0) {
    throw InputError(source + ": no 'cpu family' or 'model' entry");
  }
  if (cpu.model_name.empty()) cpu.model_name = "unknown";
  const int cores = static_cast<int>(physical_cores.size());
  cpu.cores = cores > 0 ? std::min(cores, cpu.logical_cpus) : cpu.logical_cpus;
  return cpu;
}

int CountCpuList(const std::string& list, const std::string& source) {
  int count = 0;
  for (const std::string& part : Split(Trim(list), ',')) {
    if (part.empty()) continue;
    const size_t dash = part.find('-');
    const auto lo = ParseCount(part.substr(0, dash));
    const auto hi = dash == std::string::npos ? lo : ParseCount(part.substr(dash + 1));
    if (!lo || !hi || *hi < *lo || *hi - *lo > 1'000'000) {
      throw InputError(source + ": not a CPU list: '" + list.substr(0, 60) + "'");
    }
    count += static_cast<int>(*hi - *lo + 1);
  }
  return count;
}

std::vector<CacheLevel> ReadSysfsCaches(const std::string& cpu_dir) {
  std::vector<CacheLevel> out;
  const std::filesystem::path dir = std::filesystem::path(cpu_dir) / "cache";
  std::error_code ec;
  if (!std::filesystem::is_directory(dir, ec)) return out;
  std::vector<std::filesystem::path> entries;
  for (const auto& e : std::filesystem::directory_iterator(dir, ec)) {
    if (e.path().filename().string().rfind("index", 0) == 0) entries.push_back(e.path());
  }
  std::sort(entries.begin(), entries.end());
  for (const auto& index : entries) {
    CacheLevel c;
    const std::string level_file = (index / "level").string();
    c.level = RequireInt(ReadTrimmed(level_file), "level", level_file);
    c.type = ReadTrimmed((index / "type").string());
    const std::string size_file = (index / "size").string();
    std::string size = ReadTrimmed(size_file);
    int64_t scale = 1;
    if (!size.empty() && (size.back() == 'K' || size.back() == 'M' || size.back() == 'G')) {
      scale = size.back() == 'K' ? 1 : size.back() == 'M' ? 1024 : 1024 * 1024;
      size.pop_back();
    } else {
      throw InputError(size_file + ": expected a size such as 48K or 32M, got '" +
                       size.substr(0, 40) + "'");
    }
    c.size_kib = RequireInt(size, "size", size_file) * scale;
    const std::filesystem::path shared = index / "shared_cpu_list";
    if (std::filesystem::exists(shared, ec)) {
      c.shared_by_cpus = CountCpuList(ReadTrimmed(shared.string()), shared.string());
    } else {
      c.shared_by_cpus = 0;
    }
    out.push_back(c);
  }
  return out;
}

std::string OtherCpuWarning(const std::string& profile_name, const std::string& profile_cpu,
                            const HostCpu& host) {
  if (profile_cpu.empty() || profile_cpu == host.Identity()) return "";
  return "calibration '" + profile_name + "' was fitted on another CPU (" + profile_cpu +
         "); this machine is " + host.Identity() +
         ": its efficiencies may not carry over (`dcnas calibrate-host` fits this one)";
}

HostCpu DetectHostCpu() {
  HostCpu cpu = ParseCpuInfo(ReadFile("/proc/cpuinfo", 1 << 24), "/proc/cpuinfo");
  const std::string cpu0 = "/sys/devices/system/cpu/cpu0";
  cpu.caches = ReadSysfsCaches(cpu0);
  if (!cpu.caches.empty()) {
    cpu.caches_source = "sysfs";
  } else {
    // glibc answers from CPUID leaf 4 / 0x8000001D, which a VM may fill inconsistently: callers
    // check the sizes against the microarchitecture's.
    const std::pair<int, int> levels[] = {
        {1, _SC_LEVEL1_DCACHE_SIZE}, {2, _SC_LEVEL2_CACHE_SIZE}, {3, _SC_LEVEL3_CACHE_SIZE}};
    for (const auto& [level, name] : levels) {
      const long bytes = sysconf(name);
      if (bytes > 0) {
        cpu.caches.push_back(
            {level, level == 1 ? "Data" : "Unified", static_cast<int64_t>(bytes / 1024), 0});
      }
    }
    if (!cpu.caches.empty()) cpu.caches_source = "sysconf";
  }
  std::error_code ec;
  const std::string max_freq = cpu0 + "/cpufreq/cpuinfo_max_freq";
  if (std::filesystem::exists(max_freq, ec)) {
    const auto khz = ParseCount(ReadTrimmed(max_freq));
    if (khz && *khz > 0) {
      cpu.clock_mhz = static_cast<double>(*khz) / 1000.0;
      cpu.clock_source = max_freq;
    }
  }
  return cpu;
}

}  // namespace dcnas
