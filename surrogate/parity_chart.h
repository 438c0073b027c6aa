// Parity chart: predicted (ensemble mean, with +-1 std error bars) against true values, with the
// y = x line. common/svg_chart.h has no error bars, so this is a small writer of its own.
#pragma once

#include <span>
#include <string>

namespace dcnas::surrogate {

struct ParityChartOptions {
  std::string title = "surrogate parity (test set)";
  std::string value_label = "accuracy (%)";  // axis unit; axes read "true <label>" and
                                             // "predicted <label>"
  std::string note;                          // optional line under the title (e.g. metrics)
  int size_px = 640;                         // square plot
};

// A standalone SVG document. `stddev` may be empty (no error bars). Throws InputError on
// mismatched lengths, no points, or non-finite values.
std::string ParityChartSvg(std::span<const float> truth, std::span<const float> mean,
                           std::span<const float> stddev, const ParityChartOptions& options = {});

}  // namespace dcnas::surrogate
