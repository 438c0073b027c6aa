#include "calibrate/host.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <set>

#include "calibrate/profile.h"
#include "calibrate/report.h"
#include "calibrate/sim_model.h"
#include "common/config_tree.h"
#include "common/errors.h"
#include "common/file_io.h"
#include "common/table.h"
#include "common/text.h"
#include "models/zoo/zoo.h"
#include "sim/spec.h"
#include "sim/stack.h"

namespace dcnas::calibrate {
namespace {

// Detected cache sizes outside these bounds are taken as a VM's CPUID artefact (a guest can
// report the host's whole L3 or nothing), and the table's size is used instead.
constexpr int64_t kMaxPlausibleL2Kib = int64_t{8} * 1024;
constexpr int64_t kMaxPlausibleL3Kib = int64_t{1024} * 1024;

int ParseHex(const std::string& text, const ConfigReader& r, const std::string& key) {
  if (text.size() < 3 || text.size() > 6 || text.rfind("0x", 0) != 0) {
    r.Fail(key, "expected a hex number such as \"0x1a\", got '" + text + "'");
  }
  int v = 0;
  for (size_t i = 2; i < text.size(); ++i) {
    const char c = static_cast<char>(std::tolower(static_cast<unsigned char>(text[i])));
    const int digit = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
    if (digit < 0) r.Fail(key, "expected a hex number such as \"0x1a\", got '" + text + "'");
    v = v * 16 + digit;
  }
  return v;
}

bool HasAllFlags(const HostCpu& cpu, const std::vector<std::string>& flags) {
  return std::all_of(flags.begin(), flags.end(),
                     [&cpu](const std::string& f) { return cpu.HasFlag(f); });
}

bool ModelInRanges(int model, const std::vector<std::pair<int, int>>& ranges) {
  return std::any_of(ranges.begin(), ranges.end(),
                     [model](const auto& r) { return model >= r.first && model <= r.second; });
}

// A YAML double-quoted scalar.
std::string Quoted(const std::string& text) {
  std::string out = "\"";
  for (char c : text) {
    if (c == '"' || c == '\\') out += '\\';
    if (static_cast<unsigned char>(c) >= 0x20) out += c;
  }
  return out + "\"";
}

}  // namespace

std::vector<Microarchitecture> LoadMicroarchitectures(const std::string& path) {
  const YAML::Node root = LoadYamlFile(path);
  ConfigReader top(root, path, "");
  std::vector<Microarchitecture> out;
  for (ConfigReader& r : top.MapList("microarchitectures")) {
    Microarchitecture u;
    u.name = r.String("name");
    u.description = r.StringOr("description", "");
    u.vendor = r.StringOr("vendor", "");
    if (r.Has("family")) u.family = ParseHex(r.String("family"), r, "family");
    if (r.Has("models")) {
      for (const std::string& range : r.StringList("models", false)) {
        const size_t dash = range.find('-');
        if (dash == std::string::npos) {
          r.Fail("models", "expected ranges such as \"0x10-0x1f\", got '" + range + "'");
        }
        const int lo = ParseHex(range.substr(0, dash), r, "models");
        const int hi = ParseHex(range.substr(dash + 1), r, "models");
        if (hi < lo) r.Fail("models", "empty range '" + range + "'");
        u.model_ranges.emplace_back(lo, hi);
      }
    }
    if ((u.family >= 0) != !u.vendor.empty() || (u.family >= 0) != !u.model_ranges.empty()) {
      r.Fail("name", "a row names vendor, family and models together, or none of them (generic)");
    }
    u.required_flags = r.StringList("required_flags", true);
    u.fma_units = static_cast<int>(r.Integer("fma_units", 1, 8));
    u.fma_datapath_bits = static_cast<int>(r.Integer("fma_datapath_bits", 128, 1024));
    if (u.fma_datapath_bits % 128 != 0) {
      r.Fail("fma_datapath_bits", "expected a multiple of 128");
    }
    u.l2_kib_per_core = r.Integer("l2_kib_per_core", 64, kMaxPlausibleL2Kib);
    u.l3_kib = r.Integer("l3_kib", 0, kMaxPlausibleL3Kib);
    u.sources = r.String("sources");
    r.Finish();
    out.push_back(u);
  }
  top.Finish();
  return out;
}

MicroarchitectureMatch MatchMicroarchitecture(const HostCpu& cpu,
                                              const std::vector<Microarchitecture>& table) {
  for (const Microarchitecture& u : table) {
    if (u.family >= 0 && u.vendor == cpu.vendor && u.family == cpu.family &&
        ModelInRanges(cpu.model, u.model_ranges) && HasAllFlags(cpu, u.required_flags)) {
      return {u, true};
    }
  }
  for (const Microarchitecture& u : table) {
    if (u.family < 0 && HasAllFlags(cpu, u.required_flags)) return {u, false};
  }
  throw InputError("no microarchitecture row fits this CPU (" + cpu.Identity() +
                   "; it has neither avx2+fma nor avx512f): add a row to "
                   "data/cpus/microarchitectures.yaml");
}

CoreRates DeriveCoreRates(const HostCpu& cpu, const MicroarchitectureMatch& match) {
  CoreRates r;
  r.vector_bits = cpu.HasFlag("avx512f") ? 512 : cpu.HasFlag("avx2") ? 256 : 128;
  r.fp32_lanes = r.vector_bits / 32;
  const int datapath = std::min(r.vector_bits, match.uarch.fma_datapath_bits);
  r.fp32_macs = match.uarch.fma_units * datapath / 32;
  r.bf16_macs = cpu.HasFlag("avx512_bf16") ? 2 * r.fp32_macs : 0;
  r.amx_bf16_macs = cpu.HasFlag("amx_bf16") ? 512 : 0;
  const auto l2 = cpu.Cache(2);
  if (l2 && l2->size_kib >= 64 && l2->size_kib <= kMaxPlausibleL2Kib) {
    r.l2_kib = l2->size_kib;
    r.l2_source = "M";
  } else {
    r.l2_kib = match.uarch.l2_kib_per_core;
    r.l2_source = "T";
  }
  const auto l3 = cpu.Cache(3);
  if (l3 && l3->size_kib >= 1024 && l3->size_kib <= match.uarch.l3_kib * 4 &&
      l3->size_kib <= kMaxPlausibleL3Kib) {
    r.l3_kib = l3->size_kib;
    r.l3_source = "M";
  } else {
    r.l3_kib = match.uarch.l3_kib;
    r.l3_source = "T";
  }
  return r;
}

std::string HostChipYaml(const HostCpu& cpu, const MicroarchitectureMatch& match,
                         const HostChipOptions& o) {
  if (o.name.empty()) throw InputError("the chip file needs a name");
  if (!(o.dram_gbps > 0.0) || !std::isfinite(o.dram_gbps)) {
    throw InputError("the measured memory bandwidth is not positive: " +
                     FormatFixed(o.dram_gbps, 3));
  }
  if (!(cpu.clock_mhz > 0.0)) {
    throw InputError("no CPU clock found (/proc/cpuinfo 'cpu MHz' or cpufreq)");
  }
  const CoreRates r = DeriveCoreRates(cpu, match);
  const Microarchitecture& u = match.uarch;
  const double ghz = cpu.clock_mhz / 1000.0;
  const std::string uarch_tag = "T: " + u.name + " [" + u.sources + "]";
  std::string y;
  y += "# Written by `dcnas calibrate-host` on " + o.date + " for the CPU it ran on:\n";
  y += "#   " + cpu.Identity() + "\n";
  y += "#   microarchitecture: " + u.name + " (" + u.description + ")" +
       (match.by_model ? "" : ", matched by ISA flags only (a generic row)") + "\n";
  y += "#   M = read off this machine, T = data/cpus/microarchitectures.yaml, A = assumption\n";
  y += "# As in epyc-zen4.yaml, the matrix unit is oneDNN's register-blocked fp32 micro-kernel on "
       "the\n";
  y += "# FMA pipes (tile_m output pixels x tile_n channels of one register, one input channel per "
       "step);\n";
  y += "# the vector unit is the same pipes running elementwise code.\n";
  if (r.amx_bf16_macs > 0) {
    y += "# AMX is present (amx_bf16): bf16/int8 matrix rates are AMX's peak on the micro-kernel's "
         "tile\n";
    y += "# shape; data/accelerators/host-cpu.yaml models the AMX tiles themselves.\n";
  }
  y += "name: " + o.name + "\n";
  y += "description: " +
       Quoted(cpu.model_name + " (" + u.name + "), " + std::to_string(cpu.cores) + " cores, " +
              std::to_string(r.vector_bits) + "-bit vectors on " + std::to_string(u.fma_units) +
              " x " + std::to_string(u.fma_datapath_bits) + "-bit FMA pipes") +
       "\n";
  y += "kind: cpu\n";
  y += "clock_ghz: " + FormatFixed(ghz, 3) + "            # M: " + cpu.clock_source + "\n";
  y += "cores: " + std::to_string(cpu.cores) + "                  # M: /proc/cpuinfo (" +
       std::to_string(cpu.logical_cpus) + " logical CPUs)\n";
  y += "matrix_unit:\n";
  y += "  kind: tensor_core\n";
  y += "  tile_m: 8                 # A: oneDNN fp32 micro-kernel rows (output pixels per block)\n";
  y += "  tile_n: " + std::to_string(r.fp32_lanes) + "                # M: fp32 lanes of one " +
       std::to_string(r.vector_bits) + "-bit register (ISA flags)\n";
  y += "  tile_k: 1                 # one input channel per FMA step\n";
  y += "  tiles_per_core: 1\n";
  y += "  units_per_core: 1\n";
  y += "  macs_per_cycle:\n";
  y += "    fp32: " + std::to_string(r.fp32_macs) + "                # " + uarch_tag + ": " +
       std::to_string(u.fma_units) + " FMA pipes x " +
       std::to_string(std::min(r.vector_bits, u.fma_datapath_bits)) + " bits / 32\n";
  if (r.amx_bf16_macs > 0) {
    y += "    bf16: " + std::to_string(r.amx_bf16_macs) + "              # T: AMX [INTEL-AMX]\n";
    y += "    int8: " + std::to_string(2 * r.amx_bf16_macs) + "             # T: AMX [INTEL-AMX]\n";
  } else if (r.bf16_macs > 0) {
    y += "    bf16: " + std::to_string(r.bf16_macs) +
         "                # M: avx512_bf16 dot products, 2 bf16 MACs per fp32 lane\n";
  }
  y += "vector_unit:\n";
  y += "  lanes: " + std::to_string(r.fp32_macs) + "                 # " + uarch_tag +
       ": fp32 lanes the FMA pipes execute per cycle\n";
  y += "  ops_per_lane_per_cycle:\n";
  y += "    fp32: 1\n";
  y += "    bf16: 1                 # A: bf16 elementwise work converted to fp32\n";
  y += "  transcendentals_per_cycle: 1   # A: vectorised exp is ~16 instructions per 16 lanes\n";
  y += "hbm:\n";
  y += "  capacity_gib: " + FormatFixed(std::max(1.0, std::floor(o.memory_gib)), 0) +
       "          # M: /proc/meminfo MemTotal\n";
  y += "  bandwidth_gbps: " + FormatFixed(o.dram_gbps, 1) +
       "      # M: single-thread triad, three arrays counted (dcnas calibrate-host)\n";
  // One cache level: its size's source (M: detected, T: the table's row) and an assumed
  // bytes-per-cycle-per-core bandwidth.
  const auto level = [&](const char* name, bool holds, int64_t kib, const std::string& source,
                         const char* scope, int bytes_per_cycle) {
    std::string l = std::string("  - name: ") + name + "\n";
    l += std::string("    holds_tensors: ") + (holds ? "true " : "false") +
         "   # true: the level used for weight residency and fused intermediates\n";
    l += "    capacity_kib: " + std::to_string(kib) + "     # " + source +
         (source == "M" ? ": " + cpu.caches_source : ": " + u.name) + "\n";
    l += std::string("    scope: ") + scope + "\n";
    l += "    bandwidth_gbps: " + FormatFixed(bytes_per_cycle * ghz * cpu.cores, 0) +
         "   # A: " + std::to_string(bytes_per_cycle) + " B/cycle per core x cores x clock\n";
    return l;
  };
  y += "on_chip:\n";
  y += level("l2", true, r.l2_kib, r.l2_source, "core", 64);
  y += level("l3", false, r.l3_kib, r.l3_source, "chip", 32);
  return y;
}

double MeasureTriadGbps(size_t bytes_per_array, int repeats) {
  if (bytes_per_array < (size_t{1} << 20)) throw InputError("triad arrays below 1 MiB");
  if (repeats < 1) throw InputError("triad repeats below 1");
  const size_t n = bytes_per_array / sizeof(double);
  std::vector<double> a(n, 0.0);
  std::vector<double> b(n, 1.0);
  std::vector<double> c(n, 2.0);
  const double s = 3.0;
  double best = 0.0;
  for (int k = 0; k < repeats + 1; ++k) {  // the first pass touches the pages and is not counted
    const auto t0 = std::chrono::steady_clock::now();
    for (size_t i = 0; i < n; ++i) a[i] = b[i] + s * c[i];
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (k > 0 && seconds > 0.0) {
      best = std::max(best, 3.0 * static_cast<double>(n * sizeof(double)) / seconds / 1e9);
    }
    b[static_cast<size_t>(k) % n] =
        a[(static_cast<size_t>(k) * 7) % n];  // keeps the loop's result live
  }
  return best;
}

double HostMemoryGib() {
  std::string text;
  try {
    text = ReadFile("/proc/meminfo", 1 << 20);
  } catch (const InputError&) {
    return 0.0;
  }
  for (const std::string& line : Split(text, '\n')) {
    if (line.rfind("MemTotal:", 0) == 0) {
      try {
        return std::stod(line.substr(9)) / (1024.0 * 1024.0);  // kB
      } catch (const std::exception&) {
        return 0.0;
      }
    }
  }
  return 0.0;
}

namespace {

std::vector<Measurement> LoadHostRows(const std::vector<std::string>& files,
                                      const HostFitInputs& in, std::string* sha256) {
  Vocabulary vocabulary;
  vocabulary.devices = {in.device};
  vocabulary.stacks = {in.stack};
  const LoadedMeasurements loaded = LoadMeasurementFiles(files, vocabulary);
  if (sha256 != nullptr) *sha256 = loaded.sha256;
  const std::vector<Measurement> selected =
      Select(loaded.rows, {in.device, in.stack, "fp32", kRegimeHostCpu, {}});
  const Resolved resolved = ResolveModels(selected, models::BuiltinModels());
  if (resolved.usable.empty()) {
    throw InputError(Join(files, ", ") + ": no usable " + in.device + " / " + in.stack +
                     " / fp32 / host_cpu rows");
  }
  return resolved.usable;
}

}  // namespace

HostFitResult FitHost(const HostFitInputs& in) {
  HostFitResult out;
  std::string sha256;
  const std::vector<Measurement> probe = LoadHostRows(in.probe_files, in, &sha256);
  if (!in.holdout_files.empty()) out.holdout = LoadHostRows(in.holdout_files, in, nullptr);
  std::set<std::string> probe_models;
  for (const Measurement& m : probe) probe_models.insert(m.model);
  for (const Measurement& m : out.holdout) {
    if (probe_models.count(m.model) > 0) {
      throw InputError("model '" + m.model +
                       "' is in both the probe and the held-out set: a held-out error needs "
                       "models the fit never saw");
    }
  }
  const std::string cores = "cores=" + std::to_string(in.threads);
  const sim::AcceleratorSpec spec = sim::LoadAccelerator(in.spec_path, {ParseOverride(cores)});
  const sim::StackProfile stack = sim::LoadStack(in.stack);
  CalibrationOptions options = in.options;
  // k-fold by model needs k models; a smaller probe set gets leave-one-model-out.
  const int models_in_probe = static_cast<int>(probe_models.size());
  if (options.k_folds > models_in_probe)
    options.k_folds = models_in_probe >= 2 ? models_in_probe : 0;
  if (!options.family_of) {
    options.family_of = [](const Measurement& m) {
      return models::BuiltinModels().Get(m.model).family;
    };
  }
  const SimLatencyModel model(spec, stack, sim::DefaultCalibration(), DefaultFitFields(),
                              models::BuiltinModels());
  out.probe = Calibrate(model, probe, options);
  out.profile = MakeProfile(model, out.probe,
                            {in.profile_name,
                             in.device,
                             in.stack,
                             "fp32",
                             kRegimeHostCpu,
                             in.probe_files,
                             sha256,
                             {},
                             DefaultFitFields(),
                             {cores},
                             TodayUtc(),
                             in.cpu_identity});
  if (!out.holdout.empty()) {
    std::vector<double> measured;
    std::vector<std::string> labels;
    std::vector<std::string> groups;
    for (const Measurement& m : out.holdout) {
      measured.push_back(m.latency_ms);
      labels.push_back(m.model + " b" + std::to_string(m.batch_size));
      groups.push_back(std::to_string(m.batch_size));
    }
    out.holdout_default_ms = model.PredictAllMs(out.probe.fit.defaults, out.holdout);
    out.holdout_fitted_ms = model.PredictAllMs(out.probe.fit.values, out.holdout);
    out.holdout_default = ComputeMetrics(out.holdout_default_ms, measured, labels, groups);
    out.holdout_fitted = ComputeMetrics(out.holdout_fitted_ms, measured, labels, groups);
    AddMetrics(out.profile.fit_metrics, "holdout", out.holdout_fitted);
    AddMetrics(out.profile.fit_metrics, "holdout_defaults", out.holdout_default);
  }
  std::string title = spec.name + "[" + cores + "] / " + stack.name + " / fp32 (host_cpu)";
  out.profile_text = ProfileFileText(out.profile, out.probe, title, out.HoldoutMetrics());
  return out;
}

std::vector<NamedMetrics> HostFitResult::HoldoutMetrics() const {
  if (holdout.empty()) return {};
  return {{"held-out models, defaults", holdout_default},
          {"held-out models, fitted", holdout_fitted}};
}

}  // namespace dcnas::calibrate
