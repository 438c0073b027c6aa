// Host calibration: the microarchitecture table, matching, the chip file it writes, and a few-shot
// fit judged on models it never saw.
#include "calibrate/host.h"

#include <catch2/catch.hpp>

#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <set>

#include "common/config_tree.h"
#include "common/data_dir.h"
#include "common/errors.h"
#include "common/file_io.h"
#include "common/text.h"
#include "sim/spec.h"

namespace dcnas::calibrate {
namespace {

using Catch::Contains;

HostCpu Cpu(const std::string& vendor, int family, int model, const std::set<std::string>& flags) {
  HostCpu cpu;
  cpu.vendor = vendor;
  cpu.family = family;
  cpu.model = model;
  cpu.model_name = "test cpu";
  cpu.flags = flags;
  cpu.logical_cpus = 4;
  cpu.cores = 4;
  cpu.clock_mhz = 2000;
  cpu.clock_source = "test";
  return cpu;
}

const std::vector<Microarchitecture>& Table() {
  static const auto table = LoadMicroarchitectures(DataPath("cpus/microarchitectures.yaml"));
  return table;
}

std::filesystem::path TempDir(const std::string& tag) {
  const auto dir = std::filesystem::temp_directory_path() /
                   ("dcnas-host-" + tag + "-" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

TEST_CASE("the shipped microarchitecture table identifies server cores", "[calibrate][unit]") {
  const std::set<std::string> avx512 = {"avx2", "fma", "avx512f"};
  SECTION("Zen 5 EPYC: two full-width 512-bit pipes, 32 fp32 FMAs per cycle") {
    const auto m = MatchMicroarchitecture(Cpu("AuthenticAMD", 0x1a, 0x02, avx512), Table());
    CHECK(m.by_model);
    CHECK(m.uarch.name == "zen5");
    CHECK(DeriveCoreRates(Cpu("AuthenticAMD", 0x1a, 0x02, avx512), m).fp32_macs == 32);
  }
  SECTION("Zen 4 EPYC: AVX-512 registers on 256-bit pipes, 16") {
    const HostCpu cpu = Cpu("AuthenticAMD", 0x19, 0x11, avx512);
    const auto m = MatchMicroarchitecture(cpu, Table());
    CHECK(m.uarch.name == "zen4");
    const CoreRates r = DeriveCoreRates(cpu, m);
    CHECK(r.fp32_macs == 16);
    CHECK(r.fp32_lanes == 16);  // the register's width sets the micro-kernel's tile
  }
  SECTION("Zen 3: AVX2, 16, 8-lane registers") {
    const HostCpu cpu = Cpu("AuthenticAMD", 0x19, 0x01, {"avx2", "fma"});
    const auto m = MatchMicroarchitecture(cpu, Table());
    CHECK(m.uarch.name == "zen3");
    CHECK(DeriveCoreRates(cpu, m).fp32_lanes == 8);
  }
  SECTION("Sapphire Rapids with and without AMX") {
    const HostCpu amx = Cpu("GenuineIntel", 6, 0x8f, {"avx2", "fma", "avx512f", "amx_bf16"});
    const auto m = MatchMicroarchitecture(amx, Table());
    CHECK(m.uarch.name == "sapphire-rapids");
    CHECK(DeriveCoreRates(amx, m).fp32_macs == 32);
    CHECK(DeriveCoreRates(amx, m).amx_bf16_macs == 512);
    const HostCpu hidden = Cpu("GenuineIntel", 6, 0x8f, avx512);  // a VM that hides AMX
    CHECK(DeriveCoreRates(hidden, MatchMicroarchitecture(hidden, Table())).amx_bf16_macs == 0);
  }
  SECTION("a core the table does not list falls back to its ISA flags") {
    const HostCpu cpu = Cpu("GenuineIntel", 6, 0x01, {"avx2", "fma"});
    const auto m = MatchMicroarchitecture(cpu, Table());
    CHECK_FALSE(m.by_model);
    CHECK(m.uarch.name == "generic-avx2");
    CHECK_THROWS_WITH(MatchMicroarchitecture(Cpu("X", 1, 1, {"sse2"}), Table()),
                      Contains("no microarchitecture row fits this CPU (X family 0x01"));
  }
  SECTION("a listed model without the row's flags (AVX-512 hidden by a VM) is generic") {
    const HostCpu cpu = Cpu("AuthenticAMD", 0x1a, 0x02, {"avx2", "fma"});
    const auto m = MatchMicroarchitecture(cpu, Table());
    CHECK(m.uarch.name == "generic-avx2");
    CHECK(DeriveCoreRates(cpu, m).fp32_macs == 16);
  }
}

TEST_CASE("detected caches are used when plausible, the table's otherwise", "[calibrate][unit]") {
  HostCpu cpu = Cpu("AuthenticAMD", 0x1a, 0x02, {"avx2", "fma", "avx512f"});
  const auto m = MatchMicroarchitecture(cpu, Table());
  cpu.caches = {{2, "Unified", 2048, 1}, {3, "Unified", 520192, 0}};  // a VM's CPUID artefact
  const CoreRates r = DeriveCoreRates(cpu, m);
  CHECK(r.l2_kib == 2048);
  CHECK(r.l2_source == "M");
  CHECK(r.l3_kib == 32768);
  CHECK(r.l3_source == "T");
}

TEST_CASE("the microarchitecture table is read strictly", "[calibrate][unit]") {
  const auto dir = TempDir("table");
  const auto write = [&](const std::string& row) {
    const std::string path = (dir / "t.yaml").string();
    std::ofstream(path) << "microarchitectures:\n  - name: x\n    sources: s\n"
                           "    fma_units: 2\n    fma_datapath_bits: 256\n"
                           "    l2_kib_per_core: 512\n    l3_kib: 0\n    required_flags: []\n"
                        << row;
    return path;
  };
  CHECK(LoadMicroarchitectures(write("")).front().family == -1);
  CHECK_THROWS_WITH(LoadMicroarchitectures(write("    colour: red\n")), Contains("colour"));
  CHECK_THROWS_WITH(LoadMicroarchitectures(
                        write("    vendor: V\n    family: \"26\"\n    models: [\"0x1-0x2\"]\n")),
                    Contains("expected a hex number"));
  CHECK_THROWS_WITH(LoadMicroarchitectures(
                        write("    vendor: V\n    family: \"0x1a\"\n    models: [\"0x9-0x2\"]\n")),
                    Contains("empty range"));
  CHECK_THROWS_WITH(LoadMicroarchitectures(write("    family: \"0x1a\"\n")),
                    Contains("vendor, family and models together"));
  std::filesystem::remove_all(dir);
}

TEST_CASE("the chip file loads as an accelerator with the core's rates", "[calibrate][unit]") {
  HostCpu cpu = Cpu("AuthenticAMD", 0x1a, 0x02, {"avx2", "fma", "avx512f", "avx512_bf16"});
  cpu.cores = 2;
  cpu.clock_mhz = 2096.0;
  const auto m = MatchMicroarchitecture(cpu, Table());
  HostChipOptions o;
  o.name = "host-test";
  o.dram_gbps = 25.0;
  o.memory_gib = 23.4;
  o.date = "2026-12-02";
  const std::string text = HostChipYaml(cpu, m, o);
  CHECK_THAT(text, Contains("AuthenticAMD family 0x1a model 0x02: test cpu"));
  const auto dir = TempDir("chip");
  const std::string path = (dir / "host-test.yaml").string();
  WriteFileAtomic(path, text);
  const sim::AcceleratorSpec spec = sim::LoadAccelerator(path);
  CHECK(spec.name == "host-test");
  CHECK(spec.kind == "cpu");
  CHECK(spec.cores == 2);
  CHECK(spec.clock_ghz == Approx(2.096));
  CHECK(spec.HbmBytesPerS() == Approx(25e9));
  // 2 cores x 32 FMAs x 2 FLOP x 2.096 GHz.
  CHECK(spec.PeakFlopsPerS(models::DType::kFp32) == Approx(2 * 32 * 2 * 2.096e9));
  CHECK(spec.PeakFlopsPerS(models::DType::kBf16) == Approx(2 * 64 * 2 * 2.096e9));
  o.dram_gbps = std::nan("");
  CHECK_THROWS_AS(HostChipYaml(cpu, m, o), InputError);
  std::filesystem::remove_all(dir);
}

TEST_CASE("MeasureTriadGbps measures a positive bandwidth and refuses tiny arrays",
          "[calibrate][unit]") {
  CHECK(MeasureTriadGbps(size_t{4} << 20, 1) > 0.0);
  CHECK_THROWS_AS(MeasureTriadGbps(1000, 1), InputError);
  CHECK_THROWS_AS(MeasureTriadGbps(size_t{4} << 20, 0), InputError);
}

// The shipped epyc-zen4 timings split into a 10-model probe and the other 20 models.
struct Split2 {
  std::string probe;
  std::string holdout;
};
Split2 SplitShipped(const std::filesystem::path& dir, const std::set<std::string>& probe_models) {
  const std::string text = ReadFile(DataPath("measurements/host-cpu.csv"));
  const std::vector<std::string> lines = Split(text, '\n');
  std::string probe = lines.front() + "\n";
  std::string holdout = probe;
  for (size_t i = 1; i < lines.size(); ++i) {
    if (lines[i].empty()) continue;
    const std::string model = lines[i].substr(0, lines[i].find(','));
    (probe_models.count(model) > 0 ? probe : holdout) += lines[i] + "\n";
  }
  Split2 out{(dir / "probe.csv").string(), (dir / "holdout.csv").string()};
  WriteFileAtomic(out.probe, probe);
  WriteFileAtomic(out.holdout, holdout);
  return out;
}

TEST_CASE("a few-shot fit on ten models predicts twenty unseen ones better than the defaults",
          "[calibrate][relational]") {
  const auto dir = TempDir("fit");
  const std::set<std::string> probe = {"resnet50",        "resnext101-32x4d", "regnetx-400mf",
                                       "regnety-800mf",   "mobilenetv2-1.0",  "mobilenetv3-large",
                                       "mnasnet-b1",      "efficientnet-b0",  "efficientnet-x-b0",
                                       "efficientnetv2-s"};
  const Split2 files = SplitShipped(dir, probe);
  HostFitInputs in;
  in.spec_path = DataPath("accelerators/epyc-zen4.yaml");
  in.stack = "libtorch-cpu";
  in.threads = 1;
  in.probe_files = {files.probe};
  in.holdout_files = {files.holdout};
  in.device = "epyc-zen4";
  in.profile_name = "zen4-few-shot";
  in.cpu_identity = "AuthenticAMD family 0x19 model 0x11: AMD EPYC";
  in.options.k_folds = 0;
  in.options.leave_one_family_out = false;
  const HostFitResult r = FitHost(in);
  CHECK(r.probe.rows.size() == 30);
  CHECK(r.holdout.size() == 60);
  CHECK(r.profile.cpu == in.cpu_identity);
  CHECK(r.profile.name == "zen4-few-shot");
  CHECK(r.holdout_fitted.median_ape < r.holdout_default.median_ape);
  CHECK(r.holdout_fitted.median_ape < 0.2);
  CHECK(r.profile.fit_metrics.count("holdout_median_ape_pct") == 1);
  CHECK_THAT(r.profile_text, Contains("cpu: \"" + in.cpu_identity + "\""));
  CHECK_THAT(r.profile_text, Contains("held-out models, fitted"));
  // The profile reads back with its CPU.
  const std::string path = (dir / "p.yaml").string();
  WriteFileAtomic(path, r.profile_text);
  CHECK(sim::LoadCalibration(path).cpu == in.cpu_identity);

  SECTION("a model in both sets is refused") {
    in.holdout_files = {files.holdout, files.probe};
    CHECK_THROWS_WITH(FitHost(in), Contains("is in both the probe and the held-out set"));
  }
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace dcnas::calibrate
