#include "models/torch/augment.h"

#include <catch2/catch.hpp>

#include <numeric>
#include <random>

#include "models/torch/dataset.h"
#include "models/torch/input_cache.h"

namespace dcnas::models::libtorch {
namespace {

// `count` random 28 x 28 images with random labels.
ImageSet RandomImages(int64_t count, uint64_t seed) {
  ImageSet set;
  set.count = count;
  set.rows = 28;
  set.cols = 28;
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<int> byte(0, 255), label(0, 9);
  set.pixels.resize(static_cast<size_t>(count) * 28 * 28);
  for (auto& p : set.pixels) p = static_cast<uint8_t>(byte(rng));
  for (int64_t i = 0; i < count; ++i) set.labels.push_back(static_cast<uint8_t>(label(rng)));
  return set;
}

bool Identical(const ::torch::Tensor& a, const ::torch::Tensor& b) {
  return a.sizes() == b.sizes() && a.dtype() == b.dtype() && ::torch::equal(a, b);
}

TEST_CASE("batches from prepared images equal the per-batch pipeline bit for bit") {
  const ImageSet set = RandomImages(300, 1);
  std::vector<int64_t> indices;
  for (int64_t i = 299; i >= 0; i -= 3) indices.push_back(i);  // a subset, out of order
  const ::torch::Tensor raw = GatherImages(set, indices);
  const ::torch::Tensor idx = ::torch::tensor({5, 0, 99, 17, 17, 42, 63, 8}, ::torch::kLong);
  for (int64_t resolution : {16, 20, 24, 28, 32, 45}) {
    for (int64_t channels : {1, 3}) {
      for (bool flip : {false, true}) {
        CAPTURE(resolution, channels, flip);
        const PreparedImages prepared = PrepareImages(set, indices, resolution, flip);
        ::torch::manual_seed(11);
        const ::torch::Tensor cached =
            PrepareBatch(prepared, raw, idx, resolution, channels, flip, 0);
        const auto after_cached = ::torch::rand({1}).item<float>();
        ::torch::manual_seed(11);
        const ::torch::Tensor reference =
            Prepare(raw.index_select(0, idx), set.norm, resolution, channels, flip, 0);
        const auto after_reference = ::torch::rand({1}).item<float>();
        CHECK(Identical(cached, reference));
        CHECK(after_cached == after_reference);  // the same draws from the generator
        CHECK(cached.size(1) == channels);
        CHECK(cached.size(2) == resolution);
      }
    }
  }
}

TEST_CASE("random flips mirror some images of a batch and keep the others") {
  const ImageSet set = RandomImages(64, 2);
  std::vector<int64_t> all(64);
  std::iota(all.begin(), all.end(), 0);
  const PreparedImages prepared = PrepareImages(set, all, 24, true);
  const ::torch::Tensor idx = ::torch::arange(64, ::torch::kLong);
  ::torch::manual_seed(3);
  const ::torch::Tensor x = PrepareBatch(prepared, {}, idx, 24, 1, true, 0);
  int flipped = 0, kept = 0;
  for (int64_t i = 0; i < 64; ++i) {
    if (::torch::equal(x[i], prepared.plain[i])) ++kept;
    if (::torch::equal(x[i], prepared.mirrored[i])) ++flipped;
  }
  CHECK(flipped + kept == 64);
  CHECK(flipped > 16);
  CHECK(kept > 16);
  CHECK(::torch::allclose(prepared.mirrored, prepared.plain.flip({3}), 1e-5, 1e-5));
}

TEST_CASE("random shifts are prepared from the bytes, as the per-batch pipeline does") {
  const ImageSet set = RandomImages(40, 4);
  std::vector<int64_t> all(40);
  std::iota(all.begin(), all.end(), 0);
  const ::torch::Tensor raw = GatherImages(set, all);
  const PreparedImages prepared = PrepareImages(set, all, 32, true);
  const ::torch::Tensor idx = ::torch::tensor({3, 1, 4, 1, 5, 9, 2, 6}, ::torch::kLong);
  ::torch::manual_seed(5);
  const ::torch::Tensor shifted = PrepareBatch(prepared, raw, idx, 32, 1, true, 2);
  ::torch::manual_seed(5);
  CHECK(Identical(shifted, Prepare(raw.index_select(0, idx), set.norm, 32, 1, true, 2)));
  ::torch::manual_seed(5);
  CHECK_FALSE(Identical(shifted, PrepareBatch(prepared, raw, idx, 32, 1, true, 0)));
}

TEST_CASE("the input cache prepares an entry once and adds the mirrored images on demand") {
  const TrainingData data(RandomImages(600, 6), RandomImages(100, 7));
  CHECK(data.CachedBytes() == 0);
  const RunImages a = data.cache().Get(data, 16, 100, 200, 50, false);
  CHECK(a.train.plain.size(0) == 200);
  CHECK(a.val.plain.size(0) == 50);
  CHECK(a.test.plain.size(0) == 50);
  CHECK_FALSE(a.train.mirrored.defined());
  const int64_t plain_bytes = data.CachedBytes();
  CHECK(plain_bytes == (300 * 16 * 16) * 4 + 300 * 8);
  const RunImages b = data.cache().Get(data, 16, 100, 200, 50, true);
  CHECK(b.train.mirrored.defined());
  CHECK(Identical(b.train.plain, a.train.plain));
  CHECK(data.CachedBytes() == plain_bytes + 200 * 16 * 16 * 4);
  const RunImages c = data.cache().Get(data, 16, 100, 200, 50, false);
  CHECK(c.train.plain.data_ptr() == b.train.plain.data_ptr());  // served from the cache
  const TrainingData copy = data;
  CHECK(copy.cache().Get(copy, 16, 100, 200, 50, true).train.mirrored.data_ptr() ==
        b.train.mirrored.data_ptr());
  const ImageSelection s = SelectImages(600, 100, 100, 200, 50);
  CHECK(Identical(c.train.labels, GatherLabels(data.train(), s.train)));
  CHECK(Identical(c.test.plain, PrepareImages(data.test(), s.test, 16, false).plain));
  data.ClearCache();
  CHECK(copy.CachedBytes() == 0);
  CHECK(b.train.plain.size(0) == 200);  // what a run holds stays valid
}

}  // namespace
}  // namespace dcnas::models::libtorch
