// Turning Fashion-MNIST bytes into network inputs: normalisation, random flips and shifts,
// bilinear resizing to the graph's resolution. Includes LibTorch: for models/torch/ only.
#pragma once

#include <torch/torch.h>

#include <cstdint>
#include <vector>

#include "models/torch/fashion_mnist.h"

namespace dcnas::models::libtorch {

// Fashion-MNIST pixel statistics of the training set (mean and standard deviation of x / 255).
inline constexpr double kPixelMean = 0.2860;
inline constexpr double kPixelStd = 0.3530;

// set.images[indices] as uint8 [N, 1, rows, cols] and set.labels[indices] as int64 [N].
::torch::Tensor GatherImages(const ImageSet& set, const std::vector<int64_t>& indices);
::torch::Tensor GatherLabels(const ImageSet& set, const std::vector<int64_t>& indices);

// The reference pipeline of one batch: uint8 [N, 1, H, W] to normalised floats at `resolution`
// with `channels` channels, each image flipped left-right with probability 1/2 (`flip`) and
// shifted by up to crop_pad pixels in each direction (padded with black, then cropped back to
// H x W), then resized (bilinear, unless already at `resolution`). Draws the flips, then the
// shifts, from LibTorch's default generator.
::torch::Tensor Prepare(const ::torch::Tensor& batch, int64_t resolution, int64_t channels,
                        bool flip, int64_t crop_pad);

// `x` [N, 1, H, W] expanded to `channels` channels (a copy), or `x` itself for one channel.
::torch::Tensor ToChannels(const ::torch::Tensor& x, int64_t channels);

// Images normalised and resized once, for runs that draw many batches from them: `plain` is
// Prepare without flips or shifts (one channel), `mirrored` (defined only when asked for) the
// same with every image flipped. Images are independent under Prepare's operations, so a batch
// taken from these equals Prepare of the same bytes bit for bit.
struct PreparedImages {
  ::torch::Tensor plain;     // float [N, 1, resolution, resolution]
  ::torch::Tensor mirrored;  // float [N, 1, resolution, resolution] or undefined
  ::torch::Tensor labels;    // int64 [N]
};
PreparedImages PrepareImages(const ImageSet& set, const std::vector<int64_t>& indices,
                             int64_t resolution, bool mirrored);

// Batch `idx` (int64 indices into `images`) as Prepare(raw[idx], ...) gives it, taken from
// the prepared images without shifts (crop_pad 0; flips need `mirrored`), else prepared from
// `raw` (uint8, the same images as `images`). Draws from the generator as Prepare does.
::torch::Tensor PrepareBatch(const PreparedImages& images, const ::torch::Tensor& raw,
                             const ::torch::Tensor& idx, int64_t resolution, int64_t channels,
                             bool flip, int64_t crop_pad);

}  // namespace dcnas::models::libtorch
