#include "models/torch/augment.h"

#include <algorithm>

#include "common/errors.h"

namespace dcnas::models::libtorch {
namespace {

namespace F = ::torch::nn::functional;
using ::torch::Tensor;

// Images normalised and resized per chunk, to bound the temporary memory.
constexpr int64_t kPrepareChunk = 4096;

// One channel: scalar arithmetic (the form every Fashion-MNIST result was made with); several:
// per-channel statistics broadcast over [N, C, H, W].
Tensor Normalize(const Tensor& batch, const PixelNorm& norm) {
  const Tensor x = batch.to(::torch::kFloat) / 255.0;
  if (norm.mean.size() == 1) return (x - norm.mean[0]) / norm.std[0];
  const auto c = static_cast<int64_t>(norm.mean.size());
  const auto opts = ::torch::TensorOptions().dtype(::torch::kDouble);
  const Tensor mean = ::torch::tensor(norm.mean, opts).to(::torch::kFloat).view({1, c, 1, 1});
  const Tensor std = ::torch::tensor(norm.std, opts).to(::torch::kFloat).view({1, c, 1, 1});
  return (x - mean) / std;
}

// `x` [N, C, H, W] padded by `pad` pixels on each side with each channel's black.
Tensor PadBlack(const Tensor& x, int64_t pad, const PixelNorm& norm) {
  if (norm.mean.size() == 1) {
    return F::pad(x, F::PadFuncOptions({pad, pad, pad, pad}).value(-norm.mean[0] / norm.std[0]));
  }
  const int64_t n = x.size(0), c = x.size(1), h = x.size(2), w = x.size(3);
  Tensor padded = ::torch::empty({n, c, h + 2 * pad, w + 2 * pad}, x.options());
  for (int64_t k = 0; k < c; ++k) {
    padded.select(1, k).fill_(-norm.mean[static_cast<size_t>(k)] /
                              norm.std[static_cast<size_t>(k)]);
  }
  padded.narrow(2, pad, h).narrow(3, pad, w).copy_(x);
  return padded;
}

Tensor FlipMask(int64_t n) { return ::torch::rand({n, 1, 1, 1}) < 0.5; }

Tensor Resize(const Tensor& x, int64_t resolution) {
  if (x.size(2) == resolution && x.size(3) == resolution) return x;
  return F::interpolate(x, F::InterpolateFuncOptions()
                               .size(std::vector<int64_t>{resolution, resolution})
                               .mode(::torch::kBilinear)
                               .align_corners(false));
}

}  // namespace

Tensor ToChannels(const Tensor& x, int64_t channels) {
  if (x.size(1) == channels) return x;
  if (x.size(1) != 1) {
    throw InternalError("images of " + std::to_string(x.size(1)) + " channels for a " +
                        std::to_string(channels) + "-channel input");
  }
  return x.expand({x.size(0), channels, x.size(2), x.size(3)}).contiguous();
}

Tensor GatherImages(const ImageSet& set, const std::vector<int64_t>& indices) {
  const auto n = static_cast<int64_t>(indices.size());
  const int64_t pixels = set.image_bytes();
  Tensor images = ::torch::empty({n, set.channels, set.rows, set.cols}, ::torch::kUInt8);
  uint8_t* dst = images.data_ptr<uint8_t>();
  for (int64_t i = 0; i < n; ++i) {
    std::copy_n(set.pixels.data() + indices[static_cast<size_t>(i)] * pixels, pixels,
                dst + i * pixels);
  }
  return images;
}

Tensor GatherLabels(const ImageSet& set, const std::vector<int64_t>& indices) {
  const auto n = static_cast<int64_t>(indices.size());
  Tensor labels = ::torch::empty({n}, ::torch::kLong);
  int64_t* lab = labels.data_ptr<int64_t>();
  for (int64_t i = 0; i < n; ++i) lab[i] = set.labels[static_cast<size_t>(indices[i])];
  return labels;
}

Tensor Prepare(const Tensor& batch, const PixelNorm& norm, int64_t resolution, int64_t channels,
               bool flip, int64_t crop_pad) {
  Tensor x = Normalize(batch, norm);
  if (flip) x = ::torch::where(FlipMask(x.size(0)), x.flip({3}), x);
  if (crop_pad > 0) {
    const int64_t n = x.size(0), h = x.size(2), w = x.size(3);
    const Tensor padded = PadBlack(x, crop_pad, norm);
    const Tensor offsets = ::torch::randint(0, 2 * crop_pad + 1, {n, 2}, ::torch::kLong);
    const auto offset = offsets.accessor<int64_t, 2>();
    std::vector<Tensor> crops;
    crops.reserve(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i) {
      crops.push_back(padded[i].narrow(1, offset[i][0], h).narrow(2, offset[i][1], w));
    }
    x = ::torch::stack(crops);
  }
  return ToChannels(Resize(x, resolution), channels);
}

PreparedImages PrepareImages(const ImageSet& set, const std::vector<int64_t>& indices,
                             int64_t resolution, bool mirrored) {
  const auto n = static_cast<int64_t>(indices.size());
  PreparedImages p;
  p.plain = ::torch::empty({n, set.channels, resolution, resolution}, ::torch::kFloat);
  if (mirrored) p.mirrored = ::torch::empty_like(p.plain);
  p.labels = GatherLabels(set, indices);
  p.norm = set.norm;
  ::torch::NoGradGuard no_grad;
  for (int64_t start = 0; start < n; start += kPrepareChunk) {
    const int64_t end = std::min(n, start + kPrepareChunk);
    const std::vector<int64_t> chunk(indices.begin() + start, indices.begin() + end);
    const Tensor x = Normalize(GatherImages(set, chunk), set.norm);
    p.plain.slice(0, start, end).copy_(Resize(x, resolution));
    if (mirrored) p.mirrored.slice(0, start, end).copy_(Resize(x.flip({3}), resolution));
  }
  return p;
}

Tensor PrepareBatch(const PreparedImages& images, const Tensor& raw, const Tensor& idx,
                    int64_t resolution, int64_t channels, bool flip, int64_t crop_pad) {
  if (crop_pad > 0) {
    return Prepare(raw.index_select(0, idx), images.norm, resolution, channels, flip, crop_pad);
  }
  if (images.plain.size(2) != resolution) {
    throw InternalError("prepared images of " + std::to_string(images.plain.size(2)) +
                        " px used for a " + std::to_string(resolution) + " px batch");
  }
  const Tensor plain = images.plain.index_select(0, idx);
  if (!flip) return ToChannels(plain, channels);
  if (!images.mirrored.defined()) throw InternalError("flipped batch without mirrored images");
  const Tensor mirrored = images.mirrored.index_select(0, idx);
  return ToChannels(::torch::where(FlipMask(idx.size(0)), mirrored, plain), channels);
}

}  // namespace dcnas::models::libtorch
