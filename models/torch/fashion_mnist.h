// The Fashion-MNIST files (Debian's dataset-fashion-mnist, gzipped IDX read with zlib) and the
// fixed choice of the training, validation and test images. No LibTorch headers here.
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

namespace dcnas::models::libtorch {

inline constexpr const char* kFashionMnistDir = "/usr/share/datasets/fashion-mnist";
inline constexpr int kFashionMnistClasses = 10;

// Fashion-MNIST pixel statistics of the training set (mean and standard deviation of x / 255).
inline constexpr double kPixelMean = 0.2860;
inline constexpr double kPixelStd = 0.3530;

// The normalisation of a dataset's network inputs, per channel, of x / 255.
struct PixelNorm {
  std::vector<double> mean = {kPixelMean};
  std::vector<double> std = {kPixelStd};
  bool operator==(const PixelNorm&) const = default;
};

// One split of an image dataset: `count` images of channels x rows x cols bytes, their labels,
// and the normalisation the network's inputs get (per channel, of x / 255; the training split's
// statistics, copied to the other splits of the same dataset).
struct ImageSet {
  int64_t count = 0;
  int channels = 1;
  int rows = 0;
  int cols = 0;
  std::vector<uint8_t> pixels;   // count * channels * rows * cols, image by image, planar (CHW)
  std::vector<uint16_t> labels;  // count, each < the dataset's classes
  PixelNorm norm;                // one mean and deviation per channel
  int64_t image_bytes() const { return int64_t{channels} * rows * cols; }
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

// The same for a training set whose validation images are carved from it by class (an image
// folder with train/ and test/ but no val/): the same fixed shuffle, and from it each class gives
// its share of `validation_images` (largest remainders; every class keeps at least one training
// image), taken first in shuffled order; the training split is the rest in that order; the test
// images in a fixed shuffle of their own (a folder lists them class by class, and a limit_eval
// subset must hold every class). Depends on the labels and limits only. Throws InputError unless 1
// <= validation_images < train_count.
ImageSelection SelectImagesStratified(const std::vector<uint16_t>& train_labels, int classes,
                                      int64_t test_count, int validation_images,
                                      int64_t limit_train, int64_t limit_eval);

// The validation images held out of a training file of `train_count` images when a run names
// none: 5,000 (Fashion-MNIST, CIFAR), or a tenth of a smaller file (at least 1).
inline int DefaultValidationImages(int64_t train_count) {
  return static_cast<int>(std::max<int64_t>(1, std::min<int64_t>(5000, train_count / 10)));
}

}  // namespace dcnas::models::libtorch
