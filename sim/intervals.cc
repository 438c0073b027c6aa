#include "sim/intervals.h"

#include <yaml-cpp/yaml.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <mutex>
#include <sstream>

#include "common/config_tree.h"
#include "common/data_dir.h"
#include "common/errors.h"
#include "common/table.h"
#include "common/text.h"
#include "sim/engine.h"

namespace dcnas::sim {
namespace {

// The overrides the profile's fit ran with ("accelerator overrides during the fit: cores=1,
// a100:hbm.bandwidth_gbps=2039" in its description), for `chip`.
std::vector<std::string> FitOverrides(const std::string& description, const std::string& chip) {
  const std::string marker = "accelerator overrides during the fit: ";
  const size_t at = description.find(marker);
  std::vector<std::string> out;
  if (at == std::string::npos) return out;
  for (std::string item : Split(description.substr(at + marker.size()), ',')) {
    while (!item.empty() && item.front() == ' ') item.erase(item.begin());
    while (!item.empty() && (item.back() == ' ' || item.back() == '"')) item.pop_back();
    const size_t colon = item.find(':');
    const size_t eq = item.find('=');
    if (colon != std::string::npos && colon < eq) {
      if (item.substr(0, colon) != chip) continue;
      item = item.substr(colon + 1);
    }
    out.push_back(item);
  }
  return out;
}

std::string FormatOverride(const Override& o) { return o.path + "=" + o.value; }

// The chip file's name: a spec's name without the "[key=value,...]" its overrides add.
std::string ChipFileName(const std::string& spec_name) {
  return spec_name.substr(0, spec_name.find('['));
}

// The model's two pair tables by their file keys.
template <class Model>
auto PairTables(Model& m) {
  return std::array{std::pair{"cross_chip", &m.cross_chip},
                    std::pair{"cross_model", &m.cross_model}};
}

// Half-width of a difference of two errors with half-widths ha and hb whose parts wa and wb are
// correlated by rho.
double CombinedHalf(double ha, double hb, double wa, double wb, double rho) {
  return std::sqrt(std::max(0.0, ha * ha + hb * hb - 2.0 * rho * wa * wb));
}

}  // namespace

const char* RegimeName(Regime r) {
  switch (r) {
    case Regime::kLargeBatchGpu:
      return "large-batch-gpu";
    case Regime::kSmallBatchGpu:
      return "small-batch-gpu";
    case Regime::kTpu:
      return "tpu";
    case Regime::kCpu:
      return "cpu";
    case Regime::kTrainingGpu:
      return "training-gpu";
  }
  throw InternalError("unknown regime");
}

const char* SituationName(Situation s) {
  switch (s) {
    case Situation::kFitted:
      return "fitted";
    case Situation::kPooledTransfer:
      return "pooled-transfer";
    case Situation::kChipTransfer:
      return "chip-transfer";
    case Situation::kDefaults:
      return "defaults";
  }
  throw InternalError("unknown situation");
}

Regime ClassifyRegime(const std::string& kind, bool training, int batch) {
  if (kind == "tpu") return Regime::kTpu;
  if (kind == "cpu") return Regime::kCpu;
  if (training) return Regime::kTrainingGpu;
  return batch <= kSmallBatchMax ? Regime::kSmallBatchGpu : Regime::kLargeBatchGpu;
}

Situation ClassifySituation(const SimSetup& setup) {
  const CalibrationParams& c = setup.calibration;
  if (c.device.empty() || c.name == "default" || c.name == "default+overrides") {
    return Situation::kDefaults;
  }
  const std::vector<std::string> chips = Split(c.device, '+');
  const bool pooled = chips.size() > 1;
  const Situation transfer = pooled ? Situation::kPooledTransfer : Situation::kChipTransfer;
  // "epyc-zen4[cores=1]" names its overrides too; they are judged below.
  const std::string chip = ChipFileName(setup.spec.name);
  if (std::find(chips.begin(), chips.end(), chip) == chips.end()) return transfer;
  if (setup.overrides.empty()) return Situation::kFitted;
  const std::vector<std::string> own = FitOverrides(c.description, chip);
  for (const Override& o : setup.overrides) {
    if (std::find(own.begin(), own.end(), FormatOverride(o)) == own.end()) return transfer;
  }
  return Situation::kFitted;
}

const ErrorBand& ErrorModel::Band(Regime r, Situation s) const {
  const auto it = bands.find({r, s});
  if (it == bands.end()) {
    throw InputError(file + ": no band for regime '" + RegimeName(r) + "', situation '" +
                     SituationName(s) + "'");
  }
  return it->second;
}

ErrorModel ParseErrorModel(const YAML::Node& root, const std::string& file) {
  ConfigReader r(root, file, "");
  ErrorModel m;
  m.file = file;
  m.generated = r.StringOr("generated", "");
  ConfigReader pairs = r.Map("pairs");
  for (const auto& [kind, out] : PairTables(m)) {
    ConfigReader k = pairs.Map(kind);
    for (Situation s : kSituations) {
      ConfigReader e = k.Map(SituationName(s));
      PairModel& pm = (*out)[static_cast<size_t>(s)];
      pm.rho = e.Number("rho", -1.0, 1.0);
      pm.scale80 = e.Number("scale80", 0.0, 100.0);
      pm.scale95 = e.Number("scale95", 0.0, 100.0);
      e.Finish();
    }
    k.Finish();
  }
  pairs.Finish();
  ConfigReader bands = r.Map("bands");
  for (Regime reg : kRegimes) {
    ConfigReader b = bands.Map(RegimeName(reg));
    for (Situation s : kSituations) {
      ConfigReader e = b.Map(SituationName(s));
      ErrorBand band;
      band.center = e.Number("center", -5, 5);
      band.lo95 = e.Number("lo95", -5, 5);
      band.lo80 = e.Number("lo80", -5, 5);
      band.hi80 = e.Number("hi80", -5, 5);
      band.hi95 = e.Number("hi95", -5, 5);
      band.within80 = e.Number("within80", 0, 5);
      band.within95 = e.Number("within95", 0, 5);
      band.rows = static_cast<int>(e.Integer("rows", 0, 100000000));
      band.groups = static_cast<int>(e.Integer("groups", 0, 100000000));
      band.source = e.StringOr("source", "own");
      if (!(band.lo95 <= band.lo80 && band.lo80 <= band.center && band.center <= band.hi80 &&
            band.hi80 <= band.hi95)) {
        e.Fail("", "expected lo95 <= lo80 <= center <= hi80 <= hi95");
      }
      e.Finish();
      m.bands[{reg, s}] = band;
    }
    b.Finish();
  }
  bands.Finish();
  r.Finish();
  return m;
}

ErrorModel LoadErrorModel(const std::string& path) {
  return ParseErrorModel(LoadYamlFile(path), path);
}

std::string ErrorModelToYaml(const ErrorModel& m) {
  std::ostringstream o;
  o << "# Prediction intervals of the simulator: quantiles of the held-out log residual\n"
       "# r = ln(predicted / measured) per regime and situation (split-conformal ranks), and the\n"
       "# correlation of two predictions' residuals. Written by `dcnas intervals`; how it is\n"
       "# made and what it covers: calibrate/README.md, \"Prediction intervals\".\n";
  o << "generated: \"" << m.generated << "\"\n";
  o << "pairs:\n";
  for (const auto& [kind, v] : PairTables(m)) {
    o << "  " << kind << ":\n";
    for (Situation s : kSituations) {
      const PairModel& pm = (*v)[static_cast<size_t>(s)];
      o << "    " << SituationName(s) << ": {rho: " << FormatFixed(pm.rho, 4)
        << ", scale80: " << FormatFixed(pm.scale80, 4)
        << ", scale95: " << FormatFixed(pm.scale95, 4) << "}\n";
    }
  }
  o << "bands:\n";
  for (Regime reg : kRegimes) {
    o << "  " << RegimeName(reg) << ":\n";
    for (Situation s : kSituations) {
      const auto it = m.bands.find({reg, s});
      if (it == m.bands.end()) throw InternalError("error model without every band");
      const ErrorBand& b = it->second;
      o << "    " << SituationName(s) << ": {center: " << FormatFixed(b.center, 5)
        << ", lo95: " << FormatFixed(b.lo95, 5) << ", lo80: " << FormatFixed(b.lo80, 5)
        << ", hi80: " << FormatFixed(b.hi80, 5) << ", hi95: " << FormatFixed(b.hi95, 5)
        << ", within80: " << FormatFixed(b.within80, 5)
        << ", within95: " << FormatFixed(b.within95, 5) << ", rows: " << b.rows
        << ", groups: " << b.groups << ", source: \"" << b.source << "\"}\n";
    }
  }
  return o.str();
}

const ErrorModel& ShippedErrorModel() {
  static std::once_flag once;
  static ErrorModel model;
  std::call_once(once, [] { model = LoadErrorModel(DataPath("intervals/error-model.yaml")); });
  return model;
}

Interval LatencyInterval(double predicted, const ErrorBand& band) {
  Interval i;
  i.point = predicted;
  i.lo80 = predicted * std::exp(-band.hi80);
  i.hi80 = predicted * std::exp(-band.lo80);
  i.lo95 = predicted * std::exp(-band.hi95);
  i.hi95 = predicted * std::exp(-band.lo95);
  i.source = band.source;
  i.rows = band.rows;
  return i;
}

Interval RatioInterval(double predicted_ratio, const ErrorBand& a, const ErrorBand& b,
                       const PairModel& pair, bool same_chip) {
  const double rho = pair.rho;
  // d = r_A - r_B; the measured ratio is predicted * exp(-d).
  double c = 0;
  double up80 = 0, down80 = 0, up95 = 0, down95 = 0;
  if (same_chip) {
    up80 = down80 = CombinedHalf(a.within80, b.within80, a.within80, b.within80, rho);
    up95 = down95 = CombinedHalf(a.within95, b.within95, a.within95, b.within95, rho);
  } else {
    c = a.center - b.center;
    up80 = CombinedHalf(a.hi80 - a.center, b.center - b.lo80, a.within80, b.within80, rho);
    down80 = CombinedHalf(a.center - a.lo80, b.hi80 - b.center, a.within80, b.within80, rho);
    up95 = CombinedHalf(a.hi95 - a.center, b.center - b.lo95, a.within95, b.within95, rho);
    down95 = CombinedHalf(a.center - a.lo95, b.hi95 - b.center, a.within95, b.within95, rho);
  }
  up80 *= pair.scale80;
  down80 *= pair.scale80;
  up95 *= pair.scale95;
  down95 *= pair.scale95;
  Interval i;
  i.point = predicted_ratio;
  i.lo80 = predicted_ratio * std::exp(-(c + up80));
  i.hi80 = predicted_ratio * std::exp(-(c - down80));
  i.lo95 = predicted_ratio * std::exp(-(c + up95));
  i.hi95 = predicted_ratio * std::exp(-(c - down95));
  i.source = a.source == b.source ? a.source : a.source + " / " + b.source;
  i.rows = std::min(a.rows, b.rows);
  return i;
}

Interval InverseInterval(const Interval& l, double point) {
  Interval i = l;
  i.point = point;
  i.lo80 = point * l.point / l.hi80;
  i.hi80 = point * l.point / l.lo80;
  i.lo95 = point * l.point / l.hi95;
  i.hi95 = point * l.point / l.lo95;
  return i;
}

Interval IntervalModel::Latency(const SimSetup& setup, bool training, int batch,
                                double predicted) const {
  const Regime r = ClassifyRegime(setup.spec.kind, training, batch);
  const Situation s = ClassifySituation(setup);
  Interval i = LatencyInterval(predicted, model->Band(r, s));
  i.regime = RegimeName(r);
  i.situation = SituationName(s);
  return i;
}

namespace {

// Whether one chip is a what-if variant of the other (the same chip file, or one `extends` the
// other): their biases are one chip's.
bool SameSilicon(const SimSetup& a, const SimSetup& b) {
  const std::string chip_a = ChipFileName(a.spec.name);
  const std::string chip_b = ChipFileName(b.spec.name);
  const auto extends = [](const AcceleratorSpec& s, const std::string& name) {
    return std::find(s.extends_chain.begin(), s.extends_chain.end(), name) != s.extends_chain.end();
  };
  return chip_a == chip_b || extends(b.spec, chip_a) || extends(a.spec, chip_b);
}

}  // namespace

Interval IntervalModel::CrossChip(const SimSetup& a, const SimSetup& b, bool training, int batch,
                                  double predicted_ratio) const {
  if (SameSilicon(a, b)) {
    // A what-if against its own chip: the chip's bias cancels as between two models on it.
    Interval i = CrossModel(b, training, batch, predicted_ratio);
    i.source += "; what-if variant of one chip";
    return i;
  }
  const Regime ra = ClassifyRegime(a.spec.kind, training, batch);
  const Regime rb = ClassifyRegime(b.spec.kind, training, batch);
  const Situation sa = ClassifySituation(a);
  const Situation sb = ClassifySituation(b);
  const Situation s = std::max(sa, sb);
  Interval i = RatioInterval(predicted_ratio, model->Band(ra, sa), model->Band(rb, sb),
                             model->cross_chip[static_cast<size_t>(s)], false);
  i.regime = ra == rb ? RegimeName(ra) : std::string(RegimeName(ra)) + "/" + RegimeName(rb);
  i.situation =
      sa == sb ? SituationName(sa) : std::string(SituationName(sa)) + "/" + SituationName(sb);
  return i;
}

Interval IntervalModel::CrossModel(const SimSetup& setup, bool training, int batch,
                                   double predicted_ratio) const {
  const Regime r = ClassifyRegime(setup.spec.kind, training, batch);
  const Situation s = ClassifySituation(setup);
  const ErrorBand& band = model->Band(r, s);
  Interval i =
      RatioInterval(predicted_ratio, band, band, model->cross_model[static_cast<size_t>(s)], true);
  i.regime = RegimeName(r);
  i.situation = SituationName(s);
  return i;
}

nlohmann::json IntervalToJson(const Interval& i, double scale) {
  return {{"lo80", i.lo80 * scale}, {"hi80", i.hi80 * scale},    {"lo95", i.lo95 * scale},
          {"hi95", i.hi95 * scale}, {"regime", i.regime},        {"situation", i.situation},
          {"source", i.source},     {"calibration_rows", i.rows}};
}

std::string IntervalLine(const Interval& i) {
  return "  interval           " + FormatRange(i.lo80 * 1e3, i.hi80 * 1e3, 3) + " ms at 80%, " +
         FormatRange(i.lo95 * 1e3, i.hi95 * 1e3, 3) + " ms at 95% (held-out error of " + i.regime +
         ", " + i.situation + (i.source.rfind("own", 0) == 0 ? "" : "; " + i.source) + ")\n";
}

std::string FormatRange(double lo, double hi, int digits) {
  return "[" + FormatFixed(lo, digits) + ", " + FormatFixed(hi, digits) + "]";
}

std::vector<std::string> IntervalHeader(const std::string& prefix, const std::string& suffix,
                                        bool csv) {
  if (!csv) return {"80% interval"};
  std::vector<std::string> out;
  for (const char* end : {"lo80", "hi80", "lo95", "hi95"}) out.push_back(prefix + end + suffix);
  return out;
}

std::vector<std::string> IntervalCells(const Interval& i, int digits, bool csv) {
  if (!csv) return {FormatRange(i.lo80, i.hi80, digits)};
  std::vector<std::string> out;
  for (double v : {i.lo80, i.hi80, i.lo95, i.hi95}) out.push_back(FormatFixed(v, digits));
  return out;
}

}  // namespace dcnas::sim
