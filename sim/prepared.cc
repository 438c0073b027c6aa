#include "sim/prepared.h"

#include <unordered_map>

#include "common/config_tree.h"
#include "common/errors.h"
#include "models/counts.h"

namespace dcnas::sim {

using models::OpKind;

namespace {

OpClass ClassOf(const models::Op& op, const models::Graph& g) {
  switch (op.kind) {
    case OpKind::kInput:
    case OpKind::kReshape:
    case OpKind::kDropout:
    case OpKind::kConstant:
      return OpClass::kView;
    case OpKind::kConv2d: {
      const int64_t cin = g.op(op.inputs[0]).out.shape.c;
      if (op.attrs.groups > 1 && op.attrs.groups == cin) return OpClass::kDepthwise;
      return OpClass::kConv;
    }
    case OpKind::kFullyConnected:
    case OpKind::kMatMul:
      return OpClass::kFc;
    case OpKind::kBatchNorm:
    case OpKind::kBiasAdd:
    case OpKind::kActivation:
    case OpKind::kAdd:
    case OpKind::kMul:
    case OpKind::kSoftmax:
    case OpKind::kLayerNorm:
      return OpClass::kElementwise;
    case OpKind::kPool:
    case OpKind::kGlobalPool:
      return OpClass::kPool;
    case OpKind::kConcat:
    case OpKind::kSpaceToDepth:
    case OpKind::kSpaceToBatch:
    case OpKind::kBatchToSpace:
    case OpKind::kTranspose:
    case OpKind::kSlice:
    case OpKind::kPad:
    case OpKind::kExpand:
    case OpKind::kGather:
      return OpClass::kDataMovement;
  }
  return OpClass::kView;
}

uint64_t HashShape(uint64_t h, const models::Shape& s) {
  h = HashMix(h, static_cast<uint64_t>(s.n));
  h = HashMix(h, static_cast<uint64_t>(s.h));
  h = HashMix(h, static_cast<uint64_t>(s.w));
  return HashMix(h, static_cast<uint64_t>(s.c));
}

uint64_t Signature(const models::Op& op, const models::Graph& g) {
  uint64_t h = 0xcbf29ce484222325ULL;
  h = HashMix(h, static_cast<uint64_t>(op.kind));
  h = HashMix(h, static_cast<uint64_t>(op.out.dtype));
  const auto& a = op.attrs;
  for (int64_t v :
       {int64_t{a.kernel_h}, int64_t{a.kernel_w}, int64_t{a.stride_h}, int64_t{a.stride_w},
        int64_t{a.dilation_h}, int64_t{a.dilation_w}, int64_t{a.groups}, a.out_channels,
        int64_t{a.bias}, static_cast<int64_t>(a.activation), static_cast<int64_t>(a.pool),
        int64_t{a.block_size}}) {
    h = HashMix(h, static_cast<uint64_t>(v));
  }
  for (int in : op.inputs) h = HashShape(h, g.op(in).out.shape);
  return HashShape(h, op.out.shape);
}

}  // namespace

PreparedGraph Prepare(const models::Graph& graph) {
  PreparedGraph p;
  p.graph = &graph;
  const auto& info = graph.info();
  p.model = info.model;
  p.batch = info.batch;
  p.resolution = info.resolution;
  p.dtype = info.dtype;
  const std::vector<int> order = graph.TopologicalOrder();
  p.position.assign(static_cast<size_t>(graph.size()), -1);
  for (size_t i = 0; i < order.size(); ++i) p.position[order[i]] = static_cast<int>(i);
  std::unordered_map<std::string, int> block_index;
  p.ops.reserve(order.size());
  for (int id : order) {
    const models::Op& op = graph.op(id);
    PreparedOp po;
    po.id = id;
    po.kind = op.kind;
    po.cls = ClassOf(op, graph);
    po.activation = op.attrs.activation;
    const models::OpCounts c = models::CountOp(graph, op);
    po.macs = static_cast<double>(c.macs);
    po.flops = static_cast<double>(c.flops);
    po.weight_bytes = static_cast<double>(c.bytes_read_weights);
    po.out_bytes = po.cls == OpClass::kView ? 0.0 : static_cast<double>(op.out.bytes());
    po.out_elements = static_cast<double>(op.out.shape.elements());
    po.per_image_out_bytes = static_cast<double>(op.out.bytes()) /
                             static_cast<double>(std::max<int64_t>(1, op.out.shape.n));
    po.first_input = static_cast<int>(p.inputs.size());
    po.num_inputs = static_cast<int>(op.inputs.size());
    for (int in : op.inputs) {
      const auto& t = graph.op(in).out;
      p.inputs.push_back(in);
      p.input_bytes.push_back(po.cls == OpClass::kView ? 0.0 : static_cast<double>(t.bytes()));
      if (t.shape == op.out.shape && po.main_input < 0) po.main_input = in;
    }
    if (po.main_input < 0 && !op.inputs.empty()) po.main_input = op.inputs[0];
    // A product's main input is its first operand (the scores of attention's x V).
    if (op.kind == OpKind::kMatMul) po.main_input = op.inputs[0];
    if (!op.inputs.empty()) {
      po.in_elements = static_cast<double>(graph.op(po.main_input).out.shape.elements());
    }
    if (op.kind == OpKind::kMul && op.inputs.size() == 2) {
      po.broadcast_mul = graph.op(op.inputs[0]).out.shape != graph.op(op.inputs[1]).out.shape;
    }
    if (op.kind == OpKind::kConv2d) {
      const auto& a = op.attrs;
      const auto& in = graph.op(op.inputs[0]).out.shape;
      const auto& out = op.out.shape;
      po.gemm.m = out.n * out.h * out.w;
      po.gemm.k = static_cast<int64_t>(a.kernel_h) * a.kernel_w * (in.c / a.groups);
      po.gemm.n = a.out_channels / a.groups;
      po.gemm.groups = a.groups;
      po.pointwise_conv =
          a.kernel_h == 1 && a.kernel_w == 1 && a.stride_h == 1 && a.stride_w == 1 && a.groups == 1;
      po.winograd_conv = a.kernel_h == 3 && a.kernel_w == 3 && a.stride_h == 1 && a.stride_w == 1 &&
                         a.dilation_h == 1 && a.dilation_w == 1 && a.groups == 1;
      po.out_h = static_cast<int>(out.h);
      po.out_w = static_cast<int>(out.w);
      po.in_elements = static_cast<double>(in.elements());
    } else if (op.kind == OpKind::kFullyConnected) {
      const auto& in = graph.op(op.inputs[0]).out.shape;
      po.gemm.m = in.elements() / in.c;
      po.gemm.k = in.c;
      po.gemm.n = op.attrs.out_channels;
      po.gemm.groups = 1;
    } else if (op.kind == OpKind::kMatMul) {
      // One GEMM per (n, h) batch entry, [M, K] x [K, N]; both operands are activations.
      const auto& a = graph.op(op.inputs[0]).out.shape;
      const auto& out = op.out.shape;
      po.gemm.m = out.w;
      po.gemm.k = a.c;
      po.gemm.n = out.c;
      po.gemm.groups = out.n * out.h;
      po.in_elements = static_cast<double>(a.elements());
    } else if (op.kind == OpKind::kPool) {
      po.window = static_cast<double>(op.attrs.kernel_h) * op.attrs.kernel_w;
    }
    auto [it, inserted] = block_index.emplace(op.block, static_cast<int>(p.blocks.size()));
    if (inserted) p.blocks.push_back(PreparedBlock{op.block, op.stage});
    po.block = it->second;
    po.signature = Signature(op, graph);
    if (po.cls != OpClass::kView) {
      p.total_flops += po.flops;
      p.total_macs += po.macs;
      p.compulsory_bytes += static_cast<double>(c.bytes());
    }
    p.ops.push_back(po);
  }
  for (auto& po : p.ops) {
    const auto& cons = graph.Consumers(po.id);
    po.first_consumer = static_cast<int>(p.consumers.size());
    po.num_consumers = static_cast<int>(cons.size());
    p.consumers.insert(p.consumers.end(), cons.begin(), cons.end());
  }
  return p;
}

}  // namespace dcnas::sim
