// GraphBuilder: a small fluent API over Graph for writing model builders. Every method appends
// primitive ops in the current scope (block name and stage) and returns the new tensor's id.
#pragma once

#include <string>

#include "models/graph.h"

namespace dcnas::models {

// Parameters every model builder takes.
struct BuildOptions {
  int resolution = 0;  // input height and width; 0 = the model's native resolution
  int batch = 1;
  DType dtype = DType::kFp32;
  int num_classes = 1000;
  int in_channels = 3;
  // Proxy scaling for small inputs (28-32 px): stride-2 ops on tensors whose nominal stride is
  // below 2^proxy_removed_downsamples run at stride 1, and builders multiply channel widths by
  // width_scale (rounded as the family rounds widths).
  int proxy_removed_downsamples = 0;
  double width_scale = 1.0;
};

// Throws InputError if options are impossible (non-positive batch, resolution out of range...).
void ValidateBuildOptions(const BuildOptions& options);

class GraphBuilder {
 public:
  explicit GraphBuilder(GraphInfo info, int proxy_removed_downsamples = 0);
  // Info (batch, dtype, resolution, classes) and proxy settings from build options.
  GraphBuilder(const std::string& model, const BuildOptions& options);

  // Sets the block and stage recorded on every op appended from now on.
  void SetScope(std::string block, int stage);
  const std::string& block() const { return block_; }
  int stage() const { return stage_; }

  // The input image batch: [batch, resolution, resolution, channels] at the graph dtype.
  int Input(int64_t height, int64_t width, int64_t channels);

  struct ConvOptions {
    int stride = 1;
    int groups = 1;
    int dilation = 1;
    bool bias = false;
    // Default: TF "SAME" padding. Set `padding` to an explicit Padding to override.
    Padding padding = Padding::Same();
  };
  int Conv(int x, int64_t out_channels, int kernel, const ConvOptions& options);
  int Conv(int x, int64_t out_channels, int kernel, int stride = 1);
  // Depthwise k x k convolution (groups = channels).
  int DepthwiseConv(int x, int kernel, int stride, Padding padding = Padding::Same());
  int BatchNorm(int x);
  int BiasAdd(int x);
  int Act(int x, Activation activation);
  int Add(int a, int b);
  int Mul(int a, int b);
  int Concat(const std::vector<int>& xs);
  int Pool(int x, PoolMode mode, int kernel, int stride, Padding padding);
  int GlobalPool(int x, PoolMode mode = PoolMode::kAvg);
  int FullyConnected(int x, int64_t out_channels, bool bias = true);
  int SpaceToDepth(int x, int block_size);
  int SpaceToBatch(int x, int block_size);
  int BatchToSpace(int x, int block_size);
  int Reshape(int x, int64_t h, int64_t w, int64_t c);
  int Flatten(int x);
  int Softmax(int x);
  int Dropout(int x, double rate);

  // Tensor ops (models/op.h): any-rank tensors held as [n, h, w, c].
  int ConcatAxis(const std::vector<int>& xs, int axis);
  int Reshape4(int x, const Shape& shape);  // may change n
  int MatMul(int a, int b, bool transpose_b = false);
  int LayerNorm(int x, bool bias = true);
  int Transpose(int x, const std::array<int, 4>& perm);
  // A stored tensor at the graph dtype: learned (parameters) or a folded constant.
  int Constant(const Shape& shape, bool learned = true);
  int Slice(int x, const Shape& out, const std::array<int64_t, 4>& start,
            const std::array<int64_t, 4>& step);
  int Pad(int x, Padding padding);
  int Expand(int x, const Shape& shape);
  int Gather(int table, const Shape& out);

  // Conv + BN, and conv + BN + activation.
  int ConvBn(int x, int64_t out_channels, int kernel, const ConvOptions& options);
  int ConvBnAct(int x, int64_t out_channels, int kernel, const ConvOptions& options,
                Activation activation);

  const TensorType& type(int id) const { return graph_.op(id).out; }
  int64_t channels(int id) const { return graph_.op(id).out.shape.c; }
  const Graph& graph() const { return graph_; }
  Graph Finish() { return std::move(graph_); }

 private:
  int Append(OpKind kind, std::vector<int> inputs, const OpAttrs& attrs);

  Graph graph_;
  int removed_downsamples_ = 0;
  std::vector<int64_t> nominal_stride_;  // per op: stride product without proxy removals
  std::string block_ = "stem";
  int stage_ = 0;
};

// PyTorch-style convolution options: symmetric padding (kernel - 1) / 2, as torchvision writes
// its convolutions.
GraphBuilder::ConvOptions TorchConv(int kernel, int stride = 1, int groups = 1, bool bias = false);

}  // namespace dcnas::models
