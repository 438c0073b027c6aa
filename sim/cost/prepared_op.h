// A layer graph flattened for fast simulation: per-op plain data (classes, GEMM shapes, bytes,
// vector work, a signature hash) computed once per graph (sim/prepared.h builds it), so simulating
// it on many accelerators, stacks or calibrations does no string work, no map lookups and no
// counting.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "models/graph.h"
#include "sim/cost/types.h"

namespace dcnas::sim::cost {

// One op, counted and classified: the cost layer's input.
struct PreparedOp {
  int id = -1;
  models::OpKind kind = models::OpKind::kInput;
  OpClass cls = OpClass::kView;
  models::Activation activation = models::Activation::kRelu;
  bool broadcast_mul = false;   // [N,H,W,C] * [N,1,1,C]
  bool pointwise_conv = false;  // 1x1 stride-1 convolution
  bool winograd_conv = false;   // 3x3 stride-1 undilated dense convolution (Winograd-eligible)
  int out_h = 0;                // output height and width of a convolution
  int out_w = 0;
  int main_input = -1;  // producer of the input with the output's shape
  int first_input = 0;  // into PreparedGraph::inputs / input_bytes
  int num_inputs = 0;
  int first_consumer = 0;  // into PreparedGraph::consumers
  int num_consumers = 0;
  int block = -1;  // index into PreparedGraph::blocks
  Gemm gemm;       // conv/fc as GEMM
  double macs = 0;
  double flops = 0;
  double weight_bytes = 0;
  double out_bytes = 0;
  double out_elements = 0;
  double in_elements = 0;  // of the main input
  double window = 1;       // pooling window elements
  double per_image_out_bytes = 0;
  // Vector work beyond the class's per-element rule: the batch statistics of a training batch
  // norm, the extra multiply of a backward op, an optimizer's update arithmetic, a recomputed
  // elementwise prologue (sim/train_step.h). Zero for inference graphs.
  double extra_vector_ops = 0;
  double extra_transcendentals = 0;
  // Backward kernels of a training step (sim/train_step.h): a weight gradient's reduction over
  // the batch and pixels may be split over idle SMs whatever the stack's inference GEMM rule
  // (cuDNN's weight-gradient kernels do), and a depthwise weight gradient (a per-channel
  // reduction of x * dy) runs on the vector unit whatever the stack's depthwise unit.
  bool split_reduction = false;
  bool vector_reduction = false;
  // A kernel of a training step's backward pass (a gradient; KernelRules picks its own tiles for
  // the gradients of grouped convolutions).
  bool backward = false;
  // The output is also read by a later phase (a forward activation kept for backward): a fused
  // group still writes it to HBM (multi-output fusion) though its consumer in the group reads it
  // on chip. num_consumers then counts the consumers of the op's own phase only.
  bool kept_output = false;
  // Under a stack's autocast (KernelRules::autocast, a 16-bit run; Prepare fills these for
  // 16-bit graphs): whether the output is fp32, its bytes then, and the input casts a matrix
  // kernel runs before it (bytes read and written, kernels).
  bool amp_fp32 = false;
  double amp_out_bytes = 0;
  double amp_cast_bytes = 0;
  int amp_cast_kernels = 0;
  uint64_t signature = 0;  // kind, attributes, shapes, dtype (and the autocast dtypes)
};

// A block of the model (for per-block reports).
struct PreparedBlock {
  std::string name;
  int stage = -1;
};

// A layer graph flattened into PreparedOps in topological order, with flat input and consumer
// lists.
struct PreparedGraph {
  const models::Graph* graph = nullptr;  // for names in reports; must outlive the prepared graph
  std::string model;
  int batch = 1;
  int resolution = 0;
  models::DType dtype = models::DType::kFp32;
  std::vector<PreparedOp> ops;  // in topological order
  std::vector<int> position;    // op id -> index in ops
  std::vector<int> inputs;      // producer op ids
  std::vector<double> input_bytes;
  // The same under autocast (parallel to input_bytes; empty when the graph is not 16-bit).
  std::vector<double> amp_input_bytes;
  std::vector<int> consumers;  // consumer op ids
  std::vector<PreparedBlock> blocks;
  double total_flops = 0;
  double total_macs = 0;
  double compulsory_bytes = 0;  // sum of per-op counted bytes (no fusion, no reuse)

  // Whether the autocast fields are filled (a 16-bit graph).
  bool has_autocast() const { return amp_input_bytes.size() == input_bytes.size(); }
  // The op with graph id `id`.
  const PreparedOp& op_by_id(int id) const { return ops[static_cast<size_t>(position[id])]; }
};

}  // namespace dcnas::sim::cost
