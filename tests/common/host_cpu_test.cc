// Parsing /proc/cpuinfo and sysfs cache folders, and the other-CPU warning.
#include "common/host_cpu.h"

#include <catch2/catch.hpp>

#include <unistd.h>
#include <filesystem>
#include <fstream>

#include "common/errors.h"

namespace dcnas {
namespace {

using Catch::Contains;

// Two logical CPUs of a Zen 5 EPYC guest, as its /proc/cpuinfo lists them (flags shortened).
const char* const kZen5 =
    "processor\t: 0\n"
    "vendor_id\t: AuthenticAMD\n"
    "cpu family\t: 26\n"
    "model\t\t: 2\n"
    "model name\t: AMD EPYC\n"
    "stepping\t: 1\n"
    "cpu MHz\t\t: 2096.005\n"
    "cache size\t: 1024 KB\n"
    "physical id\t: 0\n"
    "siblings\t: 2\n"
    "core id\t\t: 0\n"
    "cpu cores\t: 2\n"
    "flags\t\t: fpu sse2 avx fma avx2 avx512f avx512_bf16\n"
    "power management:\n"
    "\n"
    "processor\t: 1\n"
    "vendor_id\t: AuthenticAMD\n"
    "cpu family\t: 26\n"
    "model\t\t: 2\n"
    "model name\t: AMD EPYC\n"
    "cpu MHz\t\t: 2500.000\n"
    "physical id\t: 0\n"
    "core id\t\t: 1\n"
    "flags\t\t: fpu\n"
    "\n";

// One socket, two cores with two hardware threads each: 4 logical CPUs, 2 cores.
std::string Smt() {
  std::string text;
  const int cores[] = {0, 0, 1, 1};
  for (int i = 0; i < 4; ++i) {
    text += "processor\t: " + std::to_string(i) +
            "\nvendor_id\t: GenuineIntel\ncpu family\t: 6\nmodel\t\t: 143\n"
            "model name\t: Intel(R) Xeon(R) Platinum 8480+\nphysical id\t: 0\ncore id\t\t: " +
            std::to_string(cores[i]) + "\nflags\t\t: avx2 fma avx512f amx_bf16 amx_tile\n\n";
  }
  return text;
}

TEST_CASE("ParseCpuInfo reads the identity, flags, cores and clock of the first CPU",
          "[common][unit]") {
  const HostCpu cpu = ParseCpuInfo(kZen5, "cpuinfo");
  CHECK(cpu.vendor == "AuthenticAMD");
  CHECK(cpu.family == 26);
  CHECK(cpu.model == 2);
  CHECK(cpu.stepping == 1);
  CHECK(cpu.model_name == "AMD EPYC");
  CHECK(cpu.logical_cpus == 2);
  CHECK(cpu.cores == 2);
  CHECK(cpu.clock_mhz == Approx(2096.005));  // the first CPU's, not the second's 2500
  CHECK(cpu.HasFlag("avx512f"));
  CHECK(cpu.HasFlag("avx512_bf16"));
  CHECK_FALSE(cpu.HasFlag("amx_bf16"));
  CHECK(cpu.Identity() == "AuthenticAMD family 0x1a model 0x02: AMD EPYC");
}

TEST_CASE("hardware threads of one core count as one core", "[common][unit]") {
  const HostCpu cpu = ParseCpuInfo(Smt(), "smt");
  CHECK(cpu.logical_cpus == 4);
  CHECK(cpu.cores == 2);
  CHECK(cpu.Identity() == "GenuineIntel family 0x06 model 0x8f: Intel(R) Xeon(R) Platinum 8480+");
  CHECK(cpu.clock_mhz == 0.0);  // not listed
}

TEST_CASE("ParseCpuInfo refuses files that do not describe a CPU", "[common][unit]") {
  CHECK_THROWS_WITH(ParseCpuInfo("", "empty"), Contains("empty: no 'processor' entry"));
  CHECK_THROWS_WITH(ParseCpuInfo("processor\t: 0\ncpu family\t: 6\nmodel\t: 1\n", "f"),
                    Contains("f: no 'vendor_id'"));
  CHECK_THROWS_WITH(
      ParseCpuInfo("processor\t: 0\nvendor_id\t: X\ncpu family\t: six\nmodel\t: 1\n", "f"),
      Contains("f:3: 'cpu family' is not a whole number: 'six'"));
  CHECK_THROWS_WITH(ParseCpuInfo("processor\t: 0\nvendor_id\t: X\n", "f"),
                    Contains("no 'cpu family' or 'model'"));
}

TEST_CASE("CountCpuList counts sysfs CPU lists", "[common][unit]") {
  CHECK(CountCpuList("0", "l") == 1);
  CHECK(CountCpuList("0-3,8,10-11\n", "l") == 7);
  CHECK_THROWS_WITH(CountCpuList("3-1", "list"), Contains("list: not a CPU list"));
  CHECK_THROWS_AS(CountCpuList("a", "l"), InputError);
}

TEST_CASE("ReadSysfsCaches reads each cache index folder", "[common][unit]") {
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("dcnas-cache-" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  CHECK(ReadSysfsCaches(dir.string()).empty());  // no cache folder: nothing known
  const auto write = [&](const std::string& index, const std::string& level,
                         const std::string& type, const std::string& size,
                         const std::string& shared) {
    const auto d = dir / "cache" / index;
    std::filesystem::create_directories(d);
    std::ofstream(d / "level") << level << "\n";
    std::ofstream(d / "type") << type << "\n";
    std::ofstream(d / "size") << size << "\n";
    std::ofstream(d / "shared_cpu_list") << shared << "\n";
  };
  write("index0", "1", "Data", "48K", "0");
  write("index1", "1", "Instruction", "32K", "0");
  write("index2", "2", "Unified", "1024K", "0");
  write("index3", "3", "Unified", "32M", "0-15");
  const auto caches = ReadSysfsCaches(dir.string());
  REQUIRE(caches.size() == 4);
  CHECK(caches[0].size_kib == 48);
  CHECK(caches[3].size_kib == 32 * 1024);
  CHECK(caches[3].shared_by_cpus == 16);
  HostCpu cpu;
  cpu.caches = caches;
  REQUIRE(cpu.Cache(1).has_value());
  CHECK(cpu.Cache(1)->type == "Data");  // the instruction cache is not a data level
  CHECK(cpu.Cache(2)->size_kib == 1024);
  CHECK_FALSE(cpu.Cache(4).has_value());
  write("index3", "3", "Unified", "lots", "0-15");
  CHECK_THROWS_WITH(ReadSysfsCaches(dir.string()), Contains("expected a size such as 48K"));
  std::filesystem::remove_all(dir);
}

TEST_CASE("a profile timed on another CPU warns and names both", "[common][unit]") {
  const HostCpu host = ParseCpuInfo(kZen5, "cpuinfo");
  CHECK(OtherCpuWarning("p", "", host).empty());               // records no CPU
  CHECK(OtherCpuWarning("p", host.Identity(), host).empty());  // this one
  const std::string w = OtherCpuWarning("epyc-zen4-libtorch-cpu-fp32",
                                        "AuthenticAMD family 0x19 model 0x11: AMD EPYC", host);
  CHECK_THAT(w, Contains("'epyc-zen4-libtorch-cpu-fp32'"));
  CHECK_THAT(w, Contains("AuthenticAMD family 0x19 model 0x11: AMD EPYC"));
  CHECK_THAT(w, Contains("AuthenticAMD family 0x1a model 0x02: AMD EPYC"));
}

}  // namespace
}  // namespace dcnas
