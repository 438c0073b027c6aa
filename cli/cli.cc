#include "cli/cli.h"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <iostream>
#include <map>
#include <typeinfo>

#include "common/file_io.h"
#include "common/text.h"
#include "exec/executor.h"
#include "models/block_string.h"
#include "models/graph_json.h"

namespace dcnas::cli {

namespace {

// The numeric type of an option's value, or kNone for text and flags.
enum class Numeric { kNone, kSigned, kUnsigned, kReal, kRealList };

Numeric NumericKind(const po::option_description& o) {
  const auto* typed = dynamic_cast<const po::typed_value_base*>(o.semantic().get());
  if (typed == nullptr) return Numeric::kNone;
  const std::type_info& t = typed->value_type();
  if (t == typeid(double) || t == typeid(float)) return Numeric::kReal;
  if (t == typeid(std::vector<double>)) return Numeric::kRealList;
  if (t == typeid(int) || t == typeid(long) || t == typeid(long long)) return Numeric::kSigned;
  if (t == typeid(unsigned) || t == typeid(unsigned long) || t == typeid(unsigned long long)) {
    return Numeric::kUnsigned;
  }
  return Numeric::kNone;
}

double NumericValue(const boost::any& v) {
  if (const auto* d = boost::any_cast<double>(&v)) return *d;
  if (const auto* f = boost::any_cast<float>(&v)) return *f;
  if (const auto* i = boost::any_cast<int>(&v)) return *i;
  if (const auto* l = boost::any_cast<long>(&v)) return static_cast<double>(*l);
  if (const auto* ll = boost::any_cast<long long>(&v)) return static_cast<double>(*ll);
  if (const auto* u = boost::any_cast<unsigned>(&v)) return *u;
  if (const auto* ul = boost::any_cast<unsigned long>(&v)) return static_cast<double>(*ul);
  if (const auto* ull = boost::any_cast<unsigned long long>(&v)) return static_cast<double>(*ull);
  throw std::logic_error("NumericValue: not a numeric option value");
}

std::string Num(double v) {
  if (v == 18446744073709551615.0) return "2^64 - 1";  // the u64 ranges' bound
  char text[32];
  if (v == std::floor(v) && std::abs(v) < 1e15) {
    std::snprintf(text, sizeof text, "%.0f", v);
  } else {
    std::snprintf(text, sizeof text, "%.10g", v);
  }
  return text;
}

}  // namespace

const std::vector<OptionRange>& OptionRanges() {
  constexpr double kU64 = 18446744073709551615.0;
  // Ranges of every numeric option of every command, by option name (an option name means the
  // same thing in every command that has it). Parse refuses a value outside its range, NaN and
  // infinities, and a negative number for an unsigned option; a numeric option missing here is a
  // programming error that `--help` already reports.
  static const std::vector<OptionRange> kRanges = {
      {"batch", 1, 1 << 20},
      {"resolution", 0, 1 << 16},
      {"base-resolution", 1, 1 << 16},
      {"proxy-resolution", 0, 1 << 12},
      {"resolution-multiple", 1, 1024},
      {"num-classes", 1, 1 << 20},
      {"in-channels", 1, 1 << 16},
      {"width", 1e-3, 1e3},
      {"depth", 1e-3, 1e3},
      {"width-scale", 0, 1e3},
      {"proxy-width", 0, 1e3},
      {"removed-downsamples", -1, 16},
      {"threads", 0, 4096},
      {"jobs", 1, 4096},
      {"repeats", 1, 1000000},
      {"warmup", 0, 1000000},
      {"seed", 0, kU64},
      {"seeds", 1, 1000},
      {"k", 1, 100000},
      {"count", 1, 10000000},
      {"samples", 1, 10000000},
      {"replicates", 1, 1000},
      {"limit-train", 0, 100000000},
      {"limit-eval", 0, 100000000},
      {"epochs", 1, 100000},
      {"train-images", 1, 100000000},
      {"lr", 0, 10},
      {"weight-decay", -1, 1},
      {"regularization", 0, 1e6},
      {"max-evaluations", 1, 100000000},
      {"k-folds", 2, 1000000},
      {"phi", 0, 64},
      {"tolerance", 0, 1},
      {"members", 1, 64},
      {"train-members", 0, 64},
      {"budget", 1, 1e9},
      {"scaling", 1e-3, 1e3},
      {"target-ms", 1e-9, 1e9},
      {"finalists", 0, 100000},
      {"w", -10, 0},
      {"warmup-epochs", 0, 100000},
      {"label-smoothing", 0, 0.999},
      {"crop-pad", -1, 64},
      {"image-size", 0, 1024},
      {"validation-images", 0, 100000000},
      {"stop-after-epoch", 0, 100000},
      {"train-jobs", 1, 4096},
      {"train-limit-eval", 0, 100000000},
      {"min-surrogate-tau", -1, 1},
      {"in-flight", 1, 1000000},
      {"population", 1, 1000000},
      {"tournament", 1, 1000000},
      {"mutations", 1, 1000},
      {"start", 0, 1e9},
      {"candidates", 1, 1000000},
      {"elite", 1, 1000000},
      {"ensemble", 1, 256},
      {"kappa", 0, 100},
      {"top-fraction", 1e-9, 1},
      {"task-timeout", 0, 1e7},
      {"chips", 1, 1 << 16},
      {"triad-mib", 1, 1 << 16},
      {"draws", 1, 1000000},
      {"level", 0.001, 0.999},
      {"max-memory-gib", 1e-9, 1 << 20},
      {"halving", 0, 16},
      {"min-epochs", 1, 100000},
      {"eta", 2, 16},
      {"train-halving", 0, 16},
      {"train-min-epochs", 1, 100000},
  };
  return kRanges;
}

const OptionRange* FindOptionRange(const std::string& name) {
  for (const OptionRange& r : OptionRanges()) {
    if (r.name == name) return &r;
  }
  return nullptr;
}

void CheckNumericOptions(const po::options_description& options, const po::parsed_options& parsed,
                         const po::variables_map& vm) {
  std::vector<std::string> missing;
  for (const auto& o : options.options()) {
    if (NumericKind(*o) != Numeric::kNone && FindOptionRange(o->long_name()) == nullptr) {
      missing.push_back("--" + o->long_name());
    }
  }
  if (!missing.empty()) {
    throw std::logic_error("numeric options with no range in cli/cli.cc: " + Join(missing, ", "));
  }
  for (const auto& o : options.options()) {
    const Numeric kind = NumericKind(*o);
    if (kind == Numeric::kNone) continue;
    const std::string& name = o->long_name();
    const OptionRange* range = FindOptionRange(name);
    if (kind == Numeric::kUnsigned) {
      // lexical_cast reads "-1" into an unsigned as 2^64 - 1: refuse the sign itself.
      for (const auto& p : parsed.options) {
        if (p.string_key != name) continue;
        for (const std::string& token : p.value) {
          const size_t first = token.find_first_not_of(" \t");
          if (first != std::string::npos && token[first] == '-') {
            throw UsageError("--" + name + " " + token + ": must not be negative");
          }
        }
      }
    }
    const auto it = vm.find(name);
    if (it == vm.end() || it->second.empty()) continue;
    const std::vector<double> values = kind == Numeric::kRealList
                                           ? it->second.as<std::vector<double>>()
                                           : std::vector<double>{NumericValue(it->second.value())};
    for (const double v : values) {
      if (!std::isfinite(v)) throw UsageError("--" + name + ": not a finite number");
      if (v < range->lo || v > range->hi) {
        throw UsageError("--" + name + " " + Num(v) + ": out of range [" + Num(range->lo) + ", " +
                         Num(range->hi) + "]");
      }
    }
  }
}

bool Parse(const Args& args, const std::string& usage, const std::string& description,
           po::options_description& options, const po::positional_options_description& positional,
           po::variables_map& vm) {
  options.add_options()("help,h", "show this help and exit");
  try {
    // No guessing: an abbreviated option (--mode for --model) is an error, never a silent match.
    const po::parsed_options parsed =
        po::command_line_parser(args)
            .options(options)
            .positional(positional)
            .style(po::command_line_style::default_style & ~po::command_line_style::allow_guessing)
            .run();
    po::store(parsed, vm);
    if (vm.count("help") > 0) {
      CheckNumericOptions(options, po::parsed_options(&options), po::variables_map());
      std::cout << "usage: " << usage << "\n\n" << description << "\n\n" << options << "\n";
      std::string ranges;
      for (const auto& o : options.options()) {
        if (NumericKind(*o) == Numeric::kNone) continue;
        const OptionRange* r = FindOptionRange(o->long_name());
        const std::string name = "  --" + o->long_name();
        ranges += name + std::string(name.size() < 24 ? 24 - name.size() : 1, ' ') + "[" +
                  Num(r->lo) + ", " + Num(r->hi) + "]\n";
      }
      if (!ranges.empty()) {
        std::cout << "accepted ranges (NaN and infinities never):\n" << ranges << "\n";
      }
      return false;
    }
    CheckNumericOptions(options, parsed, vm);
    po::notify(vm);
  } catch (const po::error& e) {
    throw UsageError(std::string(e.what()) + " (usage: " + usage + "; --help for details)");
  }
  return true;
}

std::vector<int> ParseBatches(const std::string& text) {
  std::vector<int> batches;
  for (const std::string& part : Split(text, ',')) {
    size_t used = 0;
    int value = 0;
    try {
      value = std::stoi(part, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used != part.size() || part.empty() || value < 1 || value > (1 << 20)) {
      throw UsageError("--batch wants integers in [1, 1048576] separated by commas, got '" +
                       text.substr(0, 64) + "'");
    }
    batches.push_back(value);
  }
  return batches;
}

bool UseMpiExecutor(const std::string& executor, const std::string& whole_job) {
  if (executor == "mpi") {
#ifndef DCNAS_WITH_MPI
    throw UsageError("--executor mpi: this dcnas was built without MPI (install libopenmpi-dev)");
#endif
    return true;
  }
  if (executor != "process") {
    throw UsageError("unknown --executor '" + executor + "' (valid: process, mpi)");
  }
  if (exec::LauncherRanks() > 1) {
    throw UsageError("started by mpirun with " + std::to_string(exec::LauncherRanks()) +
                     " ranks but without --executor mpi: every rank would " + whole_job);
  }
  return false;
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
      "onnx", po::value(&onnx_path),
      "import the model from an ONNX file (at --batch and --dtype; see `dcnas import --help`)")(
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
  const int sources = (model.empty() ? 0 : 1) + (graph_path.empty() ? 0 : 1) +
                      (onnx_path.empty() ? 0 : 1) + (blocks.empty() ? 0 : 1);
  if (sources == 0) {
    throw UsageError("name a model, or give --graph FILE, --onnx FILE or --blocks STRINGS");
  }
  if (sources > 1) throw UsageError("give only one of: a model name, --graph, --onnx, --blocks");
  if (!onnx_path.empty()) {
    // An ONNX file fixes everything but the batch (and the dtype the simulator assumes).
    std::vector<std::string> ignored;
    if (resolution != 0) ignored.emplace_back("--resolution");
    if (width != 1.0) ignored.emplace_back("--width");
    if (depth != 1.0) ignored.emplace_back("--depth");
    if (num_classes != 1000) ignored.emplace_back("--num-classes");
    if (!ignored.empty()) {
      throw UsageError("--onnx " + onnx_path + ": " + Join(ignored, ", ") +
                       " cannot change an ONNX model (its nodes fix them; only --batch and "
                       "--dtype apply)");
    }
    return ImportOnnx(onnx_path, batch, dtype);
  }
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
    spec.width = width;
    spec.depth = depth;
    if (!(width > 0) || !(depth > 0)) throw UsageError("--width and --depth must be positive");
    spec.blocks = models::ParseBlockStrings(blocks);
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
