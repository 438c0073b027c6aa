// dcnas models list | show | export
#include <iostream>

#include <nlohmann/json.hpp>

#include "cli/cli.h"
#include "common/table.h"
#include "common/text.h"
#include "models/counts.h"
#include "models/graph_json.h"
#include "models/op_kinds.h"

namespace dcnas::cli {
namespace {

using models::Graph;
using models::OpCounts;

nlohmann::json CountsJson(const OpCounts& c) {
  return {{"macs", c.macs},
          {"flops", c.flops},
          {"params", c.params},
          {"bytes_read", c.bytes_read()},
          {"bytes_read_weights", c.bytes_read_weights},
          {"bytes_written", c.bytes_written},
          {"intensity_flop_per_byte", c.intensity_flop_per_byte()}};
}

std::string InputShapes(const Graph& g, const models::Op& op) {
  std::string s;
  for (size_t i = 0; i < op.inputs.size(); ++i) {
    if (i > 0) s += " ";
    s += models::ShapeString(g.op(op.inputs[i]).out.shape);
  }
  return s;
}

int List(const Args& args) {
  po::options_description options("options");
  std::string format;
  bool prefixed = false;
  options.add_options()("format", po::value(&format)->default_value("text"), "text, json or csv")(
      "prefixed", po::bool_switch(&prefixed),
      "also the models made from data tables on first use (timm:<arch>: the published "
      "MBConv-family networks)");
  po::variables_map vm;
  if (!Parse(args, "dcnas models list [--prefixed] [--format text|json|csv]",
             "Lists the model zoo: name, family, native resolution and definition source.", options,
             {}, vm)) {
    return 0;
  }
  const Format f = ParseFormat(format);
  const auto& registry = models::BuiltinModels();
  std::vector<std::string> names = registry.Names();
  if (prefixed) {
    for (const models::ModelPrefix& p : registry.prefixes()) {
      for (const std::string& n : p.names()) names.push_back(n);
    }
  }
  if (f == Format::kJson) {
    nlohmann::json j = nlohmann::json::array();
    for (const auto& name : names) {
      const auto& e = registry.Get(name);
      j.push_back({{"name", e.name},
                   {"family", e.family},
                   {"native_resolution_px", e.native_resolution},
                   {"description", e.description}});
    }
    std::cout << j.dump(1) << "\n";
    return 0;
  }
  Table table({"model", "family", "resolution_px", "description"});
  for (const auto& name : names) {
    const auto& e = registry.Get(name);
    table.AddRow({e.name, e.family, std::to_string(e.native_resolution), e.description});
  }
  std::cout << (f == Format::kCsv ? table.ToCsv() : table.ToText());
  return 0;
}

std::string ShowJson(const Graph& g) {
  const auto& info = g.info();
  nlohmann::json j;
  j["model"] = info.model;
  j["resolution_px"] = info.resolution;
  j["batch"] = info.batch;
  j["dtype"] = std::string(models::DTypeName(info.dtype));
  j["num_ops"] = g.size();
  j["totals"] = CountsJson(models::CountGraph(g));
  nlohmann::json blocks = nlohmann::json::array();
  for (const auto& b : models::CountBlocks(g)) {
    nlohmann::json jb = CountsJson(b.counts);
    jb["block"] = b.block;
    jb["stage"] = b.stage;
    jb["num_ops"] = b.num_ops;
    blocks.push_back(jb);
  }
  j["blocks"] = blocks;
  nlohmann::json layers = nlohmann::json::array();
  for (const auto& op : g.ops()) {
    nlohmann::json jl = CountsJson(models::CountOp(g, op));
    jl["id"] = op.id;
    jl["name"] = op.name;
    jl["kind"] = std::string(models::OpKindName(op.kind));
    jl["detail"] = models::OpDetail(op);
    jl["block"] = op.block;
    jl["stage"] = op.stage;
    nlohmann::json shapes = nlohmann::json::array();
    for (int in : op.inputs) {
      const auto& s = g.op(in).out.shape;
      shapes.push_back({s.n, s.h, s.w, s.c});
    }
    jl["input_shapes"] = shapes;
    const auto& s = op.out.shape;
    jl["output_shape"] = {s.n, s.h, s.w, s.c};
    layers.push_back(jl);
  }
  j["layers"] = layers;
  return j.dump(1) + "\n";
}

Table BlockTable(const Graph& g) {
  Table t({"block", "stage", "ops", "macs", "params", "bytes_read", "bytes_written",
           "intensity_flop_per_byte"});
  t.SetRightAligned({false, true, true, true, true, true, true, true});
  for (const auto& b : models::CountBlocks(g)) {
    const auto& c = b.counts;
    t.AddRow({b.block, std::to_string(b.stage), std::to_string(b.num_ops), FormatInt(c.macs),
              FormatInt(c.params), FormatInt(c.bytes_read()), FormatInt(c.bytes_written),
              FormatFixed(c.intensity_flop_per_byte(), 2)});
  }
  return t;
}

// One row per op; `csv` writes plain integers instead of digit-grouped ones.
Table OpTable(const Graph& g, bool csv) {
  Table t({"id", "block", "op", "input", "output", "macs", "params", "bytes_read", "bytes_written",
           "intensity_flop_per_byte"});
  t.SetRightAligned({true, false, false, false, false, true, true, true, true, true});
  auto integer = [csv](int64_t v) { return csv ? std::to_string(v) : FormatInt(v); };
  for (const auto& op : g.ops()) {
    const OpCounts c = models::CountOp(g, op);
    t.AddRow({std::to_string(op.id), op.block, models::OpDetail(op), InputShapes(g, op),
              models::ShapeString(op.out.shape), integer(c.macs), integer(c.params),
              integer(c.bytes_read()), integer(c.bytes_written),
              FormatFixed(c.intensity_flop_per_byte(), 2)});
  }
  return t;
}

// The text report: a heading, the table and a line of totals.
std::string ShowText(const Graph& g, const std::string& table) {
  const auto& info = g.info();
  const OpCounts total = models::CountGraph(g);
  return info.model + " @ " + std::to_string(info.resolution) + " px, batch " +
         std::to_string(info.batch) + ", " + std::string(models::DTypeName(info.dtype)) + "\n\n" +
         table + "\ntotal: " + FormatInt(total.params) + " params, " + FormatInt(total.macs) +
         " MACs (" + FormatSi(static_cast<double>(total.macs)) + "), " +
         FormatSi(static_cast<double>(total.flops)) + " FLOPs, " +
         FormatSi(static_cast<double>(total.bytes_read())) + "B read, " +
         FormatSi(static_cast<double>(total.bytes_written)) + "B written, intensity " +
         FormatFixed(total.intensity_flop_per_byte(), 2) + " FLOP/B, " + std::to_string(g.size()) +
         " ops\n";
}

int Show(const Args& args) {
  po::options_description options("options");
  ModelSelection selection;
  std::string format;
  std::string out;
  bool per_block = false;
  po::positional_options_description positional;
  selection.AddOptions(options, positional);
  options.add_options()("format", po::value(&format)->default_value("text"), "text, json or csv")(
      "per-block", po::bool_switch(&per_block), "text/csv: one row per block instead of per op")(
      "out", po::value(&out), "write to this file instead of stdout");
  po::variables_map vm;
  if (!Parse(args,
             "dcnas models show MODEL|--graph g.json|--blocks S... [--resolution R] [--batch N] "
             "[--dtype T] [--format text|json|csv] [--per-block]",
             "Per-layer table of a model: block, op, input and output shapes, MACs, parameters,\n"
             "bytes read/written and arithmetic intensity (FLOP/byte), with totals. Counting\n"
             "rules: models/README.md.",
             options, positional, vm)) {
    return 0;
  }
  const Format f = ParseFormat(format);
  const Graph g = selection.Load();
  if (f == Format::kJson) {
    Emit(ShowJson(g), out);
    return 0;
  }
  const Table t = per_block ? BlockTable(g) : OpTable(g, f == Format::kCsv);
  const std::string table = f == Format::kCsv ? t.ToCsv() : t.ToText();
  Emit(f == Format::kText ? ShowText(g, table) : table, out);
  return 0;
}

int Export(const Args& args) {
  po::options_description options("options");
  ModelSelection selection;
  std::string out;
  po::positional_options_description positional;
  selection.AddOptions(options, positional);
  options.add_options()("out", po::value(&out)->required(),
                        "output JSON file (written atomically)");
  po::variables_map vm;
  if (!Parse(args,
             "dcnas models export MODEL --out g.json [--resolution R] [--batch N] [--dtype T]",
             "Writes a model's layer graph as JSON (format: models/README.md). The file can be\n"
             "edited and given back to any command with --graph.",
             options, positional, vm)) {
    return 0;
  }
  models::WriteGraphFile(selection.Load(), out);
  return 0;
}

// The zoo models of --family and --models (in that order), or the whole zoo without either.
std::vector<std::string> SummaryModels(const std::string& families, const std::string& names) {
  const auto& registry = models::BuiltinModels();
  if (families.empty() && names.empty()) return registry.Names();
  std::vector<std::string> selected;
  if (!families.empty()) {
    for (const auto& family : Split(families, ',')) {
      for (const auto* e : registry.Family(family)) selected.push_back(e->name);
    }
  }
  if (!names.empty()) {
    for (const auto& name : Split(names, ',')) selected.push_back(registry.Get(name).name);
  }
  return selected;
}

// One row per model at its native resolution, as a table (params in full in CSV) and as JSON.
std::string SummaryOf(const std::vector<std::string>& selected, int batch, Format f) {
  const auto& registry = models::BuiltinModels();
  models::BuildOptions o;
  o.batch = batch;
  Table t({"model", "family", "resolution_px", "params", "gmacs", "gflops", "mbytes",
           "intensity_flop_per_byte"});
  t.SetRightAligned({false, false, true, true, true, true, true, true});
  nlohmann::json j = nlohmann::json::array();
  for (const auto& name : selected) {
    const Graph g = registry.Build(name, o);
    const OpCounts c = models::CountGraph(g);
    const auto& e = registry.Get(name);
    t.AddRow({name, e.family, std::to_string(g.info().resolution),
              f == Format::kCsv ? std::to_string(c.params) : FormatInt(c.params),
              FormatFixed(static_cast<double>(c.macs) / 1e9, 3),
              FormatFixed(static_cast<double>(c.flops) / 1e9, 3),
              FormatFixed(static_cast<double>(c.bytes()) / 1e6, 1),
              FormatFixed(c.intensity_flop_per_byte(), 2)});
    nlohmann::json row = CountsJson(c);
    row["model"] = name;
    row["family"] = e.family;
    row["resolution_px"] = g.info().resolution;
    row["batch"] = batch;
    j.push_back(row);
  }
  if (f == Format::kJson) return j.dump(1) + "\n";
  return f == Format::kCsv ? t.ToCsv() : t.ToText();
}

int Summary(const Args& args) {
  po::options_description options("options");
  std::string families;
  std::string names;
  std::string format;
  int batch = 1;
  options.add_options()("family", po::value(&families),
                        "comma-separated families (`dcnas models list`)")(
      "models", po::value(&names), "comma-separated model names")(
      "batch", po::value(&batch)->default_value(1), "batch size for the byte counts")(
      "format", po::value(&format)->default_value("text"), "text, json or csv");
  po::variables_map vm;
  if (!Parse(args,
             "dcnas models summary [--family F1,F2] [--models M1,M2] [--format text|json|csv]",
             "One row per model at its native resolution: parameters, MACs, FLOPs, bytes and\n"
             "arithmetic intensity. Without --family/--models: the whole zoo.",
             options, {}, vm)) {
    return 0;
  }
  const Format f = ParseFormat(format);
  std::cout << SummaryOf(SummaryModels(families, names), batch, f);
  return 0;
}

}  // namespace

int RunModels(const Args& args) {
  return RunSubcommand("models", args,
                       {{"list", "the model zoo", List},
                        {"summary", "params, MACs, FLOPs and intensity of zoo models", Summary},
                        {"show", "per-layer counts of a model or graph file", Show},
                        {"export", "write a model's layer graph as JSON", Export}},
                       "");
}

}  // namespace dcnas::cli
