#include "common/data_dir.h"

#include <dlfcn.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>

#include "common/errors.h"

namespace dcnas {
namespace {

namespace fs = std::filesystem;

fs::path ExecutableDir() {
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  return ec ? fs::path() : exe.parent_path();
}

// The folder of the loaded file that holds this code: the executable for the CLI, the extension
// module for `import dcnas` (a shared object loaded into the interpreter).
fs::path ImageDir() {
  Dl_info info{};
  if (::dladdr(reinterpret_cast<const void*>(&ImageDir), &info) == 0 || info.dli_fname == nullptr) {
    return {};
  }
  std::error_code ec;
  const fs::path image = fs::weakly_canonical(info.dli_fname, ec);
  return ec ? fs::path() : image.parent_path();
}

bool IsDataDir(const fs::path& dir) {
  std::error_code ec;
  return fs::is_directory(dir / "accelerators", ec) || fs::is_directory(dir / "measurements", ec);
}

bool InBuildTree(const fs::path& exe_dir) {
  std::error_code ec;
  const fs::path build = fs::weakly_canonical(DCNAS_BUILD_DIR, ec);
  if (ec || exe_dir.empty()) return false;
  const fs::path exe = fs::weakly_canonical(exe_dir, ec);
  if (ec) return false;
  return std::mismatch(build.begin(), build.end(), exe.begin(), exe.end()).first == build.end();
}

}  // namespace

std::string DataDir() {
  if (const char* env = std::getenv("DCNAS_DATA_DIR"); env != nullptr && *env != '\0') {
    if (!fs::is_directory(env)) {
      throw InputError(std::string("DCNAS_DATA_DIR=") + env + " is not a directory");
    }
    return env;
  }
  // An installed binary: <bindir>/<DCNAS_BIN_TO_DATA> is <datadir>/dcnas, also under a DESTDIR
  // or a moved prefix.
  const fs::path exe_dir = ExecutableDir();
  if (!exe_dir.empty() && IsDataDir(exe_dir / DCNAS_BIN_TO_DATA)) {
    return fs::weakly_canonical(exe_dir / DCNAS_BIN_TO_DATA).string();
  }
  // The installed Python module: <python dir>/<DCNAS_PYTHON_TO_DATA> is <datadir>/dcnas.
  const fs::path image_dir = ImageDir();
  const bool module = !image_dir.empty() && image_dir != exe_dir;
  if (module && IsDataDir(image_dir / DCNAS_PYTHON_TO_DATA)) {
    return fs::weakly_canonical(image_dir / DCNAS_PYTHON_TO_DATA).string();
  }
  // A binary (or module) in its build tree reads the source tree's data/, never an older
  // installed copy.
  if ((InBuildTree(exe_dir) || (module && InBuildTree(image_dir))) &&
      IsDataDir(DCNAS_SOURCE_DATA_DIR)) {
    return DCNAS_SOURCE_DATA_DIR;
  }
  if (IsDataDir(DCNAS_INSTALL_DATA_DIR)) return DCNAS_INSTALL_DATA_DIR;
  throw InputError("cannot find dcnas's data directory; set DCNAS_DATA_DIR to the data/ folder");
}

std::string DataPath(const std::string& relative) {
  const fs::path path = fs::path(DataDir()) / relative;
  std::error_code ec;
  if (!fs::exists(path, ec)) throw InputError(path.string() + ": not found");
  return path.string();
}

}  // namespace dcnas
