#include "study/roofline.h"

namespace dcnas::study {

RooflinePoint PointOf(const sim::Report& report, int batch) {
  RooflinePoint p;
  p.model = report.model;
  p.accelerator = report.accelerator;
  p.dtype = report.dtype;
  p.gflops_per_image = report.flops / batch / 1e9;
  p.intensity_flop_per_byte = report.intensity_flop_per_byte;
  p.unfused_intensity_flop_per_byte =
      report.compulsory_bytes > 0 ? report.flops / report.compulsory_bytes : 0.0;
  p.achieved_tflop_per_s = report.achieved_flops_per_s / 1e12;
  p.latency_ms = report.latency_s * 1e3;
  p.ridge_flop_per_byte = report.ridge_flop_per_byte;
  p.peak_tflop_per_s = report.peak_flops_per_s / 1e12;
  p.bandwidth_gbps = report.hbm_bytes_per_s / 1e9;
  return p;
}

std::vector<RooflinePoint> Roofline(const std::vector<std::string>& model_names,
                                    const std::vector<sim::SimSetup>& setups,
                                    const RunOptions& options,
                                    const models::ModelRegistry& registry) {
  std::vector<RooflinePoint> points;
  for (size_t s = 0; s < setups.size(); ++s) {
    sim::CostCache cache;
    const std::vector<sim::Report> reports =
        SimulateModels(model_names, setups[s], options, registry, &cache);
    for (size_t m = 0; m < reports.size(); ++m) {
      RooflinePoint p = PointOf(reports[m], options.batch);
      p.model = model_names[m];
      p.accelerator = setups[s].spec.name;
      p.setup = s;
      points.push_back(p);
    }
  }
  return points;
}

void AddRooflineIntervals(std::vector<RooflinePoint>& points,
                          const std::vector<sim::SimSetup>& setups, int batch,
                          const sim::IntervalModel& intervals) {
  for (auto& p : points) {
    p.latency_interval = intervals.Latency(setups.at(p.setup), false, batch, p.latency_ms);
    p.achieved_interval = sim::InverseInterval(*p.latency_interval, p.achieved_tflop_per_s);
  }
}

nlohmann::json RooflineToJson(const std::vector<RooflinePoint>& points, int batch) {
  nlohmann::json j = nlohmann::json::array();
  for (const auto& p : points) {
    j.push_back({{"model", p.model},
                 {"accelerator", p.accelerator},
                 {"dtype", p.dtype},
                 {"batch", batch},
                 {"gflops_per_image", p.gflops_per_image},
                 {"intensity_flop_per_byte", p.intensity_flop_per_byte},
                 {"unfused_intensity_flop_per_byte", p.unfused_intensity_flop_per_byte},
                 {"ridge_flop_per_byte", p.ridge_flop_per_byte},
                 {"achieved_tflop_per_s", p.achieved_tflop_per_s},
                 {"peak_tflop_per_s", p.peak_tflop_per_s},
                 {"latency_ms", p.latency_ms}});
    if (p.latency_interval)
      j.back()["latency_interval_ms"] = sim::IntervalToJson(*p.latency_interval);
    if (p.achieved_interval) {
      j.back()["achieved_tflop_per_s_interval"] = sim::IntervalToJson(*p.achieved_interval);
    }
  }
  return j;
}

}  // namespace dcnas::study
