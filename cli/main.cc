// dcnas: the command-line entry point. Each subcommand lives in its own cli/cmd_*.cc file; this
// file dispatches and turns exceptions into exit codes (0 ok, 2 bad usage or input, 1 other).
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <iostream>
#include <string>
#include <vector>

#include "cli/cli.h"
#include "common/text.h"
#ifdef DCNAS_WITH_TORCH
#include "models/torch/module.h"
#endif

namespace {

using dcnas::cli::Command;

const std::vector<Command>& Commands() {
  static const std::vector<Command> kCommands = {
      {"models", "list the model zoo, show per-layer counts, export graphs as JSON",
       dcnas::cli::RunModels},
      {"import", "import an ONNX model as a layer graph (JSON) for every other command",
       dcnas::cli::RunImport},
      {"sim", "simulate a model's latency on an accelerator, per layer and block",
       dcnas::cli::RunSim},
      {"roofline", "roofline and FLOPs-vs-latency charts (SVG) for models on accelerators",
       dcnas::cli::RunRoofline},
      {"sweep", "what-if study: latency and bound mix over --set values", dcnas::cli::RunSweep},
      {"compare", "side-by-side latency of model families with speedups", dcnas::cli::RunCompare},
      {"calibrate", "fit the simulator to measured latencies and validate on held-out data",
       dcnas::cli::RunCalibrate},
      {"intervals", "calibrate the prediction intervals on held-out residuals; their coverage",
       dcnas::cli::RunIntervals},
      {"space", "search spaces: show their size and choices, sample and decode architectures",
       dcnas::cli::RunSpace},
      {"accuracy-data", "train sampled architectures on the proxy; label-noise statistics",
       dcnas::cli::RunAccuracyData},
      {"search", "architecture search against the simulator and the accuracy surrogate",
       dcnas::cli::RunSearch},
      {"scale", "compound-scale a base network into a family (LACS or FLOPs scaling)",
       dcnas::cli::RunScale},
#ifdef DCNAS_WITH_XGBOOST
      {"surrogate", "fit, evaluate and query the XGBoost accuracy surrogate",
       dcnas::cli::RunSurrogate},
#endif
#ifdef DCNAS_WITH_TORCH
      {"measure", "time models on this machine's CPU with LibTorch (calibration CSV)",
       dcnas::cli::RunMeasure},
      {"train", "train a model on Fashion-MNIST with LibTorch", dcnas::cli::RunTrain},
      {"calibrate-host", "detect this CPU, write its chip file, time a probe set, fit, validate",
       dcnas::cli::RunCalibrateHost},
#endif
  };
  return kCommands;
}

// Under mpirun every rank parses the same command line and fails the same way: rank 0 speaks.
bool FirstRank() {
  for (const char* name : {"OMPI_COMM_WORLD_RANK", "PMI_RANK", "PMIX_RANK"}) {
    const char* rank = std::getenv(name);
    if (rank != nullptr) return std::string(rank) == "0";
  }
  return true;
}

void PrintUsage(std::ostream& out) {
  out << "dcnas " << DCNAS_VERSION
      << ": fast model families for datacenter accelerators\n\n"
         "usage: dcnas <command> [options]   (dcnas <command> --help for details)\n\ncommands:\n";
  for (const auto& c : Commands()) {
    out << "  " << c.name << std::string(15 - std::string(c.name).size(), ' ') << c.summary << "\n";
  }
  out << "\nexit codes: 0 success, 2 bad usage or input, 1 other failure\n";
}

}  // namespace

int main(int argc, char** argv) {
  const std::vector<std::string> args(argv + 1, argv + argc);
  if (args.empty()) {
    PrintUsage(std::cerr);
    return 2;
  }
  if (args[0] == "--help" || args[0] == "-h" || args[0] == "help") {
    PrintUsage(std::cout);
    return 0;
  }
  if (args[0] == "--version") {
    std::cout << "dcnas " << DCNAS_VERSION << "\n";
#ifdef DCNAS_WITH_TORCH
    try {
      const std::string module = dcnas::models::libtorch::LoadedModulePath();
      std::cout << "LibTorch module: " << module << "\n";
    } catch (const std::exception& e) {
      std::cerr << "dcnas: " << e.what() << "\n";
      return 1;
    }
#endif
    return 0;
  }
  try {
    for (const auto& c : Commands()) {
      if (args[0] == c.name) return c.run(std::vector<std::string>(args.begin() + 1, args.end()));
    }
    std::vector<std::string> names;
    for (const auto& c : Commands()) names.emplace_back(c.name);
    std::cerr << dcnas::BoundedMessage("dcnas: unknown command '" + args[0] + "'" +
                                       dcnas::DidYouMean(args[0], names) +
                                       " (dcnas --help lists them)")
              << "\n";
    return 2;
  } catch (const dcnas::InputError& e) {
    if (FirstRank()) std::cerr << "dcnas: error: " << dcnas::BoundedMessage(e.what()) << "\n";
    return 2;
  } catch (const std::filesystem::filesystem_error& e) {
    // A path the user gave that the system refuses (too long, not a directory, no permission).
    if (FirstRank()) {
      std::cerr << "dcnas: error: "
                << dcnas::BoundedMessage(e.path1().string() + ": " + e.code().message()) << "\n";
    }
    return 2;
  } catch (const std::exception& e) {
    if (FirstRank()) std::cerr << "dcnas: failure: " << dcnas::BoundedMessage(e.what()) << "\n";
    return 1;
  }
}
