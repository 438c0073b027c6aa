#include "surrogate/parity_chart.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <vector>

#include "common/errors.h"
#include "common/svg_chart.h"

namespace dcnas::surrogate {
namespace {

std::string Escape(const std::string& s) { return XmlEscape(s); }

std::string F(double v) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.2f", v);
  return buf;
}

std::string Tick(double v, double step) {
  char buf[32];
  const int decimals = step >= 1.0 ? 0 : static_cast<int>(std::ceil(-std::log10(step) - 1e-9));
  std::snprintf(buf, sizeof(buf), "%.*f", decimals, v);
  return buf;
}

// A 1-2-5 step giving about `target` intervals over `span`.
double NiceStep(double span, int target) {
  const double raw = span / target;
  const double mag = std::pow(10.0, std::floor(std::log10(raw)));
  for (double m : {1.0, 2.0, 5.0, 10.0}) {
    if (m * mag >= raw) return m * mag;
  }
  return 10.0 * mag;
}

}  // namespace

std::string ParityChartSvg(std::span<const float> truth, std::span<const float> mean,
                           std::span<const float> stddev, const ParityChartOptions& options) {
  if (truth.empty()) throw InputError("parity chart: no points");
  if (mean.size() != truth.size() || (!stddev.empty() && stddev.size() != truth.size())) {
    throw InputError("parity chart: truth, mean and std differ in length");
  }
  double lo = INFINITY, hi = -INFINITY;
  for (std::size_t i = 0; i < truth.size(); ++i) {
    const double s = stddev.empty() ? 0.0 : stddev[i];
    if (!std::isfinite(truth[i]) || !std::isfinite(mean[i]) || !std::isfinite(s)) {
      throw InputError("parity chart: non-finite value at point " + std::to_string(i));
    }
    lo = std::min({lo, static_cast<double>(truth[i]), mean[i] - s});
    hi = std::max({hi, static_cast<double>(truth[i]), mean[i] + s});
  }
  if (hi - lo < 1e-9) {
    lo -= 0.5;
    hi += 0.5;
  }
  const double step = NiceStep(hi - lo, 6);
  lo = std::floor(lo / step) * step;
  hi = std::ceil(hi / step) * step;

  const int size = std::max(200, options.size_px);
  const double left = 70, top = options.note.empty() ? 40 : 58, plot = size - 100.0;
  const double right = left + plot, bottom = top + plot;
  const int width = static_cast<int>(right + 20), height = static_cast<int>(bottom + 55);
  auto mx = [&](double v) { return left + (v - lo) / (hi - lo) * plot; };
  auto my = [&](double v) { return bottom - (v - lo) / (hi - lo) * plot; };

  std::string svg = R"(<svg xmlns="http://www.w3.org/2000/svg" width=")" + std::to_string(width) +
                    "\" height=\"" + std::to_string(height) + "\" viewBox=\"0 0 " +
                    std::to_string(width) + " " + std::to_string(height) +
                    "\" font-family=\"sans-serif\">\n";
  svg += "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n";
  svg += "<text x=\"" + F(width / 2.0) + R"(" y="24" font-size="16" text-anchor="middle">)" +
         Escape(options.title) + "</text>\n";
  if (!options.note.empty()) {
    svg += "<text x=\"" + F(width / 2.0) +
           "\" y=\"44\" font-size=\"12\" text-anchor=\"middle\" "
           "fill=\"#444444\">" +
           Escape(options.note) + "</text>\n";
  }
  for (double v = lo; v <= hi + step * 1e-6; v += step) {
    svg += "<line x1=\"" + F(mx(v)) + "\" y1=\"" + F(top) + "\" x2=\"" + F(mx(v)) + "\" y2=\"" +
           F(bottom) + "\" stroke=\"#eeeeee\"/>\n";
    svg += "<line x1=\"" + F(left) + "\" y1=\"" + F(my(v)) + "\" x2=\"" + F(right) + "\" y2=\"" +
           F(my(v)) + "\" stroke=\"#eeeeee\"/>\n";
    svg += "<text x=\"" + F(mx(v)) + "\" y=\"" + F(bottom + 16) +
           R"(" font-size="11" text-anchor="middle">)" + Tick(v, step) + "</text>\n";
    svg += "<text x=\"" + F(left - 6) + "\" y=\"" + F(my(v) + 4) +
           R"(" font-size="11" text-anchor="end">)" + Tick(v, step) + "</text>\n";
  }
  svg += "<rect x=\"" + F(left) + "\" y=\"" + F(top) + "\" width=\"" + F(plot) + "\" height=\"" +
         F(plot) + "\" fill=\"none\" stroke=\"#333333\"/>\n";
  svg += R"(<line class="identity" x1=")" + F(mx(lo)) + "\" y1=\"" + F(my(lo)) + "\" x2=\"" +
         F(mx(hi)) + "\" y2=\"" + F(my(hi)) + "\" stroke=\"#888888\" stroke-dasharray=\"6 4\"/>\n";
  svg += "<text x=\"" + F((left + right) / 2) + "\" y=\"" + F(bottom + 40) +
         R"(" font-size="13" text-anchor="middle">true )" + Escape(options.value_label) +
         "</text>\n";
  svg += "<text transform=\"translate(18 " + F((top + bottom) / 2) +
         ") rotate(-90)\" font-size=\"13\" text-anchor=\"middle\">predicted " +
         Escape(options.value_label) + "</text>\n";
  svg += "<g class=\"error-bars\" stroke=\"#0072B2\" stroke-opacity=\"0.35\">\n";
  if (!stddev.empty()) {
    for (std::size_t i = 0; i < truth.size(); ++i) {
      if (stddev[i] <= 0) continue;
      const double x = mx(truth[i]);
      svg += "<line x1=\"" + F(x) + "\" y1=\"" + F(my(mean[i] - stddev[i])) + "\" x2=\"" + F(x) +
             "\" y2=\"" + F(my(mean[i] + stddev[i])) + "\"/>\n";
    }
  }
  svg += "</g>\n<g class=\"points\" fill=\"#0072B2\">\n";
  for (std::size_t i = 0; i < truth.size(); ++i) {
    svg += "<circle cx=\"" + F(mx(truth[i])) + "\" cy=\"" + F(my(mean[i])) + "\" r=\"2.5\"/>\n";
  }
  svg += "</g>\n</svg>\n";
  return svg;
}

}  // namespace dcnas::surrogate
