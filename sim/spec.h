// AcceleratorSpec: the silicon, read from data/accelerators/NAME.yaml. Hardware is data: adding a
// chip or a what-if variant (`extends: tpu-v3` plus a few changed keys, or `--set key=value`)
// needs no code. sim/README.md documents every field and its unit.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "common/override.h"
#include "common/yaml_fwd.h"
#include "models/tensor.h"
#include "sim/cost/types.h"

namespace dcnas::sim {

using cost::DTypeIndex;
using cost::kNumDTypes;
using cost::MatrixKind;
using cost::MatrixUnitSpec;
using cost::PerDType;

// The vector unit of one core.
struct VectorUnitSpec {
  int lanes = 0;                         // ALUs per core (TPU lanes x sublanes, CUDA cores per SM)
  PerDType ops_per_lane_per_cycle{};     // elementwise ops (an FMA counts as one op and one MAC)
  double transcendentals_per_cycle = 0;  // exp/reciprocal results per cycle per core
};

// Error correction of the off-chip memory (AcceleratorSpec::hbm_ecc).
enum class HbmEcc { kOff, kSideband, kInline };

// One level of on-chip memory (VMEM, L2, shared memory).
struct OnChipLevel {
  std::string name;  // vmem, l2, shared, ...
  double capacity_kib = 0;
  double bandwidth_gbps = 0;   // for the whole chip
  bool per_core = false;       // capacity is per core (VMEM, shared memory) or chip-wide (L2)
  bool holds_tensors = false;  // the level used for reuse and fusion decisions (exactly one)
};

// How chips talk to each other in a data-parallel slice (optional; training steps only). A ring
// or switch topology runs a ring all-reduce over all links at once; a 2D torus reduces
// dimension by dimension over half the links each (sim/collective.h has the closed forms).
struct InterconnectSpec {
  std::string topology = "none";  // none, ring, switch, torus2d
  std::string name;               // ICI, NVLink, PCIe (informational)
  int links_per_chip = 0;
  double link_bandwidth_gbps = 0;  // per link, per direction (GB/s)
  double link_latency_us = 0;      // per step of a ring (hop latency and synchronisation)
  // Data-parallel replicas per chip: TPU v2/v3 TensorCores are separate devices (2); one
  // replica per chip for GPUs and TPU v4 megacore.
  int replicas_per_chip = 1;
  bool present() const { return topology != "none"; }
};

// Board power and the clock it sustains (optional; GPUs). Under sustained load a GPU holds the
// highest clock whose power fits its board limit. The power a chip would draw at its boost clock
// is core_w_per_ghz x cores x boost, core_w_per_ghz taken from a reference part of the same die
// or process that is assumed to run at its board power at boost (its board W / (cores x boost)).
// Along the voltage-frequency curve dynamic power goes as f^dvfs_exponent: P ~ f V^2, with V
// rising less than f near a voltage floor, so between 1 and 3 (default 2; sim/README.md, "Board
// power"). The sustained clock is boost x min(1, board_w / demand)^(1 / dvfs_exponent).
struct PowerSpec {
  double board_w = 0;         // board power limit (TDP / TGP), W; 0: no power section
  double core_w_per_ghz = 0;  // W one core draws per GHz at full load and boost voltage
  double dvfs_exponent = 2;   // P ~ f^k along the voltage-frequency curve
  bool present() const { return board_w > 0; }
};

// The silicon: clock, cores, matrix and vector units, HBM and on-chip memories, with the
// file it was read from and the overrides applied.
struct AcceleratorSpec {
  std::string name;
  std::string description;
  std::string file;  // resolved path
  std::vector<std::string> extends_chain;
  std::vector<Override> overrides;  // applied --set values
  bool hypothetical = false;
  std::string kind;  // tpu, gpu, cpu (informational)
  double clock_ghz = 0;
  int cores = 0;  // TensorCores, SMs, CPU cores
  MatrixUnitSpec matrix_unit;
  VectorUnitSpec vector_unit;
  double hbm_capacity_gib = 0;
  double hbm_bandwidth_gbps = 0;
  // Error correction of the off-chip memory: off (or no ECC), sideband (check bits in devices of
  // their own, as HBM2: no cost) or inline (check bits in the data devices, as GDDR with ECC on:
  // 1 byte in 16 of the capacity and of every transfer, HbmDataFraction()).
  HbmEcc hbm_ecc = HbmEcc::kOff;
  std::vector<OnChipLevel> on_chip;  // non-empty
  InterconnectSpec interconnect;     // topology none when the file has no interconnect section
  PowerSpec power;                   // absent (board_w 0) when the file has no power section
  uint64_t fingerprint = 0;          // hash of every numeric field (cache identity)

  double clock_hz() const { return clock_ghz * 1e9; }
  // The clock the cores hold under sustained load: clock_ghz (boost), lowered to fit the board
  // power when a power section says the chip cannot sustain it (PowerSpec). Spec peaks (below)
  // use the boost clock; the cost model uses this one.
  double SustainedClockGhz() const;
  double sustained_clock_hz() const { return SustainedClockGhz() * 1e9; }
  bool MatrixSupports(models::DType dtype) const {
    return matrix_unit.macs_per_cycle[DTypeIndex(dtype)] > 0;
  }
  // Whether the chip file gives the vector unit its own rate for `dtype`.
  bool VectorSupports(models::DType dtype) const {
    return vector_unit.ops_per_lane_per_cycle[DTypeIndex(dtype)] > 0;
  }
  // "" when the chip file gives `dtype` a rate on the matrix unit or the vector unit; otherwise
  // a note for the user that the dtype's work is simulated at the vector unit's fp32 rate,
  // naming the dtypes each unit does list (a V100's fp32 runs on its CUDA cores, the vector
  // unit, by design: no note; a TPU v3 has no int8 rate anywhere: a note).
  std::string UnlistedDTypeNote(models::DType dtype) const;
  // Whole-chip peaks. A dtype without its own vector rate runs at the fp32 rate.
  double PeakMatrixMacsPerS(models::DType dtype) const;
  double PeakVectorOpsPerS(models::DType dtype) const;
  // FLOP/s used for rooflines: matrix peak (2 FLOPs per MAC), or the vector unit's FMA rate when
  // the matrix unit does not support the dtype.
  double PeakFlopsPerS(models::DType dtype) const;
  // Share of the off-chip memory's capacity and bandwidth that carries data (15/16 with inline
  // ECC).
  double HbmDataFraction() const { return hbm_ecc == HbmEcc::kInline ? 15.0 / 16.0 : 1.0; }
  // Bandwidth and capacity left for data (inline ECC takes its share of both).
  double HbmBytesPerS() const { return hbm_bandwidth_gbps * 1e9 * HbmDataFraction(); }
  double HbmUsableGib() const { return hbm_capacity_gib * HbmDataFraction(); }
  // The level with holds_tensors, used for reuse and fusion fit decisions (chip-wide bytes).
  const OnChipLevel& ReuseLevel() const;
  double ReuseCapacityBytes() const;
  // Ridge point of the roofline (FLOP/byte).
  double RidgeFlopPerByte(models::DType dtype) const {
    return PeakFlopsPerS(dtype) / HbmBytesPerS();
  }
};

// Names of the shipped accelerators (data/accelerators/*.yaml), sorted.
std::vector<std::string> AcceleratorNames();

// Loads by name (data/accelerators/NAME.yaml) or by path (anything containing '/' or ending in
// .yaml). Resolves `extends`, applies overrides, validates. Throws InputError naming file and key
// path (unknown key, wrong type, impossible value) or the closest names (unknown accelerator).
AcceleratorSpec LoadAccelerator(const std::string& name_or_path,
                                const std::vector<Override>& overrides = {});

// Parses an already resolved YAML tree (tests build trees in memory); first adds the optional
// keys it leaves out, with their defaults, to `root` (a handle: the caller's tree).
AcceleratorSpec ParseAccelerator(YAML::Node root, const std::string& file);

// Resolves a data-file name in data/<folder>/ (or a path) with closest-name errors.
std::string ResolveDataFile(const std::string& folder, const std::string& name_or_path,
                            const std::string& what);
// Names of the YAML files in data/<folder>/, sorted.
std::vector<std::string> DataFileNames(const std::string& folder);

}  // namespace dcnas::sim
