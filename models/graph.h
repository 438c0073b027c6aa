// The layer graph: the single source of truth every part of dcnas consumes.
//
// Ops are stored by id (an op's id is its output tensor's id). Builders append ops whose inputs
// already exist and get shapes inferred at once; graphs read from JSON may list ops in any order
// and are checked as a whole by Finalize() (cycle detection and shape inference in topological
// order, via Boost.Graph).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "models/op.h"

namespace dcnas::models {

// Facts about how the graph was built (model name and the builder's parameters).
struct GraphInfo {
  std::string model;   // zoo name, or user-given name
  int resolution = 0;  // input height/width in pixels (0 if unknown)
  int batch = 1;
  DType dtype = DType::kFp32;
  int num_classes = 0;
  bool operator==(const GraphInfo&) const = default;
};

class Graph {
 public:
  Graph() = default;
  explicit Graph(GraphInfo info) : info_(std::move(info)) {}

  // Appends an op whose inputs are already in the graph and infers its output type.
  // Returns its id. Throws InputError naming the op, its inputs and the rule broken.
  int AddOp(Op op);

  // Appends an op without checking (JSON reading); call Finalize() afterwards.
  void AddUncheckedOp(Op op);

  // Checks ids and input references, rejects cycles, and infers every shape in topological
  // order. Throws InputError with a clear message on any problem.
  void Finalize();

  const std::vector<Op>& ops() const { return ops_; }
  const Op& op(int id) const { return ops_.at(static_cast<size_t>(id)); }
  int size() const { return static_cast<int>(ops_.size()); }
  const GraphInfo& info() const { return info_; }
  GraphInfo& mutable_info() { return info_; }

  // Ids of ops that read op `id`'s output (cached; rebuilt after changes).
  const std::vector<int>& Consumers(int id) const;
  // Ops with no consumers (graph outputs), in id order.
  std::vector<int> Outputs() const;
  // Ops of kind kInput.
  std::vector<int> Inputs() const;
  // A topological order of all op ids (Boost.Graph topological_sort). Throws InputError
  // naming an op on the cycle if the graph has one.
  std::vector<int> TopologicalOrder() const;

  bool operator==(const Graph& other) const;

 private:
  void InferOp(Op& op) const;
  void BuildConsumers() const;

  GraphInfo info_;
  std::vector<Op> ops_;
  mutable std::vector<std::vector<int>> consumers_;
  mutable bool consumers_valid_ = false;
};

}  // namespace dcnas::models
