// The dataset readers (image_datasets.h) on datasets the tests write: labels, shapes, the image
// folder's tensor cache reused and invalidated, and malformed inputs named in the error.
#include <catch2/catch.hpp>

#include <algorithm>

#include <filesystem>
#include <fstream>
#include <set>

#include "common/errors.h"
#include "common/file_io.h"
#include "models/torch/dataset.h"
#include "models/torch/image_datasets.h"
#include "tests/torch/dataset_fixtures.h"
#include "tests/torch/train_fixtures.h"

namespace dcnas::models::libtorch {
namespace {

namespace fs = std::filesystem;
using Catch::Contains;

struct TempDir : testing::TempDir {
  explicit TempDir(const std::string& name) : testing::TempDir("dcnas_datasets_test", name) {}
  std::string operator/(const std::string& rest) const { return (path / rest).string(); }
};

void Truncate(const std::string& path, std::uintmax_t bytes) { fs::resize_file(path, bytes); }

TEST_CASE("dataset specs") {
  CHECK(ParseDatasetSpec("fashion-mnist").name == "fashion-mnist");
  CHECK(ParseDatasetSpec("fashion-mnist").path.empty());
  CHECK(ParseDatasetSpec("cifar10:/d/c10").path == "/d/c10");
  CHECK(ParseDatasetSpec("cifar100:rel/dir").name == "cifar100");
  CHECK(ParseDatasetSpec("imagefolder:/a:b").path == "/a:b");
  // A bare directory is Fashion-MNIST's (the older --data-dir).
  CHECK(ParseDatasetSpec("/usr/share/datasets/fashion-mnist").name == "fashion-mnist");
  CHECK_THROWS_WITH(ParseDatasetSpec("cifar10"), Contains("needs its directory: cifar10:DIR"));
  CHECK_THROWS_WITH(ParseDatasetSpec("mnist"), Contains("unknown dataset 'mnist'"));
  CHECK_THROWS_WITH(ParseDatasetSpec("svhn:dir"), Contains("cifar100:DIR"));
}

TEST_CASE("CIFAR-10 and CIFAR-100 record files") {
  const TempDir dir("cifar");
  testing::WriteCifar(dir / "c10", false, 40, 30);
  testing::WriteCifar(dir / "c100", true, 40, 30);
  const LoadedDataset c10 = LoadDataset("cifar10:" + (dir / "c10"));
  CHECK(c10.classes == 10);
  CHECK(c10.train.count == 200);
  CHECK(c10.test.count == 30);
  CHECK(c10.train.channels == 3);
  CHECK(c10.train.rows == 32);
  CHECK(c10.train.pixels.size() == 200u * 3072);
  CHECK_FALSE(c10.val.has_value());
  // Record i of batch b has label i % 10; batch 2 starts at image 40.
  CHECK(c10.train.labels[0] == 0);
  CHECK(c10.train.labels[13] == 3);
  CHECK(c10.train.labels[40 + 7] == 7);
  // Planar red, green, blue: the first pixel's channels are the record's bytes 1, 1025, 2049.
  const std::vector<uint8_t> rgb = testing::ClassImage(3, 32, 32, 1000 + 13);
  CHECK(c10.train.pixels[13 * 3072 + 0] == rgb[0]);
  CHECK(c10.train.pixels[13 * 3072 + 1024] == rgb[1]);
  CHECK(c10.train.pixels[13 * 3072 + 2048] == rgb[2]);
  REQUIRE(c10.train.norm.mean.size() == 3);
  CHECK(c10.train.norm.mean[0] > 0.1);
  CHECK(c10.train.norm.std[0] > 0.01);
  CHECK(c10.test.norm == c10.train.norm);
  CHECK(DatasetId(c10) == "cifar10@" + c10.content_hash.substr(0, 16));

  const LoadedDataset c100 = LoadDataset("cifar100:" + (dir / "c100"));
  CHECK(c100.classes == 100);
  CHECK(c100.train.count == 200);
  CHECK(c100.train.labels[57] == 57);  // the fine label, not the coarse one (11)
  CHECK(DatasetId(c100).rfind("cifar100@", 0) == 0);

  const TrainingData data = TrainingData::Load("cifar10:" + (dir / "c10"));
  CHECK(data.classes() == 10);
  CHECK(data.channels() == 3);
  CHECK(data.id() == DatasetId(c10));
  const ImageSelection s = data.Select(50, 0, 0);
  CHECK(s.train.size() == 150);
  CHECK(s.val.size() == 50);
  CHECK(s.test.size() == 30);
}

TEST_CASE("malformed CIFAR files exit 2 naming the file") {
  const TempDir dir("cifar_bad");
  testing::WriteCifar(dir / "c10", false, 20, 10);
  SECTION("a truncated record file") {
    Truncate(dir / "c10/data_batch_3.bin", 20 * 3073 - 100);
    CHECK_THROWS_AS(LoadDataset("cifar10:" + (dir / "c10")), InputError);
    CHECK_THROWS_WITH(LoadDataset("cifar10:" + (dir / "c10")),
                      Contains("data_batch_3.bin: 61,360 bytes is not a whole number of 3,073-byte "
                               "CIFAR-10 records (truncated?)"));
  }
  SECTION("a missing batch") {
    fs::remove(dir / "c10/test_batch.bin");
    CHECK_THROWS_WITH(LoadDataset("cifar10:" + (dir / "c10")), Contains("test_batch.bin"));
  }
  SECTION("CIFAR-100 records read as CIFAR-10") {
    testing::WriteCifarFile(dir / "c10/data_batch_1.bin", 10, 100, true, 5);
    CHECK_THROWS_WITH(LoadDataset("cifar10:" + (dir / "c10")),
                      Contains("fits CIFAR-100's 3,074-byte records: use cifar100:DIR"));
  }
  SECTION("a label out of range") {
    std::fstream f(dir / "c10/data_batch_2.bin", std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(3073 * 4);
    f.put(static_cast<char>(12));
    f.close();
    CHECK_THROWS_WITH(LoadDataset("cifar10:" + (dir / "c10")),
                      Contains("data_batch_2.bin: record 4 has label 12, not a class 0..9"));
  }
  SECTION("not a directory") {
    CHECK_THROWS_WITH(LoadDataset("cifar10:" + (dir / "nowhere")), Contains("not a directory"));
  }
}

TEST_CASE("an image folder: labels, sizes, the tensor cache reused and invalidated") {
  const TempDir dir("folder");
  testing::WriteImageFolder(dir / "imgs", 4, 12, 5);
  DatasetLoadOptions o;
  o.image_size = 24;
  o.cache_dir = dir / "cache";
  o.threads = 2;
  const LoadedDataset first = LoadDataset("imagefolder:" + (dir / "imgs"), o);
  CHECK_FALSE(first.cache_hit);
  CHECK(first.classes == 4);
  CHECK(first.class_names ==
        std::vector<std::string>{"class_00", "class_01", "class_02", "class_03"});
  CHECK(first.train.count == 48);
  REQUIRE(first.val.has_value());
  CHECK(first.val->count == 20);
  CHECK(first.test.count == 20);  // no test/: the validation images
  CHECK(first.train.channels == 3);
  CHECK(first.train.rows == 24);
  CHECK(first.train.pixels.size() == 48u * 3 * 24 * 24);
  // Sorted classes, then sorted files: 12 images of class 0, then class 1, ...
  CHECK(first.train.labels[0] == 0);
  CHECK(first.train.labels[11] == 0);
  CHECK(first.train.labels[12] == 1);
  CHECK(first.train.labels[47] == 3);
  // Each class's colour survives decoding and resizing (JPEG and PNG alike, within the noise).
  for (int64_t i = 0; i < first.train.count; ++i) {
    const int label = first.train.labels[static_cast<size_t>(i)];
    const std::vector<uint8_t> ref = testing::ClassImage(label, 1, 1, 0);
    const uint8_t* img = first.train.pixels.data() + i * first.train.image_bytes();
    double red = 0;
    for (int p = 0; p < 24 * 24; ++p) red += img[p];
    CHECK(std::abs(red / (24 * 24) - (40 + (label * 97) % 176)) < 8);
    (void)ref;
  }
  CHECK(fs::exists(first.cache_file));
  CHECK(fs::path(first.cache_file).parent_path() == fs::path(dir / "cache"));

  // Loaded again: from the tensor file, the same bytes.
  const LoadedDataset again = LoadDataset("imagefolder:" + (dir / "imgs"), o);
  CHECK(again.cache_hit);
  CHECK(again.cache_file == first.cache_file);
  CHECK(again.content_hash == first.content_hash);
  CHECK(again.train.pixels == first.train.pixels);
  CHECK(again.val->labels == first.val->labels);
  CHECK(again.train.norm == first.train.norm);

  // Another size: another file.
  DatasetLoadOptions o16 = o;
  o16.image_size = 16;
  const LoadedDataset small = LoadDataset("imagefolder:" + (dir / "imgs"), o16);
  CHECK_FALSE(small.cache_hit);
  CHECK(small.cache_file != first.cache_file);

  // A changed source image: a new key, decoded again, another content hash.
  testing::WriteJpeg(dir / "imgs/train/class_02/img_0.jpg", testing::ClassImage(3, 50, 50, 77), 50,
                     50);
  const LoadedDataset changed = LoadDataset("imagefolder:" + (dir / "imgs"), o);
  CHECK_FALSE(changed.cache_hit);
  CHECK(changed.cache_file != first.cache_file);
  CHECK(changed.content_hash != first.content_hash);

  // A damaged tensor file is decoded again and rewritten, not trusted.
  Truncate(changed.cache_file, fs::file_size(changed.cache_file) - 10);
  std::vector<std::string> lines;
  DatasetLoadOptions noisy = o;
  noisy.progress = [&](const std::string& line) { lines.push_back(line); };
  const LoadedDataset repaired = LoadDataset("imagefolder:" + (dir / "imgs"), noisy);
  CHECK_FALSE(repaired.cache_hit);
  CHECK(repaired.content_hash == changed.content_hash);
  REQUIRE_FALSE(lines.empty());
  CHECK_THAT(lines.front(), Contains("damaged"));
  CHECK(LoadDataset("imagefolder:" + (dir / "imgs"), o).cache_hit);

  const TrainingData data = TrainingData::Load("imagefolder:" + (dir / "imgs"), o);
  CHECK(data.id() == "imagefolder-4@" + changed.content_hash.substr(0, 16));
  CHECK(data.separate_val());
  const ImageSelection s = data.Select(5000, 10, 7);
  CHECK(s.train.size() == 10);
  CHECK(s.val.size() == 7);
  CHECK(s.test.size() == 7);
}

TEST_CASE("an image folder's test/ split") {
  const TempDir dir("folder_test");
  testing::WriteImageFolder(dir / "imgs", 3, 4, 2);
  fs::create_directories(dir / "imgs/test/class_01");
  testing::WritePng(dir / "imgs/test/class_01/a.png", testing::ClassImage(1, 30, 30, 3), 30, 30);
  DatasetLoadOptions o;
  o.image_size = 16;
  o.cache_dir = dir / "cache";
  const LoadedDataset d = LoadDataset("imagefolder:" + (dir / "imgs"), o);
  CHECK(d.test.count == 1);
  CHECK(d.test.labels[0] == 1);
  CHECK(d.val->count == 6);
}

// The layout of most exported data sets (and of CIFAR-10 as JPEG files): train/ and test/, no
// val/. The validation images are carved from train/ by class, seeded, never from test/.
TEST_CASE("an image folder with train/ and test/ only: the validation images carved by class") {
  const TempDir dir("folder_carved");
  // 3 classes of 10, 6 and 4 training images; test/ from the fixture's second split.
  testing::WriteImageFolder(dir / "imgs", 3, 4, 3);
  fs::rename(dir / "imgs/val", dir / "imgs/test");
  for (int i = 4; i < 10; ++i) {
    testing::WritePng(dir / ("imgs/train/class_00/extra_" + std::to_string(i) + ".png"),
                      testing::ClassImage(0, 20, 20, static_cast<uint32_t>(i)), 20, 20);
  }
  for (int i = 4; i < 6; ++i) {
    testing::WritePng(dir / ("imgs/train/class_01/extra_" + std::to_string(i) + ".png"),
                      testing::ClassImage(1, 20, 20, static_cast<uint32_t>(i)), 20, 20);
  }
  DatasetLoadOptions o;
  o.image_size = 16;
  o.cache_dir = dir / "cache";
  const std::string spec = "imagefolder:" + (dir / "imgs");
  const LoadedDataset d = LoadDataset(spec, o);
  CHECK(d.val_carved);
  CHECK_FALSE(d.val.has_value());
  CHECK(d.train.count == 20);
  CHECK(d.test.count == 9);
  // The tensor cache keeps the layout.
  const LoadedDataset again = LoadDataset(spec, o);
  CHECK(again.cache_hit);
  CHECK(again.val_carved);
  CHECK_FALSE(again.val.has_value());
  CHECK(again.content_hash == d.content_hash);

  const TrainingData data = TrainingData::Load(spec, o);
  CHECK_FALSE(data.separate_val());
  // 5 validation images from 10 / 6 / 4 per class: 2.5 / 1.5 / 1.0 -> 3 / 1 / 1 or 2 / 2 / 1 by
  // largest remainder (ties in class order), never from test/, every class keeping training images.
  const ImageSelection s = data.Select(5, 0, 0);
  CHECK(s.val.size() == 5);
  CHECK(s.train.size() == 15);
  CHECK(s.test.size() == 9);
  std::vector<int> per_class(3, 0);
  for (const int64_t i : s.val) ++per_class[data.train().labels[static_cast<size_t>(i)]];
  CHECK(per_class[0] >= 2);
  CHECK(per_class[0] <= 3);
  CHECK(per_class[1] >= 1);
  CHECK(per_class[2] == 1);
  std::vector<int64_t> all = s.train;
  all.insert(all.end(), s.val.begin(), s.val.end());
  std::sort(all.begin(), all.end());
  CHECK(std::adjacent_find(all.begin(), all.end()) == all.end());  // disjoint, all of train/
  CHECK(all.size() == 20);
  // Deterministic: the same selection again, and from a fresh load.
  CHECK(data.Select(5, 0, 0).val == s.val);
  CHECK(TrainingData::Load(spec, o).Select(5, 0, 0).val == s.val);
  // A limit on the evaluation images takes a shuffled subset of test/, not its first class.
  const ImageSelection few = data.Select(5, 0, 4);
  REQUIRE(few.test.size() == 4);
  std::set<int> test_classes;
  for (const int64_t i : few.test) test_classes.insert(data.test().labels[static_cast<size_t>(i)]);
  CHECK(test_classes.size() >= 2);
  // More validation images than train/ can give.
  CHECK_THROWS_WITH(data.Select(20, 0, 0), Contains("validation images must be in 1..19"));
  CHECK_THROWS_WITH(data.Select(18, 0, 0), Contains("leaving every class a training image"));
}

TEST_CASE("malformed image folders exit 2 naming the folder or file") {
  const TempDir dir("folder_bad");
  testing::WriteImageFolder(dir / "imgs", 3, 4, 2);
  DatasetLoadOptions o;
  o.image_size = 16;
  o.cache_dir = dir / "cache";
  const std::string spec = "imagefolder:" + (dir / "imgs");
  SECTION("a class folder with no images") {
    fs::create_directories(dir / "imgs/train/class_09");
    std::ofstream(dir / "imgs/train/class_09/notes.txt") << "x";
    CHECK_THROWS_AS(LoadDataset(spec, o), InputError);
    CHECK_THROWS_WITH(LoadDataset(spec, o),
                      Contains("imgs/train/class_09: class folder with no images"));
  }
  SECTION("a corrupt JPEG") {
    std::string bytes = ReadFile(dir / "imgs/train/class_01/img_0.jpg");
    for (size_t i = bytes.size() / 3; i < bytes.size(); ++i) bytes[i] = static_cast<char>(i * 31);
    std::ofstream(dir / "imgs/train/class_01/img_0.jpg", std::ios::binary) << bytes;
    CHECK_THROWS_WITH(LoadDataset(spec, o), Contains("class_01/img_0.jpg: corrupt JPEG"));
    CHECK_FALSE((fs::exists(dir / "cache") && !fs::is_empty(dir / "cache")));
  }
  SECTION("a truncated JPEG") {
    Truncate(dir / "imgs/val/class_02/img_0.jpg", 300);
    CHECK_THROWS_WITH(LoadDataset(spec, o), Contains("val/class_02/img_0.jpg"));
  }
  SECTION("a truncated PNG") {
    Truncate(dir / "imgs/train/class_00/img_2.png", 100);
    CHECK_THROWS_WITH(LoadDataset(spec, o), Contains("class_00/img_2.png"));
  }
  SECTION("a file named .jpg that is neither") {
    std::ofstream(dir / "imgs/train/class_00/fake.jpg") << "hello";
    CHECK_THROWS_WITH(LoadDataset(spec, o), Contains("fake.jpg: neither a JPEG nor a PNG"));
  }
  SECTION("one class") {
    fs::remove_all(dir / "imgs/train/class_01");
    fs::remove_all(dir / "imgs/train/class_02");
    CHECK_THROWS_WITH(LoadDataset(spec, o),
                      Contains("1 class folder(s); classification needs at least 2"));
    CHECK_THROWS_WITH(PeekDataset(spec), Contains("needs at least 2"));
  }
  SECTION("a validation class the training split lacks") {
    fs::create_directories(dir / "imgs/val/zebra");
    testing::WritePng(dir / "imgs/val/zebra/z.png", testing::ClassImage(0, 20, 20, 1), 20, 20);
    CHECK_THROWS_WITH(LoadDataset(spec, o),
                      Contains("class 'zebra' is not a class of the training"));
  }
  SECTION("neither val/ nor test/") {
    fs::remove_all(dir / "imgs/val");
    CHECK_THROWS_WITH(LoadDataset(spec, o), Contains("imgs: neither val/ nor test/"));
    CHECK_FALSE((fs::exists(dir / "cache") && !fs::is_empty(dir / "cache")));
  }
  SECTION("test/ but no train/") {
    fs::rename(dir / "imgs/val", dir / "imgs/test");
    fs::remove_all(dir / "imgs/train");
    CHECK_THROWS_WITH(LoadDataset(spec, o), Contains("imgs/train: missing"));
  }
  SECTION("a test class that train/ lacks, carved layout") {
    fs::rename(dir / "imgs/val", dir / "imgs/test");
    fs::create_directories(dir / "imgs/test/zebra");
    testing::WritePng(dir / "imgs/test/zebra/z.png", testing::ClassImage(0, 20, 20, 1), 20, 20);
    CHECK_THROWS_WITH(LoadDataset(spec, o),
                      Contains("class 'zebra' is not a class of the training"));
  }
  SECTION("an image size out of range") {
    o.image_size = 4;
    CHECK_THROWS_WITH(LoadDataset(spec, o), Contains("image size 4 must be in 8..1024"));
  }
}

TEST_CASE("mixed image sizes and grey JPEGs decode to the stored size") {
  // One 8 x 300 strip, one 500 x 20 strip (centred squares of 8 and 20 px, grown), one large.
  const std::vector<uint8_t> strip = testing::ClassImage(2, 8, 300, 1);
  const std::vector<uint8_t> wide = testing::ClassImage(2, 500, 20, 2);
  const std::vector<uint8_t> large = testing::ClassImage(2, 640, 480, 3);
  const TempDir dir("sizes");
  fs::create_directories(dir.path);
  testing::WriteJpeg(dir / "a.jpg", strip, 8, 300);
  testing::WritePng(dir / "b.png", wide, 500, 20);
  testing::WriteJpeg(dir / "c.jpg", large, 640, 480);
  for (const char* name : {"a.jpg", "b.png", "c.jpg"}) {
    const std::vector<uint8_t> img = DecodeImage(name, ReadFile(dir / name), 32);
    REQUIRE(img.size() == 3u * 32 * 32);
    double red = 0;
    for (int p = 0; p < 32 * 32; ++p) red += img[static_cast<size_t>(p)];
    CHECK(std::abs(red / (32 * 32) - (40 + (2 * 97) % 176)) < 10);
  }
  // A greyscale JPEG comes out as three equal channels.
  tjhandle h = tjInitCompress();
  std::vector<uint8_t> grey(40 * 40, 128);
  unsigned char* buf = nullptr;
  unsigned long size = 0;
  REQUIRE(tjCompress2(h, grey.data(), 40, 0, 40, TJPF_GRAY, &buf, &size, TJSAMP_GRAY, 95, 0) == 0);
  const std::string bytes(reinterpret_cast<const char*>(buf), size);
  tjFree(buf);
  tjDestroy(h);
  const std::vector<uint8_t> img = DecodeImage("grey.jpg", bytes, 16);
  CHECK(img[0] == img[256]);
  CHECK(img[0] == img[512]);
  CHECK(std::abs(int{img[0]} - 128) <= 2);
}

}  // namespace
}  // namespace dcnas::models::libtorch
