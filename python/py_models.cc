// Models: the zoo, block strings, graph JSON, ONNX import, and a graph's ops as records.
#include <regex>
#include <string>
#include <vector>

#include "common/errors.h"
#include "common/text.h"
#include "models/block_string.h"
#include "models/counts.h"
#include "models/graph_json.h"
#include "models/zoo/zoo.h"
#include "python/bind.h"
#ifdef DCNAS_WITH_ONNX
#include "models/onnx/onnx_import.h"
#endif

namespace dcnas::python {
namespace {

py::dict ModelRecord(const models::ModelEntry& e) {
  py::dict d;
  d["name"] = e.name;
  d["family"] = e.family;
  d["description"] = e.description;
  d["native_resolution_px"] = e.native_resolution;
  return d;
}

py::dict CountsDict(const models::OpCounts& c) {
  py::dict d;
  d["macs"] = c.macs;
  d["flops"] = c.flops;
  d["params"] = c.params;
  d["bytes_read"] = c.bytes_read();
  d["bytes_written"] = c.bytes_written;
  d["intensity_flop_per_byte"] = c.intensity_flop_per_byte();
  return d;
}

// Block strings given as a list, or as one string separated by commas or whitespace.
std::vector<std::string> BlockList(const py::object& blocks) {
  std::vector<std::string> out;
  if (py::isinstance<py::str>(blocks)) {
    static const std::regex kSep("[,\\s]+");
    const std::string text = blocks.cast<std::string>();
    for (std::sregex_token_iterator it(text.begin(), text.end(), kSep, -1), end; it != end; ++it) {
      if (!it->str().empty()) out.push_back(*it);
    }
  } else {
    out = CastArg<std::vector<std::string>>(blocks, "blocks",
                                            "block strings (a list of str, or one str)");
  }
  if (out.empty()) throw InputError("blocks: no block strings given");
  return out;
}

models::BuildOptions Options(int batch, int resolution, const std::string& dtype, int num_classes) {
  models::BuildOptions o;
  o.batch = batch;
  o.resolution = resolution;
  o.dtype = models::ParseDType(dtype);
  o.num_classes = num_classes;
  return o;
}

// The graph's ops as records: each op's JSON (models/README.md, "Graph JSON") with its output
// shape and its counts.
py::list OpRecords(const models::Graph& g) {
  const nlohmann::json j = models::GraphToJson(g);
  py::list out;
  for (size_t i = 0; i < g.ops().size(); ++i) {
    const models::Op& op = g.ops()[i];
    py::dict d = ToPython(j["ops"][i]).cast<py::dict>();
    const models::Shape& s = op.out.shape;
    d["shape"] = py::make_tuple(s.n, s.h, s.w, s.c);
    d["dtype"] = std::string(models::DTypeName(op.out.dtype));
    const models::OpCounts c = models::CountOp(g, op);
    d["macs"] = c.macs;
    d["flops"] = c.flops;
    d["params"] = c.params;
    d["bytes_read"] = c.bytes_read();
    d["bytes_written"] = c.bytes_written;
    out.append(std::move(d));
  }
  return out;
}

models::Graph ImportOnnx(const std::string& path, int batch, const std::string& dtype,
                         const std::string& name) {
#ifdef DCNAS_WITH_ONNX
  models::onnx_import::Options o;
  o.batch = batch;
  o.dtype = models::ParseDType(dtype);
  o.model = name;
  return models::onnx_import::ImportFile(path, o);
#else
  (void)batch;
  (void)dtype;
  (void)name;
  throw InputError(path +
                   ": this dcnas was built without ONNX import (apt-get install libonnx-dev, "
                   "then rebuild)");
#endif
}

}  // namespace

void InitModels(py::module_& m) {
  m.def(
      "zoo_models",
      [](const std::string& family) {
        const models::ModelRegistry& r = models::BuiltinModels();
        py::list out;
        if (!family.empty()) {
          const auto members = r.Family(family);
          if (members.empty()) {
            throw InputError("unknown family '" + family + "' (valid: " + Join(r.Families(), ", ") +
                             ")");
          }
          for (const auto* e : members) out.append(ModelRecord(*e));
          return out;
        }
        for (const std::string& name : r.Names()) out.append(ModelRecord(r.Get(name)));
        return out;
      },
      py::arg("family") = "",
      "The zoo's models (`dcnas models list`) as records: name, family, description, "
      "native_resolution_px; only one family's when `family` is given.");
  m.def(
      "families", [] { return models::BuiltinModels().Families(); }, "The zoo's family names.");

  py::class_<models::Graph>(m, "Graph",
                            "A layer graph: the single source of truth the simulator, the "
                            "surrogate's features and the LibTorch lowering consume. Build one "
                            "with Graph.zoo, Graph.from_blocks, Graph.load, Graph.from_json or "
                            "Graph.from_onnx.")
      .def_static(
          "zoo",
          [](const std::string& name, int batch, int resolution, const std::string& dtype,
             int num_classes) {
            return models::BuiltinModels().Build(name,
                                                 Options(batch, resolution, dtype, num_classes));
          },
          py::arg("name"), py::arg("batch") = 1, py::arg("resolution") = 0,
          py::arg("dtype") = "fp32", py::arg("num_classes") = 1000,
          "A zoo model (`dcnas models list`); resolution 0: the model's native one.")
      .def_static(
          "from_blocks",
          [](const py::object& blocks, int batch, int resolution, double width, double depth,
             const std::string& dtype, int num_classes, const std::string& name) {
            if (!(width > 0) || !(depth > 0)) {
              throw InputError("width and depth must be positive");
            }
            models::BlockNetworkSpec spec;
            spec.width = width;
            spec.depth = depth;
            spec.blocks = models::ParseBlockStrings(BlockList(blocks));
            return models::BuildBlockNetwork(name, spec,
                                             Options(batch, resolution, dtype, num_classes));
          },
          py::arg("blocks"), py::arg("batch") = 1, py::arg("resolution") = 0,
          py::arg("width") = 1.0, py::arg("depth") = 1.0, py::arg("dtype") = "fp32",
          py::arg("num_classes") = 1000, py::arg("name") = "blocks",
          "An EfficientNet-style network from block strings (a list, or one string separated by "
          "commas or spaces), e.g. 'r1_k3_s11_e1_i32_o16_se0.25', with width and depth "
          "multipliers (`dcnas sim --blocks`).")
      .def_static("load", &models::ReadGraphFile, py::arg("path"),
                  "Reads a graph JSON file (models/README.md, 'Graph JSON').")
      .def_static("from_json", &models::GraphFromJsonString, py::arg("text"),
                  py::arg("source") = "<string>",
                  "Reads a graph from JSON text; `source` names it in error messages.")
      .def_static("from_onnx", &ImportOnnx, py::arg("path"), py::arg("batch") = 1,
                  py::arg("dtype") = "fp32", py::arg("name") = "",
                  "Imports an ONNX model at a batch and dtype (`dcnas import`); weights are "
                  "never read. InputError in a build without ONNX import.",
                  py::call_guard<py::gil_scoped_release>())
      .def("save", &models::WriteGraphFile, py::arg("path"),
           "Writes the graph as JSON (atomically).")
      .def("to_json", &models::GraphToJsonString, "The graph as JSON text.")
      .def_property_readonly("model", [](const models::Graph& g) { return g.info().model; })
      .def_property_readonly("batch", [](const models::Graph& g) { return g.info().batch; })
      .def_property_readonly("resolution",
                             [](const models::Graph& g) { return g.info().resolution; })
      .def_property_readonly(
          "dtype", [](const models::Graph& g) { return std::string(DTypeName(g.info().dtype)); })
      .def_property_readonly("num_classes",
                             [](const models::Graph& g) { return g.info().num_classes; })
      .def("__len__", &models::Graph::size)
      .def("ops", &OpRecords,
           "The ops as records: each op's JSON fields (id, name, kind, inputs, block, stage and "
           "its attributes) with its output shape (n, h, w, c), dtype, macs, flops, params, "
           "bytes_read and bytes_written.")
      .def(
          "counts", [](const models::Graph& g) { return CountsDict(models::CountGraph(g)); },
          "Totals: macs, flops, params, bytes_read, bytes_written, intensity_flop_per_byte "
          "(models/counts.h: no hardware involved).")
      .def(
          "blocks",
          [](const models::Graph& g) {
            py::list out;
            for (const auto& b : models::CountBlocks(g)) {
              py::dict d = CountsDict(b.counts);
              d["block"] = b.block;
              d["stage"] = b.stage;
              d["num_ops"] = b.num_ops;
              out.append(std::move(d));
            }
            return out;
          },
          "Counts per block, in order of first appearance.")
      .def("__eq__", [](const models::Graph& a, const models::Graph& b) { return a == b; })
      .def("__repr__",
           [](const models::Graph& g) {
             return "<dcnas.Graph " + g.info().model + ": " + std::to_string(g.size()) +
                    " ops, batch " + std::to_string(g.info().batch) + ", " +
                    std::to_string(g.info().resolution) + " px, " +
                    std::string(DTypeName(g.info().dtype)) + ">";
           })
      .def(py::pickle(
          [](const models::Graph& g) { return models::GraphToJsonString(g); },
          [](const std::string& text) { return models::GraphFromJsonString(text, "<pickle>"); }));
}

}  // namespace dcnas::python
