// Helpers shared by the simulator tests.
#pragma once

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "models/builder.h"
#include "sim/engine.h"

namespace dcnas::sim::testing {

// A scratch directory with YAML files written by the test.
class TempDir {
 public:
  TempDir() {
    path_ = std::filesystem::temp_directory_path() /
            ("dcnas_sim_test_" + std::to_string(reinterpret_cast<uintptr_t>(this)) + "_" +
             std::to_string(std::rand()));
    std::filesystem::create_directories(path_);
  }
  ~TempDir() { std::filesystem::remove_all(path_); }
  std::string Write(const std::string& name, const std::string& text) const {
    const auto p = path_ / name;
    std::ofstream(p) << text;
    return p.string();
  }
  std::string path() const { return path_.string(); }

 private:
  std::filesystem::path path_;
};

// input [n, hw, hw, c] -> relu (a memory-bound elementwise kernel).
inline models::Graph ReluGraph(int n, int hw, int c, models::DType dtype) {
  models::GraphInfo info;
  info.model = "relu";
  info.batch = n;
  info.resolution = hw;
  info.dtype = dtype;
  models::GraphBuilder b(info);
  const int x = b.Input(hw, hw, c);
  b.Act(x, models::Activation::kRelu);
  return b.Finish();
}

// input [n, hw, hw, cin] -> 1x1 conv to cout (optionally + BN + activation).
inline models::Graph ConvGraph(int n, int hw, int cin, int cout, int kernel, models::DType dtype,
                               bool bn_act = false,
                               models::Activation act = models::Activation::kRelu) {
  models::GraphInfo info;
  info.model = "conv";
  info.batch = n;
  info.resolution = hw;
  info.dtype = dtype;
  models::GraphBuilder b(info);
  const int x = b.Input(hw, hw, cin);
  int y = b.Conv(x, cout, kernel, 1);
  if (bn_act) y = b.Act(b.BatchNorm(y), act);
  (void)y;
  return b.Finish();
}

}  // namespace dcnas::sim::testing
