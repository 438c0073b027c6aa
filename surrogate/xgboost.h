// The one place dcnas talks to XGBoost's C API: a dense matrix view, and RAII wrappers over
// DMatrixHandle and BoosterHandle that turn every non-zero return code into an XgboostError
// carrying XGBGetLastError().
//
// Thread safety: a Booster serialises its own calls with an internal mutex, because XGBoost's
// prediction output buffer belongs to the booster (one booster must never predict from two threads
// at once). Concurrent Predict calls on one Booster are therefore safe but run one after the
// other; give each thread its own Booster (or Ensemble) for parallel prediction. `nthread` is a
// per-booster parameter (default 1, see RegressorParams), never a process-wide setting.
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <memory>
#include <mutex>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace dcnas::surrogate {

// A failure reported by XGBoost itself (the message starts with the C API call that failed).
class XgboostError : public std::runtime_error {
 public:
  explicit XgboostError(const std::string& what) : std::runtime_error(what) {}
};

// A dense row-major float matrix owned by someone else. NaN marks a missing value.
struct MatrixView {
  const float* data = nullptr;
  std::size_t rows = 0;
  std::size_t cols = 0;

  const float* Row(std::size_t i) const { return data + i * cols; }
};

// A dense row-major float matrix that owns its values.
struct Matrix {
  std::vector<float> values;
  std::size_t rows = 0;
  std::size_t cols = 0;

  Matrix() = default;
  Matrix(std::size_t num_rows, std::size_t num_cols)
      : values(num_rows * num_cols, 0.0f), rows(num_rows), cols(num_cols) {}
  MatrixView view() const { return {values.data(), rows, cols}; }
  float& at(std::size_t r, std::size_t c) { return values[r * cols + c]; }
  float at(std::size_t r, std::size_t c) const { return values[r * cols + c]; }
};

// Features with one label per row (the label span has `x.rows` entries).
struct LabeledView {
  MatrixView x;
  std::span<const float> y;
};

// Copies the given rows (in that order, repeats allowed) of `m`.
Matrix SelectRows(MatrixView m, std::span<const std::size_t> rows);
std::vector<float> SelectValues(std::span<const float> v, std::span<const std::size_t> rows);

// Model encodings XGBoost can write. The deprecated binary format is deliberately absent.
enum class ModelFormat { kJson, kUbj };

// ".json" -> kJson, ".ubj" -> kUbj; any other extension throws InputError naming the path (XGBoost
// would silently fall back to its deprecated binary format).
ModelFormat ModelFormatFromPath(const std::string& path);

// XGBoost's training matrix: features copied out of a MatrixView, plus optional labels.
class DMatrix {
 public:
  DMatrix(MatrixView x, std::span<const float> labels, int nthread = 1);
  ~DMatrix();
  DMatrix(DMatrix&& other) noexcept;
  DMatrix& operator=(DMatrix&& other) noexcept;
  DMatrix(const DMatrix&) = delete;
  DMatrix& operator=(const DMatrix&) = delete;

  void* handle() const { return handle_; }
  std::size_t rows() const { return rows_; }
  std::size_t cols() const { return cols_; }

 private:
  void* handle_ = nullptr;
  std::size_t rows_ = 0;
  std::size_t cols_ = 0;
};

class Booster {
 public:
  // A fresh booster whose prediction cache covers `cache` (the training and evaluation matrices).
  explicit Booster(std::span<const DMatrix* const> cache = {});
  ~Booster();
  Booster(Booster&& other) noexcept;
  Booster& operator=(Booster&& other) noexcept;
  Booster(const Booster&) = delete;
  Booster& operator=(const Booster&) = delete;

  // A booster read from an XGBoost JSON or UBJSON model held in memory.
  static Booster FromBuffer(std::string_view bytes);
  // A booster read from a .json or .ubj model file (other extensions: InputError).
  static Booster Load(const std::string& path);

  void SetParam(const std::string& name, const std::string& value);
  void SetAttr(const std::string& key, const std::string& value);
  // The attribute's value, or an empty string when it is not set.
  std::string GetAttr(const std::string& key) const;

  // One boosting round on `train`.
  void UpdateOneIter(int iteration, const DMatrix& train);
  // XGBoost's evaluation line for `iteration`, e.g. "[12]\tvalid-rmse:0.123".
  std::string EvalOneIter(int iteration, std::span<const DMatrix* const> sets,
                          std::span<const std::string> names);

  int BoostedRounds() const;
  std::size_t NumFeatures() const;
  // A new booster holding rounds [begin, end) of this one.
  Booster Slice(int begin, int end) const;

  // Predicts one value per row of `x` into `out` (x.rows entries) with in-place prediction.
  // `iteration_end` = 0 uses every round; otherwise rounds [0, iteration_end).
  void Predict(MatrixView x, std::span<float> out, int iteration_end = 0) const;

  std::string SaveToBuffer(ModelFormat format) const;
  // Writes the model atomically; the format follows the extension (.json or .ubj only).
  void Save(const std::string& path) const;

  void* handle() const { return handle_; }

 private:
  struct AdoptTag {};
  Booster(AdoptTag, void* handle);

  void* handle_ = nullptr;
  std::unique_ptr<std::mutex> mutex_ = std::make_unique<std::mutex>();
};

}  // namespace dcnas::surrogate
