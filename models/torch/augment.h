// Turning dataset bytes into network inputs: normalisation with the dataset's statistics, random
// flips and shifts, bilinear resizing to the graph's resolution. Includes LibTorch: for
// models/torch/ only.
#pragma once

#include <torch/torch.h>

#include <cstdint>
#include <vector>

#include "models/torch/fashion_mnist.h"

namespace dcnas::models::libtorch {

// set.images[indices] as uint8 [N, channels, rows, cols] and set.labels[indices] as int64 [N].
::torch::Tensor GatherImages(const ImageSet& set, const std::vector<int64_t>& indices);
::torch::Tensor GatherLabels(const ImageSet& set, const std::vector<int64_t>& indices);

// The reference pipeline of one batch: uint8 [N, C, H, W] to floats normalised with `norm` at
// `resolution` with `channels` channels, each image flipped left-right with probability 1/2
// (`flip`) and shifted by up to crop_pad pixels in each direction (padded with black, then
// cropped back to H x W), then resized (bilinear, unless already at `resolution`). Draws the
// flips, then the shifts, from LibTorch's default generator.
::torch::Tensor Prepare(const ::torch::Tensor& batch, const PixelNorm& norm, int64_t resolution,
                        int64_t channels, bool flip, int64_t crop_pad);

// `x` [N, C, H, W] with `channels` channels: a one-channel `x` expanded (a copy), else `x` itself
// (InternalError when the channels differ otherwise; CheckChannels refuses that before).
::torch::Tensor ToChannels(const ::torch::Tensor& x, int64_t channels);

// Images normalised and resized once, for runs that draw many batches from them: `plain` is
// Prepare without flips or shifts (one channel), `mirrored` (defined only when asked for) the
// same with every image flipped, both with the set's channels. Images are independent under
// Prepare's operations, so a batch taken from these equals Prepare of the same bytes bit for bit.
struct PreparedImages {
  ::torch::Tensor plain;     // float [N, C, resolution, resolution]
  ::torch::Tensor mirrored;  // float [N, C, resolution, resolution] or undefined
  ::torch::Tensor labels;    // int64 [N]
  PixelNorm norm;            // the set's (for batches prepared from raw bytes)
};
PreparedImages PrepareImages(const ImageSet& set, const std::vector<int64_t>& indices,
                             int64_t resolution, bool mirrored);

// Batch `idx` (int64 indices into `images`) as Prepare(raw[idx], ...) gives it, taken from
// the prepared images without shifts (crop_pad 0; flips need `mirrored`), else prepared from
// `raw` (uint8, the same images as `images`, normalised with images.norm). Draws from the generator
// as Prepare does.
::torch::Tensor PrepareBatch(const PreparedImages& images, const ::torch::Tensor& raw,
                             const ::torch::Tensor& idx, int64_t resolution, int64_t channels,
                             bool flip, int64_t crop_pad);

}  // namespace dcnas::models::libtorch
