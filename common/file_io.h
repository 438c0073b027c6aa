// File helpers: whole-file reads with clear errors, and atomic writes (write to a temporary file
// in the same directory, then rename), so an interrupted run never leaves a half-written output.
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace dcnas {

// Input files are read whole; none that dcnas reads is near this size.
inline constexpr size_t kMaxInputFileBytes = size_t{1} << 30;  // 1 GiB

// Reads a whole file; throws InputError naming the path if it cannot be opened, is a directory,
// fails to read, or grows past `max_bytes` (a device such as /dev/zero, or the wrong file).
std::string ReadFile(const std::string& path, size_t max_bytes = kMaxInputFileBytes);

// Flushes a file or directory to disk (fsync); throws InputError naming the path on failure.
void SyncPath(const std::string& path);

// Writes `content` to `path` atomically: a temporary file in the same directory, synced, then
// renamed over `path`. Throws InputError if the directory is not writable.
void WriteFileAtomic(const std::string& path, const std::string& content);

// Writes several files as one set, the last one being the file a reader trusts (a calibrated
// profile beside its chart and residuals): every file goes to a synced temporary first; then a
// marker "<last>.incomplete" listing the set is written, the files are renamed into place in
// order, the last one last, and the marker is removed. A kill leaves the old set, or the new set
// complete, or the marker naming a set partly replaced (IncompleteSetMarker finds it).
void WriteFileSet(const std::vector<std::pair<std::string, std::string>>& files);

// The marker WriteFileSet leaves beside `path` when a set that ends in it was cut short, or ""
// when there is none.
std::string IncompleteSetMarker(const std::string& path);

// Appends `line` and a newline to `path` (created if missing) in one write, then fsyncs, so a
// journal keeps every line it reported written; a kill mid-write leaves at most a torn last line.
// Throws InputError naming the path on failure.
void AppendLineSynced(const std::string& path, const std::string& line);

}  // namespace dcnas
