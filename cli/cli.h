// Shared plumbing for the `dcnas` subcommands: option parsing with --help, output formats,
// model selection (zoo name, --graph file or --blocks strings) and writing results.
#pragma once

#include <boost/program_options.hpp>

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "common/errors.h"
#include "models/graph.h"
#include "models/zoo/zoo.h"

namespace dcnas::cli {

namespace po = boost::program_options;

using Args = std::vector<std::string>;

// Bad command-line usage (exit code 2, like any input error).
class UsageError : public InputError {
 public:
  explicit UsageError(const std::string& what) : InputError(what) {}
};

// Parses `args` against `options` (and positionals). If --help is given, prints
// "usage: <usage>\n<description>\n<options>" to stdout and returns false.
bool Parse(const Args& args, const std::string& usage, const std::string& description,
           po::options_description& options, const po::positional_options_description& positional,
           po::variables_map& vm);

// The accepted range of a numeric option (inclusive). Every numeric option of every command has
// one; Parse applies it.
struct OptionRange {
  const char* name;  // long option name, without "--"
  double lo;
  double hi;
};
const std::vector<OptionRange>& OptionRanges();
const OptionRange* FindOptionRange(const std::string& name);  // nullptr when unknown
// Refuses NaN, infinities, negative unsigned values and values outside the option's range
// (UsageError naming the option); throws std::logic_error for a numeric option with no range.
void CheckNumericOptions(const po::options_description& options, const po::parsed_options& parsed,
                         const po::variables_map& vm);

// --batch's comma-separated batch sizes, each in [1, 1048576]; throws UsageError otherwise.
std::vector<int> ParseBatches(const std::string& text);

// --executor of a command that can run on MPI: true for "mpi", false for "process". Throws
// UsageError for another name, for "mpi" in a build without MPI, and for "process" under mpirun
// with several ranks (every rank would `whole_job`, e.g. "run the whole plan").
bool UseMpiExecutor(const std::string& executor, const std::string& whole_job);

enum class Format { kText, kJson, kCsv };
Format ParseFormat(const std::string& text);  // throws UsageError

// Writes `content` to `path` atomically, or to stdout when path is empty or "-".
void Emit(const std::string& content, const std::string& path);

// How a command chooses the graph it works on: a zoo MODEL name, --graph FILE, or --blocks.
struct ModelSelection {
  std::string model;  // zoo name (the positional MODEL argument)
  std::string graph_path;
  std::string onnx_path;
  std::vector<std::string> blocks;
  double width = 1.0;
  double depth = 1.0;
  int resolution = 0;
  int batch = 1;
  std::string dtype = "fp32";
  int num_classes = 1000;

  // Adds the positional MODEL (--model), --graph, --blocks, --width, --depth, --resolution,
  // --batch, --dtype, --num-classes.
  void AddOptions(po::options_description& options, po::positional_options_description& positional,
                  int default_batch = 1, const std::string& default_dtype = "fp32");
  models::BuildOptions BuildOptions() const;
  // The defaults AddOptions set (a --graph refuses options that would change what it fixes).
  int default_batch = 1;
  std::string default_dtype = "fp32";
  // Builds the zoo model, or reads --graph, or builds --blocks (exactly one must be given).
  models::Graph Load() const;
  bool HasSource() const {
    return !model.empty() || !graph_path.empty() || !onnx_path.empty() || !blocks.empty();
  }
};

// A progress reporter for long commands: on a terminal, updates rewrite one status line and
// final lines stay; when stderr is piped, final lines only (and updates too when asked).
std::function<void(const std::string& line, bool final)> StatusLine(bool print_updates_when_piped);

// One subcommand of a command with subcommands (`dcnas space show`).
struct Subcommand {
  const char* name;
  const char* summary;
  int (*run)(const Args& args);
};
// Runs the subcommand named by args[0]; prints "usage: dcnas COMMAND <sub> ..." with the
// summaries for --help (and throws UsageError when args are empty or name no subcommand).
int RunSubcommand(const std::string& command, const Args& args,
                  const std::vector<Subcommand>& subcommands, const std::string& footer);

// One `dcnas` subcommand.
struct Command {
  const char* name;
  const char* summary;
  int (*run)(const Args& args);
};

// Subcommands (one file each in cli/).
int RunModels(const Args& args);
int RunSim(const Args& args);           // cmd_sim.cc
int RunRoofline(const Args& args);      // cmd_roofline.cc
int RunSweep(const Args& args);         // cmd_sweep.cc
int RunCompare(const Args& args);       // cmd_compare.cc
int RunCalibrate(const Args& args);     // cmd_calibrate.cc
int RunIntervals(const Args& args);     // cmd_intervals.cc
int RunSpace(const Args& args);         // cmd_space.cc
int RunAccuracyData(const Args& args);  // cmd_accuracy_data.cc
int RunSearch(const Args& args);        // cmd_search.cc
int RunScale(const Args& args);         // cmd_scale.cc
int RunImport(const Args& args);        // cmd_import.cc (ONNX)

// Imports an ONNX file at a batch and dtype (models/onnx); a UsageError when this dcnas was
// built without ONNX import.
models::Graph ImportOnnx(const std::string& path, int batch, const std::string& dtype);

// The zoo plus one model per ONNX file, named by the file's stem (family "onnx"), imported at
// the batch and dtype each use asks for: how compare, roofline, measure and calibrate take
// imported models by name. A stem that names a zoo model is a UsageError.
models::ModelRegistry RegistryWithOnnx(const std::vector<std::string>& onnx_paths);
#ifdef DCNAS_WITH_XGBOOST
int RunSurrogate(const Args& args);  // cmd_surrogate.cc (XGBoost)
#endif
#ifdef DCNAS_WITH_TORCH
int RunMeasure(const Args& args);        // cmd_measure.cc (LibTorch)
int RunCalibrateHost(const Args& args);  // cmd_calibrate_host.cc (LibTorch)
int RunTrain(const Args& args);          // cmd_train.cc (LibTorch)
#endif

}  // namespace dcnas::cli
