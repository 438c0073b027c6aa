// dcnas space show | sample | decode
#include <cmath>
#include <iostream>
#include <nlohmann/json.hpp>
#include <random>

#include "cli/cli.h"
#include "common/table.h"
#include "common/text.h"
#include "models/counts.h"
#include "space/space.h"

namespace dcnas::cli {
namespace {

using space::Encoding;
using space::Space;

// One decoded architecture with its full-size counts (batch 1, 1000 classes).
struct Described {
  std::string encoding;
  space::Decoded decoded;
  models::OpCounts counts;
};

Described Describe(const Space& space, const Encoding& e) {
  const Encoding c = space.Canonical(e);
  return {space.ToText(c), space.Decode(c),
          models::CountGraph(space.BuildFull(c, {}, models::BuildOptions{}))};
}

nlohmann::json DescribedJson(const Described& d) {
  return {{"encoding", d.encoding},           {"blocks", d.decoded.blocks},
          {"stage_ops", d.decoded.stage_ops}, {"layers", d.decoded.layers},
          {"params", d.counts.params},        {"flops", d.counts.flops}};
}

void PrintDescribed(const std::vector<Described>& list, Format f) {
  if (f == Format::kJson) {
    nlohmann::json j = nlohmann::json::array();
    for (const auto& d : list) j.push_back(DescribedJson(d));
    std::cout << j.dump(1) << "\n";
    return;
  }
  Table t({"encoding", "params", "gflops", "layers", "blocks"});
  t.SetRightAligned({false, true, true, true, false});
  for (const auto& d : list) {
    t.AddRow({d.encoding,
              f == Format::kCsv ? std::to_string(d.counts.params) : FormatInt(d.counts.params),
              FormatFixed(static_cast<double>(d.counts.flops) / 1e9, 3),
              std::to_string(d.decoded.layers), Join(d.decoded.blocks, " ")});
  }
  std::cout << (f == Format::kCsv ? t.ToCsv() : t.ToText());
}

int Show(const Args& args) {
  po::options_description options("options");
  std::string file;
  uint64_t seed = 0;
  options.add_options()("file", po::value(&file), "search-space YAML file")(
      "seed", po::value(&seed)->default_value(0), "seed of the example architecture");
  po::positional_options_description pos;
  pos.add("file", 1);
  po::variables_map vm;
  if (!Parse(args, "dcnas space show FILE [--seed S]",
             "Shows a search space: its size, every choice with its values, and an example "
             "architecture (canonical encoding, block strings, params, FLOPs).",
             options, pos, vm)) {
    return 0;
  }
  if (file.empty()) throw UsageError("dcnas space show: missing FILE");
  const Space space = Space::Load(file);
  std::cout << "space " << space.name() << " (" << file << "), fingerprint " << space.fingerprint()
            << "\n"
            << space.description() << "\n\n"
            << space.vector_length() << " searchable choices over " << space.units().size()
            << " units; " << FormatFixed(std::log10(space.RawSize()), 2)
            << " = log10 of the encodings, " << FormatFixed(std::log10(space.CanonicalSize()), 2)
            << " = log10 of the distinct networks\n";
  const Space::ValidCount valid = space.ValidSize();
  std::cout << "valid: " << FormatFixed(100.0 * valid.valid_fraction, 1)
            << "% of the encodings (sampling redraws the others), "
            << (valid.exact ? FormatInt(static_cast<int64_t>(valid.networks)) +
                                  " distinct valid networks (counted)"
                            : FormatFixed(std::log10(std::max(valid.networks, 1.0)), 2) +
                                  " = log10 of the distinct valid networks (estimated)")
            << "\n\n";
  Table t({"choice", "values"});
  for (const auto& u : space.units()) {
    if (!u.fixed.Label().empty()) t.AddRow({u.name + " (fixed)", u.fixed.Label()});
    for (const auto& c : u.choices) {
      std::vector<std::string> labels;
      for (size_t i = 0; i < c.values.size(); ++i) {
        labels.push_back(std::to_string(i) + ": " + c.values[i].Label());
      }
      t.AddRow({u.name + "." + c.key, Join(labels, " | ")});
    }
  }
  std::cout << t.ToText() << "\nexample (seed " << seed << "):\n";
  std::mt19937_64 rng(seed);
  PrintDescribed({Describe(space, space.Sample(rng))}, Format::kText);
  return 0;
}

int Sample(const Args& args) {
  po::options_description options("options");
  std::string file, format;
  int count = 0;
  uint64_t seed = 0;
  options.add_options()("file", po::value(&file), "search-space YAML file")(
      "count,n", po::value(&count)->default_value(10), "architectures to sample")(
      "seed", po::value(&seed)->default_value(0), "random seed")(
      "format", po::value(&format)->default_value("text"), "text, csv or json");
  po::positional_options_description pos;
  pos.add("file", 1);
  po::variables_map vm;
  if (!Parse(args, "dcnas space sample FILE [-n N] [--seed S] [--format text|csv|json]",
             "Samples architectures uniformly over the encodings (invalid ones are redrawn) and "
             "prints their canonical encodings, block strings, full-size params and FLOPs.",
             options, pos, vm)) {
    return 0;
  }
  if (file.empty()) throw UsageError("dcnas space sample: missing FILE");
  const Format f = ParseFormat(format);
  const Space space = Space::Load(file);
  std::mt19937_64 rng(seed);
  std::vector<Described> list;
  for (int i = 0; i < count; ++i) list.push_back(Describe(space, space.Sample(rng)));
  PrintDescribed(list, f);
  return 0;
}

int Decode(const Args& args) {
  po::options_description options("options");
  std::string file, encoding, format;
  options.add_options()("file", po::value(&file), "search-space YAML file")(
      "encoding", po::value(&encoding), "architecture encoding (`dcnas space sample`)")(
      "format", po::value(&format)->default_value("text"), "text, csv or json");
  po::positional_options_description pos;
  pos.add("file", 1).add("encoding", 1);
  po::variables_map vm;
  if (!Parse(args, "dcnas space decode FILE ENCODING [--format text|csv|json]",
             "Decodes an encoding: its canonical form, block strings, the op each stage chose, "
             "and full-size params and FLOPs.",
             options, pos, vm)) {
    return 0;
  }
  if (file.empty() || encoding.empty()) throw UsageError("dcnas space decode: FILE ENCODING");
  const Format f = ParseFormat(format);
  const Space space = Space::Load(file);
  const Described d = Describe(space, space.FromText(encoding));
  if (f != Format::kText) {
    PrintDescribed({d}, f);
    return 0;
  }
  std::cout << "canonical " << d.encoding
            << (d.encoding == encoding ? "" : " (from " + encoding + ")") << "\nparams "
            << FormatInt(d.counts.params) << ", "
            << FormatFixed(static_cast<double>(d.counts.flops) / 1e9, 3) << " GFLOPs, "
            << d.decoded.layers << " layers\n";
  for (size_t i = 0; i < d.decoded.stage_ops.size(); ++i) {
    std::cout << "  stage " << i + 1 << ": " << d.decoded.stage_ops[i] << "\n";
  }
  std::cout << "blocks: " << Join(d.decoded.blocks, " ") << "\n";
  return 0;
}

}  // namespace

int RunSpace(const Args& args) {
  return RunSubcommand(
      "space", args,
      {{"show", "size, choices and an example of a search space", Show},
       {"sample", "sample architectures (canonical encodings, block strings, params, FLOPs)",
        Sample},
       {"decode", "decode one encoding", Decode}},
      "Format of the files: space/README.md.");
}

}  // namespace dcnas::cli
