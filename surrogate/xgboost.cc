#include "surrogate/xgboost.h"

#include <xgboost/c_api.h>

#include <cctype>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <utility>

#include "common/errors.h"
#include "common/file_io.h"

namespace dcnas::surrogate {
namespace {

// XGBoost's message without the native stack trace it appends.
void Check(int rc, const char* call) {
  if (rc == 0) return;
  std::string message = XGBGetLastError();
  const auto trace = message.find("\nStack trace:");
  if (trace != std::string::npos) message.resize(trace);
  while (!message.empty() && std::isspace(static_cast<unsigned char>(message.back()))) {
    message.pop_back();
  }
  throw XgboostError(std::string(call) + ": " + message);
}

std::string ArrayInterface(MatrixView x) {
  return "{\"data\":[" + std::to_string(reinterpret_cast<std::uintptr_t>(x.data)) +
         ",true],\"shape\":[" + std::to_string(x.rows) + "," + std::to_string(x.cols) +
         R"(],"typestr":"<f4","version":3})";
}

}  // namespace

Matrix SelectRows(MatrixView m, std::span<const std::size_t> rows) {
  Matrix out(rows.size(), m.cols);
  for (std::size_t i = 0; i < rows.size(); ++i) {
    if (rows[i] >= m.rows) {
      throw InternalError("SelectRows: row " + std::to_string(rows[i]) + " of " +
                          std::to_string(m.rows));
    }
    std::memcpy(out.values.data() + i * m.cols, m.Row(rows[i]), m.cols * sizeof(float));
  }
  return out;
}

std::vector<float> SelectValues(std::span<const float> v, std::span<const std::size_t> rows) {
  std::vector<float> out;
  out.reserve(rows.size());
  for (std::size_t r : rows) {
    if (r >= v.size()) {
      throw InternalError("SelectValues: index " + std::to_string(r) + " of " +
                          std::to_string(v.size()));
    }
    out.push_back(v[r]);
  }
  return out;
}

ModelFormat ModelFormatFromPath(const std::string& path) {
  const std::string ext = std::filesystem::path(path).extension().string();
  if (ext == ".json") return ModelFormat::kJson;
  if (ext == ".ubj") return ModelFormat::kUbj;
  throw InputError(path + ": unsupported model file extension '" + ext +
                   "' (use .json or .ubj; XGBoost's deprecated binary format is refused)");
}

DMatrix::DMatrix(MatrixView x, std::span<const float> labels, int nthread)
    : rows_(x.rows), cols_(x.cols) {
  if (x.rows == 0 || x.cols == 0) {
    throw InputError("training matrix is empty (" + std::to_string(x.rows) + " rows, " +
                     std::to_string(x.cols) + " columns)");
  }
  if (!labels.empty() && labels.size() != x.rows) {
    throw InputError(std::to_string(labels.size()) + " labels for " + std::to_string(x.rows) +
                     " rows");
  }
  DMatrixHandle h = nullptr;
  Check(XGDMatrixCreateFromMat_omp(x.data, x.rows, x.cols, std::nanf(""), &h, nthread),
        "XGDMatrixCreateFromMat_omp");
  handle_ = h;
  if (!labels.empty()) {
    const int rc = XGDMatrixSetFloatInfo(handle_, "label", labels.data(), labels.size());
    if (rc != 0) {
      XGDMatrixFree(handle_);
      handle_ = nullptr;
      Check(rc, "XGDMatrixSetFloatInfo(label)");
    }
  }
}

DMatrix::~DMatrix() {
  if (handle_ != nullptr) XGDMatrixFree(handle_);
}

DMatrix::DMatrix(DMatrix&& other) noexcept
    : handle_(std::exchange(other.handle_, nullptr)), rows_(other.rows_), cols_(other.cols_) {}

DMatrix& DMatrix::operator=(DMatrix&& other) noexcept {
  if (this != &other) {
    if (handle_ != nullptr) XGDMatrixFree(handle_);
    handle_ = std::exchange(other.handle_, nullptr);
    rows_ = other.rows_;
    cols_ = other.cols_;
  }
  return *this;
}

Booster::Booster(std::span<const DMatrix* const> cache) {
  std::vector<DMatrixHandle> handles;
  for (const DMatrix* d : cache) handles.push_back(d->handle());
  BoosterHandle h = nullptr;
  Check(XGBoosterCreate(handles.data(), handles.size(), &h), "XGBoosterCreate");
  handle_ = h;
}

Booster::Booster(AdoptTag, void* handle) : handle_(handle) {}

Booster::~Booster() {
  if (handle_ != nullptr) XGBoosterFree(handle_);
}

Booster::Booster(Booster&& other) noexcept
    : handle_(std::exchange(other.handle_, nullptr)), mutex_(std::move(other.mutex_)) {
  other.mutex_ = std::make_unique<std::mutex>();
}

Booster& Booster::operator=(Booster&& other) noexcept {
  if (this != &other) {
    if (handle_ != nullptr) XGBoosterFree(handle_);
    handle_ = std::exchange(other.handle_, nullptr);
    std::swap(mutex_, other.mutex_);
  }
  return *this;
}

Booster Booster::FromBuffer(std::string_view bytes) {
  Booster b;
  Check(XGBoosterLoadModelFromBuffer(b.handle_, bytes.data(), bytes.size()),
        "XGBoosterLoadModelFromBuffer");
  return b;
}

Booster Booster::Load(const std::string& path) {
  ModelFormatFromPath(path);
  const std::string bytes = ReadFile(path);
  try {
    return FromBuffer(bytes);
  } catch (const XgboostError& e) {
    throw InputError(path + ": not a readable XGBoost model: " + e.what());
  }
}

void Booster::SetParam(const std::string& name, const std::string& value) {
  std::lock_guard lock(*mutex_);
  Check(XGBoosterSetParam(handle_, name.c_str(), value.c_str()), "XGBoosterSetParam");
}

void Booster::SetAttr(const std::string& key, const std::string& value) {
  std::lock_guard lock(*mutex_);
  Check(XGBoosterSetAttr(handle_, key.c_str(), value.c_str()), "XGBoosterSetAttr");
}

std::string Booster::GetAttr(const std::string& key) const {
  std::lock_guard lock(*mutex_);
  const char* out = nullptr;
  int success = 0;
  Check(XGBoosterGetAttr(handle_, key.c_str(), &out, &success), "XGBoosterGetAttr");
  return success != 0 && out != nullptr ? std::string(out) : std::string();
}

void Booster::UpdateOneIter(int iteration, const DMatrix& train) {
  std::lock_guard lock(*mutex_);
  Check(XGBoosterUpdateOneIter(handle_, iteration, train.handle()), "XGBoosterUpdateOneIter");
}

std::string Booster::EvalOneIter(int iteration, std::span<const DMatrix* const> sets,
                                 std::span<const std::string> names) {
  if (sets.size() != names.size()) throw InternalError("EvalOneIter: sets and names differ");
  std::vector<DMatrixHandle> handles;
  std::vector<const char*> cnames;
  for (std::size_t i = 0; i < sets.size(); ++i) {
    handles.push_back(sets[i]->handle());
    cnames.push_back(names[i].c_str());
  }
  std::lock_guard lock(*mutex_);
  const char* out = nullptr;
  Check(
      XGBoosterEvalOneIter(handle_, iteration, handles.data(), cnames.data(), handles.size(), &out),
      "XGBoosterEvalOneIter");
  return out != nullptr ? std::string(out) : std::string();
}

int Booster::BoostedRounds() const {
  std::lock_guard lock(*mutex_);
  int out = 0;
  Check(XGBoosterBoostedRounds(handle_, &out), "XGBoosterBoostedRounds");
  return out;
}

std::size_t Booster::NumFeatures() const {
  std::lock_guard lock(*mutex_);
  bst_ulong out = 0;
  Check(XGBoosterGetNumFeature(handle_, &out), "XGBoosterGetNumFeature");
  return static_cast<std::size_t>(out);
}

Booster Booster::Slice(int begin, int end) const {
  std::lock_guard lock(*mutex_);
  BoosterHandle out = nullptr;
  Check(XGBoosterSlice(handle_, begin, end, 1, &out), "XGBoosterSlice");
  return Booster(AdoptTag{}, out);
}

void Booster::Predict(MatrixView x, std::span<float> out, int iteration_end) const {
  if (out.size() != x.rows) {
    throw InternalError("Booster::Predict: output has " + std::to_string(out.size()) +
                        " entries for " + std::to_string(x.rows) + " rows");
  }
  if (x.rows == 0) return;
  const std::string values = ArrayInterface(x);
  const std::string config = R"({"type":0,"training":false,"iteration_begin":0,"iteration_end":)" +
                             std::to_string(iteration_end) +
                             R"(,"strict_shape":false,"cache_id":0,"missing":NaN})";
  std::lock_guard lock(*mutex_);
  const bst_ulong* shape = nullptr;
  bst_ulong dim = 0;
  const float* result = nullptr;
  Check(XGBoosterPredictFromDense(handle_, values.c_str(), config.c_str(), nullptr, &shape, &dim,
                                  &result),
        "XGBoosterPredictFromDense");
  bst_ulong total = 1;
  for (bst_ulong i = 0; i < dim; ++i) total *= shape[i];
  if (total != x.rows) {
    throw InternalError("XGBoosterPredictFromDense returned " + std::to_string(total) +
                        " values for " + std::to_string(x.rows) + " rows");
  }
  std::memcpy(out.data(), result, x.rows * sizeof(float));
}

std::string Booster::SaveToBuffer(ModelFormat format) const {
  const char* config =
      format == ModelFormat::kJson ? R"({"format":"json"})" : R"({"format":"ubj"})";
  std::lock_guard lock(*mutex_);
  bst_ulong len = 0;
  const char* data = nullptr;
  Check(XGBoosterSaveModelToBuffer(handle_, config, &len, &data), "XGBoosterSaveModelToBuffer");
  return {data, len};
}

void Booster::Save(const std::string& path) const {
  WriteFileAtomic(path, SaveToBuffer(ModelFormatFromPath(path)));
}

}  // namespace dcnas::surrogate
