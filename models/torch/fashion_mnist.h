// The Fashion-MNIST files (Debian's dataset-fashion-mnist, gzipped IDX read with zlib) and the
// fixed choice of the training, validation and test images. No LibTorch headers here.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace dcnas::models::libtorch {

inline constexpr const char* kFashionMnistDir = "/usr/share/datasets/fashion-mnist";
inline constexpr int kFashionMnistClasses = 10;

// One split of an IDX image set: `count` images of rows x cols bytes, and their labels.
struct ImageSet {
  int64_t count = 0;
  int rows = 0;
  int cols = 0;
  std::vector<uint8_t> pixels;  // count * rows * cols, row-major
  std::vector<uint8_t> labels;  // count
};

// Reads "<dir>/<split>-images-idx3-ubyte.gz" and "<dir>/<split>-labels-idx1-ubyte.gz" (split
// "train" or "t10k"). Throws InputError naming the file, with the install command when the
// dataset is absent, or the bad header field.
ImageSet ReadFashionMnist(const std::string& dir, const std::string& split);

// The validation split is drawn with a fixed seed so that runs with different seeds compare on
// the same held-out images.
inline constexpr uint64_t kValidationSplitSeed = 20210601;

// Which images a run uses, as indices into the training file (train, val) and the test file.
struct ImageSelection {
  std::vector<int64_t> train;
  std::vector<int64_t> val;
  std::vector<int64_t> test;
};

// The training file is shuffled once with a fixed seed (kValidationSplitSeed, not the run's
// seed); its last `validation_images` images are the validation split and the rest, in that
// shuffled order, the training split. `limit_train` > 0 keeps the first `limit_train` images of
// the training split, `limit_eval` > 0 the first `limit_eval` of the validation split and of
// the test file. The selection depends on the counts and limits only, so runs with different
// seeds see the same images. Throws InputError unless 1 <= validation_images < train_count.
ImageSelection SelectImages(int64_t train_count, int64_t test_count, int validation_images,
                            int64_t limit_train, int64_t limit_eval);

}  // namespace dcnas::models::libtorch
