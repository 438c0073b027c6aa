#include "proxy/zoo_proxy.h"

#include <cmath>
#include <map>
#include <nlohmann/json.hpp>
#include <set>

#include "common/append_log.h"
#include "common/errors.h"
#include "common/file_io.h"
#include "common/table.h"
#include "common/text.h"
#include "models/counts.h"
#include "models/zoo/zoo.h"
#include "proxy/generate.h"
#include "space/space.h"

namespace dcnas::proxy {
namespace {

constexpr const char* kHeader = "model,recipe,seed,proxy_resolution,label,proxy_params,time_s";

// The proxy resolution of a model evaluated at `resolution` px: the recipe's, scaled by
// resolution / 224 and rounded as a scaled network of a space is.
int ZooProxyResolution(int recipe_resolution, int resolution) {
  space::Scaling s;
  s.resolution = static_cast<double>(resolution) / 224.0;
  return space::Space::ProxyResolution(recipe_resolution, s);
}

int64_t ActivationUnits(const models::Graph& g) {
  int64_t units = 0;
  for (const models::Op& op : g.ops()) {
    if (op.kind == models::OpKind::kActivation) units += op.out.shape.per_image();
  }
  return units;
}

int BlockCount(const models::Graph& g) {
  std::set<std::string> blocks;
  for (const models::Op& op : g.ops()) {
    if (op.block.starts_with("blocks.")) blocks.insert(op.block);
  }
  return static_cast<int>(blocks.size());
}

}  // namespace

ZooProxyReport RunZooProxy(const ZooProxyOptions& o, const ZooProgress& progress) {
  ValidateRecipe(o.recipe, o.jobs);
  const std::vector<PublishedTop1> table = ReadPublishedTop1(o.published);
  const std::string recipe = o.recipe.Key();
  const std::string seed = std::to_string(o.seed);
  AppendLog log = AppendLog::Open(o.out);
  std::map<std::string, ZooProxyRow> done;
  for (size_t i = 0; i < log.lines().size(); ++i) {
    const std::string where = o.out + ":" + std::to_string(i + 1);
    const std::string& line = log.lines()[i];
    if (i == 0) {
      if (line != kHeader) {
        throw InputError(where + ": not a zoo-proxy results file (header " + kHeader + ")");
      }
      continue;
    }
    const std::vector<std::string> f = Split(line, ',');
    if (f.size() != 7) throw InputError(where + ": " + std::to_string(f.size()) + " fields, not 7");
    if (f[1] != recipe || f[2] != seed) {
      throw InputError(where + ": recipe " + f[1] + ", seed " + f[2] + "; this run: " + recipe +
                       ", seed " + seed + " (one file per recipe and seed)");
    }
    ZooProxyRow r;
    r.model = f[0];
    r.proxy_resolution = static_cast<int>(ParseNumberField(f[3], where, "proxy_resolution"));
    r.label = ParseNumberField(f[4], where, "label");
    r.proxy_params = static_cast<int64_t>(ParseNumberField(f[5], where, "proxy_params"));
    r.time_s = ParseNumberField(f[6], where, "time_s");
    if (!done.emplace(r.model, r).second) {
      throw InputError(where + ": model '" + r.model + "' twice");
    }
  }
  if (log.lines().empty()) log.Append(kHeader);

  const space::ProxySettings proxy = [&] {
    space::ProxySettings p;
    p.resolution = o.recipe.resolution;
    p.width = o.recipe.width;
    p.removed_downsamples = o.recipe.removed_downsamples;
    const DatasetInfo d = FindDataset(o.recipe.dataset);
    p.in_channels = d.in_channels;
    p.num_classes = d.num_classes;
    return p;
  }();
  std::vector<ProxyRun> runs;
  std::vector<const PublishedTop1*> pending;
  for (const PublishedTop1& t : table) {
    if (done.count(t.model)) continue;
    models::BuildOptions b;
    b.resolution = ZooProxyResolution(proxy.resolution, t.resolution);
    b.in_channels = proxy.in_channels;
    b.num_classes = proxy.num_classes;
    b.proxy_removed_downsamples = proxy.removed_downsamples;
    b.width_scale = proxy.width;
    const std::string model = t.model;
    runs.push_back({model, [model, b] { return models::BuiltinModels().Build(model, b); }, o.seed});
    pending.push_back(&t);
  }
  ZooProxyReport report;
  report.recipe = recipe;
  if (!runs.empty()) {
    progress(std::to_string(runs.size()) + " zoo models to label with " + recipe + " (" +
             std::to_string(done.size()) + " in " + o.out + ")");
    TrainProxyRuns(
        runs, o.recipe, o.jobs, o.data_dir, o.limit_eval, [&](size_t i, const TrainedResult& r) {
          const PublishedTop1& t = *pending[i];
          if (!r.error.empty()) {
            report.failed.push_back(t.model + ": " + r.error);
            progress(t.model + " failed: " + r.error);
            return;
          }
          ZooProxyRow row;
          row.model = t.model;
          row.proxy_resolution = ZooProxyResolution(proxy.resolution, t.resolution);
          row.label = r.val_accuracy;
          row.proxy_params = r.proxy_params;
          row.time_s = r.train_time_s;
          log.Append(Join({row.model, recipe, seed, std::to_string(row.proxy_resolution),
                           FormatShortest(row.label), std::to_string(row.proxy_params),
                           FormatFixed(row.time_s, 3)},
                          ","));
          progress(t.model + " (" + std::to_string(row.proxy_resolution) + " px): " +
                   FormatFixed(row.label, 2) + " in " + FormatFixed(row.time_s, 1) + " s");
          done.emplace(row.model, row);
        });
  }
  std::vector<double> top1, label, params, flops, act_units, depth;
  for (const PublishedTop1& t : table) {
    const auto it = done.find(t.model);
    if (it == done.end()) continue;
    ZooProxyRow row = it->second;
    row.top1 = t.top1;
    row.native_resolution = t.resolution;
    models::BuildOptions full;
    full.resolution = t.resolution;
    const models::Graph g = models::BuiltinModels().Build(t.model, full);
    const models::OpCounts c = models::CountGraph(g);
    row.params = c.params;
    row.flops = c.flops;
    row.act_units = ActivationUnits(g);
    row.depth = BlockCount(g);
    act_units.push_back(static_cast<double>(row.act_units));
    depth.push_back(row.depth);
    top1.push_back(row.top1);
    label.push_back(row.label);
    params.push_back(static_cast<double>(row.params));
    flops.push_back(static_cast<double>(row.flops));
    report.rows.push_back(row);
  }
  if (report.rows.size() < 3) {
    throw InputError(o.out + ": " + std::to_string(report.rows.size()) +
                     " zoo models labelled (a tau needs at least 3)");
  }
  report.tau = BootstrapKendallTau(label, top1, o.draws, 0.95, o.seed);
  report.params_tau = BootstrapKendallTau(params, top1, o.draws, 0.95, o.seed);
  report.flops_tau = BootstrapKendallTau(flops, top1, o.draws, 0.95, o.seed);
  report.act_units_tau = BootstrapKendallTau(act_units, top1, o.draws, 0.95, o.seed);
  report.depth_tau = BootstrapKendallTau(depth, top1, o.draws, 0.95, o.seed);
  report.matched = SizeMatchedKendallTau(label, top1, flops, kMatchedFlopsRatio);
  report.params_matched = SizeMatchedKendallTau(params, top1, flops, kMatchedFlopsRatio);
  report.flops_matched = SizeMatchedKendallTau(flops, top1, flops, kMatchedFlopsRatio);
  report.act_units_matched = SizeMatchedKendallTau(act_units, top1, flops, kMatchedFlopsRatio);
  report.depth_matched = SizeMatchedKendallTau(depth, top1, flops, kMatchedFlopsRatio);
  return report;
}

std::string ZooProxyReport::ToText() const {
  Table t({"model", "top-1 %", "px", "proxy px", "params M", "GFLOPs", "act units M", "blocks",
           "proxy label %", "s"});
  for (const ZooProxyRow& r : rows) {
    t.AddRow({r.model, FormatFixed(r.top1, 2), std::to_string(r.native_resolution),
              std::to_string(r.proxy_resolution), FormatFixed(r.params / 1e6, 2),
              FormatFixed(r.flops / 1e9, 2), FormatFixed(r.act_units / 1e6, 2),
              std::to_string(r.depth), FormatFixed(r.label, 2), FormatFixed(r.time_s, 1)});
  }
  auto interval = [](const TauInterval& i) {
    return FormatFixed(i.tau, 3) + " [" + FormatFixed(i.lo, 3) + ", " + FormatFixed(i.hi, 3) + "]";
  };
  Table v({"label", "tau vs top-1 [95%]", "FLOPs-matched tau", "matched pairs"});
  auto add = [&](const std::string& name, const TauInterval& i, const MatchedTau& m) {
    v.AddRow({name, interval(i), FormatFixed(m.tau, 3), std::to_string(m.pairs)});
  };
  add("proxy label", tau, matched);
  add("full-size params", params_tau, params_matched);
  add("full-size FLOPs", flops_tau, flops_matched);
  add("activation units", act_units_tau, act_units_matched);
  add("depth (blocks)", depth_tau, depth_matched);
  std::string s = "zoo on the proxy " + recipe + " against published ImageNet top-1\n" +
                  t.ToText() + "Kendall tau against top-1 (" + std::to_string(rows.size()) +
                  " models, 95% bootstrap; matched: FLOPs within " +
                  FormatShortest(kMatchedFlopsRatio) + "x)\n" + v.ToText();
  for (const std::string& f : failed) s += "failed: " + f + "\n";
  return s;
}

nlohmann::json ZooProxyReport::ToJson() const {
  nlohmann::json models = nlohmann::json::array();
  for (const ZooProxyRow& r : rows) {
    models.push_back({{"model", r.model},
                      {"top1", r.top1},
                      {"resolution", r.native_resolution},
                      {"proxy_resolution", r.proxy_resolution},
                      {"params", r.params},
                      {"flops", r.flops},
                      {"act_units", r.act_units},
                      {"depth", r.depth},
                      {"label", r.label},
                      {"proxy_params", r.proxy_params},
                      {"time_s", r.time_s}});
  }
  auto interval = [](const TauInterval& i) {
    return nlohmann::json{{"tau", i.tau}, {"lo", i.lo}, {"hi", i.hi}};
  };
  auto matched_json = [](const MatchedTau& m) {
    return nlohmann::json{{"tau", std::isnan(m.tau) ? nlohmann::json() : nlohmann::json(m.tau)},
                          {"pairs", m.pairs}};
  };
  return {{"recipe", recipe},
          {"models", models},
          {"tau", interval(tau)},
          {"params_tau", interval(params_tau)},
          {"flops_tau", interval(flops_tau)},
          {"act_units_tau", interval(act_units_tau)},
          {"depth_tau", interval(depth_tau)},
          {"matched_flops_ratio", kMatchedFlopsRatio},
          {"matched", matched_json(matched)},
          {"params_matched", matched_json(params_matched)},
          {"flops_matched", matched_json(flops_matched)},
          {"act_units_matched", matched_json(act_units_matched)},
          {"depth_matched", matched_json(depth_matched)},
          {"failed", failed}};
}

}  // namespace dcnas::proxy
