#include "calibrate/intervals.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <limits>
#include <map>
#include <set>
#include <tuple>

#include <boost/math/distributions/students_t.hpp>

#include "common/config_tree.h"
#include "common/csv_file.h"
#include "common/errors.h"
#include "common/statistics.h"
#include "common/table.h"
#include "common/text.h"

namespace dcnas::calibrate {
namespace {

using sim::ErrorBand;
using sim::kRegimes;
using sim::kSituations;
using sim::Regime;
using sim::Situation;

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr int kEnoughRows = 40;
constexpr int kEnoughGroups = 3;

// The conformal ends of a sorted sample at coverage 1 - alpha, equal-tailed: the
// floor((n + 1) alpha / 2)-th and ceil((n + 1)(1 - alpha / 2))-th smallest; infinite where the
// rank falls outside the sample.
std::pair<double, double> ConformalEnds(const std::vector<double>& sorted, double alpha) {
  const auto n = static_cast<double>(sorted.size());
  const auto k_lo = static_cast<long>(std::floor((n + 1) * alpha / 2 + 1e-9));
  const auto k_hi = static_cast<long>(std::ceil((n + 1) * (1 - alpha / 2) - 1e-9));
  const double lo = k_lo < 1 ? -kInf : sorted[static_cast<size_t>(k_lo - 1)];
  const double hi =
      k_hi > static_cast<long>(sorted.size()) ? kInf : sorted[static_cast<size_t>(k_hi - 1)];
  return {lo, hi};
}

// The one-sided conformal quantile of a sorted sample of scores at `level`: the
// ceil((n + 1) level)-th smallest, the largest where that rank is past the sample.
double ConformalUpper(const std::vector<double>& sorted, double level) {
  const auto n = static_cast<double>(sorted.size());
  const auto k = static_cast<size_t>(std::ceil((n + 1) * level - 1e-9));
  return k > sorted.size() ? sorted.back() : sorted[k - 1];
}

Situation ParseSituation(ConfigReader& r, const std::string& key) {
  return r.OneOf<Situation>(
      key, {{"fitted", Situation::kFitted, "the chip in the fit, a held-out family"},
            {"pooled-transfer", Situation::kPooledTransfer, "a pooled fit on a chip outside it"},
            {"chip-transfer", Situation::kChipTransfer, "one chip's profile on another"},
            {"defaults", Situation::kDefaults, "the built-in defaults"}});
}

// The chip-level unit of a residual: the predicting profile on the chip, in one regime and
// situation (the rows that share one chip's bias).
std::string UnitOf(const ResidualRow& row) {
  return row.profile + "@" + row.device + "/" + sim::RegimeName(row.regime) + "/" +
         sim::SituationName(row.situation);
}

// The band of one (regime, situation) from the rows that pass `calibrate_on`: conformal for the
// fitted situation, hierarchical (chips as the exchangeable units) for the others.
template <class Keep>
ErrorBand BandOf(const std::vector<ResidualRow>& rows, Regime regime, Situation situation,
                 Keep calibrate_on) {
  std::set<std::string> devices;
  std::vector<double> own;
  std::vector<double> pooled;
  std::map<std::string, std::vector<double>> own_groups;
  std::map<std::string, std::vector<double>> pooled_groups;
  for (const auto& row : rows) {
    if (row.situation != situation || !calibrate_on(row)) continue;
    pooled.push_back(row.r());
    pooled_groups[UnitOf(row)].push_back(row.r());
    if (row.regime == regime) {
      own.push_back(row.r());
      own_groups[UnitOf(row)].push_back(row.r());
      devices.insert(row.device);
    }
  }
  std::vector<std::vector<double>> og;
  std::vector<std::vector<double>> pg;
  for (auto& [k, v] : own_groups) og.push_back(std::move(v));
  for (auto& [k, v] : pooled_groups) pg.push_back(std::move(v));
  ErrorBand b = situation == Situation::kFitted
                    ? ConformalBand(own, pooled, static_cast<int>(devices.size()))
                    : HierarchicalBand(og, pg, static_cast<int>(devices.size()));
  // Within-chip spread: |r - the chip's median|, conformal, from the own chips (else all).
  std::vector<double> dev;
  for (const auto& g : og.empty() ? pg : og) {
    const double m = Median(g);
    for (double r : g) dev.push_back(std::abs(r - m));
  }
  std::sort(dev.begin(), dev.end());
  b.within80 = ConformalUpper(dev, 0.80);
  b.within95 = ConformalUpper(dev, 0.95);
  return b;
}

// Uncentred correlation of the pairs' deviations from their bands' centres.
struct PairSums {
  double xy = 0, xx = 0, yy = 0;
  void Add(double x, double y) {
    xy += x * y;
    xx += x * x;
    yy += y * y;
  }
  double Rho() const { return xx > 0 && yy > 0 ? xy / std::sqrt(xx * yy) : 0.0; }
};

struct Pair {
  size_t a, b;
  bool cross_chip;
};

// Pairs of rows: the same model, batch and size on two chips; two models on one chip and profile
// at the same batch and size. Same situation and regime.
std::vector<Pair> MakePairs(const std::vector<ResidualRow>& rows) {
  std::map<std::tuple<int, int, std::string, int, int>, std::vector<size_t>> by_model;
  std::map<std::tuple<int, int, std::string, std::string, int, int>, std::vector<size_t>> by_chip;
  for (size_t i = 0; i < rows.size(); ++i) {
    const auto& r = rows[i];
    const int s = static_cast<int>(r.situation);
    const int g = static_cast<int>(r.regime);
    by_model[{s, g, r.model, r.batch, r.image}].push_back(i);
    by_chip[{s, g, r.device, r.profile, r.batch, r.image}].push_back(i);
  }
  std::vector<Pair> pairs;
  for (const auto& [key, idx] : by_model) {
    for (size_t i = 0; i < idx.size(); ++i) {
      for (size_t j = i + 1; j < idx.size(); ++j) {
        if (rows[idx[i]].device != rows[idx[j]].device) pairs.push_back({idx[i], idx[j], true});
      }
    }
  }
  for (const auto& [key, idx] : by_chip) {
    for (size_t i = 0; i < idx.size(); ++i) {
      for (size_t j = i + 1; j < idx.size(); ++j) {
        if (rows[idx[i]].model != rows[idx[j]].model) pairs.push_back({idx[i], idx[j], false});
      }
    }
  }
  return pairs;
}

// Bands for every (regime, situation) calibrated on the rows that pass `keep`: every regime of
// each situation that has kept rows.
template <class Keep>
std::map<std::pair<Regime, Situation>, ErrorBand> AllBands(const std::vector<ResidualRow>& rows,
                                                           Keep keep) {
  std::set<Situation> present;
  for (const auto& row : rows) {
    if (keep(row)) present.insert(row.situation);
  }
  std::map<std::pair<Regime, Situation>, ErrorBand> out;
  for (Situation s : present) {
    for (Regime g : kRegimes) out[{g, s}] = BandOf(rows, g, s, keep);
  }
  return out;
}

// Correlations per (cross-chip?, situation) of the pairs that pass `keep`: of each row's
// deviation from its chip's median (the chip: profile, device and regime, over the kept rows).
template <class Keep>
std::map<std::pair<bool, Situation>, double> Correlations(const std::vector<ResidualRow>& rows,
                                                          const std::vector<Pair>& pairs,
                                                          Keep keep) {
  std::map<std::string, std::vector<double>> groups;
  for (const auto& r : rows) {
    if (keep(r)) groups[UnitOf(r)].push_back(r.r());
  }
  std::map<std::string, double> median;
  for (const auto& [k, v] : groups) median[k] = Median(v);
  std::map<std::pair<bool, Situation>, PairSums> sums;
  for (const auto& p : pairs) {
    const auto& a = rows[p.a];
    const auto& b = rows[p.b];
    if (!keep(a) || !keep(b)) continue;
    sums[{p.cross_chip, a.situation}].Add(a.r() - median.at(UnitOf(a)),
                                          b.r() - median.at(UnitOf(b)));
  }
  std::map<std::pair<bool, Situation>, double> out;
  for (const auto& [k, s] : sums) out[k] = s.Rho();
  return out;
}

using PairModels = std::map<std::pair<bool, Situation>, sim::PairModel>;

// The pair models of the pairs that pass `keep`, with `bands` calibrated on the same rows: the
// correlations, then per kind and situation the conformal factor of the normalised errors
// |d - c| / half-width (split-conformal rank ceil((n + 1) level) of n pairs).
template <class Keep>
PairModels FitPairModels(const std::vector<ResidualRow>& rows, const std::vector<Pair>& pairs,
                         const std::map<std::pair<Regime, Situation>, ErrorBand>& bands,
                         Keep keep) {
  const auto rho = Correlations(rows, pairs, keep);
  PairModels out;
  std::map<std::pair<bool, Situation>, std::pair<std::vector<double>, std::vector<double>>> scores;
  for (const auto& p : pairs) {
    const auto& a = rows[p.a];
    const auto& b = rows[p.b];
    if (!keep(a) || !keep(b)) continue;
    const auto ba = bands.find({a.regime, a.situation});
    const auto bb = bands.find({b.regime, b.situation});
    if (ba == bands.end() || bb == bands.end()) continue;
    const auto key = std::pair(p.cross_chip, a.situation);
    sim::PairModel pm;
    const auto r = rho.find(key);
    pm.rho = r == rho.end() ? 0.0 : r->second;
    out[key] = pm;
    const sim::Interval i = sim::RatioInterval(1.0, ba->second, bb->second, pm, !p.cross_chip);
    // ln(measured / predicted ratio) against the interval's log ends, from its centre (the
    // log-ratio the bands' centres predict): the share of the half-width it uses.
    const double x = -(a.r() - b.r());
    const double c = p.cross_chip ? bb->second.center - ba->second.center : 0.0;
    const auto score = [&](double lo, double hi) {
      return x >= c ? (x - c) / std::max(1e-12, std::log(hi) - c)
                    : (c - x) / std::max(1e-12, c - std::log(lo));
    };
    scores[key].first.push_back(score(i.lo80, i.hi80));
    scores[key].second.push_back(score(i.lo95, i.hi95));
  }
  for (auto& [key, s] : scores) {
    for (const bool is80 : {true, false}) {
      std::vector<double>& v = is80 ? s.first : s.second;
      std::sort(v.begin(), v.end());
      (is80 ? out[key].scale80 : out[key].scale95) = ConformalUpper(v, is80 ? 0.80 : 0.95);
    }
  }
  return out;
}

double WidthPct(double lo, double hi) { return 100.0 * (std::exp(-lo) - std::exp(-hi)); }

std::string Pct(double v) { return FormatFixed(v, 1); }

}  // namespace

double ResidualRow::r() const { return std::log(predicted_ms / measured_ms); }

std::vector<IntervalSource> LoadIntervalSources(const std::string& path) {
  ConfigReader root(LoadYamlFile(path), path, "");
  const std::filesystem::path dir = std::filesystem::path(path).parent_path();
  std::vector<IntervalSource> out;
  for (ConfigReader& r : root.MapList("sources")) {
    IntervalSource s;
    const std::string file = r.String("file");
    s.file = std::filesystem::path(file).is_absolute() ? file : (dir / file).string();
    s.kind = r.OneOfWords("kind", {"gpu", "tpu", "cpu"});
    s.training = r.BoolOr("training", false);
    s.situation = ParseSituation(r, "situation");
    s.prediction =
        r.OneOfWords("prediction", {"held_out_lofo_ms", "held_out_lodo_ms", "predicted_ms"});
    s.device = r.StringOr("device", "");
    s.profile = r.String("profile");
    r.Finish();
    out.push_back(s);
  }
  root.Finish();
  return out;
}

std::vector<ResidualRow> LoadResiduals(const std::vector<IntervalSource>& sources) {
  std::vector<ResidualRow> rows;
  for (const auto& s : sources) {
    std::vector<std::string> required{"model",      "family",      "batch_size",
                                      "image_size", "measured_ms", s.prediction};
    if (s.device.empty()) required.emplace_back("device");
    const CsvFile csv = ReadCsvFile(s.file, required, "a calibration residual table");
    for (const auto& line : csv.rows) {
      const std::string& pred = csv.Field(line, s.prediction);
      if (pred.empty()) continue;
      ResidualRow row;
      row.where = line.where;
      row.model = csv.Field(line, "model");
      row.family = csv.Field(line, "family");
      row.device = s.device.empty() ? csv.Field(line, "device") : s.device;
      row.profile = s.profile;
      row.batch = static_cast<int>(
          ParseNumberField(csv.Field(line, "batch_size"), line.where, "batch_size"));
      row.image = static_cast<int>(
          ParseNumberField(csv.Field(line, "image_size"), line.where, "image_size"));
      row.measured_ms = ParseNumberField(csv.Field(line, "measured_ms"), line.where, "measured_ms");
      row.predicted_ms = ParseNumberField(pred, line.where, s.prediction);
      if (!(row.measured_ms > 0) || !(row.predicted_ms > 0)) {
        throw InputError(line.where + ": measured_ms and " + s.prediction + " must be positive");
      }
      if (row.batch < 1) throw InputError(line.where + ": column 'batch_size': must be >= 1");
      row.regime = sim::ClassifyRegime(s.kind, s.training, row.batch);
      row.situation = s.situation;
      rows.push_back(row);
    }
  }
  return rows;
}

ErrorBand ConformalBand(const std::vector<double>& own_in, const std::vector<double>& pooled_in,
                        int groups) {
  std::vector<double> own = own_in;
  std::vector<double> pooled = pooled_in;
  std::sort(own.begin(), own.end());
  std::sort(pooled.begin(), pooled.end());
  if (pooled.empty() && own.empty()) throw InputError("no residuals to calibrate a band on");
  if (pooled.empty()) pooled = own;
  ErrorBand b;
  b.rows = static_cast<int>(own.size());
  b.groups = groups;
  std::vector<std::string> borrowed;
  const auto level = [&](double alpha, double& lo, double& hi, const char* name) {
    auto [olo, ohi] = own.empty() ? std::pair(-kInf, kInf) : ConformalEnds(own, alpha);
    if (std::isfinite(olo) && std::isfinite(ohi)) {
      lo = olo;
      hi = ohi;
      return;
    }
    auto [plo, phi] = ConformalEnds(pooled, alpha);
    if (!std::isfinite(plo)) plo = pooled.front();
    if (!std::isfinite(phi)) phi = pooled.back();
    lo = own.empty() ? plo : std::min(plo, own.front());
    hi = own.empty() ? phi : std::max(phi, own.back());
    borrowed.emplace_back(name);
  };
  level(0.20, b.lo80, b.hi80, "80%");
  level(0.05, b.lo95, b.hi95, "95%");
  b.lo95 = std::min(b.lo95, b.lo80);
  b.hi95 = std::max(b.hi95, b.hi80);
  b.center = std::clamp(Median(own.size() >= 9 ? own : pooled), b.lo80, b.hi80);
  if (borrowed.size() == 2) {
    b.source = own.empty() ? "all regimes (none of its own)" : "all regimes, widened to its own";
  } else if (borrowed.size() == 1) {
    b.source = "own 80%; 95% from all regimes, widened to its own";
  }
  return b;
}

namespace {

// Quantiles `qs` of m + s T_dof + E, E uniform over `within`: the mixture as atoms, 200 fixed
// quantiles of the t part times (at most) 200 of E, and the atoms' empirical quantiles.
std::vector<double> MixtureQuantiles(const std::vector<double>& qs, double m, double s, double dof,
                                     std::vector<double> within) {
  constexpr int kAtoms = 200;
  std::sort(within.begin(), within.end());
  std::vector<double> e;
  if (within.size() <= kAtoms) {
    e = within;
  } else {
    for (int k = 0; k < kAtoms; ++k) {
      e.push_back(
          within[static_cast<size_t>((k + 0.5) / kAtoms * static_cast<double>(within.size()))]);
    }
  }
  const boost::math::students_t t(dof);
  std::vector<double> atoms;
  atoms.reserve(kAtoms * e.size());
  for (int k = 0; k < kAtoms; ++k) {
    const double b = m + s * boost::math::quantile(t, (k + 0.5) / kAtoms);
    for (double x : e) atoms.push_back(b + x);
  }
  std::vector<double> out;
  for (double q : qs) {
    // Linear between the order statistics around q (n - 1), as for a sorted sample.
    const double pos = q * static_cast<double>(atoms.size() - 1);
    const auto at = static_cast<size_t>(pos);
    std::nth_element(atoms.begin(), atoms.begin() + static_cast<long>(at), atoms.end());
    const double lo = atoms[at];
    const double hi =
        at + 1 < atoms.size()
            ? *std::min_element(atoms.begin() + static_cast<long>(at) + 1, atoms.end())
            : lo;
    out.push_back(lo + (pos - static_cast<double>(at)) * (hi - lo));
  }
  return out;
}

struct GroupFit {
  bool ok = false;
  double mean = 0, scale = 0, dof = 0;
  std::vector<double> within;
};

// Chip effects (each group's median) and the deviations within groups; needs 3 groups.
GroupFit FitGroups(const std::vector<std::vector<double>>& groups) {
  GroupFit f;
  std::vector<double> effects;
  for (const auto& g : groups) {
    if (g.empty()) continue;
    const double b = Median(g);
    effects.push_back(b);
    for (double r : g) f.within.push_back(r - b);
  }
  const auto n = static_cast<double>(effects.size());
  if (effects.size() < 3) return f;
  double mean = 0;
  for (double b : effects) mean += b / n;
  double ss = 0;
  for (double b : effects) ss += (b - mean) * (b - mean);
  f.mean = mean;
  f.scale = std::max(1e-6, std::sqrt(ss / (n - 1)) * std::sqrt(1 + 1 / n));
  f.dof = n - 1;
  f.ok = true;
  return f;
}

}  // namespace

ErrorBand HierarchicalBand(const std::vector<std::vector<double>>& own,
                           const std::vector<std::vector<double>>& pooled, int devices) {
  GroupFit f = FitGroups(own);
  ErrorBand b;
  for (const auto& g : own) b.rows += static_cast<int>(g.size());
  b.groups = devices;
  std::vector<double> own_all;
  for (const auto& g : own) own_all.insert(own_all.end(), g.begin(), g.end());
  if (!f.ok) {
    f = FitGroups(pooled);
    if (!f.ok) {  // fewer than 3 chips anywhere: the rows as they are
      std::vector<double> all;
      for (const auto& g : pooled) all.insert(all.end(), g.begin(), g.end());
      return ConformalBand(own_all, all, devices);
    }
    b.source =
        own_all.empty() ? "all regimes (none of its own)" : "all regimes, widened to its own";
  }
  const std::vector<double> q =
      MixtureQuantiles({0.025, 0.10, 0.50, 0.90, 0.975}, f.mean, f.scale, f.dof, f.within);
  b.lo95 = q[0];
  b.lo80 = q[1];
  b.center = q[2];
  b.hi80 = q[3];
  b.hi95 = q[4];
  if (b.source != "own" && !own_all.empty()) {
    const auto [mn, mx] = std::minmax_element(own_all.begin(), own_all.end());
    b.lo95 = std::min(b.lo95, *mn);
    b.hi95 = std::max(b.hi95, *mx);
  }
  if (b.source == "own") b.source = "own, by chip";
  return b;
}

sim::ErrorModel BuildErrorModel(const std::vector<ResidualRow>& rows) {
  if (rows.empty()) throw InputError("no residual rows");
  sim::ErrorModel m;
  const auto all = [](const ResidualRow&) { return true; };
  m.bands = AllBands(rows, all);
  for (Situation s : kSituations) {
    if (m.bands.count({Regime::kLargeBatchGpu, s}) == 0) {
      throw InputError(std::string("no residual rows for situation '") + sim::SituationName(s) +
                       "' in any regime");
    }
  }
  const std::vector<Pair> pairs = MakePairs(rows);
  const PairModels pm = FitPairModels(rows, pairs, m.bands, all);
  for (Situation s : kSituations) {
    const auto chip = pm.find({true, s});
    const auto model = pm.find({false, s});
    if (chip != pm.end()) m.cross_chip[static_cast<size_t>(s)] = chip->second;
    if (model != pm.end()) m.cross_model[static_cast<size_t>(s)] = model->second;
  }
  m.generated = std::to_string(rows.size()) + " held-out residuals, " +
                std::to_string(pairs.size()) + " pairs";
  return m;
}

std::vector<CoverageCell> MeasureCoverage(const std::vector<ResidualRow>& rows) {
  std::vector<CoverageCell> out;
  for (const std::string scheme : {"family", "device"}) {
    const auto key = [&](const ResidualRow& r) -> const std::string& {
      return scheme == "family" ? r.family : r.device;
    };
    for (Regime g : kRegimes) {
      for (Situation s : kSituations) {
        std::set<std::string> groups;
        for (const auto& row : rows) {
          if (row.regime == g && row.situation == s) groups.insert(key(row));
        }
        if (groups.empty()) continue;
        CoverageCell c{g, s, scheme};
        c.groups = static_cast<int>(groups.size());
        double in80 = 0, in95 = 0, w80 = 0, w95 = 0;
        for (const std::string& held : groups) {
          // Every other group's rows calibrate the band; a group that is all there is gives
          // nothing to calibrate on and is skipped.
          bool other = false;
          for (const auto& row : rows) other = other || (row.situation == s && key(row) != held);
          if (!other) continue;
          const ErrorBand b =
              BandOf(rows, g, s, [&](const ResidualRow& row) { return key(row) != held; });
          for (const auto& row : rows) {
            if (row.regime != g || row.situation != s || key(row) != held) continue;
            const double r = row.r();
            ++c.rows;
            in80 += (r >= b.lo80 && r <= b.hi80) ? 1 : 0;
            in95 += (r >= b.lo95 && r <= b.hi95) ? 1 : 0;
            w80 += WidthPct(b.lo80, b.hi80);
            w95 += WidthPct(b.lo95, b.hi95);
          }
        }
        if (c.rows == 0) continue;
        c.cover80 = 100.0 * in80 / c.rows;
        c.cover95 = 100.0 * in95 / c.rows;
        c.width80 = w80 / c.rows;
        c.width95 = w95 / c.rows;
        c.enough = c.rows >= kEnoughRows && c.groups >= kEnoughGroups;
        out.push_back(c);
      }
    }
  }
  return out;
}

std::vector<PairCoverage> MeasurePairCoverage(const std::vector<ResidualRow>& rows) {
  const std::vector<Pair> pairs = MakePairs(rows);
  const auto all = [](const ResidualRow&) { return true; };
  const auto all_pm = FitPairModels(rows, pairs, AllBands(rows, all), all);
  // Held out by chip: a pair is judged with bands and correlations calibrated without its chips.
  std::map<std::set<std::string>,
           std::pair<std::map<std::pair<Regime, Situation>, ErrorBand>, PairModels>>
      held;
  struct Tally {
    double in80 = 0, in95 = 0, w80 = 0, w95 = 0;
  };
  struct Acc {
    int pairs = 0;
    std::array<Tally, 2> with;  // [0]: the pair model, [1]: as if independent
  };
  std::map<std::pair<bool, Situation>, Acc> acc;
  for (const auto& p : pairs) {
    const auto& a = rows[p.a];
    const auto& b = rows[p.b];
    const std::set<std::string> chips{a.device, b.device};
    auto it = held.find(chips);
    if (it == held.end()) {
      const auto keep = [&](const ResidualRow& r) { return chips.count(r.device) == 0; };
      auto bands = AllBands(rows, keep);
      auto models = FitPairModels(rows, pairs, bands, keep);
      it = held.emplace(chips, std::pair(std::move(bands), std::move(models))).first;
    }
    const auto& [bands, models] = it->second;
    const auto ba = bands.find({a.regime, a.situation});
    const auto bb = bands.find({b.regime, b.situation});
    if (ba == bands.end() || bb == bands.end()) continue;  // nothing left to calibrate on
    const auto r = models.find({p.cross_chip, a.situation});
    const sim::PairModel pm = r == models.end() ? sim::PairModel{} : r->second;
    const double measured = std::exp(-(a.r() - b.r()));  // measured / predicted ratio
    Acc& x = acc[{p.cross_chip, a.situation}];
    ++x.pairs;
    for (const bool independent : {false, true}) {
      const sim::Interval i =
          sim::RatioInterval(1.0, ba->second, bb->second, independent ? sim::PairModel{} : pm,
                             !independent && !p.cross_chip);
      Tally& t = x.with[independent ? 1 : 0];
      t.in80 += (measured >= i.lo80 && measured <= i.hi80) ? 1 : 0;
      t.in95 += (measured >= i.lo95 && measured <= i.hi95) ? 1 : 0;
      t.w80 += 100.0 * (i.hi80 - i.lo80);
      t.w95 += 100.0 * (i.hi95 - i.lo95);
    }
  }
  std::vector<PairCoverage> out;
  for (const bool cross_chip : {true, false}) {
    for (Situation s : kSituations) {
      const auto it = acc.find({cross_chip, s});
      if (it == acc.end() || it->second.pairs == 0) continue;
      const Acc& x = it->second;
      PairCoverage c;
      c.kind = cross_chip ? "cross-chip" : "cross-model";
      c.situation = s;
      c.pairs = x.pairs;
      const auto r = all_pm.find({cross_chip, s});
      c.rho = r == all_pm.end() ? 0.0 : r->second.rho;
      const double n = x.pairs;
      const Tally& m = x.with[0];
      const Tally& ind = x.with[1];
      c.cover80 = 100 * m.in80 / n;
      c.cover95 = 100 * m.in95 / n;
      c.width80 = m.w80 / n;
      c.width95 = m.w95 / n;
      c.independent_cover80 = 100 * ind.in80 / n;
      c.independent_cover95 = 100 * ind.in95 / n;
      c.independent_width80 = ind.w80 / n;
      c.independent_width95 = ind.w95 / n;
      out.push_back(c);
    }
  }
  return out;
}

std::string CoverageMarkdown(const sim::ErrorModel& model, const std::vector<CoverageCell>& cells,
                             const std::vector<PairCoverage>& pairs) {
  std::string s;
  s += "### Latency intervals: coverage held out\n\n";
  s += "| regime | situation | held out by | rows | groups | 80% covers | 95% covers | mean width "
       "80% | mean width 95% | goal applies |\n|---|---|---|---|---|---|---|---|---|---|\n";
  for (const auto& c : cells) {
    s += "| " + std::string(sim::RegimeName(c.regime)) + " | " + sim::SituationName(c.situation) +
         " | " + c.scheme + " | " + std::to_string(c.rows) + " | " + std::to_string(c.groups) +
         " | " + Pct(c.cover80) + " | " + Pct(c.cover95) + " | " + Pct(c.width80) + " | " +
         Pct(c.width95) + " | " + (c.enough ? "yes" : "no (< 40 rows or < 3 groups)") + " |\n";
  }
  s += "\n### The shipped bands (all rows)\n\n";
  s += "| regime | situation | rows | chips | median error % | 80% interval of measured/predicted "
       "| 95% | source |\n|---|---|---|---|---|---|---|---|\n";
  for (const auto& [key, b] : model.bands) {
    const auto ratio = [](double r) { return FormatFixed(std::exp(-r), 3); };
    s += "| " + std::string(sim::RegimeName(key.first)) + " | " + sim::SituationName(key.second) +
         " | " + std::to_string(b.rows) + " | " + std::to_string(b.groups) + " | " +
         FormatFixed(100 * (std::exp(b.center) - 1), 1) + " | [" + ratio(b.hi80) + ", " +
         ratio(b.lo80) + "] | [" + ratio(b.hi95) + ", " + ratio(b.lo95) + "] | " + b.source +
         " |\n";
  }
  s += "\n### Speedup intervals: coverage held out by chip\n\n";
  s += "| pair | situation | pairs | rho | 80% covers | 95% covers | width 80% | width 95% | "
       "independent: 80% covers | 95% covers | width 80% | width 95% |\n"
       "|---|---|---|---|---|---|---|---|---|---|---|---|\n";
  for (const auto& p : pairs) {
    s += "| " + p.kind + " | " + sim::SituationName(p.situation) + " | " + std::to_string(p.pairs) +
         " | " + FormatFixed(p.rho, 2) + " | " + Pct(p.cover80) + " | " + Pct(p.cover95) + " | " +
         Pct(p.width80) + " | " + Pct(p.width95) + " | " + Pct(p.independent_cover80) + " | " +
         Pct(p.independent_cover95) + " | " + Pct(p.independent_width80) + " | " +
         Pct(p.independent_width95) + " |\n";
  }
  return s;
}

}  // namespace dcnas::calibrate
