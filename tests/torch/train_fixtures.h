// Shared fixtures of the training tests: a tiny network, short run options, a scratch directory.
#pragma once

#include <unistd.h>

#include <filesystem>
#include <string>

#include "models/block_string.h"
#include "models/torch/train.h"

namespace dcnas::models::libtorch::testing {

inline bool HaveDataset() {
  return std::filesystem::exists(std::string(kFashionMnistDir) + "/t10k-labels-idx1-ubyte.gz");
}

// A tiny two-block network (16 px, 1 channel by default): trains in about a second per 1,000
// images.
inline Graph TinyNetwork(int resolution = 16, int in_channels = 1) {
  BlockNetworkSpec spec;
  spec.blocks = models::ParseBlockStrings({"r1_k3_s22_e1_i16_o8_se0.25", "r1_k3_s22_e2_i8_o16"});
  spec.stem_filters = 16;
  spec.head_filters = 32;
  BuildOptions o;
  o.resolution = resolution;
  o.in_channels = in_channels;
  o.num_classes = 10;
  return BuildBlockNetwork("tiny", spec, o);
}

// Two epochs of batch 64 on `limit_train` images, 256 evaluation images, seed 7, one thread.
inline TrainOptions TinyOptions(const std::string& dir, int64_t limit_train) {
  TrainOptions o;
  o.epochs = 2;
  o.batch = 64;
  o.limit_train = limit_train;
  o.limit_eval = 256;
  o.seed = 7;
  o.threads = 1;
  o.out_dir = dir;
  return o;
}

// A scratch directory under the system temp directory, removed on both ends.
struct TempDir {
  std::filesystem::path path;
  TempDir(const std::string& prefix, const std::string& name)
      : path(std::filesystem::temp_directory_path() /
             (prefix + "_" + name + "_" + std::to_string(::getpid()))) {
    std::filesystem::remove_all(path);
  }
  ~TempDir() { std::filesystem::remove_all(path); }
};

}  // namespace dcnas::models::libtorch::testing
