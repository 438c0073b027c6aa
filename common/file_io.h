// File helpers: whole-file reads with clear errors, and atomic writes (write to a temporary file
// in the same directory, then rename), so an interrupted run never leaves a half-written output.
#pragma once

#include <string>

namespace dcnas {

// Reads a whole file; throws InputError naming the path if it cannot be opened.
std::string ReadFile(const std::string& path);

// Writes `content` to `path` atomically. Throws InputError if the directory is not writable.
void WriteFileAtomic(const std::string& path, const std::string& content);

}  // namespace dcnas
