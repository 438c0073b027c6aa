// The one append-only, line-oriented log of the project: the search journal, the finalists'
// journal, the LACS trained-result store and the accuracy CSV all sit on it.
//
// Each Append is one write() of the line and its '\n', so a killed process loses only the line
// it was writing; that torn last line (no '\n') is cut from the file when a reopened log appends
// its first line, so a resumed job never glues a new line to a torn one. Until then the file is
// not touched: a caller that refuses the lines it read (another file, another configuration)
// leaves it as it was.
// fsync() follows every line, or (group commit) at most `sync_interval` after the last one and on
// Sync() and destruction: an OS crash then loses at most that window.
#pragma once

#include <chrono>
#include <string>
#include <string_view>
#include <vector>

namespace dcnas {

class AppendLog {
 public:
  struct Options {
    // 0: fsync after every line; else at most this long after an unsynced line.
    std::chrono::milliseconds sync_interval{0};
    // Creates missing parent directories.
    bool create_directories = false;
  };

  // Reads `path` to continue it (a missing file is an empty log, created by the first Append).
  // The complete lines already there are in lines(); a torn last line is in torn_tail() and is
  // cut from the file before the first Append.
  static AppendLog Open(const std::string& path, Options options);
  static AppendLog Open(const std::string& path) { return Open(path, Options{}); }
  // Creates `path`; throws InputError when it exists (a log is never overwritten).
  static AppendLog Create(const std::string& path, Options options);

  AppendLog(AppendLog&& other) noexcept;
  AppendLog& operator=(AppendLog&&) = delete;
  AppendLog(const AppendLog&) = delete;
  AppendLog& operator=(const AppendLog&) = delete;
  ~AppendLog();

  // Appends `line` (which must not contain '\n') and '\n' with one write().
  void Append(std::string_view line);
  // fsync()s now if a line is unsynced.
  void Sync();

  const std::string& path() const { return path_; }
  // The complete lines found at Open (without their '\n'); line N of the file is lines()[N-1].
  const std::vector<std::string>& lines() const { return lines_; }
  // The bytes of a torn last line found by Open (empty: none).
  const std::string& torn_tail() const { return torn_tail_; }
  // "FILE:N: " for line N (1-based), for messages about a line of lines().
  std::string Where(size_t line) const { return path_ + ":" + std::to_string(line) + ": "; }

 private:
  AppendLog(std::string path, int fd, Options options);
  void EnsureOpen();  // cuts the torn tail, creates the file if needed, opens it for appending
  std::string path_;
  int fd_ = -1;
  Options options_;
  std::vector<std::string> lines_;
  std::string torn_tail_;
  size_t complete_bytes_ = 0;  // the file's size up to its last '\n' at Open
  bool unsynced_ = false;
  std::chrono::steady_clock::time_point last_sync_ = std::chrono::steady_clock::now();
};

}  // namespace dcnas
