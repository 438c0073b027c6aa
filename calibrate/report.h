// Validation views of a set of predictions: a residual table by family and batch, a parity chart
// (predicted vs measured, log-log, coloured by family), and a metrics table.
#pragma once

#include <string>
#include <vector>

#include "calibrate/measurement.h"
#include "calibrate/metrics.h"
#include "common/svg_chart.h"
#include "common/table.h"

namespace dcnas::calibrate {

// One row's prediction with the grouping keys the reports use.
struct PredictedRow {
  const Measurement* row = nullptr;
  std::string family;  // the zoo family of row->model
  double predicted_ms = 0;
};

// Rows grouped by (family, batch size): count, median signed error, MAPE, worst error. A family
// that is always under- or over-predicted shows up as a signed median far from 0.
Table ResidualTable(const std::vector<PredictedRow>& rows);

// One line per row: model, family, batch_size, image_size, measured_ms, predicted_ms, error_pct,
// held_out_lofo_ms (blank when `held_out_ms` is empty), source (file:line); with `lodo_ms` (a
// fit pooling several chips) also device and held_out_lodo_ms, each row predicted by the fit
// on the other chips.
Table PredictionsTable(const std::vector<PredictedRow>& rows,
                       const std::vector<double>& held_out_ms,
                       const std::vector<double>& lodo_ms = {});

// Predicted vs measured latency per batch (ms), log-log, one series per family, with the y = x
// line and the +-20% band as dashed lines.
Chart ParityChart(const std::vector<PredictedRow>& rows, const std::string& title);

// A named metrics line for tables ("before", "after", "leave-one-family-out", ...).
struct NamedMetrics {
  std::string name;
  ErrorMetrics metrics;
};

// Columns: evaluation, rows, MAPE %, median APE %, within 10 %, within 20 %, Kendall tau, worst.
Table MetricsTable(const std::vector<NamedMetrics>& metrics);

// The condition under which models are ranked against each other for the Kendall tau: the
// batch size (rows at other batch sizes are not compared).
std::string RankingGroup(const Measurement& row);

// Metrics of predicted rows (labels "model bBATCH rSIZE file:line", ranking within batch size).
ErrorMetrics MetricsOf(const std::vector<PredictedRow>& rows);

// MetricsOf for each device's rows, named by the device, in the order of `devices`; a device
// without rows is left out (the per-chip view of a pooled fit's leave-one-device-out).
std::vector<NamedMetrics> MetricsByDevice(const std::vector<PredictedRow>& rows,
                                          const std::vector<std::string>& devices);

}  // namespace dcnas::calibrate
