// Small datasets written by the tests in each format the trainer reads: CIFAR-10/100 record files
// and image folders of JPEG and PNG files. Class k's images are a colour of its own plus noise, so
// a network separates them in a few steps. No LibTorch headers here.
#pragma once

#include <png.h>
#include <turbojpeg.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

namespace dcnas::models::libtorch::testing {

// An interleaved RGB image of `label`'s colour (classes spread over the colour cube) plus noise.
inline std::vector<uint8_t> ClassImage(int label, int width, int height, uint32_t seed) {
  std::mt19937 rng(seed * 7919u + static_cast<uint32_t>(label));
  std::uniform_int_distribution<int> noise(-20, 20);
  const int base[3] = {40 + (label * 97) % 176, 40 + (label * 53) % 176, 40 + (label * 31) % 176};
  std::vector<uint8_t> rgb(static_cast<size_t>(width) * height * 3);
  for (size_t i = 0; i < rgb.size(); ++i) {
    rgb[i] = static_cast<uint8_t>(std::clamp(base[i % 3] + noise(rng), 0, 255));
  }
  return rgb;
}

// `count` records of 32 x 32 images (label i % classes) in one CIFAR file; cifar100 writes the
// coarse label (label / 5) before the fine one.
inline void WriteCifarFile(const std::string& path, int count, int classes, bool cifar100,
                           uint32_t seed) {
  std::ofstream out(path, std::ios::binary);
  for (int i = 0; i < count; ++i) {
    const int label = i % classes;
    if (cifar100) out.put(static_cast<char>(label / 5));
    out.put(static_cast<char>(label));
    const std::vector<uint8_t> rgb = ClassImage(label, 32, 32, seed + static_cast<uint32_t>(i));
    for (int c = 0; c < 3; ++c) {
      for (int p = 0; p < 32 * 32; ++p)
        out.put(static_cast<char>(rgb[static_cast<size_t>(p) * 3 + c]));
    }
  }
  if (!out) throw std::runtime_error("cannot write " + path);
}

// The CIFAR-10 layout (data_batch_1..5.bin of `per_batch` records, test_batch.bin of `test`)
// or the CIFAR-100 one (train.bin of 5 x per_batch, test.bin).
inline void WriteCifar(const std::string& dir, bool cifar100, int per_batch, int test) {
  std::filesystem::create_directories(dir);
  const int classes = cifar100 ? 100 : 10;
  if (cifar100) {
    WriteCifarFile(dir + "/train.bin", 5 * per_batch, classes, true, 1);
    WriteCifarFile(dir + "/test.bin", test, classes, true, 99);
    return;
  }
  for (int b = 1; b <= 5; ++b) {
    WriteCifarFile(dir + "/data_batch_" + std::to_string(b) + ".bin", per_batch, classes, false,
                   static_cast<uint32_t>(b * 1000));
  }
  WriteCifarFile(dir + "/test_batch.bin", test, classes, false, 99);
}

inline void WriteJpeg(const std::string& path, const std::vector<uint8_t>& rgb, int width,
                      int height) {
  tjhandle h = tjInitCompress();
  unsigned char* buf = nullptr;
  unsigned long size = 0;
  if (tjCompress2(h, rgb.data(), width, 0, height, TJPF_RGB, &buf, &size, TJSAMP_420, 90, 0) != 0) {
    tjDestroy(h);
    throw std::runtime_error("cannot encode " + path);
  }
  std::ofstream(path, std::ios::binary)
      .write(reinterpret_cast<const char*>(buf), static_cast<std::streamsize>(size));
  tjFree(buf);
  tjDestroy(h);
}

inline void WritePng(const std::string& path, const std::vector<uint8_t>& rgb, int width,
                     int height) {
  png_image image{};
  image.version = PNG_IMAGE_VERSION;
  image.width = static_cast<png_uint_32>(width);
  image.height = static_cast<png_uint_32>(height);
  image.format = PNG_FORMAT_RGB;
  if (png_image_write_to_file(&image, path.c_str(), 0, rgb.data(), 0, nullptr) == 0) {
    throw std::runtime_error("cannot write " + path + ": " + image.message);
  }
}

// DIR/{train,val}/class_KK/ with `train_per_class` and `val_per_class` images per class; every
// third image a PNG, the rest JPEG; sizes vary (40..96 px wide, 36..80 px high), so loading
// resizes and crops them all.
inline void WriteImageFolder(const std::string& dir, int classes, int train_per_class,
                             int val_per_class) {
  int n = 0;
  for (const auto& [split, per_class] :
       {std::pair<std::string, int>{"train", train_per_class}, {"val", val_per_class}}) {
    for (int k = 0; k < classes; ++k) {
      char name[32];
      std::snprintf(name, sizeof name, "class_%02d", k);
      const std::string class_dir = dir + "/" + split + "/" + name;
      std::filesystem::create_directories(class_dir);
      for (int i = 0; i < per_class; ++i, ++n) {
        const int w = 40 + (n * 13) % 57, h = 36 + (n * 7) % 45;
        const std::vector<uint8_t> rgb = ClassImage(k, w, h, static_cast<uint32_t>(n));
        const std::string stem = class_dir + "/img_" + std::to_string(i);
        if (n % 3 == 2) {
          WritePng(stem + ".png", rgb, w, h);
        } else {
          WriteJpeg(stem + ".jpg", rgb, w, h);
        }
      }
    }
  }
}

}  // namespace dcnas::models::libtorch::testing
