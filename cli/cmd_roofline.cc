// dcnas roofline: each model as a point (operational intensity, achieved FLOP/s) under each
// accelerator's roofline with the ridge point marked (the paper's Figure 2), and a FLOPs-vs-latency
// chart (FLOPs and latency are not proportional).
#include <algorithm>
#include <iostream>

#include "cli/cli.h"
#include "cli/sim_common.h"
#include "common/svg_chart.h"
#include "common/table.h"
#include "study/roofline.h"

namespace dcnas::cli {
namespace {

using study::RooflinePoint;

std::string DefaultLatencyPath(const std::string& out) {
  const size_t dot = out.rfind(".svg");
  if (dot == std::string::npos) return out + "-flops-latency.svg";
  return out.substr(0, dot) + "-flops-latency.svg";
}

void PrintPoints(const std::vector<RooflinePoint>& points, Format f, int batch) {
  if (f == Format::kJson) {
    std::cout << study::RooflineToJson(points, batch).dump(1) << "\n";
    return;
  }
  const bool with = !points.empty() && points.front().latency_interval.has_value();
  const bool csv = f == Format::kCsv;
  std::vector<std::string> header{"model",
                                  "accelerator",
                                  "dtype",
                                  "gflops_per_image",
                                  "intensity_flop_per_byte",
                                  "unfused_intensity_flop_per_byte",
                                  "ridge_flop_per_byte",
                                  "ridge_over_intensity",
                                  "achieved_tflop_per_s",
                                  "latency_ms"};
  if (with) {
    const auto cols = sim::IntervalHeader("latency_", "_ms", csv);
    header.insert(header.end(), cols.begin(), cols.end());
  }
  Table t(header);
  std::vector<bool> right(header.size(), true);
  right[0] = right[1] = right[2] = false;
  t.SetRightAligned(right);
  for (const auto& p : points) {
    std::vector<std::string> cells{
        p.model,
        p.accelerator,
        p.dtype,
        FormatFixed(p.gflops_per_image, 3),
        FormatFixed(p.intensity_flop_per_byte, 1),
        FormatFixed(p.unfused_intensity_flop_per_byte, 1),
        FormatFixed(p.ridge_flop_per_byte, 1),
        FormatFixed(p.ridge_flop_per_byte / p.intensity_flop_per_byte, 1),
        FormatFixed(p.achieved_tflop_per_s, 2),
        FormatFixed(p.latency_ms, 3)};
    if (with) {
      const auto ends = sim::IntervalCells(*p.latency_interval, 3, csv);
      cells.insert(cells.end(), ends.begin(), ends.end());
    }
    t.AddRow(cells);
  }
  std::cout << (f == Format::kCsv ? t.ToCsv() : t.ToText());
}

Chart RooflineChart(const std::vector<RooflinePoint>& points, size_t num_setups, int batch) {
  Chart roof;
  roof.title = "Roofline at batch " + std::to_string(batch) + " (models as points)";
  roof.x = ChartAxis{"operational intensity (FLOP/byte of HBM traffic)", true, {}, {}};
  roof.y = ChartAxis{!points.empty() && points.front().achieved_interval
                         ? "achieved performance (TFLOP/s; bars: 80% prediction interval)"
                         : "achieved performance (TFLOP/s)",
                     true,
                     {},
                     {}};
  double xmin = 1e30;
  double xmax = 0;
  for (const auto& p : points) {
    xmin = std::min({xmin, p.intensity_flop_per_byte, p.ridge_flop_per_byte});
    xmax = std::max({xmax, p.intensity_flop_per_byte, p.ridge_flop_per_byte});
  }
  xmin /= 2;
  xmax *= 2;
  for (size_t ai = 0; ai < num_setups; ++ai) {
    ChartSeries pts;
    const RooflinePoint* last = nullptr;
    for (const auto& p : points) {
      if (p.setup != ai) continue;
      last = &p;
      pts.x.push_back(p.intensity_flop_per_byte);
      pts.y.push_back(p.achieved_tflop_per_s);
      pts.point_labels.push_back(p.model);
      if (p.achieved_interval) {
        pts.y_lo.push_back(p.achieved_interval->lo80);
        pts.y_hi.push_back(p.achieved_interval->hi80);
      }
    }
    if (last == nullptr) continue;
    const std::string& name = last->accelerator;
    const double ridge = last->ridge_flop_per_byte;
    const double peak = last->peak_tflop_per_s;
    const double bw = last->bandwidth_gbps;
    pts.label = name + " models (" + last->dtype + ")";
    ChartSeries line;
    line.label =
        name + " roofline (" + FormatFixed(peak, 0) + " TFLOP/s, " + FormatFixed(bw, 0) + " GB/s)";
    line.style = ChartSeries::Style::kLine;
    line.x = {xmin, ridge, xmax};
    line.y = {xmin * bw / 1e3, peak, peak};
    roof.series.push_back(line);
    roof.series.push_back(pts);
    roof.references.push_back(
        ChartReference{true, ridge, name + " ridge " + FormatFixed(ridge, 0) + " FLOP/B", ""});
  }
  return roof;
}

Chart FlopsLatencyChart(const std::vector<RooflinePoint>& points, size_t num_setups, int batch) {
  Chart lat;
  lat.title = "FLOPs vs latency at batch " + std::to_string(batch);
  lat.x = ChartAxis{"FLOPs per image (GFLOP)", true, {}, {}};
  lat.y = ChartAxis{!points.empty() && points.front().latency_interval
                        ? "latency per batch (ms; bars: 80% prediction interval)"
                        : "latency per batch (ms)",
                    true,
                    {},
                    {}};
  for (size_t ai = 0; ai < num_setups; ++ai) {
    ChartSeries s;
    s.style = ChartSeries::Style::kPoints;
    for (const auto& p : points) {
      if (p.setup != ai) continue;
      s.label = p.accelerator;
      s.x.push_back(p.gflops_per_image);
      s.y.push_back(p.latency_ms);
      s.point_labels.push_back(p.model);
      if (p.latency_interval) {
        s.y_lo.push_back(p.latency_interval->lo80);
        s.y_hi.push_back(p.latency_interval->hi80);
      }
    }
    if (!s.x.empty()) lat.series.push_back(s);
  }
  return lat;
}

}  // namespace

int RunRoofline(const Args& args) {
  po::options_description options("options");
  SimSelection sim_sel;
  std::string models_text;
  std::string format;
  std::string out;
  std::string latency_out;
  std::vector<std::string> onnx_paths;
  int batch = 128;
  int resolution = 0;
  options.add_options()(
      "models",
      po::value(&models_text)
          ->default_value(
              "efficientnet-b0,efficientnet-b1,efficientnet-b2,efficientnet-b3,efficientnet-b4,"
              "efficientnet-b5,efficientnet-b6,efficientnet-b7,resnet50"),
      "comma-separated zoo model names (and the stems of --onnx files)")(
      "onnx", po::value(&onnx_paths)->multitoken(),
      "ONNX files: each is a model named by its file's stem (resnet50.onnx -> resnet50)")(
      "batch", po::value(&batch)->default_value(128), "batch size")(
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
  const std::vector<sim::SimSetup> setups = sim_sel.LoadSetups(accels);
  std::vector<RooflinePoint> points = study::Roofline(
      model_names, setups, sim_sel.StudyOptions(batch, resolution), RegistryWithOnnx(onnx_paths));
  if (const sim::IntervalModel im = sim_sel.Intervals()) {
    study::AddRooflineIntervals(points, setups, batch, im);
  }
  PrintPoints(points, f, batch);
  if (!out.empty()) {
    Emit(RenderSvg(RooflineChart(points, accels.size(), batch)), out);
    Emit(RenderSvg(FlopsLatencyChart(points, accels.size(), batch)),
         latency_out.empty() ? DefaultLatencyPath(out) : latency_out);
  }
  return 0;
}

}  // namespace dcnas::cli
