#include "sim/prepared.h"

#include <unordered_map>
#include <vector>

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

// Whether `op`'s output is fp32 under autocast, given its inputs' (`fp32`, by op id). The
// input batch is taken at the run's dtype (its one cast is left out); a constant is a stored
// fp32 parameter or buffer unless it holds one element (a Python scalar: no promotion); layer
// norm and softmax run in fp32; an elementwise op or concat with an fp32 operand promotes;
// matrix kernels return the 16-bit dtype; the rest keep their first input's dtype.
bool AutocastFp32(const models::Op& op, const std::vector<char>& fp32) {
  switch (op.kind) {
    case OpKind::kInput:
    case OpKind::kConv2d:
    case OpKind::kFullyConnected:
    case OpKind::kMatMul:
      return false;
    case OpKind::kConstant:
      return op.out.shape.elements() > 1;
    case OpKind::kLayerNorm:
    case OpKind::kSoftmax:
      return true;
    case OpKind::kAdd:
    case OpKind::kMul:
    case OpKind::kConcat:
      for (int in : op.inputs) {
        if (fp32[static_cast<size_t>(in)]) return true;
      }
      return false;
    default:
      return !op.inputs.empty() && fp32[static_cast<size_t>(op.inputs[0])];
  }
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
  // Autocast dtypes (16-bit graphs): per op id, fp32 output; whether an fp32 tensor has been
  // cast for a matrix kernel already (a projection the graph splits, e.g. attention's q, k and
  // v, casts its input once).
  const bool amp = info.dtype == models::DType::kFp16 || info.dtype == models::DType::kBf16;
  std::vector<char> fp32(amp ? static_cast<size_t>(graph.size()) : 0, 0);
  std::vector<char> cast(fp32.size(), 0);
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
    if (amp) {
      po.amp_fp32 = AutocastFp32(op, fp32);
      fp32[static_cast<size_t>(id)] = po.amp_fp32 ? 1 : 0;
      po.amp_out_bytes = po.amp_fp32 ? po.out_elements * 4.0 : po.out_bytes;
      if (po.cls == OpClass::kView) po.amp_out_bytes = 0;
    }
    for (int in : op.inputs) {
      const auto& t = graph.op(in).out;
      p.inputs.push_back(in);
      const double bytes = po.cls == OpClass::kView ? 0.0 : static_cast<double>(t.bytes());
      p.input_bytes.push_back(bytes);
      if (amp) {
        const auto src = static_cast<size_t>(in);
        const auto elements = static_cast<double>(t.shape.elements());
        if (!fp32[src] || po.cls == OpClass::kView) {
          p.amp_input_bytes.push_back(bytes);
        } else if (cost::IsMatrixClass(po.cls)) {
          // Read as the 16-bit copy a cast kernel wrote (4 bytes read, 2 written an element).
          p.amp_input_bytes.push_back(bytes);
          if (!cast[src]) {
            cast[src] = 1;
            po.amp_cast_bytes += 6.0 * elements;
            po.amp_cast_kernels += 1;
          }
        } else {
          p.amp_input_bytes.push_back(4.0 * elements);
        }
      }
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
    if (amp) {
      uint64_t bits = po.amp_fp32 ? 1U : 0U;
      for (int in : op.inputs) bits = (bits << 1U) | (fp32[static_cast<size_t>(in)] ? 1U : 0U);
      po.signature =
          HashMix(HashMix(po.signature, bits), static_cast<uint64_t>(po.amp_cast_kernels));
    }
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
