#include "models/graph.h"

#include <boost/graph/adjacency_list.hpp>
#include <boost/graph/topological_sort.hpp>

#include <algorithm>
#include <array>
#include <functional>
#include <iterator>
#include <string>

#include "common/errors.h"
#include "models/op_kinds.h"

namespace dcnas::models {
namespace {

std::string OpLabel(const Op& op) {
  return "op '" + op.name + "' (" + std::string(OpKindName(op.kind)) + ", id " +
         std::to_string(op.id) + ")";
}

// Graphs beyond these limits are refused, so that every count fits in 64 bits.
constexpr double kMaxDim = double(int64_t{1} << 24);
constexpr double kMaxTensorElements = double(int64_t{1} << 40);
constexpr double kMaxOpMacs = double(int64_t{1} << 56);

void CheckLimits(const Op& op, std::span<const TensorType* const> inputs) {
  const Shape& s = op.out.shape;
  for (const int64_t d : {s.n, s.h, s.w, s.c}) {
    if (static_cast<double>(d) > kMaxDim) {
      throw InputError(OpLabel(op) + ": output " + ShapeString(s) + " has a dimension above 2^24");
    }
  }
  const double elements = static_cast<double>(s.n) * static_cast<double>(s.h) *
                          static_cast<double>(s.w) * static_cast<double>(s.c);
  if (elements > kMaxTensorElements) {
    throw InputError(OpLabel(op) + ": output " + ShapeString(s) +
                     " has more than 2^40 elements (the most a graph may count)");
  }
  if ((op.kind == OpKind::kConv2d || op.kind == OpKind::kFullyConnected) && !inputs.empty()) {
    const double macs = elements * op.attrs.kernel_h * op.attrs.kernel_w *
                        static_cast<double>(inputs[0]->shape.c) / std::max(1, op.attrs.groups);
    if (macs > kMaxOpMacs) {
      throw InputError(OpLabel(op) + ": more than 2^56 multiply-accumulates");
    }
  }
}

}  // namespace

void Graph::InferOp(Op& op) const {
  const OpKindInfo& info = KindInfo(op.kind);
  const int n = static_cast<int>(op.inputs.size());
  if (n < info.min_inputs || (info.max_inputs >= 0 && n > info.max_inputs)) {
    throw InputError(
        OpLabel(op) + ": takes " + std::to_string(info.min_inputs) +
        (info.max_inputs == info.min_inputs
             ? ""
             : (info.max_inputs < 0 ? " or more" : " to " + std::to_string(info.max_inputs))) +
        " inputs, got " + std::to_string(n));
  }
  std::array<const TensorType*, 8> small{};
  std::vector<const TensorType*> large;
  const TensorType** types = small.data();
  if (n > static_cast<int>(small.size())) {
    large.resize(static_cast<size_t>(n));
    types = large.data();
  }
  for (int i = 0; i < n; ++i) {
    const int id = op.inputs[static_cast<size_t>(i)];
    if (id < 0 || id >= size() || id == op.id) {
      throw InputError(OpLabel(op) + ": input " + std::to_string(i) + " refers to unknown op id " +
                       std::to_string(id));
    }
    types[i] = &ops_[static_cast<size_t>(id)].out;
  }
  const std::span<const TensorType* const> inputs(types, static_cast<size_t>(n));
  op.out = info.infer(op, inputs);
  CheckLimits(op, inputs);
}

int Graph::AddOp(Op op) {
  op.id = size();
  if (op.name.empty()) op.name = std::string(OpKindName(op.kind)) + std::to_string(op.id);
  for (int input : op.inputs) {
    if (input < 0 || input >= op.id) {
      throw InputError(OpLabel(op) + ": input refers to op id " + std::to_string(input) +
                       " which is not (yet) in the graph");
    }
  }
  InferOp(op);
  ops_.push_back(std::move(op));
  consumers_valid_ = false;
  return ops_.back().id;
}

void Graph::AddUncheckedOp(Op op) {
  ops_.push_back(std::move(op));
  consumers_valid_ = false;
}

std::vector<int> Graph::TopologicalOrder() const {
  using BoostGraph = boost::adjacency_list<boost::vecS, boost::vecS, boost::directedS>;
  BoostGraph g(ops_.size());
  for (const Op& op : ops_) {
    for (int input : op.inputs) {
      if (input < 0 || input >= size()) {
        throw InputError(OpLabel(op) + ": input refers to unknown op id " + std::to_string(input));
      }
      boost::add_edge(static_cast<size_t>(input), static_cast<size_t>(op.id), g);
    }
  }
  std::vector<size_t> reversed;
  reversed.reserve(ops_.size());
  try {
    boost::topological_sort(g, std::back_inserter(reversed));
  } catch (const boost::not_a_dag&) {
    // Find an op on a cycle for the message: an op reachable from itself.
    std::vector<int> state(ops_.size(), 0);  // 0 new, 1 on stack, 2 done
    int on_cycle = -1;
    std::function<void(int)> visit = [&](int v) {
      if (on_cycle >= 0) return;
      state[static_cast<size_t>(v)] = 1;
      for (int consumer : Consumers(v)) {
        if (state[static_cast<size_t>(consumer)] == 1) {
          on_cycle = consumer;
          return;
        }
        if (state[static_cast<size_t>(consumer)] == 0) visit(consumer);
      }
      state[static_cast<size_t>(v)] = 2;
    };
    for (int v = 0; v < size() && on_cycle < 0; ++v) {
      if (state[static_cast<size_t>(v)] == 0) visit(v);
    }
    throw InputError(
        "graph has a cycle through " +
        (on_cycle >= 0 ? OpLabel(ops_[static_cast<size_t>(on_cycle)]) : std::string("an op")));
  }
  return {reversed.rbegin(), reversed.rend()};
}

void Graph::Finalize() {
  for (int i = 0; i < size(); ++i) {
    if (ops_[static_cast<size_t>(i)].id != i) {
      throw InputError("op '" + ops_[static_cast<size_t>(i)].name + "' has id " +
                       std::to_string(ops_[static_cast<size_t>(i)].id) + ", expected " +
                       std::to_string(i) + " (ids must be 0..N-1 in listed order)");
    }
  }
  consumers_valid_ = false;
  for (int id : TopologicalOrder()) InferOp(ops_[static_cast<size_t>(id)]);
}

void Graph::BuildConsumers() const {
  consumers_.assign(ops_.size(), {});
  for (const Op& op : ops_) {
    for (int input : op.inputs) {
      if (input >= 0 && input < size()) consumers_[static_cast<size_t>(input)].push_back(op.id);
    }
  }
  consumers_valid_ = true;
}

const std::vector<int>& Graph::Consumers(int id) const {
  if (!consumers_valid_) BuildConsumers();
  return consumers_.at(static_cast<size_t>(id));
}

std::vector<int> Graph::Outputs() const {
  std::vector<int> outputs;
  for (const Op& op : ops_) {
    if (op.kind != OpKind::kInput && Consumers(op.id).empty()) outputs.push_back(op.id);
  }
  return outputs;
}

std::vector<int> Graph::Inputs() const {
  std::vector<int> inputs;
  for (const Op& op : ops_) {
    if (op.kind == OpKind::kInput) inputs.push_back(op.id);
  }
  return inputs;
}

bool Graph::operator==(const Graph& other) const {
  if (!(info_ == other.info_) || ops_.size() != other.ops_.size()) return false;
  for (size_t i = 0; i < ops_.size(); ++i) {
    const Op& a = ops_[i];
    const Op& b = other.ops_[i];
    if (a.id != b.id || a.kind != b.kind || a.name != b.name || a.inputs != b.inputs ||
        !(a.attrs == b.attrs) || a.block != b.block || a.stage != b.stage || !(a.out == b.out)) {
      return false;
    }
  }
  return true;
}

}  // namespace dcnas::models
