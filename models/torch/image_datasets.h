// The datasets training reads, named by a spec "NAME[:PATH]" (no LibTorch headers here):
//
//   fashion-mnist[:DIR]  Debian's dataset-fashion-mnist (the default; fashion_mnist.h)
//   cifar10:DIR          the CIFAR-10 binary release: data_batch_1..5.bin, test_batch.bin,
//                        3,073-byte records (label, 1,024 red, 1,024 green, 1,024 blue bytes)
//   cifar100:DIR         the CIFAR-100 binary release: train.bin, test.bin, 3,074-byte records
//                        (coarse label, fine label, the same 3,072 bytes); the fine labels
//   imagefolder:DIR      DIR/train/<class>/*.{jpg,jpeg,png} and DIR/val/<class>/..., optionally
//                        DIR/test/<class>/...; or DIR/train and DIR/test alone, the validation
//                        images then carved from train/ by class (SelectImagesStratified), never
//                        from test/; JPEG decoded with libturbojpeg, PNG with libpng
//
// An image folder is decoded once: each image's centred square is resized (area averaging down,
// bilinear up) to the load's image size and the result is kept as a tensor file in the cache
// directory, keyed by the folder's listing (every file's path, size and modification time) and the
// size, so later loads read that file and never decode again; a changed folder gets a new key.
//
// Every load records a content hash (SHA-256 over the decoded images and labels of every split),
// which names the dataset in training recipes (DatasetId), so results of different data never mix.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "models/torch/fashion_mnist.h"

namespace dcnas::models::libtorch {

struct DatasetSpec {
  std::string name;  // fashion-mnist, cifar10, cifar100 or imagefolder
  std::string path;  // the directory ("" for fashion-mnist: its Debian directory)
};

// Reads "NAME[:PATH]". A bare directory (a path with '/' and no known NAME before a ':') is a
// Fashion-MNIST directory, the form of the older --data-dir option. Throws InputError naming the
// text and the valid forms for anything else, and for cifar10/cifar100/imagefolder without PATH.
DatasetSpec ParseDatasetSpec(const std::string& text);
// The valid forms, for --help and messages.
inline constexpr const char* kDatasetForms =
    "fashion-mnist[:DIR], cifar10:DIR, cifar100:DIR or imagefolder:DIR";

// The image size an image folder is stored at when a load names none.
inline constexpr int kDefaultImageFolderSize = 64;

// What a network trained on a dataset takes and predicts, found without loading it (an image
// folder's classes are its train/ subfolders). Throws InputError as LoadDataset would for a
// missing directory or fewer than two classes.
struct DatasetShape {
  int channels = 1;
  int classes = 10;
  int image_size = 28;  // native (an image folder: kDefaultImageFolderSize)
};
DatasetShape PeekDataset(const std::string& spec);

struct DatasetLoadOptions {
  // Image folders: the stored size in pixels (square); 0: kDefaultImageFolderSize. Ignored for the
  // other formats (their images have a fixed size; training resizes as needed).
  int image_size = 0;
  // Image folders: where the tensor file goes; "": $DCNAS_CACHE_DIR, else $XDG_CACHE_HOME/dcnas,
  // else $HOME/.cache/dcnas (created when missing).
  std::string cache_dir;
  // Decoding threads for image folders; 0: the machine's cores.
  int threads = 0;
  // Called with a line now and then while an image folder is decoded.
  std::function<void(const std::string&)> progress;
};

struct LoadedDataset {
  std::string name;  // the spec's NAME
  std::string path;  // the directory read
  int classes = 0;
  std::vector<std::string> class_names;  // image folders: the class folders, sorted
  ImageSet train;
  std::optional<ImageSet> val;  // image folders' val/; else drawn from `train` (SelectImages)
  ImageSet test;                // image folders without test/: a copy of val/
  // Image folders without val/: the validation images are carved from train/ by class
  // (SelectImagesStratified), and `val` is empty.
  bool val_carved = false;
  std::string content_hash;  // SHA-256 (hex) over every split's images and labels
  std::string cache_file;    // image folders: the tensor file read or written
  bool cache_hit = false;    // image folders: read from the tensor file, nothing decoded
};

// Loads a dataset. Throws InputError naming the file (and the record or image) for a missing or
// truncated file, a record file of the wrong layout, a label out of range, a class folder with no
// images, an image that does not decode, fewer than two classes, a val/ or test/ class that
// train/ lacks, or an image folder with neither val/ nor test/.
LoadedDataset LoadDataset(const std::string& spec, const DatasetLoadOptions& options = {});

// The CIFAR readers on their own: one record file (cifar100: 3,074-byte records, fine labels).
ImageSet ReadCifarFile(const std::string& path, bool cifar100);

// The name a dataset carries in recipes: "NAME@<first 16 hex digits of the content hash>", with
// NAME "imagefolder-<classes>" for image folders; Debian's Fashion-MNIST (its known content) is
// plain "fashion-mnist", as every row written before datasets had hashes reads.
std::string DatasetId(const LoadedDataset& data);
// The content hash of Debian 12's dataset-fashion-mnist (0.0~git20200523.55506a9-1).
inline constexpr const char* kDebianFashionMnistHash =
    "f7415e02d944544f52437e8e1356eef78520069db9c732f109016cc578ba82c4";

// Per-channel mean and standard deviation of x / 255 over a set's images.
PixelNorm ComputePixelNorm(const ImageSet& set);

// SHA-256 (hex) over the sets' pixels and labels, in order.
std::string ContentHash(const std::vector<const ImageSet*>& sets);

// An image file decoded to 8-bit RGB, its centred square resized to size x size, planar (CHW).
// Throws InputError naming `path` when it does not decode (a truncated or corrupt file counts:
// libjpeg's warnings are errors here).
std::vector<uint8_t> DecodeImage(const std::string& path, const std::string& bytes, int size);

}  // namespace dcnas::models::libtorch
