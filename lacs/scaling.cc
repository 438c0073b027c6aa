#include "lacs/scaling.h"

#include <cmath>
#include <set>
#include <sstream>

#include "common/errors.h"
#include "common/table.h"
#include "common/text.h"
#include "models/op.h"

namespace dcnas::lacs {
namespace {

constexpr size_t kMaxAxisValues = 200;
constexpr int kMaxPhi = 8;

double ParsePositive(const std::string& text, const std::string& where) {
  double v = 0.0;
  try {
    size_t used = 0;
    v = std::stod(text, &used);
    if (used != text.size()) throw std::invalid_argument(text);
  } catch (const std::exception&) {
    throw InputError(where + ": '" + text + "' is not a number");
  }
  if (!std::isfinite(v) || v <= 0.0) {
    throw InputError(where + ": '" + text + "' must be a finite number above 0");
  }
  return v;
}

std::vector<double> ParseAxis(const std::string& text, const std::string& where) {
  if (text.empty()) throw InputError(where + ": no values");
  const std::vector<std::string> range = Split(text, ':');
  std::vector<double> values;
  if (range.size() == 3) {
    const double lo = ParsePositive(range[0], where + " (low end)");
    const double hi = ParsePositive(range[1], where + " (high end)");
    const double step = ParsePositive(range[2], where + " (step)");
    if (hi < lo) throw InputError(where + ": the high end " + range[1] + " is below the low end");
    const double n = std::floor((hi - lo) / step + 1e-9);
    if (n + 1 > static_cast<double>(kMaxAxisValues)) {
      throw InputError(where + ": " + FormatSignificant(n + 1) + " values (at most " +
                       std::to_string(kMaxAxisValues) + ")");
    }
    for (int i = 0; i <= static_cast<int>(n); ++i) {
      // Rounded to 1e-9 so that 1.0 + 3 * 0.1 prints and compares as 1.3.
      values.push_back(std::round((lo + i * step) * 1e9) / 1e9);
    }
  } else if (range.size() == 1) {
    for (const std::string& v : Split(text, '/')) values.push_back(ParsePositive(v, where));
    if (values.size() > kMaxAxisValues) {
      throw InputError(where + ": more than " + std::to_string(kMaxAxisValues) + " values");
    }
  } else {
    throw InputError(where + ": '" + text + "' is neither LO:HI:STEP nor values separated by '/'");
  }
  return values;
}

}  // namespace

void ValidateCoefficients(const Coefficients& c, const std::string& what) {
  const std::pair<const char*, double> parts[] = {
      {"depth", c.depth}, {"width", c.width}, {"resolution", c.resolution}};
  for (const auto& [name, v] : parts) {
    if (!std::isfinite(v) || v <= 0.0) {
      throw InputError(what + ": the " + std::string(name) + " coefficient " +
                       FormatSignificant(v) + " must be a finite number above 0");
    }
  }
}

int RoundResolution(double resolution, int multiple) {
  if (multiple < 1) {
    throw InputError("the resolution multiple must be at least 1 (got " + std::to_string(multiple) +
                     ")");
  }
  if (!std::isfinite(resolution) || resolution <= 0.0 || resolution > 1e5) {
    throw InputError("resolution " + FormatSignificant(resolution) +
                     " is not a resolution in (0, 100000]");
  }
  const auto m = static_cast<double>(multiple);
  return std::max(multiple, static_cast<int>(std::lround(resolution / m)) * multiple);
}

MemberTuple MemberAt(const Coefficients& c, int phi, int base_resolution, int resolution_multiple) {
  ValidateCoefficients(c, "compound scaling");
  if (phi < 0 || phi > 16) {
    throw InputError("member step phi = " + std::to_string(phi) + " is outside 0..16");
  }
  if (base_resolution < 1) {
    throw InputError("base resolution " + std::to_string(base_resolution) + " must be >= 1");
  }
  MemberTuple t;
  t.depth = std::pow(c.depth, phi);
  t.width = std::pow(c.width, phi);
  t.resolution =
      RoundResolution(base_resolution * std::pow(c.resolution, phi), resolution_multiple);
  return t;
}

models::BlockNetworkSpec ScaleSpec(const models::BlockNetworkSpec& base, const MemberTuple& t) {
  if (!std::isfinite(t.width) || t.width <= 0.0 || !std::isfinite(t.depth) || t.depth <= 0.0 ||
      t.resolution < 1) {
    throw InputError("member (width " + FormatSignificant(t.width) + ", depth " +
                     FormatSignificant(t.depth) + ", resolution " + std::to_string(t.resolution) +
                     "): every part must be finite and above 0");
  }
  models::BlockNetworkSpec s = base;
  s.width = base.width * t.width;
  s.depth = base.depth * t.depth;
  s.resolution = t.resolution;
  if (t.se_coefficient < 0.0 || !std::isfinite(t.se_coefficient)) {
    throw InputError("member SE coefficient " + FormatSignificant(t.se_coefficient) +
                     " must be >= 0");
  }
  if (t.se_coefficient > 0.0) s.se_coefficient = t.se_coefficient;
  return s;
}

double FlopsCost(const Coefficients& c) {
  return c.depth * c.width * c.width * c.resolution * c.resolution;
}

Coefficients PerStep(const Coefficients& c, int phi) {
  if (phi < 1) throw InputError("phi must be at least 1 (got " + std::to_string(phi) + ")");
  const double e = 1.0 / phi;
  return {std::pow(c.depth, e), std::pow(c.width, e), std::pow(c.resolution, e)};
}

double ActivationsPerImage(const models::Graph& graph) {
  double total = 0.0;
  for (const models::Op& op : graph.ops()) {
    if (op.kind == models::OpKind::kConv2d || op.kind == models::OpKind::kFullyConnected) {
      total += static_cast<double>(op.out.shape.per_image());
    }
  }
  return total;
}

Grid ParseGrid(const std::string& text, const Grid& defaults) {
  Grid g = defaults;
  if (text.empty()) return g;
  std::set<char> seen;
  for (const std::string& part : Split(text, ',')) {
    const size_t eq = part.find('=');
    const std::string where = "--grid '" + part + "'";
    if (eq == std::string::npos) throw InputError(where + ": expected AXIS=VALUES (d=1:2:0.1)");
    const std::string axis = part.substr(0, eq);
    std::vector<double> values = ParseAxis(part.substr(eq + 1), where);
    const bool known = axis == "d" || axis == "depth" || axis == "w" || axis == "width" ||
                       axis == "r" || axis == "resolution";
    if (known && !seen.insert(axis[0]).second) {
      throw InputError(where + ": axis '" + axis + "' given twice");
    }
    if (axis == "d" || axis == "depth") {
      g.depth = std::move(values);
    } else if (axis == "w" || axis == "width") {
      g.width = std::move(values);
    } else if (axis == "r" || axis == "resolution") {
      g.resolution = std::move(values);
    } else {
      throw InputError(where + ": unknown axis '" + axis +
                       "' (valid: d or depth, w or width, r or resolution)");
    }
  }
  return g;
}

std::string FormatGrid(const Grid& grid) {
  auto axis = [](const std::vector<double>& v) {
    std::vector<std::string> parts;
    parts.reserve(v.size());
    for (double x : v) parts.push_back(FormatSignificant(x));
    return Join(parts, "/");
  };
  return "d=" + axis(grid.depth) + ",w=" + axis(grid.width) + ",r=" + axis(grid.resolution);
}

Grid DefaultGrid() { return ParseGrid("d=1.0:2.0:0.1,w=1.0:1.4:0.1,r=1.0:1.4:0.05", {}); }

double Budget::Target() const { return std::pow(2.0, phi); }

bool Budget::Meets(double cost_ratio) const {
  return std::abs(cost_ratio / Target() - 1.0) <= tolerance + 1e-12;
}

void ValidateBudget(const Budget& b) {
  if (b.phi < 1 || b.phi > kMaxPhi) {
    throw InputError("--phi " + std::to_string(b.phi) + " is outside 1.." +
                     std::to_string(kMaxPhi));
  }
  if (!std::isfinite(b.tolerance) || b.tolerance <= 0.0 || b.tolerance >= 1.0) {
    throw InputError("--tolerance " + FormatSignificant(b.tolerance) + " must be in (0, 1)");
  }
}

}  // namespace dcnas::lacs
