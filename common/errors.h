// Error types shared by every dcnas library.
//
// Two kinds of error (see the project README): input errors name the file, line or key path and
// the bad value, and map to exit code 2; internal errors are broken invariants (bugs) and map to
// exit code 1. Library code throws; only main() turns exceptions into exit codes.
#pragma once

#include <stdexcept>
#include <string>

namespace dcnas {

// Bad user input: a malformed file, an unknown name or key, an impossible shape or value.
class InputError : public std::runtime_error {
 public:
  explicit InputError(const std::string& what) : std::runtime_error(what) {}
};

// A broken invariant inside dcnas: a bug, never the user's fault.
class InternalError : public std::logic_error {
 public:
  explicit InternalError(const std::string& what) : std::logic_error("internal error: " + what) {}
};

}  // namespace dcnas
