#include "sim/spec.h"

#include <catch2/catch.hpp>
#include <cmath>

#include "common/errors.h"
#include "sim/calibration_params.h"
#include "sim/stack.h"
#include "tests/sim/test_util.h"

namespace dcnas::sim {
namespace {

using Catch::Matchers::Contains;
using testing::TempDir;

const char* kMinimal = R"(name: mini
kind: tpu
clock_ghz: 1.0
cores: 1
matrix_unit:
  kind: systolic
  rows: 128
  cols: 128
  units_per_core: 1
  passes_per_dtype: {bf16: 1}
vector_unit:
  lanes: 1024
  ops_per_lane_per_cycle: {fp32: 1, bf16: 1}
  transcendentals_per_cycle: 128
hbm:
  capacity_gib: 16
  bandwidth_gbps: 1000
on_chip:
  - {name: vmem, capacity_kib: 16384, scope: core, bandwidth_gbps: 10000, holds_tensors: true}
)";

TEST_CASE("every shipped accelerator loads, with consistent peaks") {
  const auto names = AcceleratorNames();
  for (const char* required :
       {"tpu-v2", "tpu-v3", "tpu-v4", "v100", "a100", "a30", "a10", "h100", "h200", "t4",
        "rtx-3090", "rtx-4090", "host-cpu", "epyc-zen4", "tpu-v3-hbm2x", "tpu-v3-mxu256"}) {
    CHECK(std::find(names.begin(), names.end(), required) != names.end());
  }
  for (const auto& name : names) {
    INFO(name);
    const AcceleratorSpec s = LoadAccelerator(name);
    CHECK(s.name == name);
    CHECK(s.PeakFlopsPerS(models::DType::kFp32) > 0);
    CHECK(s.RidgeFlopPerByte(models::DType::kBf16) > 0);
  }
  // Sourced peaks (hardware fact sheet).
  CHECK(LoadAccelerator("tpu-v3").PeakFlopsPerS(models::DType::kBf16) / 1e12 ==
        Approx(123.0).epsilon(0.01));
  CHECK(LoadAccelerator("tpu-v2").PeakFlopsPerS(models::DType::kBf16) / 1e12 ==
        Approx(46.0).epsilon(0.01));
  CHECK(LoadAccelerator("tpu-v4").PeakFlopsPerS(models::DType::kBf16) / 1e12 ==
        Approx(275.0).epsilon(0.01));
  CHECK(LoadAccelerator("v100").PeakFlopsPerS(models::DType::kFp16) / 1e12 ==
        Approx(125.0).epsilon(0.01));
  CHECK(LoadAccelerator("a100").PeakFlopsPerS(models::DType::kFp16) / 1e12 ==
        Approx(312.0).epsilon(0.01));
  CHECK(LoadAccelerator("h100").PeakFlopsPerS(models::DType::kFp16) / 1e12 ==
        Approx(989.4).epsilon(0.01));
  // The H200 is the H100's die with HBM3e: the same peaks and SMs, 4.8 against 3.35 TB/s.
  const AcceleratorSpec h100 = LoadAccelerator("h100");
  const AcceleratorSpec h200 = LoadAccelerator("h200");
  CHECK(h200.PeakFlopsPerS(models::DType::kFp16) == h100.PeakFlopsPerS(models::DType::kFp16));
  CHECK(h200.cores == h100.cores);
  CHECK(h200.hbm_bandwidth_gbps / h100.hbm_bandwidth_gbps == Approx(4800.0 / 3352.0));
  CHECK(h200.RidgeFlopPerByte(models::DType::kFp16) < h100.RidgeFlopPerByte(models::DType::kFp16));
  CHECK(LoadAccelerator("rtx-3090").PeakFlopsPerS(models::DType::kFp16) / 1e12 ==
        Approx(71.0).epsilon(0.01));
  CHECK(LoadAccelerator("v100").PeakFlopsPerS(models::DType::kFp32) / 1e12 ==
        Approx(15.7).epsilon(0.01));
  // The A30's and A10's dense FP16 tensor peaks, 165 and 125 TFLOPS (data/accelerators/SOURCES.md).
  CHECK(LoadAccelerator("a30").PeakFlopsPerS(models::DType::kFp16) / 1e12 ==
        Approx(165.0).epsilon(0.01));
  CHECK(LoadAccelerator("a10").PeakFlopsPerS(models::DType::kFp16) / 1e12 ==
        Approx(125.0).epsilon(0.01));
}

TEST_CASE("a dtype the chip file gives no rate is named, one the vector unit runs is not") {
  const AcceleratorSpec tpu = LoadAccelerator("tpu-v3");
  CHECK(tpu.UnlistedDTypeNote(models::DType::kBf16).empty());
  CHECK(tpu.UnlistedDTypeNote(models::DType::kFp32).empty());
  CHECK(tpu.UnlistedDTypeNote(models::DType::kInt8) ==
        "tpu-v3 lists no int8 rate (matrix unit: fp32, bf16; vector unit: fp32, bf16), so its "
        "int8 work is simulated on the vector unit at the fp32 rate");
  // fp32 on a V100 runs on its CUDA cores (the vector unit): modelled, no note.
  const AcceleratorSpec v100 = LoadAccelerator("v100");
  CHECK_FALSE(v100.MatrixSupports(models::DType::kFp32));
  CHECK(v100.UnlistedDTypeNote(models::DType::kFp32).empty());
  CHECK_THAT(v100.UnlistedDTypeNote(models::DType::kBf16),
             Catch::StartsWith("v100 lists no bf16 rate (matrix unit: fp16;"));
  // Every shipped GPU from Ampere on lists every dtype.
  for (const char* name : {"a100", "h100", "rtx-4090"}) {
    const AcceleratorSpec s = LoadAccelerator(name);
    for (models::DType d : models::kAllDTypes) {
      INFO(name << " " << models::DTypeName(d));
      CHECK(s.UnlistedDTypeNote(d).empty());
    }
  }
}

TEST_CASE("extends merges maps and overrides apply to any field") {
  const AcceleratorSpec v = LoadAccelerator("tpu-v3-hbm2x");
  CHECK(v.hbm_bandwidth_gbps == 1800);
  CHECK(v.hypothetical);
  CHECK(v.matrix_unit.rows == 128);
  CHECK(v.extends_chain == std::vector<std::string>{"tpu-v3"});
  const AcceleratorSpec m = LoadAccelerator("tpu-v3-mxu256");
  CHECK(m.matrix_unit.rows == 256);
  CHECK(m.matrix_unit.macs_per_cycle[DTypeIndex(models::DType::kBf16)] == 65536);
  CHECK(m.vector_unit.lanes == 1024);
  const AcceleratorSpec o = LoadAccelerator("tpu-v3", {{"matrix_unit.rows", "256"},
                                                       {"hbm.bandwidth_gbps", "1800"},
                                                       {"on_chip.0.capacity_kib", "32768"}});
  CHECK(o.matrix_unit.rows == 256);
  CHECK(o.hbm_bandwidth_gbps == 1800);
  CHECK(o.on_chip[0].capacity_kib == 32768);
  // A bigger array does rows x cols MACs per cycle.
  CHECK(o.matrix_unit.macs_per_cycle[DTypeIndex(models::DType::kBf16)] == 256 * 128);
  CHECK(o.matrix_unit.macs_per_cycle[DTypeIndex(models::DType::kFp32)] == Approx(256 * 128 / 3.0));
  CHECK(o.fingerprint != LoadAccelerator("tpu-v3").fingerprint);
}

TEST_CASE("inline ECC takes 1/16 of the off-chip memory's bandwidth and capacity") {
  // The T4 (GDDR6, ECC on by default): 320 GB/s and 16 GB on the spec sheet, 300 GB/s (its
  // datasheet's figure) and 15 GB for data. Sideband ECC (HBM) and ECC off cost nothing.
  const AcceleratorSpec t4 = LoadAccelerator("t4");
  CHECK(t4.hbm_ecc == HbmEcc::kInline);
  CHECK(t4.HbmBytesPerS() == Approx(300e9));
  CHECK(t4.HbmUsableGib() == Approx(15.0));
  CHECK(t4.RidgeFlopPerByte(models::DType::kFp16) ==
        Approx(t4.PeakFlopsPerS(models::DType::kFp16) / 300e9));
  const AcceleratorSpec v100 = LoadAccelerator("v100");
  CHECK(v100.hbm_ecc == HbmEcc::kSideband);
  CHECK(v100.HbmBytesPerS() == Approx(900e9));
  CHECK(v100.HbmUsableGib() == Approx(16.0));
  CHECK(LoadAccelerator("rtx-4090").hbm_ecc == HbmEcc::kOff);
  CHECK(LoadAccelerator("tpu-v3").hbm_ecc == HbmEcc::kOff);  // absent: off
  // A what-if with ECC switched off on the T4, or on (inline) on the V100.
  const AcceleratorSpec t4_off = LoadAccelerator("t4", {{"hbm.ecc", "off"}});
  CHECK(t4_off.HbmBytesPerS() == Approx(320e9));
  CHECK(t4_off.fingerprint != t4.fingerprint);
  CHECK(LoadAccelerator("v100", {{"hbm.ecc", "inline"}}).HbmBytesPerS() == Approx(843.75e9));
  CHECK_THROWS_WITH(LoadAccelerator("t4", {{"hbm.ecc", "parity"}}),
                    Contains("hbm.ecc") && Contains("parity"));
}

TEST_CASE("board power: the sustained clock fits the board limit, with a DVFS curve P ~ f^k") {
  TempDir dir;
  // 10 cores at 2 GHz drawing 5 W per core-GHz want 100 W.
  auto with_power = [&](const std::string& power) {
    std::string t = kMinimal;
    t.replace(t.find("clock_ghz: 1.0"), 14, "clock_ghz: 2.0");
    t.replace(t.find("cores: 1"), 8, "cores: 10");
    return LoadAccelerator(dir.Write("p.yaml", t + power));
  };
  const AcceleratorSpec none = with_power("");
  CHECK_FALSE(none.power.present());
  CHECK(none.SustainedClockGhz() == 2.0);
  // Enough board power: the boost clock.
  CHECK(with_power("power: {board_w: 100, core_w_per_ghz: 5}\n").SustainedClockGhz() == 2.0);
  CHECK(with_power("power: {board_w: 250, core_w_per_ghz: 5}\n").SustainedClockGhz() == 2.0);
  // An eighth of the power: 1/sqrt(8) of the clock by default (P ~ f^2); half of it with P ~ f^3;
  // with a linear curve an eighth of it.
  const AcceleratorSpec capped = with_power("power: {board_w: 12.5, core_w_per_ghz: 5}\n");
  CHECK(capped.power.dvfs_exponent == 2);
  CHECK(capped.SustainedClockGhz() == Approx(2.0 / std::sqrt(8.0)));
  CHECK(with_power("power: {board_w: 12.5, core_w_per_ghz: 5, dvfs_exponent: 3}\n")
            .SustainedClockGhz() == Approx(1.0));
  CHECK(with_power("power: {board_w: 12.5, core_w_per_ghz: 5, dvfs_exponent: 1}\n")
            .SustainedClockGhz() == Approx(0.25));
  // Spec peaks stay at the boost clock; the fingerprint sees the power section.
  CHECK(capped.PeakVectorOpsPerS(models::DType::kFp32) ==
        none.PeakVectorOpsPerS(models::DType::kFp32));
  CHECK(capped.fingerprint != none.fingerprint);
  // Bad input names the key.
  std::string t = kMinimal;
  const std::string bad = dir.Write("bad.yaml", t + "power: {board_w: 0, core_w_per_ghz: 5}\n");
  CHECK_THROWS_WITH(LoadAccelerator(bad), Contains("bad.yaml") && Contains("power.board_w"));
  dir.Write("bad.yaml", t + "power: {board_w: 70}\n");
  CHECK_THROWS_WITH(LoadAccelerator(bad), Contains("power.core_w_per_ghz"));
  dir.Write("bad.yaml", t + "power: {board_w: 70, core_w_per_ghz: 2, watts: 3}\n");
  CHECK_THROWS_WITH(LoadAccelerator(bad), Contains("unknown key 'power.watts'"));
  // The shipped parts: a reference part holds its boost clock; a part that shares its die or
  // process at a lower board power does not (T4 against the V100's SMs, A30 against the A100's,
  // A10 against the RTX 3090's), and a --set of the board power is a what-if.
  for (const char* own : {"v100", "a100", "rtx-3090", "rtx-4090", "h100", "h200"}) {
    INFO(own);
    const AcceleratorSpec s = LoadAccelerator(own);
    CHECK(s.power.present());
    CHECK(s.SustainedClockGhz() == s.clock_ghz);
  }
  CHECK(LoadAccelerator("t4").SustainedClockGhz() == Approx(1.066).epsilon(0.001));
  CHECK(LoadAccelerator("a30").SustainedClockGhz() == Approx(1.271).epsilon(0.001));
  CHECK(LoadAccelerator("a10").SustainedClockGhz() == Approx(1.184).epsilon(0.001));
  CHECK(LoadAccelerator("v100", {{"power.board_w", "150"}}).SustainedClockGhz() ==
        Approx(1.53 * std::sqrt(150 / (2.45 * 80 * 1.53))));
  CHECK(LoadAccelerator("t4", {{"power.dvfs_exponent", "3"}}).SustainedClockGhz() ==
        Approx(1.218).epsilon(0.001));
  // Optional keys a chip file leaves out are reachable by --set (tpu-v2 names no ECC, dataflow
  // or double buffering); keys of a section the file lacks, and misspelt keys, are not.
  const AcceleratorSpec v2 = LoadAccelerator("tpu-v2", {{"hbm.ecc", "inline"},
                                                        {"matrix_unit.dataflow", "os"},
                                                        {"matrix_unit.double_buffered", "false"}});
  CHECK(v2.hbm_ecc == HbmEcc::kInline);
  CHECK(v2.matrix_unit.dataflow == cost::Dataflow::kOutputStationary);
  CHECK_FALSE(v2.matrix_unit.double_buffered);
  CHECK_THROWS_WITH(LoadAccelerator("tpu-v2", {{"power.dvfs_exponent", "3"}}),
                    Contains("no key 'power'"));
  CHECK_THROWS_WITH(LoadAccelerator("t4", {{"power.dvfs_exponet", "3"}}),
                    Contains("power.dvfs_exponet") && Contains("dvfs_exponent"));
  CHECK_THROWS_WITH(LoadAccelerator("t4", {{"matrix_unit.dataflow", "os"}}),
                    Contains("matrix_unit.dataflow"));
  CHECK_FALSE(LoadAccelerator("tpu-v3").power.present());
}

TEST_CASE("bad accelerator input names file and key") {
  TempDir dir;
  const std::string ok = dir.Write("mini.yaml", kMinimal);
  CHECK(LoadAccelerator(ok).cores == 1);
  auto fails = [&](const std::string& text, const std::string& expected) {
    const std::string path = dir.Write("bad.yaml", text);
    INFO(expected);
    CHECK_THROWS_WITH(LoadAccelerator(path), Contains("bad.yaml") && Contains(expected));
  };
  std::string t = kMinimal;
  fails(std::string(kMinimal) + "colour: blue\n", "unknown key 'colour'");
  t = kMinimal;
  fails(t.replace(t.find("bandwidth_gbps: 1000"), 20, "bandwidth_gbps: 0"), "hbm.bandwidth_gbps");
  t = kMinimal;
  fails(t.replace(t.find("bandwidth_gbps: 1000"), 20, "bandwidth_gbps: -5"), "hbm.bandwidth_gbps");
  t = kMinimal;
  fails(t.replace(t.find("rows: 128"), 9, "rows: many"), "matrix_unit.rows");
  t = kMinimal;
  fails(t.replace(t.find("on_chip:"), std::string::npos, "on_chip: []\n"), "on_chip");
  t = kMinimal;
  fails(t.replace(t.find("{bf16: 1}"), 9, "{bf17: 1}"), "passes_per_dtype.bf17");
  t = kMinimal;
  fails(t.replace(t.find("lanes: 1024"), 11, "lane: 1024"), "vector_unit.lane");
  t = kMinimal;
  fails(t.replace(t.find("holds_tensors: true"), 19, "holds_tensors: false"), "holds_tensors");
  t = kMinimal;
  fails(t.replace(t.find("kind: systolic"), 14, "kind: photonic"),
        "matrix_unit.kind': expected systolic or tensor_core, got 'photonic'");
  // Every word-valued key names its choices (and their meanings, where they have one).
  t = kMinimal;
  fails(t.replace(t.find("kind: tpu"), 9, "kind: fpga"), "'kind': expected tpu, gpu or cpu");
  t = kMinimal;
  fails(t.replace(t.find("scope: core"), 11, "scope: cluster"),
        "on_chip.0.scope': expected core or chip, got 'cluster'");
  t = kMinimal;
  fails(t.replace(t.find("rows: 128"), 9, "rows: 128\n  dataflow: rs"),
        "expected ws (weight-stationary), os (output-stationary) or is (input-stationary), got "
        "'rs'");
  t = kMinimal;
  fails(t.replace(t.find("bandwidth_gbps: 1000"), 20, "bandwidth_gbps: 1000\n  ecc: chipkill"),
        "hbm.ecc': expected off, sideband (check bits in separate devices) or inline (check bits "
        "in the data devices), got 'chipkill'");
  CHECK_THROWS_WITH(LoadAccelerator("tpu-v9"),
                    Contains("unknown accelerator 'tpu-v9'") && Contains("tpu-v"));
  CHECK_THROWS_WITH(LoadAccelerator("tpu-v3", {{"matrix_unit.rowz", "256"}}),
                    Contains("matrix_unit.rowz") && Contains("rows"));
  CHECK_THROWS_WITH(LoadAccelerator("tpu-v3", {{"hbm.bandwidth_gbps", "0"}}),
                    Contains("hbm.bandwidth_gbps"));
  CHECK_THROWS_WITH(LoadAccelerator("tpu-v3", {{"on_chip.3.capacity_kib", "1"}}),
                    Contains("on_chip"));
  CHECK_THROWS_WITH(LoadAccelerator("tpu-v3", {{"on_chip.99999999999999999999.capacity_kib", "1"}}),
                    Contains("on_chip"));
  dir.Write("child.yaml", "name: child\nextends: nosuch\n");
  CHECK_THROWS_WITH(LoadAccelerator(dir.path() + "/child.yaml"),
                    Contains("child.yaml") && Contains("extends"));
  dir.Write("loop.yaml", "name: loop\nextends: loop\n");
  CHECK_THROWS_WITH(LoadAccelerator(dir.path() + "/loop.yaml"), Contains("cycle"));
  // Ambiguous YAML is refused: duplicate keys, several documents, foreign tags; and a directory.
  fails(std::string(kMinimal) + "cores: 2\n", "duplicate key 'cores'");
  fails(std::string(kMinimal) + "---\nname: other\n", "more than one YAML document");
  t = kMinimal;
  fails(t.replace(t.find("clock_ghz: 1.0"), 14, "clock_ghz: !weird 1.0"), "unsupported YAML tag");
  CHECK_THROWS_WITH(LoadAccelerator(dir.path()), Contains("is a directory"));
  // What yaml-cpp 0.7 cannot take is refused before it sees it (fuzzing found each one): control
  // characters (it loops), a lone ',' (LoadAll loops), flow nesting deeper than the limit (its
  // parser recurses); and after parsing, keys that are not names, and alias bombs.
  fails(std::string(kMinimal) + "notes: a\x03\n", "control character 0x03");
  fails(std::string("\0,\0", 3), "control character 0x00");
  fails(",", "more than one YAML document");
  fails(std::string(kMinimal) + "x: " + std::string(70000, '[') + std::string(70000, ']') + "\n",
        "nested deeper than 64");
  fails(std::string(kMinimal) + "notes: '" + std::string(100, '[') + "'\n", "unknown key");
  fails(std::string(kMinimal) + "? {a: 1}\n: 2\n", "a map key must be a plain name");
  std::string bomb = std::string(kMinimal) + "l0: &l0 [x, x, x, x, x, x, x, x, x, x]\n";
  for (int i = 1; i < 8; ++i) {
    const std::string prev = "*l" + std::to_string(i - 1);
    bomb += "l" + std::to_string(i) + ": &l" + std::to_string(i) + " [" + prev;
    for (int k = 1; k < 10; ++k) bomb += ", " + prev;
    bomb += "]\n";
  }
  fails(bomb, "more than 1000000 YAML nodes");
  dir.Write("escape.yaml", "name: escape\nextends: ../escape\n");
  CHECK_THROWS_WITH(LoadAccelerator(dir.path() + "/escape.yaml"), Contains("not a file name"));
}

TEST_CASE("every shipped stack loads; rules as documented") {
  for (const auto& name : StackNames()) {
    INFO(name);
    CHECK(LoadStack(name).name == name);
  }
  const StackProfile xla = LoadStack("xla-tpu");
  const StackProfile trt = LoadStack("tensorrt");
  CHECK(xla.FusesActivation(models::Activation::kSwish));
  CHECK_FALSE(trt.FusesActivation(models::Activation::kSwish));
  CHECK(trt.FusesActivation(models::Activation::kRelu));
  CHECK(trt.Alignment(models::DType::kFp16) == 8);
  CHECK(LoadStack("tensorrt", {{"kernel_overhead_us", "7"}}).kernel_overhead_us == 7);
  CHECK_THROWS_WITH(LoadStack("tensorrt", {{"fusion.swish", "true"}}), Contains("fusion.swish"));
  // Optional keys a stack file leaves out take their defaults and can still be overridden; a
  // misspelt one is refused.
  const StackProfile eager = LoadStack("pytorch-eager");
  CHECK_FALSE(eager.async_launch);
  CHECK_FALSE(eager.inter_kernel_reuse);
  CHECK(eager.gemm_min_tile == 0);
  CHECK(eager.grouped_conv_min_tile == 0);
  // TensorFlow's graph executor without XLA: the eager rules (one kernel per op), in NHWC.
  const StackProfile tf = LoadStack("tensorflow");
  CHECK(tf.max_group_ops == 1);
  CHECK_FALSE(tf.fuse_batch_norm);
  CHECK_FALSE(tf.FusesActivation(models::Activation::kRelu));
  CHECK(tf.layout == "nhwc");
  CHECK(eager.layout == "nchw");
  CHECK(tf.kernel_overhead_us == eager.kernel_overhead_us);
  const StackProfile queued =
      LoadStack("pytorch-eager", {{"async_launch", "true"}, {"gemm_min_tile", "32"}});
  CHECK(queued.async_launch);
  CHECK(queued.gemm_min_tile == 32);
  CHECK(queued.fingerprint != eager.fingerprint);
  CHECK(LoadStack("tensorrt", {{"intermediates_in_registers", "true"}}).intermediates_in_registers);
  const StackProfile narrow_groups = LoadStack("tensorflow", {{"grouped_conv_min_tile", "32"}});
  CHECK(narrow_groups.grouped_conv_min_tile == 32);
  CHECK(narrow_groups.gemm_min_tile == 0);
  CHECK(narrow_groups.fingerprint != tf.fingerprint);
  CHECK_THROWS_WITH(LoadStack("pytorch-eager", {{"grouped_conv_min_tile", "-1"}}),
                    Contains("grouped_conv_min_tile"));
  // The gradients' own rule: default 0, its own fingerprint, range-checked under its own name.
  CHECK(eager.grouped_conv_backward_min_tile == 0);
  const StackProfile narrow_grads = LoadStack(
      "tensorflow", {{"grouped_conv_min_tile", "32"}, {"grouped_conv_backward_min_tile", "32"}});
  CHECK(narrow_grads.grouped_conv_backward_min_tile == 32);
  CHECK(narrow_grads.fingerprint != narrow_groups.fingerprint);
  CHECK_THROWS_WITH(LoadStack("pytorch-eager", {{"grouped_conv_backward_min_tile", "5000"}}),
                    Contains("grouped_conv_backward_min_tile"));
  // Layout transposes: off by default, on an NCHW stack only, in the fingerprint.
  CHECK(eager.nchw_conv_transposes == cost::LayoutTransposes::kNone);
  const StackProfile transposed = LoadStack("pytorch-eager", {{"nchw_conv_transposes", "spatial"}});
  CHECK(transposed.nchw_conv_transposes == cost::LayoutTransposes::kSpatial);
  CHECK(transposed.fingerprint != eager.fingerprint);
  CHECK(LoadStack("pytorch-eager", {{"nchw_conv_transposes", "all"}}).nchw_conv_transposes ==
        cost::LayoutTransposes::kAll);
  CHECK_THROWS_WITH(LoadStack("tensorflow", {{"nchw_conv_transposes", "spatial"}}),
                    Contains("nchw_conv_transposes") && Contains("nchw"));
  CHECK_THROWS_WITH(LoadStack("pytorch-eager", {{"nchw_conv_transposes", "some"}}),
                    Contains("nchw_conv_transposes"));
  // The same stack running NHWC tensors (a measurement taken in channels-last): no transposes,
  // and the fingerprint of the stack that has none.
  const StackProfile nhwc = StackInLayout(transposed, "nhwc");
  CHECK(nhwc.layout == "nhwc");
  CHECK(nhwc.nchw_conv_transposes == cost::LayoutTransposes::kNone);
  CHECK(nhwc.fingerprint == eager.fingerprint);
  CHECK(nhwc.kernel_overhead_us == transposed.kernel_overhead_us);
  const StackProfile nchw = StackInLayout(transposed, "nchw");
  CHECK(nchw.nchw_conv_transposes == cost::LayoutTransposes::kSpatial);
  CHECK(nchw.fingerprint == transposed.fingerprint);
  CHECK(StackInLayout(LoadStack("tensorflow"), "nchw").nchw_conv_transposes ==
        cost::LayoutTransposes::kNone);
  CHECK_THROWS_WITH(StackInLayout(eager, "chwn"), Contains("chwn") && Contains("pytorch-eager"));
  // Every optional key, including nested alignments a file leaves out (tensorrt sets no fp32
  // alignment, pytorch-eager no int8 one).
  const StackProfile trt_set = LoadStack("tensorrt", {{"alignment.fp32", "4"},
                                                      {"winograd_tile", "4"},
                                                      {"gemm_split_k", "true"},
                                                      {"allreduce_overlap", "0.5"},
                                                      {"rematerialize_elementwise", "true"},
                                                      {"gemm_tiled_cuda_cores", "true"},
                                                      {"inter_kernel_reuse", "true"},
                                                      {"description", "what-if"}});
  CHECK(trt_set.Alignment(models::DType::kFp32) == 4);
  CHECK(trt_set.winograd_tile == 4);
  CHECK(trt_set.gemm_split_k);
  CHECK(trt_set.allreduce_overlap == 0.5);
  CHECK(trt_set.rematerialize_elementwise);
  CHECK(trt_set.gemm_tiled_cuda_cores);
  CHECK(trt_set.inter_kernel_reuse);
  CHECK(trt_set.description == "what-if");
  CHECK(LoadStack("pytorch-eager", {{"alignment.int8", "32"}}).Alignment(models::DType::kInt8) ==
        32);
  CHECK_THROWS_WITH(LoadStack("pytorch-eager", {{"alignment.fp8", "16"}}),
                    Contains("alignment.fp8"));
  CHECK_THROWS_WITH(LoadStack("pytorch-eager", {{"async_launches", "true"}}),
                    Contains("async_launches"));
  CHECK_THROWS_WITH(LoadStack("pytorch-eager", {{"async_launch", "maybe"}}),
                    Contains("async_launch"));
  CHECK_THROWS_WITH(LoadStack("tensorrt", {{"depthwise_unit", "gpu"}}),
                    Contains("depthwise_unit': expected matrix or vector, got 'gpu'"));
  CHECK_THROWS_WITH(LoadStack("tensorrt", {{"grouped_conv_mapping", "im2col"}}),
                    Contains("expected packed, expanded or per_group, got 'im2col'"));
  CHECK_THROWS_WITH(LoadStack("tensorrt", {{"layout", "chwn"}}),
                    Contains("layout': expected nhwc or nchw, got 'chwn'"));
  CHECK_THROWS_WITH(LoadStack("tensorrt", {{"alignment.unaligned", "crash"}}),
                    Contains("alignment.unaligned': expected pad or fallback, got 'crash'"));
  CHECK_THROWS_WITH(LoadStack("mxnet"), Contains("unknown stack"));
  CHECK(DefaultStackFor("gpu") == "tensorrt");
}

TEST_CASE("calibration: defaults, overrides, YAML round trip, bad keys") {
  const CalibrationParams d = DefaultCalibration();
  CHECK(d.matrix_efficiency == 0.85);
  const CalibrationParams o = DefaultCalibration({{"params.overlap", "0.5"}});
  CHECK(o.overlap == 0.5);
  CHECK(o.Fingerprint() != d.Fingerprint());
  CalibrationParams c = d;
  c.memory_efficiency = 0.6;
  c.device = "v100";
  c.measurements_sha256 = "abc";
  c.fit_metrics["mape_pct"] = 7.5;
  TempDir dir;
  const std::string path = dir.Write("fit.yaml", CalibrationToYaml(c));
  const CalibrationParams back = LoadCalibration(path);
  CHECK(back.memory_efficiency == 0.6);
  CHECK(back.device == "v100");
  CHECK(back.measurements_sha256 == "abc");
  CHECK(back.fit_metrics.at("mape_pct") == 7.5);
  CHECK(back.Fingerprint() == c.Fingerprint());
  const std::string bad = dir.Write("bad.yaml", "params:\n  matrix_eficiency: 0.5\n");
  CHECK_THROWS_WITH(LoadCalibration(bad),
                    Contains("params.matrix_eficiency") && Contains("matrix_efficiency"));
  const std::string range = dir.Write("range.yaml", "params:\n  overlap: 1.5\n");
  CHECK_THROWS_WITH(LoadCalibration(range), Contains("params.overlap"));
}

TEST_CASE("calibration YAML: numbers with the digits they have, read back exactly") {
  CalibrationParams c = DefaultCalibration();
  c.overlap = 0.8;
  c.memory_efficiency = 0.1 + 0.2;  // 0.30000000000000004: all 17 digits are needed
  c.fit_metrics["after_mape_pct"] = 20.285176959185357;
  c.fit_metrics["rows"] = 9;
  const std::string yaml = CalibrationToYaml(c);
  CHECK_THAT(yaml, Contains("overlap: 0.8  #"));
  CHECK_THAT(yaml, !Contains("0.80000000000000004"));
  CHECK_THAT(yaml, Contains("memory_efficiency: 0.30000000000000004  #"));
  CHECK_THAT(yaml, Contains("rows: 9\n"));
  TempDir dir;
  const CalibrationParams back = LoadCalibration(dir.Write("short.yaml", yaml));
  CHECK(back.overlap == 0.8);
  CHECK(back.memory_efficiency == 0.1 + 0.2);
  CHECK(back.fit_metrics.at("after_mape_pct") == 20.285176959185357);
  CHECK(back.Fingerprint() == c.Fingerprint());
}

}  // namespace
}  // namespace dcnas::sim
