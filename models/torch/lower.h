// Lowering of a layer graph to a LibTorch module (NCHW tensors, fp32).
//
// Every op kind of models/op.h has a lowering: TF "SAME" padding (asymmetric) becomes an explicit
// pad, grouped and depthwise convolutions use conv groups, layout ops (space-to-depth/batch,
// batch-to-space, reshape) follow the graph's NHWC element order exactly. The module's trainable
// parameters are exactly the ones models::CountGraph counts (batch-norm running statistics are
// buffers, not parameters). This header includes LibTorch; code that must compile fast includes
// models/torch/measure.h or models/torch/train.h instead.
#pragma once

#include <torch/torch.h>

#include <string>
#include <vector>

#include "models/graph.h"

namespace dcnas::models::libtorch {

// Converts a graph shape (NHWC) to the module's NCHW tensor sizes.
std::vector<int64_t> NchwSizes(const Shape& shape);

class GraphModuleImpl : public ::torch::nn::Module {
 public:
  // Lowers `graph`. The graph must have exactly one input op. Parameters are initialised as the
  // EfficientNet reference code does (conv: normal fan-out, dense: uniform 1/sqrt(fan-out)).
  explicit GraphModuleImpl(const Graph& graph);

  // Runs the graph on an NCHW input batch; returns the output of the graph's last output op.
  // The batch size may differ from the graph's.
  ::torch::Tensor forward(const ::torch::Tensor& input);

  // Runs the graph and returns every op's output (index = op id), NCHW.
  std::vector<::torch::Tensor> ForwardAll(const ::torch::Tensor& input);

  // The op whose output forward() returns, and the op to use as logits when training (the
  // producer of a final softmax, otherwise the output op itself).
  int output_id() const { return output_id_; }
  int logits_id() const { return logits_id_; }
  // forward() up to the logits op, flattened to [N, classes].
  ::torch::Tensor Logits(const ::torch::Tensor& input);

  const Graph& graph() const { return graph_; }

 private:
  ::torch::Tensor RunOp(const Op& op, const std::vector<::torch::Tensor>& values);
  std::vector<::torch::Tensor> Run(const ::torch::Tensor& input, int stop_id, bool keep_all);

  Graph graph_;
  std::vector<int> order_;     // topological order
  std::vector<int> last_use_;  // per op: position in order_ of its last consumer
  int input_id_ = -1;
  int output_id_ = -1;
  int logits_id_ = -1;
  // Per op id (null when the op has none).
  std::vector<::torch::nn::Conv2d> convs_;
  std::vector<::torch::nn::BatchNorm2d> norms_;
  std::vector<::torch::nn::Linear> linears_;
  std::vector<::torch::Tensor> biases_;  // bias_add; layer norm's shift
  std::vector<::torch::Tensor> weights_;
  int64_t run_batch_ = 0;  // the batch of the run in progress (Run)  // layer norm's scale; a
                           // constant's tensor (NCHW)
};
TORCH_MODULE(GraphModule);

// Number of trainable parameter values of a module.
int64_t CountParameters(const ::torch::nn::Module& module);

// The device a name (CheckDeviceName) stands for, checked against this LibTorch: InputError when
// it has no CUDA (Debian's is CPU-only) or not that many CUDA devices.
::torch::Device ResolveDevice(const std::string& name);

// Waits for the device's queued work (a no-op on the CPU), so wall clocks cover it.
void SyncDevice(const ::torch::Device& device);

}  // namespace dcnas::models::libtorch
