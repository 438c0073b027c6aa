// dcnas import MODEL.onnx [--batch N] [--dtype T] [--name NAME] --out graph.json
#include <filesystem>
#include <iomanip>
#include <iostream>
#include <sstream>

#include "cli/cli.h"
#include "models/counts.h"
#include "models/graph_json.h"
#ifdef DCNAS_WITH_ONNX
#include "models/onnx/onnx_import.h"
#endif

namespace dcnas::cli {

#ifdef DCNAS_WITH_ONNX
namespace {
models::Graph Import(const std::string& path, int batch, const std::string& dtype,
                     const std::string& name, models::onnx_import::Report* report) {
  models::onnx_import::Options o;
  o.batch = batch;
  o.dtype = models::ParseDType(dtype);
  o.model = name;
  return models::onnx_import::ImportFile(path, o, report);
}
}  // namespace
#endif

models::Graph ImportOnnx(const std::string& path, int batch, const std::string& dtype) {
#ifdef DCNAS_WITH_ONNX
  return Import(path, batch, dtype, "", nullptr);
#else
  (void)batch;
  (void)dtype;
  throw UsageError("--onnx " + path +
                   ": this dcnas was built without ONNX import (apt-get install libonnx-dev, then "
                   "rebuild; meson reports 'ONNX import' under Optional parts)");
#endif
}

models::ModelRegistry RegistryWithOnnx(const std::vector<std::string>& onnx_paths) {
  models::ModelRegistry registry = models::BuiltinModels();
  for (const std::string& path : onnx_paths) {
    const std::string name = std::filesystem::path(path).stem().string();
    if (registry.Contains(name)) {
      throw UsageError("--onnx " + path + ": its name '" + name +
                       "' is a model already (rename the file)");
    }
    // Imported once here (errors surface before any work), again at each use's batch and dtype.
    const models::Graph probe = ImportOnnx(path, 1, "fp32");
    const int native = probe.info().resolution;
    models::ModelEntry e;
    e.name = name;
    e.family = "onnx";
    e.description = "imported from " + path;
    e.native_resolution = native;
    e.build = [path, native](const models::BuildOptions& o) {
      if (o.resolution != native) {
        throw InputError("--onnx " + path + ": the file fixes the resolution at " +
                         std::to_string(native) + " px (asked for " + std::to_string(o.resolution) +
                         ")");
      }
      models::Graph g = ImportOnnx(path, o.batch, std::string(models::DTypeName(o.dtype)));
      return g;
    };
    registry.Register(std::move(e));
  }
  return registry;
}

int RunImport(const Args& args) {
  po::options_description options("options");
  std::string path;
  std::string out;
  std::string dtype;
  std::string name;
  int batch = 1;
  bool quiet = false;
  po::positional_options_description positional;
  positional.add("onnx", 1);
  options.add_options()("onnx", po::value(&path), "the ONNX model file (positional)")(
      "batch", po::value(&batch)->default_value(1),
      "batch size (the file's batch axis must be dynamic unless it equals this)")(
      "dtype", po::value(&dtype)->default_value("fp32"),
      "tensor dtype the simulator assumes: fp32, fp16, bf16, int8")(
      "name", po::value(&name), "the graph's model name (default: the file's stem)")(
      "out", po::value(&out), "write the graph JSON here (default: stdout)")(
      "quiet", po::bool_switch(&quiet), "no summary on stderr");
  po::variables_map vm;
  if (!Parse(args, "dcnas import MODEL.onnx [--batch N] [--dtype T] [--name NAME] [--out g.json]",
             "Imports an ONNX model (opset 13-17; PyTorch's torch.onnx.export writes it) as a\n"
             "dcnas layer graph. The batch is fixed, shape computations are folded, the nodes map\n"
             "onto the IR's ops (convolutions, matmuls, attention, layer norm, GELU, ...), and\n"
             "transposes are charged where a consumer needs data reordered. Weights are not read\n"
             "(external-data models import the same). Unsupported op types are listed all at\n"
             "once (exit 2). Every command that takes --graph also takes --onnx FILE.\n"
             "Rules and limits: models/README.md, \"ONNX import\".",
             options, positional, vm)) {
    return 0;
  }
  if (path.empty()) throw UsageError("name the ONNX file to import");
#ifdef DCNAS_WITH_ONNX
  models::onnx_import::Report report;
  const models::Graph g = Import(path, batch, dtype, name, &report);
  Emit(models::GraphToJsonString(g), out);
  if (!quiet) {
    const models::OpCounts c = models::CountGraph(g);
    std::ostringstream s;
    s << std::fixed << std::setprecision(3);
    s << path << ": " << report.nodes << " nodes: " << report.folded << " folded, " << report.mapped
      << " mapped (" << report.patterns << " patterns), " << report.transposes << " transposes -> "
      << report.ir_ops << " IR ops; " << c.params << " params, "
      << static_cast<double>(c.macs) / 1e9 << " GMACs at batch " << batch << "; parse "
      << report.parse_s << " s, import " << report.import_s << " s"
      << (report.external_data ? " (weights in external data, not read)" : "") << "\n";
    std::cerr << s.str();
  }
  return 0;
#else
  (void)batch;
  (void)quiet;
  return ImportOnnx(path, batch, dtype).size() > 0 ? 0 : 2;
#endif
}

}  // namespace dcnas::cli
