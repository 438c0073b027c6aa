#include "models/torch/image_datasets.h"

#include <png.h>
#include <sys/stat.h>
#include <turbojpeg.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <thread>

#include "common/errors.h"
#include "common/file_io.h"
#include "common/sha256.h"

namespace dcnas::models::libtorch {
namespace {

namespace fs = std::filesystem;

// A dataset's splits in the order of the tensor file and the content hash: train, val (an image
// folder's, where it has one), test.
std::vector<const ImageSet*> Splits(const LoadedDataset& d) {
  if (d.val) return {&d.train, &*d.val, &d.test};
  return {&d.train, &d.test};
}

constexpr int kCifarSide = 32;
constexpr int64_t kCifarImageBytes = 3 * kCifarSide * kCifarSide;
constexpr int kCifar10Classes = 10;
constexpr int kCifar100Classes = 100;
constexpr int kMaxClasses = 65535;
constexpr int kMaxImageSize = 1024;
constexpr const char* kCacheFormat = "dcnas-image-cache";
constexpr int kCacheVersion = 1;

std::string WithCommas(int64_t v) {
  std::string s = std::to_string(v);
  for (int i = static_cast<int>(s.size()) - 3; i > (v < 0 ? 1 : 0); i -= 3) s.insert(i, ",");
  return s;
}

bool IsDir(const std::string& path) {
  std::error_code ec;
  return fs::is_directory(path, ec);
}

// --- CIFAR ---------------------------------------------------------------------------------

ImageSet ReadCifarFiles(const std::vector<std::string>& paths, bool cifar100) {
  ImageSet set;
  set.channels = 3;
  set.rows = kCifarSide;
  set.cols = kCifarSide;
  for (const std::string& path : paths) {
    ImageSet part = ReadCifarFile(path, cifar100);
    set.pixels.insert(set.pixels.end(), part.pixels.begin(), part.pixels.end());
    set.labels.insert(set.labels.end(), part.labels.begin(), part.labels.end());
    set.count += part.count;
  }
  return set;
}

LoadedDataset LoadCifar(const std::string& dir, bool cifar100) {
  const std::string name = cifar100 ? "cifar100" : "cifar10";
  if (!IsDir(dir)) {
    throw InputError(name + ":" + dir + ": not a directory (the " +
                     (cifar100 ? "CIFAR-100" : "CIFAR-10") + " binary release, unpacked: cifar-" +
                     (cifar100 ? "100" : "10") + "-batches-bin or cifar-100-binary)");
  }
  // The other release's files in DIR: name the right spec.
  const std::string other_file = dir + (cifar100 ? "/data_batch_1.bin" : "/train.bin");
  const std::string own_file = dir + (cifar100 ? "/train.bin" : "/data_batch_1.bin");
  std::error_code ec;
  if (!fs::exists(own_file, ec) && fs::exists(other_file, ec)) {
    throw InputError(name + ":" + dir + ": no " + fs::path(own_file).filename().string() +
                     " but a " + fs::path(other_file).filename().string() + ": this is " +
                     (cifar100 ? "CIFAR-10 (use cifar10:DIR)" : "CIFAR-100 (use cifar100:DIR)"));
  }
  LoadedDataset d;
  d.name = name;
  d.path = dir;
  d.classes = cifar100 ? kCifar100Classes : kCifar10Classes;
  if (cifar100) {
    d.train = ReadCifarFiles({dir + "/train.bin"}, true);
    d.test = ReadCifarFiles({dir + "/test.bin"}, true);
  } else {
    std::vector<std::string> batches;
    for (int i = 1; i <= 5; ++i)
      batches.push_back(dir + "/data_batch_" + std::to_string(i) + ".bin");
    d.train = ReadCifarFiles(batches, false);
    d.test = ReadCifarFiles({dir + "/test_batch.bin"}, false);
  }
  d.train.norm = ComputePixelNorm(d.train);
  d.test.norm = d.train.norm;
  d.content_hash = ContentHash({&d.train, &d.test});
  return d;
}

// --- Image decoding ------------------------------------------------------------------------

// Source taps of a 1-D resampling from `in` to `out` samples: area averaging when shrinking,
// bilinear (half-pixel centres, edges clamped) when growing.
struct Taps {
  std::vector<int> first;                   // per output sample: first source index
  std::vector<std::vector<float>> weights;  // per output sample: weights from `first` on
};

Taps MakeTaps(int in, int out) {
  Taps t;
  t.first.resize(static_cast<size_t>(out));
  t.weights.resize(static_cast<size_t>(out));
  const double scale = static_cast<double>(in) / out;
  for (int i = 0; i < out; ++i) {
    std::vector<float>& w = t.weights[static_cast<size_t>(i)];
    if (scale >= 1.0) {
      const double lo = i * scale, hi = (i + 1) * scale;
      const int a = static_cast<int>(std::floor(lo));
      const int b = std::min(in, static_cast<int>(std::ceil(hi)));
      t.first[static_cast<size_t>(i)] = a;
      for (int k = a; k < b; ++k) {
        const double cover = std::min<double>(hi, k + 1) - std::max<double>(lo, k);
        w.push_back(static_cast<float>(cover / scale));
      }
    } else {
      const double x = std::clamp((i + 0.5) * scale - 0.5, 0.0, static_cast<double>(in - 1));
      const int a = std::min(static_cast<int>(std::floor(x)), std::max(0, in - 2));
      const double f = x - a;
      t.first[static_cast<size_t>(i)] = a;
      w.push_back(static_cast<float>(1.0 - f));
      if (in > 1) w.push_back(static_cast<float>(f));
    }
  }
  return t;
}

// The centred square of an interleaved RGB image, resized to size x size, planar (CHW).
std::vector<uint8_t> SquareResize(const std::vector<uint8_t>& rgb, int width, int height,
                                  int size) {
  const int side = std::min(width, height);
  const int x0 = (width - side) / 2, y0 = (height - side) / 2;
  const Taps tx = MakeTaps(side, size), ty = MakeTaps(side, size);
  // Rows first (side rows x size columns x 3), then columns.
  std::vector<float> rows(static_cast<size_t>(side) * size * 3);
  for (int y = 0; y < side; ++y) {
    const uint8_t* src = rgb.data() + (static_cast<size_t>(y0 + y) * width + x0) * 3;
    for (int x = 0; x < size; ++x) {
      float acc[3] = {0, 0, 0};
      const auto& w = tx.weights[static_cast<size_t>(x)];
      const int first = tx.first[static_cast<size_t>(x)];
      for (size_t k = 0; k < w.size(); ++k) {
        const uint8_t* p = src + static_cast<size_t>(first + static_cast<int>(k)) * 3;
        for (int c = 0; c < 3; ++c) acc[c] += w[k] * p[c];
      }
      for (int c = 0; c < 3; ++c) rows[(static_cast<size_t>(y) * size + x) * 3 + c] = acc[c];
    }
  }
  std::vector<uint8_t> out(static_cast<size_t>(3) * size * size);
  for (int y = 0; y < size; ++y) {
    const auto& w = ty.weights[static_cast<size_t>(y)];
    const int first = ty.first[static_cast<size_t>(y)];
    for (int x = 0; x < size; ++x) {
      float acc[3] = {0, 0, 0};
      for (size_t k = 0; k < w.size(); ++k) {
        const float* p = &rows[(static_cast<size_t>(first + static_cast<int>(k)) * size + x) * 3];
        for (int c = 0; c < 3; ++c) acc[c] += w[k] * p[c];
      }
      for (int c = 0; c < 3; ++c) {
        const float v = std::clamp(std::round(acc[c]), 0.0f, 255.0f);
        out[(static_cast<size_t>(c) * size + y) * size + x] = static_cast<uint8_t>(v);
      }
    }
  }
  return out;
}

std::vector<uint8_t> DecodeJpeg(const std::string& path, const std::string& bytes, int size) {
  const std::unique_ptr<void, int (*)(tjhandle)> handle(tjInitDecompress(), tjDestroy);
  if (!handle) throw InternalError("libturbojpeg: cannot create a decompressor");
  auto* buf = reinterpret_cast<const unsigned char*>(bytes.data());
  const auto len = static_cast<unsigned long>(bytes.size());
  int width = 0, height = 0, subsamp = 0, colorspace = 0;
  if (tjDecompressHeader3(handle.get(), buf, len, &width, &height, &subsamp, &colorspace) != 0) {
    throw InputError(path + ": not a readable JPEG (" + tjGetErrorStr2(handle.get()) + ")");
  }
  // Decode at the smallest DCT scale whose shorter side still covers `size` (1/8 .. 1).
  int n_factors = 0;
  const tjscalingfactor* factors = tjGetScalingFactors(&n_factors);
  int sw = width, sh = height;
  for (int i = 0; i < n_factors; ++i) {
    const int w = TJSCALED(width, factors[i]), h = TJSCALED(height, factors[i]);
    if (std::min(w, h) >= size && static_cast<int64_t>(w) * h < static_cast<int64_t>(sw) * sh) {
      sw = w;
      sh = h;
    }
  }
  std::vector<uint8_t> rgb(static_cast<size_t>(sw) * sh * 3);
  if (tjDecompress2(handle.get(), buf, len, rgb.data(), sw, 0, sh, TJPF_RGB, 0) != 0) {
    throw InputError(path + ": corrupt JPEG (" + tjGetErrorStr2(handle.get()) + ")");
  }
  return SquareResize(rgb, sw, sh, size);
}

std::vector<uint8_t> DecodePng(const std::string& path, const std::string& bytes, int size) {
  png_image image;
  std::memset(&image, 0, sizeof image);
  image.version = PNG_IMAGE_VERSION;
  if (png_image_begin_read_from_memory(&image, bytes.data(), bytes.size()) == 0) {
    throw InputError(path + ": not a readable PNG (" + image.message + ")");
  }
  image.format = PNG_FORMAT_RGB;
  std::vector<uint8_t> rgb(PNG_IMAGE_SIZE(image));
  if (png_image_finish_read(&image, nullptr, rgb.data(), 0, nullptr) == 0) {
    const std::string message = image.message;
    png_image_free(&image);
    throw InputError(path + ": corrupt PNG (" + message + ")");
  }
  return SquareResize(rgb, static_cast<int>(image.width), static_cast<int>(image.height), size);
}

// --- Image folders -------------------------------------------------------------------------

bool IsImageName(const std::string& name) {
  const size_t dot = name.rfind('.');
  if (dot == std::string::npos || name[0] == '.') return false;
  std::string ext = name.substr(dot + 1);
  std::transform(ext.begin(), ext.end(), ext.begin(),
                 [](unsigned char c) { return std::tolower(c); });
  return ext == "jpg" || ext == "jpeg" || ext == "png";
}

struct FolderFile {
  std::string path;
  uint16_t label = 0;
  int64_t size = 0;
  int64_t mtime_ns = 0;
};

std::vector<std::string> SortedSubdirs(const std::string& dir) {
  std::vector<std::string> names;
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (name.empty() || name[0] == '.') continue;
    if (it->is_directory(ec)) names.push_back(name);
  }
  if (ec) throw InputError(dir + ": cannot list (" + ec.message() + ")");
  std::sort(names.begin(), names.end());
  return names;
}

// The image files of one split, with labels by `classes` (train/'s sorted class folders).
std::vector<FolderFile> ListSplit(const std::string& split_dir,
                                  const std::vector<std::string>& classes) {
  std::map<std::string, uint16_t> index;
  for (size_t i = 0; i < classes.size(); ++i) index[classes[i]] = static_cast<uint16_t>(i);
  std::vector<FolderFile> files;
  for (const std::string& cls : SortedSubdirs(split_dir)) {
    const auto it = index.find(cls);
    const std::string class_dir = split_dir + "/" + cls;
    if (it == index.end()) {
      throw InputError(class_dir + ": class '" + cls + "' is not a class of the training split");
    }
    std::vector<std::string> names;
    std::error_code ec;
    for (fs::directory_iterator f(class_dir, ec), end; !ec && f != end; f.increment(ec)) {
      const std::string name = f->path().filename().string();
      if (IsImageName(name) && f->is_regular_file(ec)) names.push_back(name);
    }
    if (ec) throw InputError(class_dir + ": cannot list (" + ec.message() + ")");
    if (names.empty()) {
      throw InputError(class_dir + ": class folder with no images (.jpg, .jpeg or .png)");
    }
    std::sort(names.begin(), names.end());
    for (const std::string& name : names) {
      FolderFile file;
      file.path = class_dir + "/" + name;
      file.label = it->second;
      struct stat st {};
      if (::stat(file.path.c_str(), &st) != 0) {
        throw InputError(file.path + ": " + std::strerror(errno));
      }
      file.size = st.st_size;
      file.mtime_ns = static_cast<int64_t>(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec;
      files.push_back(std::move(file));
    }
  }
  if (files.empty()) throw InputError(split_dir + ": no class folders");
  return files;
}

std::string DefaultCacheDir() {
  if (const char* d = std::getenv("DCNAS_CACHE_DIR"); d != nullptr && *d != '\0') return d;
  if (const char* d = std::getenv("XDG_CACHE_HOME"); d != nullptr && *d != '\0') {
    return std::string(d) + "/dcnas";
  }
  if (const char* d = std::getenv("HOME"); d != nullptr && *d != '\0') {
    return std::string(d) + "/.cache/dcnas";
  }
  return "/tmp/dcnas-cache";
}

// Decodes the files of a split into one ImageSet, `threads` at a time. Throws the first failing
// file's error (in listing order), with how many others failed.
ImageSet DecodeSplit(const std::vector<FolderFile>& files, int size, int threads,
                     const std::string& what,
                     const std::function<void(const std::string&)>& progress) {
  ImageSet set;
  set.channels = 3;
  set.rows = size;
  set.cols = size;
  set.count = static_cast<int64_t>(files.size());
  const int64_t image_bytes = set.image_bytes();
  set.pixels.resize(static_cast<size_t>(set.count * image_bytes));
  set.labels.resize(files.size());
  std::vector<std::string> errors(files.size());
  std::atomic<size_t> next{0}, done{0};
  std::mutex progress_mutex;
  auto work = [&] {
    for (size_t i = next++; i < files.size(); i = next++) {
      try {
        const std::string bytes = ReadFile(files[i].path);
        const std::vector<uint8_t> image = DecodeImage(files[i].path, bytes, size);
        std::copy(image.begin(), image.end(),
                  set.pixels.begin() + static_cast<std::ptrdiff_t>(i * image_bytes));
        set.labels[i] = files[i].label;
      } catch (const std::exception& e) {
        errors[i] = e.what();
      }
      const size_t d = ++done;
      if (progress && d % 2000 == 0) {
        const std::lock_guard<std::mutex> lock(progress_mutex);
        progress(what + ": decoded " + WithCommas(static_cast<int64_t>(d)) + " of " +
                 WithCommas(set.count) + " images");
      }
    }
  };
  std::vector<std::thread> pool;
  for (int t = 1; t < threads; ++t) pool.emplace_back(work);
  work();
  for (std::thread& t : pool) t.join();
  const auto failed =
      std::count_if(errors.begin(), errors.end(), [](const std::string& e) { return !e.empty(); });
  for (const std::string& e : errors) {
    if (e.empty()) continue;
    throw InputError(e + (failed > 1 ? " (and " + std::to_string(failed - 1) +
                                           " more image(s) that do not decode)"
                                     : ""));
  }
  return set;
}

void WriteBytes(std::ofstream& out, const void* data, size_t bytes) {
  out.write(static_cast<const char*>(data), static_cast<std::streamsize>(bytes));
}

// The tensor file: one JSON line (format, version, key, sizes, class names, content hash), then
// each split's pixels and labels (uint16, little-endian as this machine writes them).
void WriteCache(const std::string& path, const LoadedDataset& d, const std::string& key, int size) {
  nlohmann::json h = {{"format", kCacheFormat},
                      {"version", kCacheVersion},
                      {"key", key},
                      {"size", size},
                      {"classes", d.class_names},
                      {"content_hash", d.content_hash},
                      {"train", d.train.count},
                      {"val", d.val ? d.val->count : 0},
                      {"test", d.test.count},
                      {"val_carved", d.val_carved}};
  const std::string tmp = path + ".tmp." + std::to_string(::getpid());
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out)
      throw InputError(tmp + ": cannot write the image cache (" + std::strerror(errno) + ")");
    const std::string header = h.dump() + "\n";
    WriteBytes(out, header.data(), header.size());
    for (const ImageSet* s : Splits(d)) {
      WriteBytes(out, s->pixels.data(), s->pixels.size());
      WriteBytes(out, s->labels.data(), s->labels.size() * sizeof(uint16_t));
    }
    out.flush();
    if (!out) {
      std::remove(tmp.c_str());
      throw InputError(tmp + ": cannot write the image cache (disk full?)");
    }
  }
  SyncPath(tmp);
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    std::remove(tmp.c_str());
    throw InputError(path + ": cannot write the image cache (" + std::strerror(errno) + ")");
  }
}

// Reads a tensor file written for `key`; nullopt (and the reason in `why`) when it is absent,
// of another key or version, or damaged: the caller decodes again and rewrites it.
std::optional<LoadedDataset> ReadCache(const std::string& path, const std::string& key, int size,
                                       std::string& why) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  std::string line;
  std::getline(in, line);
  nlohmann::json h;
  try {
    h = nlohmann::json::parse(line);
    if (h.at("format") != kCacheFormat || h.at("version") != kCacheVersion || h.at("key") != key ||
        h.at("size") != size) {
      why = "written for other data";
      return std::nullopt;
    }
    LoadedDataset d;
    d.class_names = h.at("classes").get<std::vector<std::string>>();
    d.content_hash = h.at("content_hash").get<std::string>();
    d.val_carved = h.value("val_carved", false);
    std::vector<std::pair<ImageSet*, const char*>> splits = {{&d.train, "train"},
                                                             {&d.test, "test"}};
    if (!d.val_carved) {
      d.val.emplace();
      splits.insert(splits.begin() + 1, {&*d.val, "val"});
    }
    for (const auto& [s, split] : splits) {
      s->channels = 3;
      s->rows = size;
      s->cols = size;
      s->count = h.at(split).get<int64_t>();
      s->pixels.resize(static_cast<size_t>(s->count * s->image_bytes()));
      s->labels.resize(static_cast<size_t>(s->count));
      in.read(reinterpret_cast<char*>(s->pixels.data()),
              static_cast<std::streamsize>(s->pixels.size()));
      in.read(reinterpret_cast<char*>(s->labels.data()),
              static_cast<std::streamsize>(s->labels.size() * sizeof(uint16_t)));
      for (uint16_t label : s->labels) {
        if (label >= d.class_names.size()) throw InputError("label out of range");
      }
    }
    if (!in || in.peek() != std::char_traits<char>::eof()) {
      why = "damaged (its size does not match its header)";
      return std::nullopt;
    }
    if (ContentHash(Splits(d)) != d.content_hash) {
      why = "damaged (its content hash does not match)";
      return std::nullopt;
    }
    return d;
  } catch (const std::exception&) {
    why = "damaged (unreadable header)";
    return std::nullopt;
  }
}

// An image folder's classes: DIR/train's subfolders, sorted; InputError when train/ is missing
// or holds fewer than 2 or more than kMaxClasses.
std::vector<std::string> FolderClasses(const std::string& dir) {
  if (!IsDir(dir + "/train")) {
    throw InputError(dir +
                     "/train: missing (an image folder holds train/ with val/ or test/ or both, "
                     "each with one folder of images per class)");
  }
  std::vector<std::string> classes = SortedSubdirs(dir + "/train");
  if (classes.size() < 2) {
    throw InputError(dir + "/train: " + std::to_string(classes.size()) +
                     " class folder(s); classification needs at least 2");
  }
  if (classes.size() > static_cast<size_t>(kMaxClasses)) {
    throw InputError(dir + "/train: more than " + std::to_string(kMaxClasses) + " classes");
  }
  return classes;
}

LoadedDataset LoadImageFolder(const std::string& dir, const DatasetLoadOptions& o) {
  const int size = o.image_size > 0 ? o.image_size : kDefaultImageFolderSize;
  if (size < 8 || size > kMaxImageSize) {
    throw InputError("image size " + std::to_string(size) + " must be in 8.." +
                     std::to_string(kMaxImageSize) + " px");
  }
  if (!IsDir(dir)) throw InputError("imagefolder:" + dir + ": not a directory");
  LoadedDataset d;
  d.name = "imagefolder";
  d.path = dir;
  d.class_names = FolderClasses(dir);
  const bool has_val = IsDir(dir + "/val");
  const bool has_test = IsDir(dir + "/test");
  if (!has_val && !has_test) {
    throw InputError(dir +
                     ": neither val/ nor test/ beside train/ (with test/ alone, the "
                     "validation images are carved from train/)");
  }
  d.val_carved = !has_val;
  d.classes = static_cast<int>(d.class_names.size());
  const std::vector<FolderFile> train = ListSplit(dir + "/train", d.class_names);
  const std::vector<FolderFile> val =
      has_val ? ListSplit(dir + "/val", d.class_names) : std::vector<FolderFile>{};
  const std::vector<FolderFile> test =
      has_test ? ListSplit(dir + "/test", d.class_names) : std::vector<FolderFile>{};
  // The key: every file's path (relative to DIR), size and modification time, and the size.
  std::string listing = "size " + std::to_string(size) + "\n";
  for (const auto* split : {&train, &val, &test}) {
    for (const FolderFile& f : *split) {
      listing += f.path.substr(dir.size()) + "\t" + std::to_string(f.size) + "\t" +
                 std::to_string(f.mtime_ns) + "\n";
    }
    listing += "--\n";
  }
  const std::string key = Sha256Hex(listing);
  const std::string cache_dir = o.cache_dir.empty() ? DefaultCacheDir() : o.cache_dir;
  std::error_code ec;
  fs::create_directories(cache_dir, ec);
  if (ec)
    throw InputError(cache_dir + ": cannot create the image cache directory (" + ec.message() +
                     ")");
  d.cache_file =
      cache_dir + "/imagefolder-" + key.substr(0, 16) + "-" + std::to_string(size) + "px.bin";
  std::string why;
  if (std::optional<LoadedDataset> cached = ReadCache(d.cache_file, key, size, why)) {
    if (cached->class_names != d.class_names) why = "written for other classes";
    if (cached->val_carved != d.val_carved) why = "written for another layout";
    if (why.empty()) {
      d.train = std::move(cached->train);
      d.val = std::move(cached->val);
      d.test = std::move(cached->test);
      d.content_hash = cached->content_hash;
      d.cache_hit = true;
    }
  }
  if (!d.cache_hit) {
    if (!why.empty() && o.progress) o.progress(d.cache_file + ": " + why + "; decoding again");
    const int threads = o.threads > 0
                            ? o.threads
                            : std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
    d.train = DecodeSplit(train, size, threads, dir + "/train", o.progress);
    if (has_val) d.val = DecodeSplit(val, size, threads, dir + "/val", o.progress);
    d.test = has_test ? DecodeSplit(test, size, threads, dir + "/test", o.progress) : *d.val;
    d.content_hash = ContentHash(Splits(d));
    WriteCache(d.cache_file, d, key, size);
  }
  d.train.norm = ComputePixelNorm(d.train);
  if (d.val) d.val->norm = d.train.norm;
  d.test.norm = d.train.norm;
  return d;
}

}  // namespace

DatasetSpec ParseDatasetSpec(const std::string& text) {
  const size_t colon = text.find(':');
  const std::string name = text.substr(0, colon);
  const std::string path = colon == std::string::npos ? "" : text.substr(colon + 1);
  if (name == "fashion-mnist") return {name, path};
  if (name == "cifar10" || name == "cifar100" || name == "imagefolder") {
    if (path.empty()) {
      throw InputError("dataset '" + text + "' needs its directory: " + name + ":DIR");
    }
    return {name, path};
  }
  if (text.find('/') != std::string::npos) return {"fashion-mnist", text};
  throw InputError("unknown dataset '" + text + "' (valid: " + kDatasetForms + ")");
}

ImageSet ReadCifarFile(const std::string& path, bool cifar100) {
  const int64_t record = kCifarImageBytes + (cifar100 ? 2 : 1);
  const std::string raw = ReadFile(path);
  const auto bytes = static_cast<int64_t>(raw.size());
  if (bytes <= 0 || bytes % record != 0) {
    const int64_t other = kCifarImageBytes + (cifar100 ? 1 : 2);
    std::string hint = " (truncated?)";
    if (bytes > 0 && bytes % other == 0) {
      hint = cifar100 ? " (its size fits CIFAR-10's 3,073-byte records: use cifar10:DIR)"
                      : " (its size fits CIFAR-100's 3,074-byte records: use cifar100:DIR)";
    }
    throw InputError(path + ": " + WithCommas(bytes) + " bytes is not a whole number of " +
                     WithCommas(record) + "-byte " + (cifar100 ? "CIFAR-100" : "CIFAR-10") +
                     " records" + hint);
  }
  ImageSet set;
  set.channels = 3;
  set.rows = kCifarSide;
  set.cols = kCifarSide;
  set.count = bytes / record;
  set.pixels.resize(static_cast<size_t>(set.count * kCifarImageBytes));
  set.labels.resize(static_cast<size_t>(set.count));
  const int classes = cifar100 ? kCifar100Classes : kCifar10Classes;
  for (int64_t i = 0; i < set.count; ++i) {
    const auto* r = reinterpret_cast<const uint8_t*>(raw.data()) + i * record;
    const uint8_t label = cifar100 ? r[1] : r[0];
    if (label >= classes) {
      throw InputError(path + ": record " + std::to_string(i) + " has label " +
                       std::to_string(label) + ", not a class 0.." + std::to_string(classes - 1));
    }
    set.labels[static_cast<size_t>(i)] = label;
    std::copy_n(r + record - kCifarImageBytes, kCifarImageBytes,
                set.pixels.begin() + static_cast<std::ptrdiff_t>(i * kCifarImageBytes));
  }
  return set;
}

DatasetShape PeekDataset(const std::string& spec_text) {
  const DatasetSpec spec = ParseDatasetSpec(spec_text);
  if (spec.name == "cifar10") return {3, kCifar10Classes, kCifarSide};
  if (spec.name == "cifar100") return {3, kCifar100Classes, kCifarSide};
  if (spec.name == "imagefolder") {
    const auto classes = static_cast<int>(FolderClasses(spec.path).size());
    return {3, classes, kDefaultImageFolderSize};
  }
  return {1, kFashionMnistClasses, 28};
}

LoadedDataset LoadDataset(const std::string& spec_text, const DatasetLoadOptions& o) {
  const DatasetSpec spec = ParseDatasetSpec(spec_text);
  if (spec.name == "cifar10") return LoadCifar(spec.path, false);
  if (spec.name == "cifar100") return LoadCifar(spec.path, true);
  if (spec.name == "imagefolder") return LoadImageFolder(spec.path, o);
  LoadedDataset d;
  d.name = "fashion-mnist";
  d.path = spec.path.empty() ? kFashionMnistDir : spec.path;
  d.classes = kFashionMnistClasses;
  d.train = ReadFashionMnist(d.path, "train");
  d.test = ReadFashionMnist(d.path, "t10k");
  d.content_hash = ContentHash({&d.train, &d.test});
  return d;
}

std::string DatasetId(const LoadedDataset& d) {
  if (d.name == "fashion-mnist" && d.content_hash == kDebianFashionMnistHash) return d.name;
  const std::string name =
      d.name == "imagefolder" ? "imagefolder-" + std::to_string(d.classes) : d.name;
  return name + "@" + d.content_hash.substr(0, 16);
}

PixelNorm ComputePixelNorm(const ImageSet& set) {
  PixelNorm norm;
  norm.mean.assign(static_cast<size_t>(set.channels), 0.0);
  norm.std.assign(static_cast<size_t>(set.channels), 1.0);
  const int64_t plane = static_cast<int64_t>(set.rows) * set.cols;
  if (set.count == 0 || plane == 0) return norm;
  for (int c = 0; c < set.channels; ++c) {
    uint64_t sum = 0, sum_sq = 0;
    for (int64_t i = 0; i < set.count; ++i) {
      const uint8_t* p = set.pixels.data() + i * set.image_bytes() + c * plane;
      for (int64_t k = 0; k < plane; ++k) {
        sum += p[k];
        sum_sq += uint64_t{p[k]} * p[k];
      }
    }
    const double n = static_cast<double>(set.count * plane);
    const double mean = static_cast<double>(sum) / n;
    const double var = std::max(0.0, static_cast<double>(sum_sq) / n - mean * mean);
    norm.mean[static_cast<size_t>(c)] = mean / 255.0;
    norm.std[static_cast<size_t>(c)] = var > 0 ? std::sqrt(var) / 255.0 : 1.0;
  }
  return norm;
}

std::string ContentHash(const std::vector<const ImageSet*>& sets) {
  std::string digests;
  for (const ImageSet* s : sets) {
    digests += std::to_string(s->count) + "x" + std::to_string(s->channels) + "x" +
               std::to_string(s->rows) + "x" + std::to_string(s->cols) + ":";
    digests += Sha256Hex(
        std::string_view(reinterpret_cast<const char*>(s->pixels.data()), s->pixels.size()));
    std::string labels;
    labels.reserve(s->labels.size() * 2);
    for (uint16_t l : s->labels) {
      labels.push_back(static_cast<char>(l & 0xff));
      labels.push_back(static_cast<char>(l >> 8));
    }
    digests += Sha256Hex(labels) + "\n";
  }
  return Sha256Hex(digests);
}

std::vector<uint8_t> DecodeImage(const std::string& path, const std::string& bytes, int size) {
  const auto* b = reinterpret_cast<const unsigned char*>(bytes.data());
  if (bytes.size() >= 3 && b[0] == 0xFF && b[1] == 0xD8 && b[2] == 0xFF) {
    return DecodeJpeg(path, bytes, size);
  }
  if (bytes.size() >= 8 && png_sig_cmp(b, 0, 8) == 0) return DecodePng(path, bytes, size);
  throw InputError(path + ": neither a JPEG nor a PNG file");
}

}  // namespace dcnas::models::libtorch
