#include "common/svg_chart.h"

#include <catch2/catch.hpp>
#include <clocale>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <map>
#include <string>
#include <vector>

#include "common/errors.h"

namespace dcnas {
namespace {

// Checks the SVG is well formed for what RenderSvg emits: every tag closes in order, attribute
// values are quoted, and text and attributes hold only the five predefined entities. Returns an
// empty string when fine, otherwise the problem.
std::string WellFormedProblem(const std::string& svg) {
  std::vector<std::string> open;
  size_t i = 0;
  if (svg.rfind("<?xml ", 0) != 0) return "no XML declaration";
  i = svg.find("?>") + 2;
  auto entity_ok = [&](size_t at) {
    for (const char* e : {"&amp;", "&lt;", "&gt;", "&quot;", "&apos;"}) {
      if (svg.compare(at, std::char_traits<char>::length(e), e) == 0) return true;
    }
    return false;
  };
  while (i < svg.size()) {
    if (svg[i] == '&' && !entity_ok(i)) return "bare & at " + std::to_string(i);
    if (svg[i] == '>') return "bare > at " + std::to_string(i);
    if (svg[i] != '<') {
      ++i;
      continue;
    }
    bool closing = svg[i + 1] == '/';
    size_t name_start = i + (closing ? 2 : 1), j = name_start;
    while (j < svg.size() && (std::isalnum(static_cast<unsigned char>(svg[j])) || svg[j] == '-'))
      ++j;
    std::string name = svg.substr(name_start, j - name_start);
    if (name.empty()) return "bad tag at " + std::to_string(i);
    bool in_quote = false;
    for (; j < svg.size() && (in_quote || svg[j] != '>'); ++j) {
      if (svg[j] == '"') in_quote = !in_quote;
      if (in_quote && svg[j] == '<') return "< in attribute at " + std::to_string(j);
      if (in_quote && svg[j] == '&' && !entity_ok(j)) return "bare & in attribute";
    }
    if (j == svg.size()) return "unterminated tag " + name;
    bool self_closing = svg[j - 1] == '/';
    if (closing) {
      if (open.empty() || open.back() != name) return "</" + name + "> does not match";
      open.pop_back();
    } else if (!self_closing) {
      open.push_back(name);
    }
    i = j + 1;
  }
  if (!open.empty()) return "<" + open.back() + "> never closed";
  return "";
}

// Text contents of every <text class="cls" ...> element, in order.
std::vector<std::string> Texts(const std::string& svg, const std::string& cls) {
  std::vector<std::string> out;
  const std::string key = "<text class=\"" + cls + "\"";
  for (size_t at = svg.find(key); at != std::string::npos; at = svg.find(key, at + 1)) {
    size_t start = svg.find('>', at) + 1;
    out.push_back(svg.substr(start, svg.find("</text>", start) - start));
  }
  return out;
}

// Numeric attribute of the first element starting with `prefix`.
double Attr(const std::string& svg, const std::string& prefix, const std::string& attr) {
  size_t at = svg.find(prefix);
  REQUIRE(at != std::string::npos);
  size_t end = svg.find('>', at);
  size_t a = svg.find(" " + attr + "=\"", at);
  REQUIRE(a < end);
  return std::strtod(svg.c_str() + a + attr.size() + 3, nullptr);
}

Chart Simple() {
  Chart c;
  c.title = "Latency";
  c.x.title = "batch (images)";
  c.y.title = "latency (ms)";
  ChartSeries s;
  s.label = "measured";
  s.x = {1, 2, 4, 8};
  s.y = {1.5, 2.0, 3.1, 5.8};
  c.series.push_back(s);
  return c;
}

}  // namespace

TEST_CASE("svg chart is a well-formed standalone document with titles and legend", "[svg]") {
  Chart c = Simple();
  ChartSeries line;
  line.label = "model";
  line.style = ChartSeries::Style::kDashedLine;
  line.x = {1, 8};
  line.y = {1, 6};
  c.series.push_back(line);
  c.references.push_back({true, 6, "ridge", ""});
  const std::string svg = RenderSvg(c);
  CHECK(WellFormedProblem(svg).empty());
  CHECK(svg.find("xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\"") != std::string::npos);
  CHECK(svg.find("fill=\"#ffffff\"") != std::string::npos);
  CHECK(Texts(svg, "title") == std::vector<std::string>{"Latency"});
  CHECK(Texts(svg, "x-title") == std::vector<std::string>{"batch (images)"});
  CHECK(Texts(svg, "y-title") == std::vector<std::string>{"latency (ms)"});
  CHECK(Texts(svg, "legend-label") == std::vector<std::string>{"measured", "model"});
  CHECK(Texts(svg, "reference") == std::vector<std::string>{"ridge"});
  CHECK(svg.find("stroke-dasharray=\"7 4\"") != std::string::npos);  // dashed series
  CHECK(svg.find("<polyline") != std::string::npos);
  // Default colours: the first two Okabe-Ito colours.
  CHECK(svg.find("fill=\"#0072B2\"") != std::string::npos);
  CHECK(svg.find("stroke=\"#D55E00\"") != std::string::npos);
  // Deterministic.
  CHECK(RenderSvg(c) == svg);
}

TEST_CASE("svg chart escapes text", "[svg]") {
  Chart c = Simple();
  c.title = "a<b & \"c\"";
  c.series[0].label = "x<y&z";
  c.series[0].point_labels = {"<p>", "", "q&r", "'s'"};
  c.x.title = "x > 0";
  const std::string svg = RenderSvg(c);
  CHECK(WellFormedProblem(svg).empty());
  CHECK(svg.find("a&lt;b &amp; &quot;c&quot;") != std::string::npos);
  CHECK(Texts(svg, "legend-label") == std::vector<std::string>{"x&lt;y&amp;z"});
  CHECK(Texts(svg, "point-label") ==
        std::vector<std::string>{"&lt;p&gt;", "q&amp;r", "&apos;s&apos;"});
  CHECK(svg.find("x<y") == std::string::npos);
  // The checker itself catches what escaping prevents.
  CHECK_FALSE(WellFormedProblem("<?xml ?><svg><text>a & b</text></svg>").empty());
  CHECK_FALSE(WellFormedProblem("<?xml ?><svg><g></svg>").empty());
}

TEST_CASE("log axis ticks are labelled decades", "[svg]") {
  Chart c = Simple();
  c.x.log = true;
  c.x.min = 0.01;
  c.x.max = 1e5;
  c.y.log = true;
  c.y.min = 1e-4;
  c.y.max = 1;
  c.series[0].x = {0.1, 1e4};
  c.series[0].y = {1e-3, 0.5};
  const std::string svg = RenderSvg(c);
  CHECK(Texts(svg, "x-tick") ==
        std::vector<std::string>{"0.01", "0.1", "1", "10", "100", "1k", "10k", "100k"});
  CHECK(Texts(svg, "y-tick") == std::vector<std::string>{"1e-4", "1e-3", "0.01", "0.1", "1"});
  // Unlabelled minor ticks 2..9 between decades: 7 decades x 8 minors on x.
  size_t minor = 0;
  for (size_t at = svg.find("stroke=\"#f0f0f0\""); at != std::string::npos;
       at = svg.find("stroke=\"#f0f0f0\"", at + 1)) {
    ++minor;
  }
  CHECK(minor >= 7 * 8);

  SECTION("a range under two decades labels 1-2-5 mantissas") {
    c.x.min = 1.5;
    c.x.max = 30;
    c.series[0].x = {2, 20};
    CHECK(Texts(RenderSvg(c), "x-tick") == std::vector<std::string>{"2", "5", "10", "20"});
  }
  SECTION("many decades on a narrow chart label every few decades") {
    c.width_px = 300;
    c.x.min = 1;
    c.x.max = 1e12;
    c.series[0].x = {10, 1e11};
    const auto labels = Texts(RenderSvg(c), "x-tick");
    CHECK(labels.size() < 13);
    CHECK(labels.front() == "1");
  }
}

TEST_CASE("linear axis ticks use 1-2-5 steps", "[svg]") {
  Chart c = Simple();
  c.x.min = 0;
  c.x.max = 100;
  c.y.min = 0;
  c.y.max = 1;
  const std::string svg = RenderSvg(c);
  CHECK(Texts(svg, "x-tick") == std::vector<std::string>{"0", "20", "40", "60", "80", "100"});
  CHECK(Texts(svg, "y-tick") == std::vector<std::string>{"0", "0.1", "0.2", "0.3", "0.4", "0.5",
                                                         "0.6", "0.7", "0.8", "0.9", "1"});
  c.x.max = 2e6;
  c.series[0].x = {1e5, 2e5, 4e5, 1.9e6};
  CHECK(Texts(RenderSvg(c), "x-tick") == std::vector<std::string>{"0", "0.5M", "1M", "1.5M", "2M"});
}

TEST_CASE("points map to pixels of the plot area", "[svg]") {
  Chart c = Simple();
  c.x.min = 0;
  c.x.max = 10;
  c.y.log = true;
  c.y.min = 1;
  c.y.max = 100;
  c.series[0].x = {5};
  c.series[0].y = {10};
  const std::string svg = RenderSvg(c);
  const double x = Attr(svg, "<rect class=\"plot-area\"", "x");
  const double y = Attr(svg, "<rect class=\"plot-area\"", "y");
  const double w = Attr(svg, "<rect class=\"plot-area\"", "width");
  const double h = Attr(svg, "<rect class=\"plot-area\"", "height");
  CHECK(w > 0.6 * c.width_px);
  CHECK(h > 0.7 * c.height_px);
  CHECK(Attr(svg, "<circle", "cx") == Approx(x + w / 2).margin(0.01));
  CHECK(Attr(svg, "<circle", "cy") == Approx(y + h / 2).margin(0.01));

  // Auto range: padded so the extreme points sit inside, not on, the frame.
  Chart a = Simple();
  const std::string auto_svg = RenderSvg(a);
  const double ax = Attr(auto_svg, "<rect class=\"plot-area\"", "x");
  const double aw = Attr(auto_svg, "<rect class=\"plot-area\"", "width");
  const double first_cx = Attr(auto_svg, "<circle", "cx");
  CHECK(first_cx > ax + 0.02 * aw);
  CHECK(first_cx < ax + 0.1 * aw);
}

TEST_CASE("explicit colours and reference lines outside the range", "[svg]") {
  Chart c = Simple();
  c.series[0].color = "#123456";
  c.x.min = 0;
  c.x.max = 10;
  c.references.push_back({true, 50, "far away", ""});
  c.references.push_back({false, 3, "peak", "#abcdef"});
  const std::string svg = RenderSvg(c);
  CHECK(svg.find("#123456") != std::string::npos);
  CHECK(svg.find("#0072B2") == std::string::npos);
  CHECK(Texts(svg, "reference") == std::vector<std::string>{"peak"});
  CHECK(svg.find("stroke=\"#abcdef\"") != std::string::npos);
}

TEST_CASE("svg number formatting ignores the C locale", "[svg]") {
  const std::string before = RenderSvg(Simple());
  const char* old = std::setlocale(LC_NUMERIC, nullptr);
  const std::string saved = old ? old : "C";
  bool switched = std::setlocale(LC_NUMERIC, "de_DE.UTF-8") != nullptr ||
                  std::setlocale(LC_NUMERIC, "fr_FR.UTF-8") != nullptr;
  const std::string after = RenderSvg(Simple());
  std::setlocale(LC_NUMERIC, saved.c_str());
  CHECK(after == before);
  if (!switched) WARN("no comma-decimal locale installed; compared under the C locale only");
}

TEST_CASE("legend wraps long labels and skips unlabelled series", "[svg]") {
  Chart c = Simple();
  c.width_px = 400;
  c.series[0].label = "a rather long legend label that cannot fit on one line";
  ChartSeries unlabelled = c.series[0];
  unlabelled.label = "";
  c.series.push_back(unlabelled);
  const std::string svg = RenderSvg(c);
  CHECK(WellFormedProblem(svg).empty());
  const auto labels = Texts(svg, "legend-label");
  REQUIRE(labels.size() == 1);
  CHECK(labels[0].find("<tspan") != std::string::npos);
  CHECK(labels[0].find("a rather") == 0);
  // The plot keeps most of the width.
  CHECK(Attr(svg, "<rect class=\"plot-area\"", "width") > 0.45 * c.width_px);
}

TEST_CASE("point labels of coincident points do not share a spot", "[svg]") {
  Chart c = Simple();
  c.series[0].x = {1, 1, 1, 5};
  c.series[0].y = {1, 1, 1, 5};
  c.series[0].point_labels = {"first", "second", "third", "far"};
  const std::string svg = RenderSvg(c);
  std::map<std::string, int> spots;
  const std::string key = "<text class=\"point-label\"";
  for (size_t at = svg.find(key); at != std::string::npos; at = svg.find(key, at + 1)) {
    ++spots[svg.substr(at, svg.find('>', at) - at)];
  }
  CHECK(spots.size() == 4);
}

TEST_CASE("degenerate ranges still get ticks", "[svg]") {
  Chart c = Simple();
  c.series[0].x = {3};
  c.series[0].y = {0};
  std::string svg = RenderSvg(c);
  CHECK(Texts(svg, "x-tick").size() >= 2);
  CHECK(Texts(svg, "y-tick").size() >= 2);
  c.y.log = true;
  c.y.min = 2.1;
  c.y.max = 2.9;
  c.series[0].y = {2.5};
  svg = RenderSvg(c);
  CHECK(Texts(svg, "y-tick").size() >= 2);
  CHECK(WellFormedProblem(svg).empty());
}

TEST_CASE("unplottable data throws InputError naming series and point", "[svg]") {
  auto message = [](const Chart& c) {
    try {
      RenderSvg(c);
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  Chart c = Simple();
  c.series[0].y[2] = std::numeric_limits<double>::quiet_NaN();
  CHECK_THAT(message(c),
             Catch::Contains("series 'measured' point 2") && Catch::Contains("y = nan"));
  c = Simple();
  c.series[0].x[1] = std::numeric_limits<double>::infinity();
  CHECK_THAT(message(c), Catch::Contains("point 1") && Catch::Contains("x = inf"));
  c = Simple();
  c.x.log = true;
  c.series[0].x[3] = 0;
  CHECK_THAT(message(c), Catch::Contains("point 3") && Catch::Contains("log x axis"));
  c = Simple();
  c.series[0].y.pop_back();
  CHECK_THAT(message(c), Catch::Contains("'measured'") && Catch::Contains("4 x values but 3"));
  c = Simple();
  c.series[0].point_labels = {"a"};
  CHECK_THAT(message(c), Catch::Contains("1 point labels for 4 points"));
  c = Simple();
  c.series[0].x.clear();
  c.series[0].y.clear();
  CHECK_THAT(message(c), Catch::Contains("'measured': no points"));
  c = Simple();
  c.series.clear();
  CHECK_THAT(message(c), Catch::Contains("no series"));
  c = Simple();
  c.y.log = true;
  c.references.push_back({false, -1, "floor", ""});
  CHECK_THAT(message(c), Catch::Contains("reference line 'floor'"));
  c = Simple();
  c.x.min = 5;
  c.x.max = 1;
  CHECK_THAT(message(c), Catch::Contains("x axis range is empty"));
}

TEST_CASE("error bars: a whisker per point, inside the axis, validated", "[svg]") {
  Chart c = Simple();
  c.series[0].y_lo = {1.0, 1.5, 2.5, 4.0};
  c.series[0].y_hi = {2.0, 2.5, 4.0, 12.0};  // the last reaches above every y
  const std::string svg = RenderSvg(c);
  CHECK(WellFormedProblem(svg).empty());
  size_t bars = 0;
  for (size_t at = svg.find("class=\"error-bar\""); at != std::string::npos;
       at = svg.find("class=\"error-bar\"", at + 1)) {
    ++bars;
  }
  CHECK(bars == 4);
  // The axis grows to the highest bar's top: its ticks reach 12.
  Chart plain = Simple();
  CHECK(RenderSvg(plain).find("class=\"error-bar\"") == std::string::npos);
  bool tick12 = false;
  for (const std::string& t : Texts(svg, "y-tick")) tick12 = tick12 || std::stod(t) >= 12;
  CHECK(tick12);
  // Mismatched lengths and a bar that does not bracket its point are refused, naming the series.
  Chart bad = Simple();
  bad.series[0].y_lo = {1.0};
  bad.series[0].y_hi = {2.0};
  CHECK_THROWS_WITH(RenderSvg(bad),
                    Catch::Contains("series 'measured'") && Catch::Contains("error bars"));
  bad.series[0].y_lo = {1.0, 1.5, 2.5, 6.0};
  bad.series[0].y_hi = {2.0, 2.5, 4.0, 7.0};
  CHECK_THROWS_WITH(RenderSvg(bad), Catch::Contains("does not bracket"));
}

}  // namespace dcnas
