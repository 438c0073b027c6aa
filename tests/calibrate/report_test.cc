#include "calibrate/report.h"

#include <catch2/catch.hpp>

namespace dcnas::calibrate {
namespace {

Measurement Row(const std::string& model, int batch, double latency_ms) {
  Measurement m;
  m.model = model;
  m.batch_size = batch;
  m.image_size = 224;
  m.latency_ms = latency_ms;
  m.file = "r.csv";
  m.line = 2;
  return m;
}

}  // namespace

TEST_CASE("residual table groups by family and batch with signed errors", "[calibrate]") {
  const std::vector<Measurement> rows = {Row("resnet50", 8, 10), Row("resnet101", 8, 20),
                                         Row("resnet50", 64, 50), Row("efficientnet-b0", 8, 5)};
  const std::vector<PredictedRow> predicted = {{&rows[0], "resnet", 12},
                                               {&rows[1], "resnet", 22},
                                               {&rows[2], "resnet", 40},
                                               {&rows[3], "efficientnet", 4}};
  const std::string csv = ResidualTable(predicted).ToCsv();
  CHECK(csv ==
        "family,batch,rows,median error %,MAPE %,worst %\n"
        "efficientnet,8,1,-20.0,20.0,-20.0\n"
        "resnet,8,2,15.0,15.0,20.0\n"
        "resnet,64,1,-20.0,20.0,-20.0\n");
  const ErrorMetrics m = MetricsOf(predicted);
  CHECK(m.count == 4);
  CHECK(m.worst_label.find("resnet50 b8 r224") == 0);
}

TEST_CASE("parity chart: one series per family plus the reference lines", "[calibrate]") {
  const std::vector<Measurement> rows = {Row("a", 1, 1.0), Row("b", 1, 100.0)};
  const std::vector<PredictedRow> predicted = {{&rows[0], "fam-a", 1.5}, {&rows[1], "fam-b", 80}};
  const Chart chart = ParityChart(predicted, "parity");
  CHECK(chart.x.log);
  CHECK(chart.y.log);
  REQUIRE(chart.series.size() == 5);
  CHECK(chart.series[0].label == "fam-a");
  CHECK(chart.series[1].label == "fam-b");
  CHECK(chart.series[2].label == "predicted = measured");
  CHECK(*chart.x.min < 1.0);
  CHECK(*chart.x.max > 100.0);
  const std::string svg = RenderSvg(chart);
  CHECK(svg.find("<svg") != std::string::npos);
  CHECK(svg.find("fam-b") != std::string::npos);
  CHECK_THROWS(ParityChart({}, "empty"));
}

TEST_CASE("metrics by device: one line per device with rows, in the order given", "[calibrate]") {
  std::vector<Measurement> rows = {Row("a", 8, 10), Row("b", 8, 20), Row("a", 8, 40)};
  rows[0].device = "rtx-4090";
  rows[1].device = "rtx-3090";
  rows[2].device = "rtx-3090";
  const std::vector<PredictedRow> predicted = {
      {&rows[0], "f", 11}, {&rows[1], "f", 22}, {&rows[2], "f", 30}};
  const auto by_device = MetricsByDevice(predicted, {"rtx-3090", "v100", "rtx-4090"});
  REQUIRE(by_device.size() == 2);  // v100 has no rows
  CHECK(by_device[0].name == "rtx-3090");
  CHECK(by_device[0].metrics.count == 2);
  CHECK(by_device[0].metrics.mape == Approx(0.175));  // 10% and 25%
  CHECK(by_device[1].name == "rtx-4090");
  CHECK(by_device[1].metrics.count == 1);
  CHECK(by_device[1].metrics.mape == Approx(0.1));
}

TEST_CASE("metrics table lists every evaluation", "[calibrate]") {
  ErrorMetrics m;
  m.count = 3;
  m.mape = 0.123;
  m.kendall_tau = 0.9;
  const std::string text = MetricsTable({{"before", m}, {"after", m}}).ToCsv();
  CHECK(text.find("before,3,12.3,") != std::string::npos);
  CHECK(text.find("after,3,12.3,") != std::string::npos);
  CHECK(text.find("0.900") != std::string::npos);
}

}  // namespace dcnas::calibrate
