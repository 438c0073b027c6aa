// ONNX import: an ONNX model file to a dcnas layer graph.
//
// The batch is fixed, the shape-computing subgraphs are folded (every node whose inputs are all
// known constants is evaluated, learned tensors excepted), and the remaining nodes map onto the
// IR's ops. Layout is tracked per tensor and transposes are charged only where a consumer needs
// the data reordered (models/README.md, "ONNX import"). Weights are never read: a model whose
// weights live in external data files imports the same way.
#pragma once

#include <string>
#include <string_view>

#include "models/graph.h"

namespace dcnas::models::onnx_import {

struct Options {
  int batch = 1;
  DType dtype = DType::kFp32;
  std::string model;  // the graph's model name; empty: the file's stem
};

struct Report {
  int nodes = 0;       // ONNX nodes
  int folded = 0;      // evaluated at import (shape computations, masks)
  int mapped = 0;      // nodes that became IR ops (or fused into a pattern)
  int patterns = 0;    // recognised patterns (GELU, swish, decomposed layer norm)
  int transposes = 0;  // transposes the layouts required
  int ir_ops = 0;      // ops of the imported graph
  bool external_data = false;
  double parse_s = 0;   // reading and parsing the protobuf
  double import_s = 0;  // folding and mapping
};

// Imports an ONNX file. Throws InputError naming the file, and the node where one is at fault:
// unsupported op types are listed all at once.
Graph ImportFile(const std::string& path, const Options& options, Report* report = nullptr);

// Imports serialised ModelProto bytes; `source` names them in messages.
Graph ImportBytes(std::string_view bytes, const std::string& source, const Options& options,
                  Report* report = nullptr);

}  // namespace dcnas::models::onnx_import
