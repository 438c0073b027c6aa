#include "common/svg_chart.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <string_view>

#include "common/errors.h"

namespace dcnas {
namespace {

// Okabe & Ito (2008), "Color Universal Design": distinguishable with common colour-vision
// deficiencies. Ordered for contrast on white (yellow last).
constexpr const char* kPalette[] = {"#0072B2", "#D55E00", "#009E73", "#CC79A7",
                                    "#E69F00", "#56B4E9", "#000000", "#F0E442"};
constexpr int kMarkerShapes = 5;      // circle, square, triangle up, diamond, triangle down
constexpr double kCharWidthEm = 0.6;  // average glyph advance of a sans-serif font, in em
constexpr double kTitleFontPx = 16, kAxisFontPx = 13, kTickFontPx = 11, kLegendFontPx = 12;
constexpr double kPointFontPx = 10, kRefFontPx = 11, kMarkerRadiusPx = 3.5;

// Locale-independent fixed-point text with trailing zeros removed.
std::string Fixed(double v, int decimals) {
  char buf[64];
  auto [end, ec] = std::to_chars(buf, buf + sizeof(buf), v, std::chars_format::fixed, decimals);
  if (ec != std::errc()) return "0";
  std::string s(buf, end);
  if (s.find('.') != std::string::npos) {
    while (s.back() == '0') s.pop_back();
    if (s.back() == '.') s.pop_back();
  }
  return s == "-0" ? "0" : s;
}

std::string Px(double v) { return Fixed(v, 2); }

// Shortest round-trip text for a value quoted in an error message.
std::string Shortest(double v) {
  char buf[64];
  auto [end, ec] = std::to_chars(buf, buf + sizeof(buf), v);
  return ec == std::errc() ? std::string(buf, end) : "?";
}

std::string Escape(std::string_view s) {
  std::string out;
  for (char c : s) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&apos;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

size_t CodePoints(std::string_view s) {
  return std::count_if(s.begin(), s.end(), [](char c) { return (c & 0xC0) != 0x80; });
}

double TextWidth(std::string_view s, double font_px) {
  return static_cast<double>(CodePoints(s)) * font_px * kCharWidthEm;
}

// Splits text at spaces into lines at most max_px wide (estimated); a word too long for a line
// is cut, and text beyond max_lines ends in an ellipsis. Keeps UTF-8 sequences whole.
std::vector<std::string> Wrap(const std::string& s, double font_px, double max_px,
                              size_t max_lines) {
  const size_t max_chars = static_cast<size_t>(std::max(2.0, max_px / (font_px * kCharWidthEm)));
  auto cut = [](const std::string& t, size_t chars) {  // first `chars` code points
    size_t i = 0;
    for (size_t n = 0; i < t.size(); ++i) {
      if ((t[i] & 0xC0) != 0x80 && n++ == chars) break;
    }
    return i;
  };
  std::vector<std::string> lines;
  std::string rest = s;
  while (!rest.empty()) {
    if (lines.size() + 1 == max_lines && CodePoints(rest) > max_chars) {
      lines.push_back(rest.substr(0, cut(rest, max_chars - 1)) + "\xE2\x80\xA6");
      break;
    }
    if (CodePoints(rest) <= max_chars) {
      lines.push_back(rest);
      break;
    }
    size_t end = cut(rest, max_chars);
    size_t space = rest.rfind(' ', end);
    size_t take = space != std::string::npos && space > 0 ? space : end;
    lines.push_back(rest.substr(0, take));
    rest = rest.substr(take);
    rest.erase(0, rest.find_first_not_of(' ') == std::string::npos ? rest.size()
                                                                   : rest.find_first_not_of(' '));
  }
  return lines;
}

// Largest font (at most preferred_px, at least 9 px) at which text fits max_px.
double FitFont(std::string_view s, double preferred_px, double max_px) {
  double w = TextWidth(s, 1.0);
  return w <= 0 ? preferred_px : std::clamp(max_px / w, 9.0, preferred_px);
}

// Mantissa m (1..9) times 10^e as a short label: 2, 20, 2k, 0.2, 2e-3.
std::string PowerLabel(int m, int e) {
  static const char* const kSi[] = {"", "k", "M", "G", "T", "P", "E"};
  if (e >= 0 && e < 21) {
    return std::to_string(m * static_cast<int>(std::pow(10, e % 3))) + kSi[e / 3];
  }
  if (e == -1 || e == -2) return Fixed(m * std::pow(10.0, e), 2);
  return std::to_string(m) + "e" + std::to_string(e);
}

// Label for a linear-axis tick, with as many decimals as the step needs.
std::string LinearLabel(double v, double step, double max_abs) {
  if (v == 0) return "0";
  if (max_abs >= 1e4 && max_abs < 1e21) {
    static const char* const kSi[] = {"", "k", "M", "G", "T", "P", "E"};
    int k = static_cast<int>(std::floor(std::log10(max_abs) / 3 + 1e-9));
    double scale = std::pow(1000.0, k);
    int decimals = std::max(0, -static_cast<int>(std::floor(std::log10(step / scale) + 1e-9)));
    return Fixed(v / scale, decimals) + kSi[k];
  }
  if (max_abs < 1e-3) {
    int e = static_cast<int>(std::floor(std::log10(std::fabs(v)) + 1e-9));
    int decimals = std::max(0, e - static_cast<int>(std::floor(std::log10(step) + 1e-9)));
    return Fixed(v / std::pow(10.0, e), decimals) + "e" + std::to_string(e);
  }
  return Fixed(v, std::max(0, -static_cast<int>(std::floor(std::log10(step) + 1e-9))));
}

struct Tick {
  double value;
  std::string label;  // empty for minor ticks
};

struct Scale {
  bool log = false;
  double lo = 0, hi = 1;    // data range
  double px0 = 0, px1 = 1;  // pixel positions of lo and hi
  double Map(double v) const {
    double t = log ? (std::log10(v) - std::log10(lo)) / (std::log10(hi) - std::log10(lo))
                   : (v - lo) / (hi - lo);
    return px0 + t * (px1 - px0);
  }
  bool Contains(double v) const {
    double eps = 1e-9 * (log ? std::log10(hi / lo) : hi - lo);
    return log ? std::log10(v / lo) >= -eps && std::log10(hi / v) >= -eps
               : v >= lo - eps && v <= hi + eps;
  }
};

std::vector<Tick> LinearTicks(double lo, double hi, int target) {
  double raw = (hi - lo) / std::max(1, target);
  double mag = std::pow(10.0, std::floor(std::log10(raw)));
  double step = mag * (raw / mag <= 1 ? 1 : raw / mag <= 2 ? 2 : raw / mag <= 5 ? 5 : 10);
  std::vector<double> values;
  for (double k = std::ceil(lo / step - 1e-9); k * step <= hi + step * 1e-9; ++k) {
    values.push_back(std::fabs(k) < 0.5 ? 0.0 : k * step);
  }
  double max_abs = 0;
  for (double v : values) max_abs = std::max(max_abs, std::fabs(v));
  std::vector<Tick> ticks;
  for (double v : values) ticks.push_back({v, LinearLabel(v, step, max_abs)});
  return ticks;
}

double MaxLabelWidth(const std::vector<Tick>& ticks) {
  double w = 0;
  for (const Tick& t : ticks) w = std::max(w, TextWidth(t.label, kTickFontPx));
  return w;
}

// Log ticks: labelled decades (every stride-th one when crowded) with unlabelled 2..9 minors;
// ranges under two decades label 1, 2 and 5 (or every mantissa) instead.
std::vector<Tick> LogTicks(const Scale& s, double len_px, bool horizontal) {
  int e_lo = static_cast<int>(std::floor(std::log10(s.lo) + 1e-9));
  int e_hi = static_cast<int>(std::ceil(std::log10(s.hi) - 1e-9));
  double decade_px = len_px / std::log10(s.hi / s.lo);
  std::vector<Tick> decades;
  for (int e = e_lo; e <= e_hi; ++e) {
    if (s.Contains(std::pow(10.0, e))) decades.push_back({std::pow(10.0, e), PowerLabel(1, e)});
  }
  std::vector<Tick> ticks;
  if (decades.size() >= 2) {
    double need_px = horizontal ? MaxLabelWidth(decades) + 10 : kTickFontPx + 8;
    int stride = 1;
    for (int c : {1, 2, 3, 5, 10, 20, 50, 100}) {
      stride = c;
      if (c * decade_px >= need_px) break;
    }
    for (int e = e_lo; e <= e_hi; ++e) {
      for (int m = 1; m <= 9; ++m) {
        double v = m * std::pow(10.0, e);
        if (!s.Contains(v)) continue;
        if (m == 1 && e % stride == 0) {
          ticks.push_back({v, PowerLabel(1, e)});
        } else if ((m == 1 && decade_px >= 8) || (stride == 1 && decade_px >= 60)) {
          ticks.push_back({v, ""});
        }
      }
    }
    return ticks;
  }
  for (bool all : {false, true}) {
    ticks.clear();
    size_t labelled = 0;
    for (int e = e_lo; e <= e_hi; ++e) {
      for (int m = 1; m <= 9; ++m) {
        double v = m * std::pow(10.0, e);
        if (!s.Contains(v)) continue;
        bool label = all || m == 1 || m == 2 || m == 5;
        ticks.push_back({v, label ? PowerLabel(m, e) : ""});
        labelled += label;
      }
    }
    if (labelled >= 2) return ticks;
  }
  return LinearTicks(s.lo, s.hi, 4);
}

std::vector<Tick> AxisTicks(const Scale& s, double len_px, bool horizontal) {
  if (s.log) return LogTicks(s, len_px, horizontal);
  int target = std::max(2, static_cast<int>(len_px / (horizontal ? 90 : 50)));
  std::vector<Tick> ticks;
  for (; target >= 2; --target) {
    ticks = LinearTicks(s.lo, s.hi, target);
    if (!horizontal || ticks.size() < 2) break;
    double step_px = std::fabs(s.Map(ticks[1].value) - s.Map(ticks[0].value));
    if (MaxLabelWidth(ticks) + 10 <= step_px) break;
  }
  return ticks;
}

[[noreturn]] void Fail(const Chart& c, const std::string& what) {
  throw InputError("chart '" + c.title + "': " + what);
}

void CheckValue(const Chart& c, const ChartAxis& axis, const char* name, double v,
                const std::string& where) {
  if (!std::isfinite(v)) Fail(c, where + ": " + name + " = " + Shortest(v) + " is not finite");
  if (axis.log && v <= 0) {
    Fail(c,
         where + ": " + name + " = " + Shortest(v) + " must be > 0 on the log " + name + " axis");
  }
}

void Validate(const Chart& c) {
  if (c.series.empty()) Fail(c, "no series to plot");
  if (c.width_px < 200 || c.height_px < 150) {
    Fail(c, "size " + std::to_string(c.width_px) + "x" + std::to_string(c.height_px) +
                " px is below the 200x150 minimum");
  }
  for (const ChartSeries& s : c.series) {
    std::string where = "series '" + s.label + "'";
    if (s.x.size() != s.y.size()) {
      Fail(c, where + ": " + std::to_string(s.x.size()) + " x values but " +
                  std::to_string(s.y.size()) + " y values");
    }
    if (s.x.empty()) Fail(c, where + ": no points");
    if (!s.point_labels.empty() && s.point_labels.size() != s.x.size()) {
      Fail(c, where + ": " + std::to_string(s.point_labels.size()) + " point labels for " +
                  std::to_string(s.x.size()) + " points");
    }
    for (size_t i = 0; i < s.x.size(); ++i) {
      CheckValue(c, c.x, "x", s.x[i], where + " point " + std::to_string(i));
      CheckValue(c, c.y, "y", s.y[i], where + " point " + std::to_string(i));
    }
    if (s.y_lo.size() != s.y_hi.size() || (!s.y_lo.empty() && s.y_lo.size() != s.x.size())) {
      Fail(c, where + ": error bars need y_lo and y_hi for every point (" +
                  std::to_string(s.y_lo.size()) + " and " + std::to_string(s.y_hi.size()) +
                  " for " + std::to_string(s.x.size()) + " points)");
    }
    for (size_t i = 0; i < s.y_lo.size(); ++i) {
      const std::string at = where + " error bar " + std::to_string(i);
      CheckValue(c, c.y, "y", s.y_lo[i], at);
      CheckValue(c, c.y, "y", s.y_hi[i], at);
      if (!(s.y_lo[i] <= s.y[i] && s.y[i] <= s.y_hi[i])) {
        Fail(c, at + ": [" + Shortest(s.y_lo[i]) + ", " + Shortest(s.y_hi[i]) +
                    "] does not bracket y = " + Shortest(s.y[i]));
      }
    }
  }
  for (const ChartReference& r : c.references) {
    CheckValue(c, r.vertical ? c.x : c.y, r.vertical ? "x" : "y", r.value,
               "reference line '" + r.label + "'");
  }
}

Scale AxisScale(const Chart& c, const ChartAxis& axis, bool is_x, const char* name) {
  for (const std::optional<double>& bound : {axis.min, axis.max}) {
    if (bound) CheckValue(c, axis, name, *bound, std::string(name) + " axis bound");
  }
  auto t = [&](double v) { return axis.log ? std::log10(v) : v; };
  double lo = INFINITY, hi = -INFINITY;
  for (const ChartSeries& s : c.series) {
    for (double v : is_x ? s.x : s.y) lo = std::min(lo, t(v)), hi = std::max(hi, t(v));
    if (!is_x) {
      for (double v : s.y_lo) lo = std::min(lo, t(v));
      for (double v : s.y_hi) hi = std::max(hi, t(v));
    }
  }
  for (const ChartReference& r : c.references) {
    if (r.vertical == is_x) lo = std::min(lo, t(r.value)), hi = std::max(hi, t(r.value));
  }
  double pad = hi > lo ? 0.05 * (hi - lo) : axis.log ? 0.5 : std::max(std::fabs(lo) * 0.1, 1.0);
  Scale s;
  s.log = axis.log;
  s.lo = axis.min ? *axis.min : axis.log ? std::pow(10.0, lo - pad) : lo - pad;
  s.hi = axis.max ? *axis.max : axis.log ? std::pow(10.0, hi + pad) : hi + pad;
  if (!(s.lo < s.hi)) {
    Fail(c, std::string(name) + " axis range is empty: min " + Shortest(s.lo) + " >= max " +
                Shortest(s.hi));
  }
  return s;
}

// Marker of the given shape centred on (x, y).
std::string Marker(int shape, double x, double y, const std::string& color) {
  double r = kMarkerRadiusPx;
  std::string fill = "\" fill=\"" + color + "\"/>\n";
  switch (shape % kMarkerShapes) {
    case 0:
      return "<circle cx=\"" + Px(x) + "\" cy=\"" + Px(y) + "\" r=\"" + Px(r) + fill;
    case 1:
      return "<rect x=\"" + Px(x - r) + "\" y=\"" + Px(y - r) + "\" width=\"" + Px(2 * r) +
             "\" height=\"" + Px(2 * r) + fill;
    case 2:
      return "<path d=\"M" + Px(x) + " " + Px(y - 1.3 * r) + "L" + Px(x + 1.2 * r) + " " +
             Px(y + r) + "L" + Px(x - 1.2 * r) + " " + Px(y + r) + "Z" + fill;
    case 3:
      return "<path d=\"M" + Px(x) + " " + Px(y - 1.4 * r) + "L" + Px(x + 1.4 * r) + " " + Px(y) +
             "L" + Px(x) + " " + Px(y + 1.4 * r) + "L" + Px(x - 1.4 * r) + " " + Px(y) + "Z" + fill;
    default:
      return "<path d=\"M" + Px(x) + " " + Px(y + 1.3 * r) + "L" + Px(x + 1.2 * r) + " " +
             Px(y - r) + "L" + Px(x - 1.2 * r) + " " + Px(y - r) + "Z" + fill;
  }
}

std::string Line(double x1, double y1, double x2, double y2, const std::string& stroke,
                 double width, const std::string& dash = "") {
  return "<line x1=\"" + Px(x1) + "\" y1=\"" + Px(y1) + "\" x2=\"" + Px(x2) + "\" y2=\"" + Px(y2) +
         "\" stroke=\"" + stroke + "\" stroke-width=\"" + Px(width) + "\"" +
         (dash.empty() ? "" : " stroke-dasharray=\"" + dash + "\"") + "/>\n";
}

std::string Text(const std::string& cls, double x, double y, double font_px,
                 const std::string& anchor, const std::string& text,
                 const std::string& extra = "") {
  return "<text class=\"" + cls + "\" x=\"" + Px(x) + "\" y=\"" + Px(y) + "\" font-size=\"" +
         Px(font_px) + "\" text-anchor=\"" + anchor + "\"" + extra + ">" + Escape(text) +
         "</text>\n";
}

struct Box {
  double x0, y0, x1, y1;
  bool Overlaps(const Box& o) const { return x0 < o.x1 && o.x0 < x1 && y0 < o.y1 && o.y0 < y1; }
};

struct Segment {
  double x0, y0, x1, y1;
  // Liang-Barsky clipping: does any part of the segment lie inside the box?
  bool Crosses(const Box& b) const {
    double t0 = 0, t1 = 1, dx = x1 - x0, dy = y1 - y0;
    const double p[] = {-dx, dx, -dy, dy};
    const double q[] = {x0 - b.x0, b.x1 - x0, y0 - b.y0, b.y1 - y0};
    for (int k = 0; k < 4; ++k) {
      if (p[k] == 0) {
        if (q[k] < 0) return false;
        continue;
      }
      double t = q[k] / p[k];
      if (p[k] < 0) {
        t0 = std::max(t0, t);
      } else {
        t1 = std::min(t1, t);
      }
      if (t0 > t1) return false;
    }
    return true;
  }
};

bool IsLine(ChartSeries::Style s) { return s != ChartSeries::Style::kPoints; }
bool HasMarkers(ChartSeries::Style s) {
  return s == ChartSeries::Style::kPoints || s == ChartSeries::Style::kLinePoints;
}

std::string ColorOf(const Chart& chart, size_t i) {
  return Escape(chart.series[i].color.empty() ? kPalette[i % std::size(kPalette)]
                                              : chart.series[i].color);
}

// Where everything goes: the plot area, the axes' scales and ticks, and the legend's lines.
struct Layout {
  double width = 0, height = 0;
  double top = 0, bottom = 0, left = 0, right = 0;  // the plot area
  Scale xs, ys;
  std::vector<Tick> x_ticks, y_ticks;
  std::vector<std::vector<std::string>> legend_text;  // per series, wrapped
  double legend_w = 0;
  bool has_legend = false;
};

Layout LayOut(const Chart& chart) {
  Layout l;
  l.width = chart.width_px;
  l.height = chart.height_px;
  l.xs = AxisScale(chart, chart.x, true, "x");
  l.ys = AxisScale(chart, chart.y, false, "y");

  // Vertical layout first: the y tick labels decide the left margin.
  l.top = chart.title.empty() ? 16 : 40;
  l.bottom = l.height - (chart.x.title.empty() ? 30 : 50);
  l.ys.px0 = l.bottom;
  l.ys.px1 = l.top;
  l.y_ticks = AxisTicks(l.ys, l.bottom - l.top, false);
  l.left = (chart.y.title.empty() ? 8 : 8 + kAxisFontPx + 10) + MaxLabelWidth(l.y_ticks) + 13;

  // Legend on the right, at most 30% of the width; long labels wrap onto up to three lines.
  double legend_text_px = 0;
  for (const ChartSeries& s : chart.series) {
    l.legend_text.push_back(Wrap(s.label, kLegendFontPx, 0.3 * l.width - 50, 3));
    for (const std::string& line : l.legend_text.back()) {
      legend_text_px = std::max(legend_text_px, TextWidth(line, kLegendFontPx));
    }
  }
  l.has_legend = legend_text_px > 0;
  l.legend_w = 8 + 28 + 6 + legend_text_px + 8;
  l.right = l.width - (l.has_legend ? 16 + l.legend_w + 10 : 24);
  l.xs.px0 = l.left;
  l.xs.px1 = l.right;
  l.x_ticks = AxisTicks(l.xs, l.right - l.left, true);
  return l;
}

// The document's head: size, title, background, and the clip path of the plot area.
std::string Head(const Chart& chart, const Layout& l) {
  return "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
         "<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\"" +
         Px(l.width) + "\" height=\"" + Px(l.height) + "\" viewBox=\"0 0 " + Px(l.width) + " " +
         Px(l.height) + "\" font-family=\"Helvetica, Arial, sans-serif\">\n<title>" +
         Escape(chart.title) + "</title>\n<rect width=\"" + Px(l.width) + "\" height=\"" +
         Px(l.height) + "\" fill=\"#ffffff\"/>\n<defs><clipPath id=\"plot-clip\"><rect x=\"" +
         Px(l.left) + "\" y=\"" + Px(l.top) + "\" width=\"" + Px(l.right - l.left) +
         "\" height=\"" + Px(l.bottom - l.top) + "\"/></clipPath></defs>\n";
}

// Grid, ticks and tick labels, and the frame of the plot area.
std::string GridAndTicks(const Layout& l) {
  std::string svg = "<g class=\"grid\">\n";
  for (const Tick& t : l.x_ticks) {
    double x = l.xs.Map(t.value);
    svg += Line(x, l.top, x, l.bottom, t.label.empty() ? "#f0f0f0" : "#dddddd", 1);
  }
  for (const Tick& t : l.y_ticks) {
    double y = l.ys.Map(t.value);
    svg += Line(l.left, y, l.right, y, t.label.empty() ? "#f0f0f0" : "#dddddd", 1);
  }
  svg += "</g>\n<g class=\"ticks\">\n";
  for (const Tick& t : l.x_ticks) {
    double x = l.xs.Map(t.value);
    svg += Line(x, l.bottom, x, l.bottom + (t.label.empty() ? 3 : 5), "#333333", 1);
    if (!t.label.empty())
      svg += Text("x-tick", x, l.bottom + 9 + kTickFontPx, kTickFontPx, "middle", t.label);
  }
  for (const Tick& t : l.y_ticks) {
    double y = l.ys.Map(t.value);
    svg += Line(l.left - (t.label.empty() ? 3 : 5), y, l.left, y, "#333333", 1);
    if (!t.label.empty())
      svg += Text("y-tick", l.left - 8, y + 0.35 * kTickFontPx, kTickFontPx, "end", t.label);
  }
  svg += "</g>\n<rect class=\"plot-area\" x=\"" + Px(l.left) + "\" y=\"" + Px(l.top) +
         "\" width=\"" + Px(l.right - l.left) + "\" height=\"" + Px(l.bottom - l.top) +
         "\" fill=\"none\" stroke=\"#333333\" stroke-width=\"1\"/>\n";
  return svg;
}

std::string Titles(const Chart& chart, const Layout& l) {
  std::string svg;
  if (!chart.title.empty()) {
    svg += Text("title", l.width / 2, 24, FitFont(chart.title, kTitleFontPx, l.width - 20),
                "middle", chart.title, " font-weight=\"bold\"");
  }
  if (!chart.x.title.empty()) {
    svg += Text("x-title", (l.left + l.right) / 2, l.height - 10,
                FitFont(chart.x.title, kAxisFontPx, l.right - l.left), "middle", chart.x.title);
  }
  if (!chart.y.title.empty()) {
    double yc = (l.top + l.bottom) / 2, x = 8 + 0.8 * kAxisFontPx;
    svg += Text("y-title", x, yc, FitFont(chart.y.title, kAxisFontPx, l.bottom - l.top), "middle",
                chart.y.title, " transform=\"rotate(-90 " + Px(x) + " " + Px(yc) + ")\"");
  }
  return svg;
}

// What point labels should not cover: label boxes and markers, and drawn lines.
struct Obstacles {
  std::vector<Box> taken;
  std::vector<Segment> lines;
};

// Reference lines, with labels kept inside the plot area; their label boxes and lines become
// obstacles for point labels.
std::string References(const Chart& chart, const Layout& l, Obstacles& o) {
  std::string svg = "<g class=\"references\">\n";
  for (const ChartReference& r : chart.references) {
    const Scale& s = r.vertical ? l.xs : l.ys;
    if (!s.Contains(r.value)) continue;
    std::string color = Escape(r.color.empty() ? "#555555" : r.color);
    double p = s.Map(r.value), w = TextWidth(r.label, kRefFontPx);
    if (r.vertical) {
      svg += Line(p, l.top, p, l.bottom, color, 1.2, "5 4");
      o.lines.push_back({p, l.top, p, l.bottom});
      bool flip = p + 4 + w > l.right;
      double tx = flip ? p - 4 : p + 4;
      svg += Text("reference", tx, l.top + 14, kRefFontPx, flip ? "end" : "start", r.label,
                  " fill=\"" + color + "\"");
      o.taken.push_back({flip ? tx - w : tx, l.top + 3, flip ? tx : tx + w, l.top + 17});
    } else {
      svg += Line(l.left, p, l.right, p, color, 1.2, "5 4");
      o.lines.push_back({l.left, p, l.right, p});
      double ty = p - 5 - kRefFontPx < l.top ? p + 4 + kRefFontPx : p - 5;
      svg +=
          Text("reference", l.right - 4, ty, kRefFontPx, "end", r.label, " fill=\"" + color + "\"");
      o.taken.push_back({l.right - 4 - w, ty - kRefFontPx, l.right - 4, ty + 3});
    }
  }
  return svg + "</g>\n";
}

using SeriesPixels = std::vector<std::vector<std::pair<double, double>>>;

// Each series' points in pixels; their line segments and markers become obstacles.
SeriesPixels PixelsOf(const Chart& chart, const Layout& l, Obstacles& o) {
  SeriesPixels pts(chart.series.size());
  for (size_t i = 0; i < chart.series.size(); ++i) {
    for (size_t j = 0; j < chart.series[i].x.size(); ++j) {
      pts[i].emplace_back(l.xs.Map(chart.series[i].x[j]), l.ys.Map(chart.series[i].y[j]));
      if (j > 0 && IsLine(chart.series[i].style)) {
        o.lines.push_back(
            {pts[i][j - 1].first, pts[i][j - 1].second, pts[i][j].first, pts[i][j].second});
      }
      if (HasMarkers(chart.series[i].style)) {
        double x = pts[i].back().first, y = pts[i].back().second, r = kMarkerRadiusPx + 1;
        o.taken.push_back({x - r, y - r, x + r, y + r});
      }
    }
  }
  return pts;
}

// Series lines and markers.
std::string SeriesMarks(const Chart& chart, const Layout& l, const SeriesPixels& pts) {
  std::string svg;
  const auto ys_map = [&](double v) { return l.ys.Map(v); };
  for (size_t i = 0; i < chart.series.size(); ++i) {
    const ChartSeries& s = chart.series[i];
    std::string color = ColorOf(chart, i);
    if (IsLine(s.style) && pts[i].size() > 1) {
      svg += "<polyline fill=\"none\" stroke=\"" + color + "\" stroke-width=\"2\"" +
             (s.style == ChartSeries::Style::kDashedLine ? " stroke-dasharray=\"7 4\"" : "") +
             " points=\"";
      for (size_t j = 0; j < pts[i].size(); ++j) {
        svg += (j ? " " : "") + Px(pts[i][j].first) + "," + Px(pts[i][j].second);
      }
      svg += "\"/>\n";
    }
    for (size_t j = 0; j < s.y_lo.size(); ++j) {
      const double x = pts[i][j].first;
      const double top = ys_map(s.y_hi[j]);
      const double bottom = ys_map(s.y_lo[j]);
      svg += "<path class=\"error-bar\" fill=\"none\" stroke=\"" + color +
             "\" stroke-width=\"1.2\" d=\"M" + Px(x) + "," + Px(top) + "V" + Px(bottom) + "M" +
             Px(x - 4) + "," + Px(top) + "H" + Px(x + 4) + "M" + Px(x - 4) + "," + Px(bottom) +
             "H" + Px(x + 4) + "\"/>\n";
    }
    if (HasMarkers(s.style) || pts[i].size() == 1) {
      for (const auto& [x, y] : pts[i]) svg += Marker(static_cast<int>(i), x, y, color);
    }
  }
  return svg;
}

// Point labels, placed greedily where they cover nothing (each placed label is an obstacle for
// the next).
std::string PointLabels(const Chart& chart, const Layout& l, const SeriesPixels& pts,
                        Obstacles& o) {
  std::string svg;
  const size_t n_fixed_boxes = o.taken.size();  // reference labels and markers
  for (size_t i = 0; i < chart.series.size(); ++i) {
    const ChartSeries& s = chart.series[i];
    for (size_t j = 0; j < s.point_labels.size(); ++j) {
      if (s.point_labels[j].empty() || !l.xs.Contains(s.x[j]) || !l.ys.Contains(s.y[j])) continue;
      const auto [x, y] = pts[i][j];
      double w = TextWidth(s.point_labels[j], kPointFontPx), h = kPointFontPx;
      // Candidate spots around the marker; the first that covers nothing wins, else the one
      // covering least (labels count most, then markers, then lines).
      const double offsets[][2] = {{1, -1},   {1, 1},   {-1, -1},  {-1, 1},
                                   {0, -1.6}, {0, 1.6}, {1, -2.9}, {1, 2.9}};
      Box best{x + 6, y - 5 - 0.8 * h, x + 6 + w, y - 5 + 0.2 * h};
      double best_x = x + 6, best_y = y - 5, best_dx = 1, best_cost = INFINITY;
      for (const auto& [dx, dy] : offsets) {
        double tx = x + dx * (kMarkerRadiusPx + 3);
        double ty = y + dy * (kMarkerRadiusPx + 2) + (dy > 0 ? h : 0);
        double x0 = dx > 0 ? tx : dx < 0 ? tx - w : tx - w / 2;
        Box b{x0, ty - 0.8 * h, x0 + w, ty + 0.2 * h};
        if (b.x0 < l.left || b.x1 > l.right || b.y0 < l.top || b.y1 > l.bottom) continue;
        double cost = 0;
        for (size_t k = 0; k < o.taken.size(); ++k) {
          if (o.taken[k].Overlaps(b)) cost += k < n_fixed_boxes ? 2 : 4;
        }
        for (const Segment& line : o.lines) cost += line.Crosses(b) ? 1 : 0;
        if (cost < best_cost) best = b, best_x = tx, best_y = ty, best_dx = dx, best_cost = cost;
        if (cost == 0) break;
      }
      o.taken.push_back(best);
      const char* anchor = best_dx > 0 ? "start" : best_dx < 0 ? "end" : "middle";
      svg += Text("point-label", best_x, best_y, kPointFontPx, anchor, s.point_labels[j],
                  " fill=\"#333333\"");
    }
  }
  return svg;
}

// Legend: one entry per labelled series, with its line and marker style.
std::string Legend(const Chart& chart, const Layout& l) {
  const double lx = l.right + 16, row = 18, line_px = 14;
  std::vector<double> row_px;  // centre of each entry's first line
  double y = l.top + 8;
  for (const auto& text : l.legend_text) {
    row_px.push_back(y + row / 2);
    if (!text.empty()) y += row + line_px * static_cast<double>(text.size() - 1);
  }
  std::string svg = "<g class=\"legend\">\n<rect x=\"" + Px(lx) + "\" y=\"" + Px(l.top) +
                    "\" width=\"" + Px(l.legend_w) + "\" height=\"" + Px(y + 2 - l.top) +
                    "\" fill=\"#ffffff\" stroke=\"#999999\" stroke-width=\"1\"/>\n";
  for (size_t i = 0; i < chart.series.size(); ++i) {
    if (l.legend_text[i].empty()) continue;
    const ChartSeries::Style style = chart.series[i].style;
    const std::string color = ColorOf(chart, i);
    const double cy = row_px[i];
    if (IsLine(style)) {
      svg += Line(lx + 8, cy, lx + 36, cy, color, 2,
                  style == ChartSeries::Style::kDashedLine ? "7 4" : "");
    }
    if (HasMarkers(style)) svg += Marker(static_cast<int>(i), lx + 22, cy, color);
    svg += "<text class=\"legend-label\" x=\"" + Px(lx + 42) + "\" y=\"" +
           Px(cy + 0.35 * kLegendFontPx) + "\" font-size=\"" + Px(kLegendFontPx) + "\">" +
           Escape(l.legend_text[i][0]);
    for (size_t k = 1; k < l.legend_text[i].size(); ++k) {
      svg += "<tspan x=\"" + Px(lx + 42) + "\" dy=\"" + Px(line_px) + "\">" +
             Escape(l.legend_text[i][k]) + "</tspan>";
    }
    svg += "</text>\n";
  }
  return svg + "</g>\n";
}

}  // namespace

std::string RenderSvg(const Chart& chart) {
  Validate(chart);
  const Layout layout = LayOut(chart);
  std::string svg = Head(chart, layout);
  svg += GridAndTicks(layout);
  svg += Titles(chart, layout);
  Obstacles obstacles;
  svg += References(chart, layout, obstacles);
  // Series: lines, markers, then point labels placed where they cover nothing.
  const SeriesPixels pts = PixelsOf(chart, layout, obstacles);
  svg += "<g class=\"series\" clip-path=\"url(#plot-clip)\">\n";
  svg += SeriesMarks(chart, layout, pts);
  svg += PointLabels(chart, layout, pts, obstacles);
  svg += "</g>\n";
  if (layout.has_legend) svg += Legend(chart, layout);
  svg += "</svg>\n";
  return svg;
}

std::string XmlEscape(std::string_view text) { return Escape(text); }

}  // namespace dcnas
