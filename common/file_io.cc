#include "common/file_io.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <vector>

#include "common/errors.h"

namespace dcnas {

std::string ReadFile(const std::string& path, size_t max_bytes) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) {
    throw InputError(path + ": is a directory, not a file");
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(path + ": cannot open file: " + std::strerror(errno));
  std::string out;
  std::vector<char> buffer(size_t{1} << 16);
  while (in) {
    in.read(buffer.data(), static_cast<std::streamsize>(buffer.size()));
    out.append(buffer.data(), static_cast<size_t>(in.gcount()));
    if (out.size() > max_bytes) {
      throw InputError(path + ": larger than " + std::to_string(max_bytes >> 20) +
                       " MiB, the most dcnas reads from such a file");
    }
  }
  if (in.bad()) throw InputError(path + ": read error: " + std::strerror(errno));
  return out;
}

void WriteFileAtomic(const std::string& path, const std::string& content) {
  const std::filesystem::path target(path);
  const std::filesystem::path dir =
      target.has_parent_path() ? target.parent_path() : std::filesystem::path(".");
  std::error_code ec;
  if (!std::filesystem::exists(dir, ec)) std::filesystem::create_directories(dir, ec);
  const std::string tmp =
      (dir / ("." + target.filename().string() + ".tmp." + std::to_string(::getpid()))).string();
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) throw InputError(path + ": cannot write file: " + std::strerror(errno));
    out << content;
    out.flush();
    if (!out) {
      std::remove(tmp.c_str());
      throw InputError(path + ": write failed: " + std::strerror(errno));
    }
  }
  SyncPath(tmp);  // the content reaches the disk before the name does
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    const std::string reason = std::strerror(errno);
    std::remove(tmp.c_str());
    throw InputError(path + ": cannot rename temporary file into place: " + reason);
  }
}

void SyncPath(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) throw InputError(path + ": cannot open to sync: " + std::strerror(errno));
  const bool ok = ::fsync(fd) == 0;
  ::close(fd);
  if (!ok) throw InputError(path + ": fsync failed: " + std::strerror(errno));
}

void AppendLineSynced(const std::string& path, const std::string& line) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (fd < 0) throw InputError(path + ": cannot open for appending: " + std::strerror(errno));
  const std::string text = line + "\n";
  const bool ok = ::write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size()) &&
                  ::fsync(fd) == 0;
  ::close(fd);
  if (!ok) throw InputError(path + ": write failed: " + std::strerror(errno));
}

}  // namespace dcnas
