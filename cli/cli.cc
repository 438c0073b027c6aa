#include "cli/cli.h"

#include <unistd.h>

#include <algorithm>
#include <iostream>

#include "common/file_io.h"
#include "common/text.h"
#include "models/block_string.h"
#include "models/graph_json.h"

namespace dcnas::cli {

bool Parse(const Args& args, const std::string& usage, const std::string& description,
           po::options_description& options, const po::positional_options_description& positional,
           po::variables_map& vm) {
  options.add_options()("help,h", "show this help and exit");
  try {
    // No guessing: an abbreviated option (--mode for --model) is an error, never a silent match.
    po::store(
        po::command_line_parser(args)
            .options(options)
            .positional(positional)
            .style(po::command_line_style::default_style & ~po::command_line_style::allow_guessing)
            .run(),
        vm);
    if (vm.count("help") > 0) {
      std::cout << "usage: " << usage << "\n\n" << description << "\n\n" << options << "\n";
      return false;
    }
    po::notify(vm);
  } catch (const po::error& e) {
    throw UsageError(std::string(e.what()) + " (usage: " + usage + "; --help for details)");
  }
  return true;
}

Format ParseFormat(const std::string& text) {
  if (text == "text") return Format::kText;
  if (text == "json") return Format::kJson;
  if (text == "csv") return Format::kCsv;
  throw UsageError("unknown --format '" + text + "' (valid: text, json, csv)");
}

void Emit(const std::string& content, const std::string& path) {
  if (path.empty() || path == "-") {
    std::cout << content;
    std::cout.flush();
  } else {
    WriteFileAtomic(path, content);
  }
}

void ModelSelection::AddOptions(po::options_description& options,
                                po::positional_options_description& positional, int default_batch,
                                const std::string& default_dtype) {
  batch = default_batch;
  dtype = default_dtype;
  this->default_batch = default_batch;
  this->default_dtype = default_dtype;
  positional.add("model", 1);
  options.add_options()("model", po::value(&model), "zoo model name (`dcnas models list`)")(
      "graph", po::value(&graph_path),
      "read the layer graph from a JSON file (see models/README.md)")(
      "blocks", po::value(&blocks)->multitoken(),
      "build an EfficientNet-style network from block strings, e.g. r1_k3_s11_e1_i32_o16_se0.25")(
      "width", po::value(&width)->default_value(1.0), "width coefficient for --blocks")(
      "depth", po::value(&depth)->default_value(1.0), "depth coefficient for --blocks")(
      "resolution", po::value(&resolution)->default_value(0),
      "input resolution in pixels (0: the model's native one)")(
      "batch", po::value(&batch)->default_value(default_batch), "batch size")(
      "dtype", po::value(&dtype)->default_value(default_dtype),
      "tensor dtype: fp32, fp16, bf16, int8")(
      "num-classes", po::value(&num_classes)->default_value(1000), "classifier outputs");
}

models::BuildOptions ModelSelection::BuildOptions() const {
  models::BuildOptions o;
  o.resolution = resolution;
  o.batch = batch;
  o.dtype = models::ParseDType(dtype);
  o.num_classes = num_classes;
  return o;
}

models::Graph ModelSelection::Load() const {
  const int sources =
      (model.empty() ? 0 : 1) + (graph_path.empty() ? 0 : 1) + (blocks.empty() ? 0 : 1);
  if (sources == 0) throw UsageError("name a model, or give --graph FILE or --blocks STRINGS");
  if (sources > 1) throw UsageError("give only one of: a model name, --graph, --blocks");
  if (!graph_path.empty()) {
    // A graph file fixes its shapes and dtype: options that would change them are refused.
    std::vector<std::string> ignored;
    if (batch != default_batch) ignored.emplace_back("--batch");
    if (resolution != 0) ignored.emplace_back("--resolution");
    if (dtype != default_dtype) ignored.emplace_back("--dtype");
    if (width != 1.0) ignored.emplace_back("--width");
    if (depth != 1.0) ignored.emplace_back("--depth");
    if (num_classes != 1000) ignored.emplace_back("--num-classes");
    if (!ignored.empty()) {
      throw UsageError("--graph " + graph_path + ": " + Join(ignored, ", ") +
                       " cannot change a graph file (its ops fix batch, resolution and dtype; "
                       "export the graph again with them)");
    }
    return models::ReadGraphFile(graph_path);
  }
  if (!blocks.empty()) {
    models::BlockNetworkSpec spec;
    spec.blocks = blocks;
    spec.width = width;
    spec.depth = depth;
    if (!(width > 0) || !(depth > 0)) throw UsageError("--width and --depth must be positive");
    return models::BuildBlockNetwork("blocks", spec, BuildOptions());
  }
  return models::BuiltinModels().Build(model, BuildOptions());
}

std::function<void(const std::string& line, bool final)> StatusLine(bool print_updates_when_piped) {
  const bool terminal = ::isatty(STDERR_FILENO) != 0;
  return [terminal, print_updates_when_piped](const std::string& line, bool final) {
    if (terminal) {
      std::cerr << "\r\033[K" << line << (final ? "\n" : "") << std::flush;
    } else if (final || print_updates_when_piped) {
      std::cerr << line << "\n";
    }
  };
}

int RunSubcommand(const std::string& command, const Args& args,
                  const std::vector<Subcommand>& subcommands, const std::string& footer) {
  std::vector<std::string> names;
  for (const auto& s : subcommands) names.emplace_back(s.name);
  if (args.empty() || args[0] == "--help" || args[0] == "-h") {
    std::cout << "usage: dcnas " << command << " " << Join(names, "|") << " ...\n\n";
    for (const auto& s : subcommands) {
      const size_t width = std::string(s.name).size();
      std::cout << "  " << s.name << std::string(width < 10 ? 10 - width : 1, ' ') << s.summary
                << "\n";
    }
    std::cout << "\n`dcnas " << command << " <sub> --help` for options."
              << (footer.empty() ? "" : " ") << footer << "\n";
    if (args.empty()) {
      throw UsageError("dcnas " + command + ": missing subcommand (" + Join(names, ", ") + ")");
    }
    return 0;
  }
  const Args rest(args.begin() + 1, args.end());
  for (const auto& s : subcommands) {
    if (args[0] == s.name) return s.run(rest);
  }
  throw UsageError("dcnas " + command + ": unknown subcommand '" + args[0] +
                   "' (valid: " + Join(names, ", ") + ")");
}

}  // namespace dcnas::cli
