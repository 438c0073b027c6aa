// Few-shot calibration of this machine's CPU (`dcnas calibrate-host`): identify the core's
// microarchitecture from a sourced table (data/cpus/microarchitectures.yaml), write a chip file
// for it (FMA datapath width and units per core, clock, caches, a measured memory bandwidth), then
// fit the simulator's CalibrationParams to a small probe set measured here and judge the profile
// on models it never saw. Measuring is the caller's (LibTorch lives in models/torch).
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "calibrate/calibration_run.h"
#include "calibrate/measurement.h"
#include "calibrate/metrics.h"
#include "common/host_cpu.h"
#include "sim/calibration_params.h"

namespace dcnas::calibrate {

// One row of the microarchitecture table.
struct Microarchitecture {
  std::string name;  // zen5, sapphire-rapids, ...; generic-* rows match by ISA flags alone
  std::string description;
  std::string vendor;                             // vendor_id; empty for generic rows
  int family = -1;                                // CPUID family; -1 for generic rows
  std::vector<std::pair<int, int>> model_ranges;  // inclusive CPUID model ranges
  std::vector<std::string> required_flags;        // every one must be present
  int fma_units = 0;                              // FMA pipes per core
  int fma_datapath_bits = 0;  // width each pipe executes per cycle (a 512-bit op on a 256-bit
                              // datapath takes two cycles)
  int64_t l2_kib_per_core = 0;
  int64_t l3_kib = 0;  // one L3 instance (a CCD's on AMD)
  std::string sources;
};

// Loads the table; throws InputError naming the file and key for unknown keys, bad hex, empty
// ranges or non-positive widths.
std::vector<Microarchitecture> LoadMicroarchitectures(const std::string& path);

struct MicroarchitectureMatch {
  Microarchitecture uarch;
  bool by_model = false;  // vendor, family and model matched; false: a generic row by ISA flags
};

// The first row whose vendor, family and model range match (and whose required flags are
// present), else the first generic row whose flags are present. Throws InputError listing the
// CPU's identity when nothing matches.
MicroarchitectureMatch MatchMicroarchitecture(const HostCpu& cpu,
                                              const std::vector<Microarchitecture>& table);

// What the chip file derives from the match and the CPU's flags.
struct CoreRates {
  int vector_bits = 0;    // register width the ISA offers: 512 (avx512f), 256 (avx2), 128
  int fp32_lanes = 0;     // fp32 lanes of one register (the micro-kernel's output tile width)
  int fp32_macs = 0;      // fp32 FMAs per cycle per core: units x datapath bits / 32
  int bf16_macs = 0;      // with avx512_bf16 (2 per fp32 lane), 0 without
  int amx_bf16_macs = 0;  // with amx_bf16: 512 per cycle per core (1,024 ops), 0 without
  int64_t l2_kib = 0;     // per core: the detected size when it is plausible, else the table's
  int64_t l3_kib = 0;
  std::string l2_source;  // M (measured/detected) or T (table)
  std::string l3_source;
};
CoreRates DeriveCoreRates(const HostCpu& cpu, const MicroarchitectureMatch& match);

struct HostChipOptions {
  std::string name;         // the accelerator name (file stem)
  double dram_gbps = 0.0;   // measured single-thread triad bandwidth
  double memory_gib = 0.0;  // MemTotal
  std::string date;         // of the detection
};

// The chip file text (data/accelerators schema, kind cpu): every value tagged M (read off this
// machine), T (the microarchitecture table, with its sources) or A (assumption). Throws InputError
// when the options are not usable (empty name, non-positive bandwidth or clock).
std::string HostChipYaml(const HostCpu& cpu, const MicroarchitectureMatch& match,
                         const HostChipOptions& options);

// Single-thread STREAM-style triad a[i] = b[i] + s * c[i] over three arrays of `bytes_per_array`,
// best of `repeats` passes; GB/s counting the three arrays. Throws InputError on sizes below
// 1 MiB or repeats < 1.
double MeasureTriadGbps(size_t bytes_per_array, int repeats);

// MemTotal of /proc/meminfo in GiB (0 when it cannot be read).
double HostMemoryGib();

// The fit and its check on unseen models.
struct HostFitInputs {
  std::string spec_path;                 // the written chip file
  std::string stack;                     // libtorch-cpu
  int threads = 1;                       // the fit sees `threads` cores of the chip (cores=threads)
  std::vector<std::string> probe_files;  // measurement CSVs of the probe models
  std::vector<std::string> holdout_files;  // of the held-out models (may be empty)
  std::string device;                      // device column of the rows (the chip file's name)
  std::string profile_name;
  std::string cpu_identity;  // HostCpu::Identity(), recorded in the profile
  CalibrationOptions options;
};

struct HostFitResult {
  CalibrationResult probe;                 // fit on the probe rows with its cross-validation
  sim::CalibrationParams profile;          // the fitted profile (provenance and cpu set)
  std::string profile_text;                // its file
  std::vector<Measurement> holdout;        // rows of models the fit never saw
  std::vector<double> holdout_default_ms;  // predicted at the documented defaults
  std::vector<double> holdout_fitted_ms;   // predicted by the profile
  ErrorMetrics holdout_default;
  ErrorMetrics holdout_fitted;

  // The held-out models' rows of a metrics table (none without held-out models).
  std::vector<NamedMetrics> HoldoutMetrics() const;
};

// Fits on the probe rows and evaluates on the held-out rows (k-fold cross-validation on the
// probe uses at most as many folds as it has models). Throws InputError when a model is
// in both sets, when no rows are usable, or when the fit does not converge (NotConvergedError).
HostFitResult FitHost(const HostFitInputs& inputs);

}  // namespace dcnas::calibrate
