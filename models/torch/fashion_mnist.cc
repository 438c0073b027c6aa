#include "models/torch/fashion_mnist.h"

#include <zlib.h>

#include <algorithm>
#include <numeric>
#include <random>

#include "common/errors.h"

namespace dcnas::models::libtorch {
namespace {

class GzFile {
 public:
  explicit GzFile(const std::string& path) : path_(path), file_(gzopen(path.c_str(), "rb")) {
    if (file_ == nullptr) {
      throw InputError("cannot open " + path +
                       ": Fashion-MNIST is not installed (apt-get install dataset-fashion-mnist)");
    }
  }
  ~GzFile() { gzclose(file_); }
  GzFile(const GzFile&) = delete;
  GzFile& operator=(const GzFile&) = delete;

  void Read(void* data, size_t bytes) {
    size_t done = 0;
    while (done < bytes) {
      const unsigned chunk = static_cast<unsigned>(std::min<size_t>(bytes - done, 1u << 30));
      const int got = gzread(file_, static_cast<char*>(data) + done, chunk);
      if (got <= 0) {
        throw InputError(path_ + ": truncated or corrupt gzip data after " + std::to_string(done) +
                         " of " + std::to_string(bytes) + " bytes");
      }
      done += static_cast<size_t>(got);
    }
  }
  uint32_t ReadBigEndian32() {
    unsigned char b[4];
    Read(b, 4);
    return (uint32_t{b[0]} << 24) | (uint32_t{b[1]} << 16) | (uint32_t{b[2]} << 8) | b[3];
  }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
  gzFile file_;
};

void Expect(const GzFile& f, const char* field, uint32_t got, uint32_t want) {
  if (got != want) {
    throw InputError(f.path() + ": IDX header field '" + field + "' is " + std::to_string(got) +
                     ", expected " + std::to_string(want));
  }
}

std::vector<int64_t> Iota(int64_t n) {
  std::vector<int64_t> v(static_cast<size_t>(n));
  std::iota(v.begin(), v.end(), 0);
  return v;
}

void KeepFirst(std::vector<int64_t>& indices, int64_t limit) {
  if (limit > 0 && limit < static_cast<int64_t>(indices.size())) {
    indices.resize(static_cast<size_t>(limit));
  }
}

}  // namespace

ImageSet ReadFashionMnist(const std::string& dir, const std::string& split) {
  GzFile images(dir + "/" + split + "-images-idx3-ubyte.gz");
  GzFile labels(dir + "/" + split + "-labels-idx1-ubyte.gz");
  Expect(images, "magic", images.ReadBigEndian32(), 2051);
  Expect(labels, "magic", labels.ReadBigEndian32(), 2049);
  ImageSet set;
  const uint32_t count = images.ReadBigEndian32();
  set.rows = static_cast<int>(images.ReadBigEndian32());
  set.cols = static_cast<int>(images.ReadBigEndian32());
  Expect(labels, "count", labels.ReadBigEndian32(), count);
  if (count == 0 || set.rows <= 0 || set.cols <= 0 || set.rows > 4096 || set.cols > 4096) {
    throw InputError(images.path() + ": implausible IDX header (" + std::to_string(count) +
                     " images of " + std::to_string(set.rows) + "x" + std::to_string(set.cols) +
                     ")");
  }
  set.count = count;
  set.pixels.resize(static_cast<size_t>(count) * set.rows * set.cols);
  images.Read(set.pixels.data(), set.pixels.size());
  std::vector<uint8_t> label_bytes(count);
  labels.Read(label_bytes.data(), label_bytes.size());
  set.labels.assign(label_bytes.begin(), label_bytes.end());
  for (size_t i = 0; i < set.labels.size(); ++i) {
    if (set.labels[i] >= kFashionMnistClasses) {
      throw InputError(labels.path() + ": label " + std::to_string(set.labels[i]) + " of item " +
                       std::to_string(i) + " is not a class 0..9");
    }
  }
  return set;
}

ImageSelection SelectImages(int64_t train_count, int64_t test_count, int validation_images,
                            int64_t limit_train, int64_t limit_eval) {
  if (validation_images < 1 || validation_images >= train_count) {
    throw InputError("validation images must be in 1.." + std::to_string(train_count - 1) +
                     ", got " + std::to_string(validation_images));
  }
  std::vector<int64_t> order = Iota(train_count);
  std::shuffle(order.begin(), order.end(), std::mt19937_64(kValidationSplitSeed));
  ImageSelection s;
  s.val.assign(order.end() - validation_images, order.end());
  s.train.assign(order.begin(), order.end() - validation_images);
  s.test = Iota(test_count);
  KeepFirst(s.train, limit_train);
  KeepFirst(s.val, limit_eval);
  KeepFirst(s.test, limit_eval);
  return s;
}

ImageSelection SelectImagesStratified(const std::vector<uint16_t>& train_labels, int classes,
                                      int64_t test_count, int validation_images,
                                      int64_t limit_train, int64_t limit_eval) {
  const auto train_count = static_cast<int64_t>(train_labels.size());
  if (validation_images < 1 || validation_images >= train_count) {
    throw InputError("validation images must be in 1.." + std::to_string(train_count - 1) +
                     " (the images of train/), got " + std::to_string(validation_images));
  }
  std::vector<int64_t> per_class(static_cast<size_t>(classes), 0);
  for (const uint16_t l : train_labels) {
    if (l >= classes) throw InternalError("SelectImagesStratified: label out of range");
    ++per_class[l];
  }
  // Largest remainders: floor shares first, then the classes with the largest fractions.
  std::vector<int64_t> quota(static_cast<size_t>(classes), 0);
  std::vector<std::pair<double, int>> remainders;
  int64_t given = 0;
  for (int c = 0; c < classes; ++c) {
    const double share = static_cast<double>(validation_images) *
                         static_cast<double>(per_class[c]) / static_cast<double>(train_count);
    quota[c] = std::min(static_cast<int64_t>(share), std::max<int64_t>(0, per_class[c] - 1));
    given += quota[c];
    remainders.emplace_back(share - static_cast<double>(quota[c]), c);
  }
  std::stable_sort(remainders.begin(), remainders.end(),
                   [](const auto& a, const auto& b) { return a.first > b.first; });
  for (size_t k = 0; given < validation_images && k < remainders.size() * 2; ++k) {
    const int c = remainders[k % remainders.size()].second;
    if (quota[c] + 1 <= per_class[c] - 1) {
      ++quota[c];
      ++given;
    }
  }
  if (given < validation_images) {
    throw InputError("validation images: " + std::to_string(validation_images) +
                     " cannot be carved from train/ leaving every class a training image");
  }
  std::vector<int64_t> order = Iota(train_count);
  std::shuffle(order.begin(), order.end(), std::mt19937_64(kValidationSplitSeed));
  ImageSelection s;
  for (const int64_t i : order) {
    int64_t& q = quota[train_labels[static_cast<size_t>(i)]];
    if (q > 0) {
      s.val.push_back(i);
      --q;
    } else {
      s.train.push_back(i);
    }
  }
  // An image folder's test/ is listed class by class: a fixed shuffle, so that a limit_eval subset
  // holds every class, not the first ones.
  s.test = Iota(test_count);
  std::shuffle(s.test.begin(), s.test.end(), std::mt19937_64(kValidationSplitSeed + 1));
  KeepFirst(s.train, limit_train);
  KeepFirst(s.val, limit_eval);
  KeepFirst(s.test, limit_eval);
  return s;
}

}  // namespace dcnas::models::libtorch
