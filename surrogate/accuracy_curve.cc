#include "surrogate/accuracy_curve.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <condition_variable>
#include <exception>
#include <filesystem>
#include <map>
#include <mutex>
#include <numeric>
#include <set>
#include <thread>

#include "common/errors.h"
#include "common/file_io.h"
#include "common/rank_correlation.h"
#include "common/statistics.h"
#include "common/svg_chart.h"
#include "common/table.h"
#include "proxy/label_noise.h"
#include "surrogate/accuracy_surrogate.h"
#include "surrogate/metrics.h"
#include "surrogate/random.h"

namespace dcnas::surrogate {
namespace {

// The rows of `truth` above its median.
std::vector<size_t> TopHalf(const std::vector<double>& truth) {
  std::vector<size_t> rows;
  if (truth.empty()) return rows;
  const double median = Median(truth);
  for (size_t i = 0; i < truth.size(); ++i) {
    if (truth[i] > median) rows.push_back(i);
  }
  return rows;
}

std::vector<double> Pick(const std::vector<double>& v, const std::vector<size_t>& rows) {
  std::vector<double> out;
  out.reserve(rows.size());
  for (size_t i : rows) out.push_back(v[i]);
  return out;
}

// Kendall tau of `pred` against `truth` on all rows and on the top half by truth.
std::pair<double, double> Taus(const std::vector<double>& truth, const std::vector<double>& pred) {
  const std::vector<size_t> top = TopHalf(truth);
  return {dcnas::KendallTau(truth, pred), dcnas::KendallTau(Pick(truth, top), Pick(pred, top))};
}

Quartiles Quartile(const std::vector<double>& values) {
  std::vector<double> finite;
  for (double v : values) {
    if (std::isfinite(v)) finite.push_back(v);
  }
  if (finite.empty()) return {std::nan(""), std::nan(""), std::nan("")};
  return {Quantile(finite, 0.25), Quantile(finite, 0.5), Quantile(finite, 0.75)};
}

LabelCeiling ComputeCeiling(const ArchitectureTable& t) {
  LabelCeiling c;
  std::vector<size_t> groups;
  std::vector<double> means;
  std::set<int> numbers;
  for (size_t g = 0; g < t.size(); ++g) {
    if (t.replicates[g].size() < 2) continue;
    groups.push_back(g);
    means.push_back(t.labels[g]);
    c.replicates = std::max(c.replicates, static_cast<int>(t.replicates[g].size()));
    for (const auto& [n, acc] : t.replicates[g]) numbers.insert(n);
  }
  c.architectures = groups.size();
  const double nan = std::nan("");
  c.mean_vs_single_tau = c.top_half_mean_vs_single_tau = c.replicate_tau =
      c.top_half_replicate_tau = c.icc = c.ceiling_tau = c.normal_ceiling_tau = nan;
  if (groups.size() < 2) return c;
  std::vector<bool> top(groups.size(), false);
  for (size_t i : TopHalf(means)) top[i] = true;
  // The accuracy of replicate number n of each architecture (NaN where it has none).
  std::map<int, std::vector<double>> by_number;
  for (int n : numbers) {
    std::vector<double>& v = by_number[n];
    for (size_t g : groups) {
      double acc = nan;
      for (const auto& [m, a] : t.replicates[g]) {
        if (m == n) acc = a;
      }
      v.push_back(acc);
    }
  }
  // Mean tau over `pairs` of (x, y) samples, on the architectures where both are given.
  auto mean_tau =
      [&](const std::vector<std::pair<const std::vector<double>*, const std::vector<double>*>>&
              pairs,
          bool top_only) {
        double sum = 0.0;
        int count = 0;
        for (const auto& [x, y] : pairs) {
          std::vector<double> a, b;
          for (size_t i = 0; i < groups.size(); ++i) {
            if (std::isnan((*x)[i]) || std::isnan((*y)[i]) || (top_only && !top[i])) continue;
            a.push_back((*x)[i]);
            b.push_back((*y)[i]);
          }
          const double tau = a.size() >= 2 ? dcnas::KendallTau(a, b) : nan;
          if (std::isnan(tau)) continue;
          sum += tau;
          count += 1;
        }
        return count > 0 ? sum / count : nan;
      };
  std::vector<std::pair<const std::vector<double>*, const std::vector<double>*>> vs_mean, reps;
  for (auto i = by_number.begin(); i != by_number.end(); ++i) {
    vs_mean.emplace_back(&means, &i->second);
    for (auto j = std::next(i); j != by_number.end(); ++j)
      reps.emplace_back(&i->second, &j->second);
  }
  c.mean_vs_single_tau = mean_tau(vs_mean, false);
  c.top_half_mean_vs_single_tau = mean_tau(vs_mean, true);
  c.replicate_tau = mean_tau(reps, false);
  c.top_half_replicate_tau = mean_tau(reps, true);
  // The noise model over every architecture (single trainings add to the spread).
  std::vector<std::vector<double>> trainings;
  std::map<int, size_t> seeds;
  for (size_t g = 0; g < t.size(); ++g) {
    std::vector<double> v;
    for (const auto& [n, acc] : t.replicates[g]) v.push_back(acc);
    seeds[static_cast<int>(v.size())] += 1;
    trainings.push_back(std::move(v));
  }
  size_t most = 0;
  for (const auto& [k, n] : seeds) {
    if (n > most) {
      most = n;
      c.label_seeds = k;
    }
  }
  const proxy::NoiseModel m = proxy::EstimateNoise(trainings);
  c.icc = m.icc;
  c.ceiling_tau = proxy::SimulatedTauCeiling(trainings, c.label_seeds);
  c.normal_ceiling_tau = proxy::NormalTauCeiling(m.icc, c.label_seeds);
  return c;
}

// One fit of the curve: seed k of size n.
CurvePoint FitPoint(const ArchitectureTable& t, const CurveOptions& o, size_t n, int k) {
  std::vector<size_t> order(t.size());
  std::iota(order.begin(), order.end(), 0);
  const uint64_t seed_k = MemberSeed(o.seed, k);
  Rng rng(seed_k);
  Shuffle(order, rng);  // the same order for every size: seed k's sets are nested
  const std::vector<size_t> fit(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(n));
  std::vector<size_t> rest(order.begin() + static_cast<std::ptrdiff_t>(n), order.end());
  std::sort(rest.begin(), rest.end());
  const MatrixView all{t.features.values.data(), t.features.rows, t.features.names.size()};
  const Matrix x = SelectRows(all, fit);
  std::vector<float> y;
  for (const size_t i : fit) y.push_back(ToModelLabel(o.label_transform, t.labels[i]));
  EnsembleParams params = ResolveTreeDepth(o.ensemble, n);
  params.seed = MemberSeed(seed_k, static_cast<int>(n));
  const Ensemble ensemble = TrainOnAll({x.view(), y}, params);
  const Matrix xr = SelectRows(all, rest);
  std::vector<float> mean(rest.size()), stddev(rest.size());
  PredictAccuracy(ensemble, o.label_transform, xr.view(), mean, stddev);
  std::vector<double> truth, pred, params_count, flops_count;
  for (size_t i = 0; i < rest.size(); ++i) {
    truth.push_back(t.labels[rest[i]]);
    pred.push_back(mean[i]);
    params_count.push_back(static_cast<double>(t.counts[rest[i]].params));
    flops_count.push_back(static_cast<double>(t.counts[rest[i]].flops));
  }
  CurvePoint p;
  p.size = n;
  p.seed = k;
  p.predicted = rest.size();
  std::tie(p.tau, p.top_half_tau) = Taus(truth, pred);
  std::tie(p.params_tau, p.top_half_params_tau) = Taus(truth, params_count);
  std::tie(p.flops_tau, p.top_half_flops_tau) = Taus(truth, flops_count);
  return p;
}

// Runs fits 0..total-1 on `threads` threads; progress from the calling thread.
void RunAll(size_t total, int threads, const std::function<void(size_t)>& fit,
            const std::function<void(size_t, size_t)>& progress) {
  if (threads <= 1 || total <= 1) {
    for (size_t i = 0; i < total; ++i) {
      fit(i);
      if (progress) progress(i + 1, total);
    }
    return;
  }
  std::atomic<size_t> next{0};
  std::mutex mu;
  std::condition_variable cv;
  size_t done = 0;
  std::exception_ptr error;
  std::vector<std::thread> workers;
  for (int w = 0; w < threads; ++w) {
    workers.emplace_back([&] {
      for (size_t i = next++; i < total; i = next++) {
        try {
          fit(i);
        } catch (...) {
          const std::lock_guard<std::mutex> lock(mu);
          if (!error) error = std::current_exception();
          next = total;
        }
        const std::lock_guard<std::mutex> lock(mu);
        done += 1;
        cv.notify_one();
      }
    });
  }
  size_t reported = 0;
  {
    std::unique_lock<std::mutex> lock(mu);
    while (reported < total && !error) {
      cv.wait(lock, [&] { return done > reported || error; });
      const size_t now = done;
      lock.unlock();
      if (!error && progress) progress(now, total);
      reported = now;
      lock.lock();
    }
  }
  for (std::thread& w : workers) w.join();
  if (error) std::rethrow_exception(error);
}

std::string Fixed(double v) { return std::isfinite(v) ? FormatFixed(v, 3) : "n/a"; }
std::string Range(const Quartiles& q) {
  return Fixed(q.median) + " [" + Fixed(q.q1) + ", " + Fixed(q.q3) + "]";
}
nlohmann::json Num(double v) { return std::isfinite(v) ? nlohmann::json(v) : nlohmann::json(); }
nlohmann::json QuartilesJson(const Quartiles& q) {
  return {{"q1", Num(q.q1)}, {"median", Num(q.median)}, {"q3", Num(q.q3)}};
}

}  // namespace

double TopHalfKendallTau(const std::vector<float>& truth, const std::vector<float>& pred) {
  return Taus(std::vector<double>(truth.begin(), truth.end()),
              std::vector<double>(pred.begin(), pred.end()))
      .second;
}

AccuracyCurve ComputeAccuracyCurve(const space::Space& space, const proxy::AccuracyData& data,
                                   const CurveOptions& options,
                                   const std::function<void(size_t, size_t)>& progress) {
  if (options.sizes.empty()) throw InputError("surrogate curve: no sizes");
  if (options.seeds < 1) throw InputError("surrogate curve: --seeds must be at least 1");
  const ArchitectureTable t = GroupArchitectures(space, data, options.target, options.features);
  AccuracyCurve c;
  c.space = space.name();
  c.data_file = data.file;
  c.target = t.target;
  c.rows = t.rows;
  c.architectures = t.size();
  c.options = options;
  std::sort(c.options.sizes.begin(), c.options.sizes.end());
  c.options.sizes.erase(std::unique(c.options.sizes.begin(), c.options.sizes.end()),
                        c.options.sizes.end());
  for (size_t n : c.options.sizes) {
    if (n < kMinFitArchitectures || n + kMinTestArchitectures > t.size()) {
      throw InputError(data.file + ": size " + std::to_string(n) + ": a fit needs at least " +
                       std::to_string(kMinFitArchitectures) + " architectures and must leave " +
                       std::to_string(kMinTestArchitectures) + " of the " +
                       std::to_string(t.size()) + " to rank (sizes " +
                       std::to_string(kMinFitArchitectures) + " to " +
                       std::to_string(t.size() - std::min(t.size(), kMinTestArchitectures)) + ")");
    }
  }
  const auto seeds = static_cast<size_t>(options.seeds);
  c.points.resize(c.options.sizes.size() * seeds);
  RunAll(
      c.points.size(), options.threads,
      [&](size_t i) {
        c.points[i] =
            FitPoint(t, c.options, c.options.sizes[i / seeds], static_cast<int>(i % seeds));
      },
      progress);
  for (size_t s = 0; s < c.options.sizes.size(); ++s) {
    std::vector<double> tau, top, pt, ft, tpt, tft;
    for (size_t k = 0; k < seeds; ++k) {
      const CurvePoint& p = c.points[s * seeds + k];
      tau.push_back(p.tau);
      top.push_back(p.top_half_tau);
      pt.push_back(p.params_tau);
      ft.push_back(p.flops_tau);
      tpt.push_back(p.top_half_params_tau);
      tft.push_back(p.top_half_flops_tau);
    }
    c.summary.push_back({c.options.sizes[s], Quartile(tau), Quartile(top), Quartile(pt),
                         Quartile(ft), Quartile(tpt), Quartile(tft)});
  }
  c.ceiling = ComputeCeiling(t);
  return c;
}

std::string AccuracyCurve::ToCsv() const {
  Table table({"size", "seed", "predicted", "tau", "top_half_tau", "params_tau", "flops_tau",
               "top_half_params_tau", "top_half_flops_tau"});
  for (const CurvePoint& p : points) {
    table.AddRow({std::to_string(p.size), std::to_string(p.seed), std::to_string(p.predicted),
                  FormatShortest(p.tau), FormatShortest(p.top_half_tau),
                  FormatShortest(p.params_tau), FormatShortest(p.flops_tau),
                  FormatShortest(p.top_half_params_tau), FormatShortest(p.top_half_flops_tau)});
  }
  return table.ToCsv();
}

std::string AccuracyCurve::ToText() const {
  std::string out = "surrogate learning curve: " + space + ", " + data_file + " (" +
                    std::to_string(architectures) + " architectures, " + std::to_string(rows) +
                    " rows, label: mean " + target + ", features " + options.features.Text() +
                    "), " + std::to_string(options.seeds) +
                    " seeds per size; Kendall tau on the architectures not fitted on, median " +
                    "[quartiles]\n";
  Table table({"N", "tau", "top-half tau", "params-only", "FLOPs-only", "top-half params-only",
               "top-half FLOPs-only"});
  for (const CurveSizeSummary& s : summary) {
    table.AddRow({std::to_string(s.size), Range(s.tau), Range(s.top_half_tau),
                  Fixed(s.params_tau.median), Fixed(s.flops_tau.median),
                  Fixed(s.top_half_params_tau.median), Fixed(s.top_half_flops_tau.median)});
  }
  out += table.ToText();
  out += "label ceiling (" + std::to_string(ceiling.architectures) +
         " architectures with 2+ replicates, up to " + std::to_string(ceiling.replicates) +
         "; ICC " + Fixed(ceiling.icc) +
         "): a perfect predictor of each architecture's true mean against the label (the mean "
         "of " +
         std::to_string(ceiling.label_seeds) + " training" + (ceiling.label_seeds == 1 ? "" : "s") +
         "): tau " + Fixed(ceiling.ceiling_tau) +
         " (simulated from the replicates' noise; normal model " +
         Fixed(ceiling.normal_ceiling_tau) +
         "); seed-to-seed agreement, two noisy labels and not the ceiling: tau " +
         Fixed(ceiling.replicate_tau) + ", top half " + Fixed(ceiling.top_half_replicate_tau) +
         "; the observed mean against one of its replicates: tau " +
         Fixed(ceiling.mean_vs_single_tau) + "\n";
  return out;
}

std::string AccuracyCurve::ToSvg() const {
  Chart chart;
  chart.title = "surrogate learning curve, " + space + " (" + std::to_string(architectures) +
                " architectures, " + std::to_string(options.seeds) + " seeds per size)";
  chart.x = {"architectures fitted on (N)", true, {}, {}};
  chart.y = {"Kendall tau on the others", false, {}, {}};
  auto series = [&](const std::string& label, auto get, ChartSeries::Style style,
                    const std::string& color) {
    ChartSeries s{label, {}, {}, {}, style, color};
    for (const CurveSizeSummary& z : summary) {
      const double v = get(z);
      if (!std::isfinite(v)) continue;
      s.x.push_back(static_cast<double>(z.size));
      s.y.push_back(v);
    }
    if (!s.x.empty()) chart.series.push_back(std::move(s));
  };
  using S = ChartSeries::Style;
  const auto solid = S::kLinePoints, dashed = S::kDashedLine;
  series(
      "surrogate, median", [](const auto& z) { return z.tau.median; }, solid, "#0072b2");
  series(
      "surrogate, 25th percentile", [](const auto& z) { return z.tau.q1; }, dashed, "#0072b2");
  series(
      "surrogate, 75th percentile", [](const auto& z) { return z.tau.q3; }, dashed, "#0072b2");
  series(
      "top half, median", [](const auto& z) { return z.top_half_tau.median; }, solid, "#d55e00");
  series(
      "top half, 25th percentile", [](const auto& z) { return z.top_half_tau.q1; }, dashed,
      "#d55e00");
  series(
      "top half, 75th percentile", [](const auto& z) { return z.top_half_tau.q3; }, dashed,
      "#d55e00");
  series(
      "params only", [](const auto& z) { return z.params_tau.median; }, solid, "#999999");
  series(
      "FLOPs only", [](const auto& z) { return z.flops_tau.median; }, solid, "#009e73");
  if (std::isfinite(ceiling.ceiling_tau)) {
    chart.references.push_back(
        {false, ceiling.ceiling_tau, "ceiling: the true mean against the label", "#555555"});
  }
  if (std::isfinite(ceiling.replicate_tau)) {
    chart.references.push_back(
        {false, ceiling.replicate_tau, "replicate against replicate", "#aaaaaa"});
  }
  return RenderSvg(chart);
}

nlohmann::json AccuracyCurve::ToJson() const {
  nlohmann::json points_json = nlohmann::json::array(), summary_json = nlohmann::json::array();
  for (const CurvePoint& p : points) {
    points_json.push_back({{"size", p.size},
                           {"seed", p.seed},
                           {"predicted", p.predicted},
                           {"tau", Num(p.tau)},
                           {"top_half_tau", Num(p.top_half_tau)},
                           {"params_tau", Num(p.params_tau)},
                           {"flops_tau", Num(p.flops_tau)},
                           {"top_half_params_tau", Num(p.top_half_params_tau)},
                           {"top_half_flops_tau", Num(p.top_half_flops_tau)}});
  }
  for (const CurveSizeSummary& s : summary) {
    summary_json.push_back({{"size", s.size},
                            {"tau", QuartilesJson(s.tau)},
                            {"top_half_tau", QuartilesJson(s.top_half_tau)},
                            {"params_tau", QuartilesJson(s.params_tau)},
                            {"flops_tau", QuartilesJson(s.flops_tau)},
                            {"top_half_params_tau", QuartilesJson(s.top_half_params_tau)},
                            {"top_half_flops_tau", QuartilesJson(s.top_half_flops_tau)}});
  }
  return {{"space", space},
          {"data_file", data_file},
          {"target", target},
          {"features", options.features.sets},
          {"rows", rows},
          {"architectures", architectures},
          {"seeds", options.seeds},
          {"seed", options.seed},
          {"sizes", options.sizes},
          {"label_transform", LabelTransformName(options.label_transform)},
          {"ensemble", options.ensemble.ToJson()},
          {"ceiling",
           {{"architectures", ceiling.architectures},
            {"replicates", ceiling.replicates},
            {"mean_vs_single_tau", Num(ceiling.mean_vs_single_tau)},
            {"top_half_mean_vs_single_tau", Num(ceiling.top_half_mean_vs_single_tau)},
            {"replicate_tau", Num(ceiling.replicate_tau)},
            {"top_half_replicate_tau", Num(ceiling.top_half_replicate_tau)},
            {"label_seeds", ceiling.label_seeds},
            {"icc", Num(ceiling.icc)},
            {"ceiling_tau", Num(ceiling.ceiling_tau)},
            {"normal_ceiling_tau", Num(ceiling.normal_ceiling_tau)}}},
          {"summary", summary_json},
          {"points", points_json}};
}

void WriteAccuracyCurve(const AccuracyCurve& curve, const std::string& dir) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) throw InputError(dir + ": cannot create the directory: " + ec.message());
  const std::string svg = curve.ToSvg();  // everything rendered before anything is written
  WriteFileAtomic(dir + "/curve.csv", curve.ToCsv());
  WriteFileAtomic(dir + "/curve.txt", curve.ToText());
  WriteFileAtomic(dir + "/curve.svg", svg);
  WriteFileAtomic(dir + "/curve.json", curve.ToJson().dump(1) + "\n");
}

}  // namespace dcnas::surrogate
