#include "common/append_log.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

#include "common/errors.h"
#include "common/file_io.h"

namespace dcnas {
namespace {

namespace fs = std::filesystem;

int OpenForAppend(const std::string& path, int extra_flags) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_APPEND | O_CLOEXEC | extra_flags, 0644);
  if (fd < 0) {
    if (errno == EEXIST) throw InputError(path + ": exists; refusing to overwrite it");
    throw InputError(path + ": cannot open for appending: " + std::strerror(errno));
  }
  return fd;
}

void MakeParent(const std::string& path, const AppendLog::Options& options) {
  const fs::path parent = fs::path(path).parent_path();
  if (options.create_directories && !parent.empty()) fs::create_directories(parent);
}

}  // namespace

AppendLog::AppendLog(std::string path, int fd, Options options)
    : path_(std::move(path)), fd_(fd), options_(options) {}

AppendLog AppendLog::Open(const std::string& path, Options options) {
  AppendLog log(path, -1, options);
  std::error_code ec;
  if (!fs::exists(path, ec)) return log;
  const std::string text = ReadFile(path);
  const size_t last_eol = text.rfind('\n');
  log.complete_bytes_ = last_eol == std::string::npos ? 0 : last_eol + 1;
  log.torn_tail_ = text.substr(log.complete_bytes_);
  size_t start = 0;
  while (start < log.complete_bytes_) {
    const size_t eol = text.find('\n', start);
    log.lines_.push_back(text.substr(start, eol - start));
    start = eol + 1;
  }
  return log;
}

void AppendLog::EnsureOpen() {
  if (fd_ >= 0) return;
  if (!torn_tail_.empty()) fs::resize_file(path_, complete_bytes_);
  MakeParent(path_, options_);
  fd_ = OpenForAppend(path_, O_CREAT);
}

AppendLog AppendLog::Create(const std::string& path, Options options) {
  MakeParent(path, options);
  return {path, OpenForAppend(path, O_CREAT | O_EXCL), options};
}

AppendLog::AppendLog(AppendLog&& other) noexcept
    : path_(std::move(other.path_)),
      fd_(other.fd_),
      options_(other.options_),
      lines_(std::move(other.lines_)),
      torn_tail_(std::move(other.torn_tail_)),
      complete_bytes_(other.complete_bytes_),
      unsynced_(other.unsynced_),
      last_sync_(other.last_sync_) {
  other.fd_ = -1;
}

AppendLog::~AppendLog() {
  if (fd_ < 0) return;
  if (unsynced_) ::fsync(fd_);
  ::close(fd_);
}

void AppendLog::Append(std::string_view line) {
  if (line.find('\n') != std::string_view::npos) {
    throw InternalError(path_ + ": a log line must not contain a newline");
  }
  EnsureOpen();
  std::string text(line);
  text += '\n';
  if (::write(fd_, text.data(), text.size()) != static_cast<ssize_t>(text.size())) {
    throw InputError(path_ + ": write failed: " + std::strerror(errno));
  }
  unsynced_ = true;
  if (options_.sync_interval.count() == 0 ||
      std::chrono::steady_clock::now() - last_sync_ >= options_.sync_interval) {
    Sync();
  }
}

void AppendLog::Sync() {
  if (!unsynced_ || fd_ < 0) return;
  if (::fsync(fd_) != 0) throw InputError(path_ + ": fsync failed: " + std::strerror(errno));
  unsynced_ = false;
  last_sync_ = std::chrono::steady_clock::now();
}

}  // namespace dcnas
