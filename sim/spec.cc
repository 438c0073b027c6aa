#include "sim/spec.h"

#include <algorithm>
#include <cmath>
#include <filesystem>

#include "common/config_tree.h"
#include "common/data_dir.h"
#include "common/errors.h"
#include "common/text.h"

namespace dcnas::sim {
namespace {

constexpr double kHuge = 1e12;

PerDType ReadPerDType(ConfigReader r, bool allow_all_zero) {
  PerDType out{};
  for (const std::string& key : r.Keys()) {
    models::DType dt;
    try {
      dt = models::ParseDType(key);
    } catch (const InputError&) {
      r.Fail(key, "not a dtype (" + models::AllDTypeNames() + ")");
    }
    out[DTypeIndex(dt)] = r.Number(key, 0, kHuge);
  }
  if (!allow_all_zero && std::all_of(out.begin(), out.end(), [](double v) { return v <= 0; })) {
    r.Fail("", "needs a positive rate for at least one dtype");
  }
  r.Finish();
  return out;
}

uint64_t Fingerprint(const AcceleratorSpec& s) {
  uint64_t h = 0xcbf29ce484222325ULL;
  h = HashDouble(h, s.clock_ghz);
  h = HashMix(h, static_cast<uint64_t>(s.cores));
  const auto& m = s.matrix_unit;
  h = HashMix(h, static_cast<uint64_t>(m.kind));
  for (int v : {m.rows, m.cols, m.tile_m, m.tile_n, m.tile_k, m.tiles_per_core, m.units_per_core}) {
    h = HashMix(h, static_cast<uint64_t>(v));
  }
  for (double v : m.macs_per_cycle) h = HashDouble(h, v);
  h = HashMix(h, static_cast<uint64_t>(m.dataflow));
  h = HashMix(h, m.double_buffered ? 1 : 0);
  h = HashMix(h, static_cast<uint64_t>(s.vector_unit.lanes));
  for (double v : s.vector_unit.ops_per_lane_per_cycle) h = HashDouble(h, v);
  h = HashDouble(h, s.vector_unit.transcendentals_per_cycle);
  h = HashDouble(h, s.hbm_capacity_gib);
  h = HashDouble(h, s.hbm_bandwidth_gbps);
  h = HashMix(h, static_cast<uint64_t>(s.hbm_ecc));
  for (const auto& l : s.on_chip) {
    h = HashDouble(h, l.capacity_kib);
    h = HashDouble(h, l.bandwidth_gbps);
    h = HashMix(h, l.per_core ? 1 : 0);
    h = HashMix(h, l.holds_tensors ? 1 : 0);
  }
  const InterconnectSpec& ic = s.interconnect;
  for (char c : ic.topology) h = HashMix(h, static_cast<uint64_t>(c));
  h = HashMix(h, static_cast<uint64_t>(ic.links_per_chip));
  h = HashDouble(h, ic.link_bandwidth_gbps);
  h = HashDouble(h, ic.link_latency_us);
  h = HashMix(h, static_cast<uint64_t>(ic.replicas_per_chip));
  h = HashDouble(h, s.power.board_w);
  h = HashDouble(h, s.power.core_w_per_ghz);
  h = HashDouble(h, s.power.dvfs_exponent);
  return h;
}

// The optional keys of a chip file and their defaults (a section's keys where the file has the
// section; the dataflow keys where the matrix unit is systolic), the one place those defaults are
// written: added where the file leaves them out, before --set (so that --set reaches them) and
// before ParseAccelerator, which reads them as required keys.
void AddOptionalKeys(YAML::Node& root) {
  if (!root.IsMap()) return;
  AddMissingKeys(root, {{"description", ""}, {"hypothetical", "false"}});
  const YAML::Node& read = root;
  if (read["hbm"]) AddMissingKeys(root["hbm"], {{"ecc", "off"}});
  const YAML::Node mu = read["matrix_unit"];
  if (mu && mu.IsMap() && mu["kind"] && mu["kind"].IsScalar() &&
      mu["kind"].Scalar() == "systolic") {
    AddMissingKeys(root["matrix_unit"], {{"dataflow", "ws"}, {"double_buffered", "true"}});
  }
  if (read["interconnect"]) {
    AddMissingKeys(root["interconnect"],
                   {{"name", ""}, {"link_latency_us", "0"}, {"replicas_per_chip", "1"}});
  }
  if (read["power"]) AddMissingKeys(root["power"], {{"dvfs_exponent", "2"}});
}

}  // namespace

double AcceleratorSpec::SustainedClockGhz() const {
  if (!power.present()) return clock_ghz;
  const double demand_w = power.core_w_per_ghz * cores * clock_ghz;
  if (demand_w <= power.board_w) return clock_ghz;
  return clock_ghz * std::pow(power.board_w / demand_w, 1.0 / power.dvfs_exponent);
}

double AcceleratorSpec::PeakMatrixMacsPerS(models::DType dtype) const {
  return matrix_unit.macs_per_cycle[DTypeIndex(dtype)] * matrix_unit.units_per_core * cores *
         clock_hz();
}

double AcceleratorSpec::PeakVectorOpsPerS(models::DType dtype) const {
  // A dtype without its own vector rate is computed in fp32.
  const models::DType rated = VectorSupports(dtype) ? dtype : models::DType::kFp32;
  const double rate = vector_unit.ops_per_lane_per_cycle[DTypeIndex(rated)];
  return vector_unit.lanes * rate * cores * clock_hz();
}

std::string AcceleratorSpec::UnlistedDTypeNote(models::DType dtype) const {
  if (MatrixSupports(dtype) || VectorSupports(dtype)) return "";
  std::vector<std::string> matrix, vector;
  for (models::DType d : models::kAllDTypes) {
    if (MatrixSupports(d)) matrix.emplace_back(models::DTypeName(d));
    if (VectorSupports(d)) vector.emplace_back(models::DTypeName(d));
  }
  const auto listed = [](const std::vector<std::string>& v) {
    return v.empty() ? std::string("none") : Join(v, ", ");
  };
  const std::string dt(models::DTypeName(dtype));
  return name + " lists no " + dt + " rate (matrix unit: " + listed(matrix) +
         "; vector unit: " + listed(vector) + "), so its " + dt +
         " work is simulated on the vector unit at the fp32 rate";
}

double AcceleratorSpec::PeakFlopsPerS(models::DType dtype) const {
  if (MatrixSupports(dtype)) return 2.0 * PeakMatrixMacsPerS(dtype);
  return 2.0 * PeakVectorOpsPerS(dtype);
}

const OnChipLevel& AcceleratorSpec::ReuseLevel() const {
  for (const auto& l : on_chip) {
    if (l.holds_tensors) return l;
  }
  return on_chip.at(0);
}

double AcceleratorSpec::ReuseCapacityBytes() const {
  const OnChipLevel& l = ReuseLevel();
  return l.capacity_kib * 1024.0 * (l.per_core ? cores : 1);
}

std::vector<std::string> DataFileNames(const std::string& folder) {
  std::vector<std::string> names;
  const std::string dir = DataPath(folder);
  for (const auto& e : std::filesystem::directory_iterator(dir)) {
    if (e.path().extension() == ".yaml") names.push_back(e.path().stem().string());
  }
  std::sort(names.begin(), names.end());
  return names;
}

std::string ResolveDataFile(const std::string& folder, const std::string& name_or_path,
                            const std::string& what) {
  if (name_or_path.empty()) throw InputError("empty " + what + " name");
  const bool is_path =
      name_or_path.find('/') != std::string::npos ||
      (name_or_path.size() > 5 && name_or_path.substr(name_or_path.size() - 5) == ".yaml");
  if (is_path) {
    if (std::error_code ec; !std::filesystem::exists(name_or_path, ec)) {
      throw InputError(what + " file '" + name_or_path + "': no such file");
    }
    return name_or_path;
  }
  const std::string path = DataDir() + "/" + folder + "/" + name_or_path + ".yaml";
  if (std::error_code ec; !std::filesystem::exists(path, ec)) {
    throw InputError("unknown " + what + " '" + name_or_path + "'" +
                     DidYouMean(name_or_path, DataFileNames(folder)) + " (data/" + folder +
                     " has: " + Join(DataFileNames(folder), ", ") + ")");
  }
  return path;
}

std::vector<std::string> AcceleratorNames() { return DataFileNames("accelerators"); }

AcceleratorSpec ParseAccelerator(YAML::Node root, const std::string& file) {
  AddOptionalKeys(root);
  ConfigReader r(root, file, "");
  AcceleratorSpec s;
  s.file = file;
  s.name = r.String("name");
  s.description = r.String("description");
  s.hypothetical = r.Bool("hypothetical");
  s.kind = r.OneOfWords("kind", {"tpu", "gpu", "cpu"});
  s.clock_ghz = r.Number("clock_ghz", 1e-3, 100);
  s.cores = static_cast<int>(r.Integer("cores", 1, 1 << 20));

  ConfigReader m = r.Map("matrix_unit");
  auto& mu = s.matrix_unit;
  mu.kind = m.OneOf<MatrixKind>(
      "kind", {{"systolic", MatrixKind::kSystolic}, {"tensor_core", MatrixKind::kTensorCore}});
  if (mu.kind == MatrixKind::kSystolic) {
    mu.rows = static_cast<int>(m.Integer("rows", 1, 1 << 16));
    mu.cols = static_cast<int>(m.Integer("cols", 1, 1 << 16));
    mu.dataflow = m.OneOf<cost::Dataflow>(
        "dataflow", {{"ws", cost::Dataflow::kWeightStationary, "weight-stationary"},
                     {"os", cost::Dataflow::kOutputStationary, "output-stationary"},
                     {"is", cost::Dataflow::kInputStationary, "input-stationary"}});
    mu.double_buffered = m.Bool("double_buffered");
  } else {
    mu.tile_m = static_cast<int>(m.Integer("tile_m", 1, 1 << 16));
    mu.tile_n = static_cast<int>(m.Integer("tile_n", 1, 1 << 16));
    mu.tile_k = static_cast<int>(m.Integer("tile_k", 1, 1 << 16));
    mu.tiles_per_core = static_cast<int>(m.Integer("tiles_per_core", 1, 1024));
  }
  mu.units_per_core = static_cast<int>(m.Integer("units_per_core", 1, 1 << 16));
  if (mu.kind == MatrixKind::kSystolic) {
    // A systolic array does rows x cols MACs per cycle in its native dtype; other dtypes take
    // several passes (e.g. fp32 as 3 bf16 passes).
    const PerDType passes = ReadPerDType(m.Map("passes_per_dtype"), false);
    for (size_t d = 0; d < passes.size(); ++d) {
      if (passes[d] > 0 && passes[d] < 1) m.Fail("passes_per_dtype", "passes must be >= 1");
      mu.macs_per_cycle[d] =
          passes[d] > 0 ? static_cast<double>(mu.rows) * mu.cols / passes[d] : 0.0;
    }
  } else {
    mu.macs_per_cycle = ReadPerDType(m.Map("macs_per_cycle"), false);
  }
  m.Finish();

  ConfigReader v = r.Map("vector_unit");
  s.vector_unit.lanes = static_cast<int>(v.Integer("lanes", 1, 1 << 24));
  s.vector_unit.ops_per_lane_per_cycle = ReadPerDType(v.Map("ops_per_lane_per_cycle"), false);
  s.vector_unit.transcendentals_per_cycle = v.Number("transcendentals_per_cycle", 1e-6, kHuge);
  v.Finish();

  ConfigReader h = r.Map("hbm");
  s.hbm_capacity_gib = h.Number("capacity_gib", 1e-6, 1e6);
  s.hbm_bandwidth_gbps = h.Number("bandwidth_gbps", 1e-6, 1e9);
  s.hbm_ecc =
      h.OneOf<HbmEcc>("ecc", {{"off", HbmEcc::kOff},
                              {"sideband", HbmEcc::kSideband, "check bits in separate devices"},
                              {"inline", HbmEcc::kInline, "check bits in the data devices"}});
  h.Finish();

  for (ConfigReader l : r.MapList("on_chip")) {
    OnChipLevel level;
    level.name = l.String("name");
    level.capacity_kib = l.Number("capacity_kib", 1e-6, 1e9);
    level.bandwidth_gbps = l.Number("bandwidth_gbps", 1e-6, 1e9);
    level.per_core = l.OneOf<bool>("scope", {{"core", true}, {"chip", false}});
    level.holds_tensors = l.Bool("holds_tensors");
    l.Finish();
    s.on_chip.push_back(level);
  }
  if (r.Has("interconnect")) {
    ConfigReader ic = r.Map("interconnect");
    InterconnectSpec& c = s.interconnect;
    c.topology = ic.OneOfWords("topology", {"ring", "switch", "torus2d"});
    c.name = ic.String("name");
    c.links_per_chip = static_cast<int>(ic.Integer("links_per_chip", 1, 1024));
    if (c.topology == "torus2d" && c.links_per_chip % 4 != 0) {
      ic.Fail("links_per_chip", "a 2D torus needs a multiple of 4 links (+x, -x, +y, -y), got " +
                                    std::to_string(c.links_per_chip));
    }
    c.link_bandwidth_gbps = ic.Number("link_bandwidth_gbps", 1e-6, 1e9);
    c.link_latency_us = ic.Number("link_latency_us", 0, 1e6);
    c.replicas_per_chip = static_cast<int>(ic.Integer("replicas_per_chip", 1, 1024));
    ic.Finish();
  }
  if (r.Has("power")) {
    ConfigReader pw = r.Map("power");
    s.power.board_w = pw.Number("board_w", 1e-3, 1e7);
    s.power.core_w_per_ghz = pw.Number("core_w_per_ghz", 1e-9, 1e7);
    s.power.dvfs_exponent = pw.Number("dvfs_exponent", 1, 10);
    pw.Finish();
  }
  int holders = 0;
  for (const auto& l : s.on_chip) holders += l.holds_tensors ? 1 : 0;
  if (holders != 1) {
    r.Fail("on_chip", "exactly one level must have holds_tensors: true (found " +
                          std::to_string(holders) + ")");
  }
  r.Finish();
  s.fingerprint = Fingerprint(s);
  return s;
}

AcceleratorSpec LoadAccelerator(const std::string& name_or_path,
                                const std::vector<Override>& overrides) {
  const std::string file = ResolveDataFile("accelerators", name_or_path, "accelerator");
  const std::string dir = std::filesystem::path(file).parent_path().string();
  std::vector<std::string> chain;
  YAML::Node root = ResolveExtends(LoadYamlFile(file), file, dir.empty() ? "." : dir, &chain);
  AddOptionalKeys(root);  // before the overrides, so that they reach the optional keys
  ApplyOverrides(root, overrides, file);
  AcceleratorSpec s = ParseAccelerator(root, file);
  s.extends_chain = chain;
  s.overrides = overrides;
  if (!overrides.empty()) {
    for (const auto& o : overrides) s.name += "[" + o.path + "=" + o.value + "]";
  }
  return s;
}

}  // namespace dcnas::sim
