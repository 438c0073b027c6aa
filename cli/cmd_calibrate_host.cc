// dcnas calibrate-host: few-shot calibration of this machine's CPU. Detects the CPU, writes a chip
// file for it from the microarchitecture table, times a small probe set with LibTorch (and a
// held-out set), fits the simulator to the probe and reports the error on the held-out models.
#include <chrono>
#include <filesystem>
#include <iostream>
#include <set>

#include "calibrate/host.h"
#include "calibrate/profile.h"
#include "calibrate/report.h"
#include "cli/cli.h"
#include "cli/host_timing.h"
#include "common/data_dir.h"
#include "common/file_io.h"
#include "common/host_cpu.h"
#include "common/table.h"
#include "common/text.h"

namespace dcnas::cli {
namespace {

namespace cal = dcnas::calibrate;

// Ten models over eight zoo families: plain, grouped and depthwise convolutions, squeeze-excite,
// swish and hard-swish, fused MBConv; about a minute of single-thread time on a current core.
const char* const kDefaultProbe =
    "resnet50,resnext101-32x4d,regnetx-400mf,regnety-800mf,mobilenetv2-1.0,mobilenetv3-large,"
    "mnasnet-b1,efficientnet-b0,efficientnet-x-b0,efficientnetv2-s";
// The rest of the models of data/measurements/host-cpu.csv.
const char* const kDefaultHoldout =
    "efficientnet-b1,efficientnet-b2,efficientnet-b3,efficientnet-b4,efficientnet-x-b1,"
    "efficientnet-x-b2,efficientnet-x-b3,efficientnet-x-gpu-b0,efficientnet-x-gpu-b1,"
    "efficientnet-x-tpu-b0,efficientnet-x-tpu-b1,regnetx-200mf,regnetx-800mf,regnetx-1.6gf,"
    "regnetx-3.2gf,regnety-200mf,regnety-400mf,regnety-1.6gf,resnest50,resnet101";

struct HostArgs {
  std::string out_dir = "host-calibration";
  std::string name;
  std::string probe = kDefaultProbe;
  std::string holdout = kDefaultHoldout;
  std::string batches = "1,8,32";
  int resolution = 128;
  int threads = 1;
  int repeats = 5;
  int warmup = 2;
  int triad_mib = 128;
  std::string cpuinfo;
  std::string table;
  bool detect_only = false;
};

void AddOptions(po::options_description& options, HostArgs& a) {
  options.add_options()("out-dir", po::value(&a.out_dir)->default_value(a.out_dir),
                        "folder for the chip file, the timings and the profile")(
      "name", po::value(&a.name),
      "accelerator name of this CPU (default host-<microarchitecture>, e.g. host-zen5)")(
      "probe", po::value(&a.probe)->default_value(a.probe),
      "comma-separated zoo models the fit sees (at most 10)")(
      "holdout", po::value(&a.holdout)->default_value(a.holdout),
      "comma-separated zoo models timed only to judge the fit ('none': skip)")(
      "batch", po::value(&a.batches)->default_value(a.batches), "batch sizes, comma separated")(
      "resolution", po::value(&a.resolution)->default_value(a.resolution),
      "input resolution in pixels (0: each model's native one)")(
      "threads", po::value(&a.threads)->default_value(a.threads),
      "LibTorch intra-op threads; the fit sees that many cores (cores=THREADS)")(
      "repeats", po::value(&a.repeats)->default_value(a.repeats), "timed runs per point")(
      "warmup", po::value(&a.warmup)->default_value(a.warmup), "untimed runs before them")(
      "triad-mib", po::value(&a.triad_mib)->default_value(a.triad_mib),
      "MiB per array of the memory-bandwidth probe (three arrays)")(
      "cpuinfo", po::value(&a.cpuinfo),
      "read this file instead of /proc/cpuinfo (with --detect-only: how another machine is "
      "identified; the bandwidth is still this machine's)")(
      "microarchitectures", po::value(&a.table),
      "the microarchitecture table (default data/cpus/microarchitectures.yaml)")(
      "detect-only", po::bool_switch(&a.detect_only),
      "print the detected CPU, its microarchitecture row and the chip file; time nothing");
}

std::vector<std::string> ModelList(const std::string& text, const char* option) {
  std::vector<std::string> out;
  if (text == "none") return out;
  std::set<std::string> seen;
  for (const std::string& m : Split(text, ',')) {
    if (m.empty()) continue;
    (void)models::BuiltinModels().Get(m);  // unknown names fail before any timing
    if (!seen.insert(m).second)
      throw UsageError(std::string("--") + option + " names '" + m + "' twice");
    out.push_back(m);
  }
  return out;
}

std::string CacheText(const HostCpu& cpu) {
  if (cpu.caches.empty()) return "caches: not reported";
  std::string out = "caches (" + cpu.caches_source + "):";
  for (const CacheLevel& c : cpu.caches) {
    if (c.type == "Instruction") continue;
    out += " L" + std::to_string(c.level) + " " + std::to_string(c.size_kib) + " KiB";
  }
  return out;
}

double SecondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// Times `models` into `csv` (rows already there are kept); returns the seconds it took.
double TimeModels(const HostArgs& a, const std::string& device,
                  const std::vector<std::string>& names, const std::string& csv) {
  calibrate::TimingPlan plan;
  plan.models = names;
  plan.batches = ParseBatches(a.batches);
  plan.build.resolution = a.resolution;
  plan.threads = a.threads;
  plan.repeats = a.repeats;
  plan.warmup = a.warmup;
  plan.cpu_clock = a.threads == 1;
  plan.device = device;
  plan.notes = "dcnas calibrate-host";
  plan.out = csv;
  plan.resume = true;
  const auto t0 = std::chrono::steady_clock::now();
  TimeOnHostCpu(plan, models::libtorch::MeasureMode::kInference);
  return SecondsSince(t0);
}

// This CPU (or --cpuinfo's), its microarchitecture row and the accelerator name of its chip file.
struct DetectedCpu {
  HostCpu cpu;
  cal::MicroarchitectureMatch match;
  std::string name;
};

// Detects the CPU and matches its row, and prints both.
DetectedCpu Detect(const HostArgs& a) {
  DetectedCpu d;
  d.cpu =
      a.cpuinfo.empty() ? DetectHostCpu() : ParseCpuInfo(ReadFile(a.cpuinfo, 1 << 24), a.cpuinfo);
  const auto table = cal::LoadMicroarchitectures(
      a.table.empty() ? DataPath("cpus/microarchitectures.yaml") : a.table);
  d.match = cal::MatchMicroarchitecture(d.cpu, table);
  const cal::CoreRates rates = cal::DeriveCoreRates(d.cpu, d.match);
  d.name = a.name.empty() ? "host-" + d.match.uarch.name : a.name;
  const HostCpu& cpu = d.cpu;
  const cal::Microarchitecture& u = d.match.uarch;
  std::cout << "cpu: " << cpu.Identity() << "\n  " << cpu.cores << " cores (" << cpu.logical_cpus
            << " logical CPUs), " << FormatFixed(cpu.clock_mhz, 0) << " MHz (" << cpu.clock_source
            << "); " << CacheText(cpu) << "\n"
            << "microarchitecture: " << u.name << " (" << u.description << ")"
            << (d.match.by_model ? "" : ", by ISA flags only") << " [" << u.sources
            << "]\n  fp32: " << rates.fp32_macs << " FMAs/cycle/core (" << u.fma_units
            << " pipes x " << u.fma_datapath_bits << " bits, " << rates.vector_bits
            << "-bit registers); " << FormatFixed(2.0 * rates.fp32_macs * cpu.clock_mhz / 1e3, 1)
            << " GFLOP/s per core at " << FormatFixed(cpu.clock_mhz, 0) << " MHz\n";
  return d;
}

// The probe and held-out models: known, at most 10 probe models, no model in both.
struct ModelSets {
  std::vector<std::string> probe;
  std::vector<std::string> holdout;
};

ModelSets CheckModelSets(const HostArgs& a) {
  if (a.threads < 1)
    throw UsageError("--threads wants at least 1, got " + std::to_string(a.threads));
  (void)ParseBatches(a.batches);
  if (const size_t n = Split(a.probe, ',').size(); n > 10) {
    throw UsageError("--probe wants at most 10 models (few-shot), got " + std::to_string(n));
  }
  ModelSets sets{ModelList(a.probe, "probe"), ModelList(a.holdout, "holdout")};
  if (sets.probe.empty()) throw UsageError("--probe names no model");
  for (const std::string& m : sets.holdout) {
    for (const std::string& p : sets.probe) {
      if (m == p) throw UsageError("'" + m + "' is in both --probe and --holdout");
    }
  }
  return sets;
}

// Measures the memory bandwidth (and prints it) and returns the chip file's text.
std::string ChipText(const HostArgs& a, const DetectedCpu& d) {
  const auto t_triad = std::chrono::steady_clock::now();
  cal::HostChipOptions chip;
  chip.name = d.name;
  chip.dram_gbps = cal::MeasureTriadGbps(static_cast<size_t>(a.triad_mib) << 20, 3);
  chip.memory_gib = cal::HostMemoryGib();
  chip.date = cal::TodayUtc();
  std::cout << "memory: " << FormatFixed(chip.dram_gbps, 1)
            << " GB/s single-thread triad (3 arrays of " << a.triad_mib << " MiB, "
            << FormatFixed(SecondsSince(t_triad), 1) << " s)\n";
  return cal::HostChipYaml(d.cpu, d.match, chip);
}

// Times the probe and held-out models into DIR/probe.csv and DIR/holdout.csv.
void TimeModelSets(const HostArgs& a, const std::string& device, const ModelSets& sets,
                   const std::string& probe_csv, const std::string& holdout_csv) {
  const double probe_s = TimeModels(a, device, sets.probe, probe_csv);
  std::cout << "probe: " << sets.probe.size() << " models x " << ParseBatches(a.batches).size()
            << " batches timed in " << FormatFixed(probe_s, 1) << " s (" << probe_csv << ")\n";
  if (!sets.holdout.empty()) {
    const double holdout_s = TimeModels(a, device, sets.holdout, holdout_csv);
    std::cout << "held-out: " << sets.holdout.size() << " models timed in "
              << FormatFixed(holdout_s, 1) << " s (" << holdout_csv << ")\n";
  }
}

void PrintFit(const cal::HostFitResult& r) {
  Table params({"parameter", "start", "fitted", "std error"});
  params.SetRightAligned({false, true, true, true});
  const cal::FitResult& fit = r.probe.fit;
  for (size_t i = 0; i < fit.names.size(); ++i) {
    params.AddRow({fit.names[i], FormatFixed(fit.defaults[i], 4), FormatFixed(fit.values[i], 4),
                   FormatFixed(fit.std_errors[i], 4)});
  }
  std::vector<cal::NamedMetrics> metrics = r.probe.AllMetrics();
  for (auto& m : metrics) m.name = "probe: " + m.name;
  for (const cal::NamedMetrics& m : r.HoldoutMetrics()) metrics.push_back(m);
  std::cout << "\nfit: " << fit.status << ", " << fit.evaluations << " evaluations\n"
            << params.ToText() << "\nerror (per-batch latency):\n"
            << cal::MetricsTable(metrics).ToText();
}

// Fits the profile to the probe rows, reports it with the held-out error, and writes it.
void FitAndWrite(const HostArgs& a, const DetectedCpu& d, const std::string& chip_path,
                 const std::string& probe_csv, const std::string& holdout_csv) {
  cal::HostFitInputs in;
  in.spec_path = chip_path;
  in.stack = "libtorch-cpu";
  in.threads = a.threads;
  in.probe_files = {probe_csv};
  if (!holdout_csv.empty()) in.holdout_files = {holdout_csv};
  in.device = d.name;
  in.profile_name = d.name + "-libtorch-cpu-fp32";
  in.cpu_identity = d.cpu.Identity();
  const auto t_fit = std::chrono::steady_clock::now();
  const cal::HostFitResult fit = cal::FitHost(in);
  PrintFit(fit);
  std::cout << "fit and cross-validation: " << FormatFixed(SecondsSince(t_fit), 1) << " s\n";
  const std::string profile_path = a.out_dir + "/" + in.profile_name + ".yaml";
  WriteFileAtomic(profile_path, fit.profile_text);
  std::cout << "wrote " << profile_path << "\n\nsimulate with:\n  dcnas sim MODEL --accel "
            << chip_path << " --set cores=" << a.threads << " --calibration " << profile_path
            << "\n";
}

}  // namespace

int RunCalibrateHost(const Args& args) {
  po::options_description options("options");
  HostArgs a;
  AddOptions(options, a);
  po::variables_map vm;
  if (!Parse(args, "dcnas calibrate-host [--out-dir DIR] [--probe m1,m2,...] [--holdout ...]",
             "Few-shot calibration of this machine's CPU:\n"
             "  1. detects the CPU (vendor, family/model, ISA flags, cores, clock, caches) and\n"
             "     finds its microarchitecture in data/cpus/microarchitectures.yaml (FMA pipes\n"
             "     and their width, sourced);\n"
             "  2. measures the single-thread memory bandwidth (a triad) and writes a chip file,\n"
             "     DIR/NAME.yaml, every value tagged measured, table or assumption;\n"
             "  3. times the probe models (at most 10) and the held-out models with LibTorch\n"
             "     (`dcnas measure`, one thread by process CPU time), into DIR/probe.csv and\n"
             "     DIR/holdout.csv; rows already there are kept, so a cut run continues;\n"
             "  4. fits the simulator to the probe rows (k-fold and leave-one-family-out on them)\n"
             "     and reports the error on the held-out models, which the fit never saw;\n"
             "  5. writes the profile DIR/NAME-libtorch-cpu-fp32.yaml; it records this CPU, and\n"
             "     the simulator warns when it is used on another.",
             options, {}, vm)) {
    return 0;
  }
  const DetectedCpu detected = Detect(a);
  const ModelSets sets = CheckModelSets(a);
  const std::string chip_text = ChipText(a, detected);
  if (a.detect_only) {
    std::cout << "\n" << chip_text;
    return 0;
  }
  std::filesystem::create_directories(a.out_dir);
  const std::string chip_path = a.out_dir + "/" + detected.name + ".yaml";
  WriteFileAtomic(chip_path, chip_text);
  std::cout << "wrote " << chip_path << "\n";
  const std::string probe_csv = a.out_dir + "/probe.csv";
  const std::string holdout_csv = sets.holdout.empty() ? "" : a.out_dir + "/holdout.csv";
  TimeModelSets(a, detected.name, sets, probe_csv, holdout_csv);
  FitAndWrite(a, detected, chip_path, probe_csv, holdout_csv);
  return 0;
}

}  // namespace dcnas::cli
