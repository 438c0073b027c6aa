#include "common/file_io.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <vector>

#include "common/errors.h"
#include "common/kill_point.h"

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

namespace {

std::filesystem::path DirOf(const std::string& path) {
  const std::filesystem::path target(path);
  return target.has_parent_path() ? target.parent_path() : std::filesystem::path(".");
}

// Removes ".NAME.tmp.PID" files beside `path` left by a process that no longer runs (a kill
// between writing a temporary and renaming it).
void RemoveStaleTemporaries(const std::string& path) {
  const std::filesystem::path dir = DirOf(path);
  const std::string prefix = "." + std::filesystem::path(path).filename().string() + ".tmp.";
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator(dir, ec)) {
    const std::string name = e.path().filename().string();
    if (!name.starts_with(prefix)) continue;
    const std::string pid_text = name.substr(prefix.size());
    if (pid_text.empty() || pid_text.find_first_not_of("0123456789") != std::string::npos) continue;
    const long pid = std::strtol(pid_text.c_str(), nullptr, 10);
    if (pid == ::getpid() || ::kill(static_cast<pid_t>(pid), 0) == 0 || errno != ESRCH) continue;
    std::filesystem::remove(e.path(), ec);
  }
}

// Writes `content` to a synced temporary beside `path`; returns its name.
std::string WriteTemporary(const std::string& path, const std::string& content) {
  const std::filesystem::path dir = DirOf(path);
  std::error_code ec;
  if (!std::filesystem::exists(dir, ec)) std::filesystem::create_directories(dir, ec);
  RemoveStaleTemporaries(path);
  const std::string tmp = (dir / ("." + std::filesystem::path(path).filename().string() + ".tmp." +
                                  std::to_string(::getpid())))
                              .string();
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
  return tmp;
}

void RenameInto(const std::string& tmp, const std::string& path) {
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    const std::string reason = std::strerror(errno);
    std::remove(tmp.c_str());
    throw InputError(path + ": cannot rename temporary file into place: " + reason);
  }
}

}  // namespace

void WriteFileSet(const std::vector<std::pair<std::string, std::string>>& files) {
  if (files.empty()) return;
  std::vector<std::string> temporaries;
  try {
    for (const auto& [path, content] : files) temporaries.push_back(WriteTemporary(path, content));
  } catch (...) {
    for (const auto& t : temporaries) std::remove(t.c_str());
    throw;
  }
  const std::string& last = files.back().first;
  const std::string marker = last + ".incomplete";
  std::string listing = "an interrupted write of this set (rerun the command that writes it):\n";
  for (const auto& f : files) listing += f.first + "\n";
  WriteFileAtomic(marker, listing);
  SyncPath(DirOf(marker).string());
  for (size_t i = 0; i < files.size(); ++i) {
    RenameInto(temporaries[i], files[i].first);
    KillPoint("file-set.renamed");
  }
  for (const auto& f : files) SyncPath(DirOf(f.first).string());
  std::remove(marker.c_str());
  SyncPath(DirOf(marker).string());
}

std::string IncompleteSetMarker(const std::string& path) {
  const std::string marker = path + ".incomplete";
  std::error_code ec;
  return std::filesystem::exists(marker, ec) ? marker : "";
}

void WriteFileAtomic(const std::string& path, const std::string& content) {
  const std::string tmp = WriteTemporary(path, content);
  KillPoint("file.before-rename");
  RenameInto(tmp, path);
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
