// SVG charts a person can read: axes with titles and units, linear or log scales with ticks,
// a legend, a title, and optional labelled points and reference lines. Used by roofline, sweep,
// compare and calibration parity charts.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace dcnas {

struct ChartAxis {
  std::string title;          // with unit, e.g. "operational intensity (FLOP/byte)"
  bool log = false;           // log10 scale (all values must be > 0)
  std::optional<double> min;  // default: from the data, padded
  std::optional<double> max;
};

struct ChartSeries {
  enum class Style { kPoints, kLine, kLinePoints, kDashedLine };
  std::string label;  // legend entry
  std::vector<double> x;
  std::vector<double> y;
  std::vector<std::string> point_labels;  // optional, one per point, drawn next to it
  Style style = Style::kPoints;
  std::string color;  // optional CSS colour; default: from a colour-blind-safe palette
  // Optional error bars, one [y_lo, y_hi] per point (both empty, or both x's length): drawn as
  // vertical whiskers with caps; each must bracket its y.
  std::vector<double> y_lo;
  std::vector<double> y_hi;
};

// A vertical or horizontal reference line with a label (e.g. a ridge point).
struct ChartReference {
  bool vertical = true;
  double value = 0.0;
  std::string label;
  std::string color;
};

struct Chart {
  std::string title;
  ChartAxis x;
  ChartAxis y;
  std::vector<ChartSeries> series;
  std::vector<ChartReference> references;
  int width_px = 900;
  int height_px = 600;
};

// Renders the chart as a standalone SVG document. Throws InputError on unplottable data
// (non-positive values on a log axis, NaN, mismatched x/y lengths, no points at all).
std::string RenderSvg(const Chart& chart);

// Escapes &, <, >, " and ' for SVG/XML text and attribute values.
std::string XmlEscape(std::string_view text);

}  // namespace dcnas
