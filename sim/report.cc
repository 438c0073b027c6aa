#include "sim/report.h"

#include <nlohmann/json.hpp>

#include <cstdio>

#include "common/table.h"

namespace dcnas::sim {
namespace {

constexpr double kMs = 1e3;

nlohmann::json TimeJson(const TimeSplit& t) {
  return {{"matrix_ms", t.matrix_s * kMs},
          {"vector_ms", t.vector_s * kMs},
          {"memory_ms", t.memory_s * kMs},
          {"overhead_ms", t.overhead_s * kMs},
          {"total_ms", t.total_s * kMs}};
}

std::string Ms(double s) { return FormatFixed(s * kMs, 4); }
std::string Pct(double part, double whole) {
  return whole > 0 ? FormatFixed(100.0 * part / whole, 1) : "0.0";
}

}  // namespace

std::string ReportToText(const Report& r, bool per_op) {
  std::string s;
  s += r.model + " on " + r.accelerator + " / " + r.stack + " / calibration " + r.calibration +
       ": batch " + std::to_string(r.batch) + ", " + std::to_string(r.resolution) + " px, " +
       r.dtype + (r.fusion ? "" : ", fusion off") + "\n";
  s += "  latency            " + FormatFixed(r.latency_s * kMs, 3) + " ms per batch (" +
       FormatFixed(r.latency_s * kMs / r.batch, 4) + " ms per image)\n";
  if (r.interval) s += IntervalLine(*r.interval);
  s += "  throughput         " + FormatFixed(r.throughput_img_per_s, 1) + " images/s\n";
  s += "  achieved           " + FormatFixed(r.achieved_flops_per_s / 1e12, 2) +
       " TFLOP/s = " + FormatFixed(r.percent_of_peak, 1) + "% of peak " +
       FormatFixed(r.peak_flops_per_s / 1e12, 1) + " TFLOP/s\n";
  if (r.sustained_clock_ghz < r.clock_ghz) {
    s += "  clock              " + FormatFixed(r.sustained_clock_ghz, 3) +
         " GHz sustained within " + FormatFixed(r.board_w, 0) +
         " W board power (the peak is at the " + FormatFixed(r.clock_ghz, 3) +
         " GHz boost clock)\n";
  }
  s += "  work               " + FormatSi(r.flops) + "FLOP, " + FormatSi(r.hbm_bytes) +
       "B HBM traffic (" + FormatSi(r.compulsory_bytes) + "B unfused), " +
       std::to_string(r.num_kernels) + " kernels\n";
  s += "  intensity          " + FormatFixed(r.intensity_flop_per_byte, 1) +
       " FLOP/B (ridge point " + FormatFixed(r.ridge_flop_per_byte, 1) + " FLOP/B)\n";
  s += "  time by bound      ";
  for (int b = 0; b < kNumBounds; ++b) {
    s += std::string(b ? ", " : "") + cost::BoundName(static_cast<Bound>(b)) + " " +
         Pct(r.time_by_bound_s[static_cast<size_t>(b)], r.latency_s) + "%";
  }
  s += "\n";
  if (!r.overrides.empty()) {
    s += "  overrides          ";
    for (size_t i = 0; i < r.overrides.size(); ++i) s += (i ? ", " : "") + r.overrides[i];
    s += "\n";
  }
  s += "  " + r.tool_version + "\n\n";
  if (per_op) {
    Table t({"id", "block", "op", "unit", "group", "flops", "mxu_util_pct", "time_ms", "pct"});
    t.SetRightAligned({true, false, false, false, true, true, true, true, true});
    for (const auto& o : r.ops) {
      t.AddRow({std::to_string(o.id), o.block, o.detail, o.unit, std::to_string(o.group),
                FormatSi(o.flops), FormatFixed(100.0 * o.matrix_utilization, 1), Ms(o.time.total_s),
                Pct(o.time.total_s, r.latency_s)});
    }
    s += t.ToText();
  } else if (!r.blocks.empty()) {
    Table t({"block", "stage", "ops", "flops", "hbm_bytes", "matrix_ms", "vector_ms", "memory_ms",
             "overhead_ms", "time_ms", "pct", "bound"});
    t.SetRightAligned({false, true, true, true, true, true, true, true, true, true, true, false});
    for (const auto& b : r.blocks) {
      t.AddRow({b.block, std::to_string(b.stage), std::to_string(b.num_ops), FormatSi(b.flops),
                FormatSi(b.hbm_bytes), Ms(b.time.matrix_s), Ms(b.time.vector_s),
                Ms(b.time.memory_s), Ms(b.time.overhead_s), Ms(b.time.total_s),
                Pct(b.time.total_s, r.latency_s), cost::BoundName(b.bound)});
    }
    s += t.ToText();
  }
  return s;
}

std::string ReportToJson(const Report& r) {
  nlohmann::json j;
  j["tool_version"] = r.tool_version;
  j["model"] = r.model;
  j["batch"] = r.batch;
  j["resolution_px"] = r.resolution;
  j["dtype"] = r.dtype;
  j["accelerator"] = r.accelerator;
  j["accelerator_file"] = r.accelerator_file;
  j["stack"] = r.stack;
  j["stack_file"] = r.stack_file;
  j["calibration"] = r.calibration;
  j["calibration_file"] = r.calibration_file;
  j["overrides"] = r.overrides;
  if (r.interval) j["latency_interval_ms"] = IntervalToJson(*r.interval, kMs);
  j["accelerator_extends"] = r.extends;
  char fp[17];
  std::snprintf(fp, sizeof(fp), "%016llx", static_cast<unsigned long long>(r.context_fingerprint));
  j["context_fingerprint"] = fp;
  nlohmann::json params = nlohmann::json::object();
  for (const auto& [name, value] : r.calibration_params) params[name] = value;
  j["calibration_params"] = params;
  j["fusion"] = r.fusion;
  j["latency_ms"] = r.latency_s * kMs;
  j["latency_per_image_ms"] = r.latency_s * kMs / r.batch;
  j["throughput_img_per_s"] = r.throughput_img_per_s;
  j["flops"] = r.flops;
  j["macs"] = r.macs;
  j["hbm_bytes"] = r.hbm_bytes;
  j["compulsory_bytes"] = r.compulsory_bytes;
  j["intensity_flop_per_byte"] = r.intensity_flop_per_byte;
  j["ridge_flop_per_byte"] = r.ridge_flop_per_byte;
  j["peak_tflop_per_s"] = r.peak_flops_per_s / 1e12;
  j["clock_ghz"] = r.clock_ghz;
  j["sustained_clock_ghz"] = r.sustained_clock_ghz;
  j["achieved_tflop_per_s"] = r.achieved_flops_per_s / 1e12;
  j["percent_of_peak"] = r.percent_of_peak;
  j["hbm_bandwidth_gb_per_s"] = r.hbm_bytes_per_s / 1e9;
  j["num_kernels"] = r.num_kernels;
  nlohmann::json bounds;
  for (int b = 0; b < kNumBounds; ++b) {
    bounds[std::string(cost::BoundName(static_cast<Bound>(b))) + "_ms"] =
        r.time_by_bound_s[static_cast<size_t>(b)] * kMs;
  }
  j["time_by_bound"] = bounds;
  j["time_by_unit"] = TimeJson(r.time);
  nlohmann::json blocks = nlohmann::json::array();
  for (const auto& b : r.blocks) {
    blocks.push_back({{"block", b.block},
                      {"stage", b.stage},
                      {"num_ops", b.num_ops},
                      {"flops", b.flops},
                      {"hbm_bytes", b.hbm_bytes},
                      {"time", TimeJson(b.time)},
                      {"latency_ms", b.time.total_s * kMs},
                      {"bound", cost::BoundName(b.bound)}});
  }
  j["blocks"] = blocks;
  nlohmann::json groups = nlohmann::json::array();
  for (const auto& g : r.groups) {
    groups.push_back({{"id", g.id},
                      {"name", g.name},
                      {"op_ids", g.op_ids},
                      {"flops", g.flops},
                      {"hbm_bytes", g.hbm_bytes},
                      {"onchip_bytes", g.onchip_bytes},
                      {"time", TimeJson(g.time)},
                      {"latency_ms", g.time.total_s * kMs},
                      {"bound", cost::BoundName(g.bound)}});
  }
  j["kernels"] = groups;
  nlohmann::json layers = nlohmann::json::array();
  for (const auto& o : r.ops) {
    layers.push_back({{"id", o.id},
                      {"name", o.name},
                      {"kind", o.kind},
                      {"detail", o.detail},
                      {"block", o.block},
                      {"stage", o.stage},
                      {"unit", o.unit},
                      {"kernel", o.group},
                      {"flops", o.flops},
                      {"macs", o.macs},
                      {"matrix_utilization_pct", 100.0 * o.matrix_utilization},
                      {"time", TimeJson(o.time)},
                      {"latency_ms", o.time.total_s * kMs}});
  }
  j["layers"] = layers;
  return j.dump(1) + "\n";
}

std::string ReportToCsv(const Report& r, bool per_op) {
  if (per_op) {
    Table t({"id", "name", "kind", "detail", "block", "stage", "unit", "kernel", "flops", "macs",
             "matrix_utilization_pct", "matrix_ms", "vector_ms", "memory_ms", "overhead_ms",
             "latency_ms"});
    for (const auto& o : r.ops) {
      t.AddRow({std::to_string(o.id), o.name, o.kind, o.detail, o.block, std::to_string(o.stage),
                o.unit, std::to_string(o.group), FormatFixed(o.flops, 0), FormatFixed(o.macs, 0),
                FormatFixed(100.0 * o.matrix_utilization, 3), Ms(o.time.matrix_s),
                Ms(o.time.vector_s), Ms(o.time.memory_s), Ms(o.time.overhead_s),
                Ms(o.time.total_s)});
    }
    return t.ToCsv();
  }
  Table t({"block", "stage", "num_ops", "flops", "hbm_bytes", "matrix_ms", "vector_ms", "memory_ms",
           "overhead_ms", "latency_ms", "bound"});
  for (const auto& b : r.blocks) {
    t.AddRow({b.block, std::to_string(b.stage), std::to_string(b.num_ops), FormatFixed(b.flops, 0),
              FormatFixed(b.hbm_bytes, 0), Ms(b.time.matrix_s), Ms(b.time.vector_s),
              Ms(b.time.memory_s), Ms(b.time.overhead_s), Ms(b.time.total_s),
              cost::BoundName(b.bound)});
  }
  return t.ToCsv();
}

}  // namespace dcnas::sim
