// dcnas roofline: each model as a point (operational intensity, achieved FLOP/s) under each
// accelerator's roofline with the ridge point marked (the paper's Figure 2), and a FLOPs-vs-latency
// chart (FLOPs and latency are not proportional).
#include <algorithm>
#include <iostream>

#include <nlohmann/json.hpp>

#include "cli/cli.h"
#include "cli/sim_common.h"
#include "common/svg_chart.h"
#include "common/table.h"

namespace dcnas::cli {
namespace {

struct Point {
  std::string model;
  std::string accel;
  double gflops_per_image = 0;
  double intensity = 0;
  double unfused_intensity = 0;  // FLOPs / per-op counted bytes (no fusion, no reuse)
  double achieved_tflops = 0;
  double latency_ms = 0;
  double ridge = 0;
  double peak_tflops = 0;
  double bandwidth_gbps = 0;
  std::string dtype;
  size_t accel_index = 0;
};

std::string DefaultLatencyPath(const std::string& out) {
  const size_t dot = out.rfind(".svg");
  if (dot == std::string::npos) return out + "-flops-latency.svg";
  return out.substr(0, dot) + "-flops-latency.svg";
}

}  // namespace

int RunRoofline(const Args& args) {
  po::options_description options("options");
  SimSelection sim_sel;
  std::string models_text;
  std::string format;
  std::string out;
  std::string latency_out;
  int batch = 128;
  int resolution = 0;
  options.add_options()(
      "models",
      po::value(&models_text)
          ->default_value(
              "efficientnet-b0,efficientnet-b1,efficientnet-b2,efficientnet-b3,efficientnet-b4,"
              "efficientnet-b5,efficientnet-b6,efficientnet-b7,resnet50"),
      "comma-separated zoo model names")("batch", po::value(&batch)->default_value(128),
                                         "batch size")(
      "resolution", po::value(&resolution)->default_value(0), "input size (0: each model's own)")(
      "format", po::value(&format)->default_value("text"), "table format: text, json or csv")(
      "out", po::value(&out), "write the roofline SVG here")(
      "latency-out", po::value(&latency_out),
      "write the FLOPs-vs-latency SVG here (default: OUT with -flops-latency.svg)");
  sim_sel.accel = "tpu-v3,v100";
  sim_sel.AddOptions(options, true);
  po::variables_map vm;
  if (!Parse(
          args, "dcnas roofline --models a,b,... --accel tpu-v3,v100 [--batch 128] --out r.svg",
          "Simulates each model on each accelerator and prints its operational intensity\n"
          "(FLOP per HBM byte, after fusion), achieved TFLOP/s and the ridge point. With --out,\n"
          "writes a log-log roofline chart (models as points, each accelerator's roofline and\n"
          "ridge point) and a FLOPs-vs-latency chart.",
          options, {}, vm)) {
    return 0;
  }
  const Format f = ParseFormat(format);
  if (batch < 1) throw UsageError("--batch must be >= 1");
  const auto model_names = SplitList(models_text);
  const auto accels = SplitList(sim_sel.accel);
  if (model_names.empty()) throw UsageError("--models: no model names");
  if (accels.empty()) throw UsageError("--accel: no accelerator names");
  const auto& registry = models::BuiltinModels();
  std::vector<Point> points;
  for (size_t ai = 0; ai < accels.size(); ++ai) {
    const sim::SimSetup setup =
        sim::LoadSetup(accels[ai], sim_sel.stack, sim_sel.calibration, sim_sel.Overrides());
    const models::DType dtype = models::ParseDType(sim_sel.PrecisionFor(setup.spec.kind));
    sim::CostCache cache;
    for (const auto& name : model_names) {
      models::BuildOptions bo;
      bo.batch = batch;
      bo.resolution = resolution;
      bo.dtype = dtype;
      const models::Graph g = registry.Build(name, bo);
      sim::SimOptions so = sim_sel.Options();
      so.details = false;
      const sim::Report r =
          sim::Simulate(g, setup.spec, setup.stack, setup.calibration, so, &cache);
      Point p;
      p.model = name;
      p.accel = setup.spec.name;
      p.gflops_per_image = r.flops / batch / 1e9;
      p.intensity = r.intensity_flop_per_byte;
      p.unfused_intensity = r.compulsory_bytes > 0 ? r.flops / r.compulsory_bytes : 0.0;
      p.achieved_tflops = r.achieved_flops_per_s / 1e12;
      p.latency_ms = r.latency_s * 1e3;
      p.ridge = r.ridge_flop_per_byte;
      p.peak_tflops = r.peak_flops_per_s / 1e12;
      p.bandwidth_gbps = r.hbm_bytes_per_s / 1e9;
      p.dtype = r.dtype;
      p.accel_index = ai;
      points.push_back(p);
    }
  }
  if (f == Format::kJson) {
    nlohmann::json j = nlohmann::json::array();
    for (const auto& p : points) {
      j.push_back({{"model", p.model},
                   {"accelerator", p.accel},
                   {"dtype", p.dtype},
                   {"batch", batch},
                   {"gflops_per_image", p.gflops_per_image},
                   {"intensity_flop_per_byte", p.intensity},
                   {"unfused_intensity_flop_per_byte", p.unfused_intensity},
                   {"ridge_flop_per_byte", p.ridge},
                   {"achieved_tflop_per_s", p.achieved_tflops},
                   {"peak_tflop_per_s", p.peak_tflops},
                   {"latency_ms", p.latency_ms}});
    }
    std::cout << j.dump(1) << "\n";
  } else {
    Table t({"model", "accelerator", "dtype", "gflops_per_image", "intensity_flop_per_byte",
             "unfused_intensity_flop_per_byte", "ridge_flop_per_byte", "ridge_over_intensity",
             "achieved_tflop_per_s", "latency_ms"});
    t.SetRightAligned({false, false, false, true, true, true, true, true, true, true});
    for (const auto& p : points) {
      t.AddRow({p.model, p.accel, p.dtype, FormatFixed(p.gflops_per_image, 3),
                FormatFixed(p.intensity, 1), FormatFixed(p.unfused_intensity, 1),
                FormatFixed(p.ridge, 1), FormatFixed(p.ridge / p.intensity, 1),
                FormatFixed(p.achieved_tflops, 2), FormatFixed(p.latency_ms, 3)});
    }
    std::cout << (f == Format::kCsv ? t.ToCsv() : t.ToText());
  }
  if (!out.empty()) {
    Chart roof;
    roof.title = "Roofline at batch " + std::to_string(batch) + " (models as points)";
    roof.x = ChartAxis{"operational intensity (FLOP/byte of HBM traffic)", true, {}, {}};
    roof.y = ChartAxis{"achieved performance (TFLOP/s)", true, {}, {}};
    double xmin = 1e30;
    double xmax = 0;
    for (const auto& p : points) {
      xmin = std::min({xmin, p.intensity, p.ridge});
      xmax = std::max({xmax, p.intensity, p.ridge});
    }
    xmin /= 2;
    xmax *= 2;
    for (size_t ai = 0; ai < accels.size(); ++ai) {
      ChartSeries pts;
      ChartSeries line;
      std::string name;
      double ridge = 0;
      double peak = 0;
      double bw = 0;
      for (const auto& p : points) {
        if (p.accel_index != ai) continue;
        name = p.accel;
        ridge = p.ridge;
        peak = p.peak_tflops;
        bw = p.bandwidth_gbps;
        pts.x.push_back(p.intensity);
        pts.y.push_back(p.achieved_tflops);
        pts.point_labels.push_back(p.model);
      }
      if (pts.x.empty()) continue;
      std::string dtype;
      for (const auto& p : points) {
        if (p.accel_index == ai) dtype = p.dtype;
      }
      pts.label = name + " models (" + dtype + ")";
      line.label = name + " roofline (" + FormatFixed(peak, 0) + " TFLOP/s, " + FormatFixed(bw, 0) +
                   " GB/s)";
      line.style = ChartSeries::Style::kLine;
      line.x = {xmin, ridge, xmax};
      line.y = {xmin * bw / 1e3, peak, peak};
      roof.series.push_back(line);
      roof.series.push_back(pts);
      roof.references.push_back(
          ChartReference{true, ridge, name + " ridge " + FormatFixed(ridge, 0) + " FLOP/B", ""});
    }
    Emit(RenderSvg(roof), out);
    Chart lat;
    lat.title = "FLOPs vs latency at batch " + std::to_string(batch);
    lat.x = ChartAxis{"FLOPs per image (GFLOP)", true, {}, {}};
    lat.y = ChartAxis{"latency per batch (ms)", true, {}, {}};
    for (size_t ai = 0; ai < accels.size(); ++ai) {
      ChartSeries s;
      s.style = ChartSeries::Style::kPoints;
      for (const auto& p : points) {
        if (p.accel_index != ai) continue;
        s.label = p.accel;
        s.x.push_back(p.gflops_per_image);
        s.y.push_back(p.latency_ms);
        s.point_labels.push_back(p.model);
      }
      if (!s.x.empty()) lat.series.push_back(s);
    }
    Emit(RenderSvg(lat), latency_out.empty() ? DefaultLatencyPath(out) : latency_out);
  }
  return 0;
}

}  // namespace dcnas::cli
