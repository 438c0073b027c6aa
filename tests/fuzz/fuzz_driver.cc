// A main() for the fuzz targets when libFuzzer is not linked (g++ builds, -Dfuzz=disabled): runs
// the target once on every file named on the command line, descending into directories, and
// prints how many it ran. Arguments starting with '-' (libFuzzer flags) are ignored. A target
// that finds a problem aborts, so the test fails with the input named last on stderr.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

namespace {

void RunOne(const std::filesystem::path& path, int& count) {
  std::ifstream in(path, std::ios::binary);
  const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::fprintf(stderr, "input %s\n", path.c_str());
  LLVMFuzzerTestOneInput(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size());
  ++count;
}

}  // namespace

int main(int argc, char** argv) {
  int count = 0;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg.starts_with("-")) continue;
    const std::filesystem::path p(arg);
    if (std::filesystem::is_directory(p)) {
      std::vector<std::filesystem::path> files;
      for (const auto& e : std::filesystem::recursive_directory_iterator(p)) {
        if (e.is_regular_file()) files.push_back(e.path());
      }
      std::sort(files.begin(), files.end());
      for (const auto& f : files) RunOne(f, count);
    } else if (std::filesystem::is_regular_file(p)) {
      RunOne(p, count);
    } else {
      std::fprintf(stderr, "fuzz driver: %s: no such file or directory\n", arg.c_str());
      return 2;
    }
  }
  std::printf("ran %d inputs, none failed\n", count);
  return count > 0 ? 0 : 1;
}
