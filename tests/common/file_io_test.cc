#include "common/file_io.h"

#include <catch2/catch.hpp>

#include <filesystem>

#include "common/errors.h"

namespace dcnas {

TEST_CASE("atomic write replaces the file and leaves no temporary", "[common]") {
  const auto dir = std::filesystem::temp_directory_path() / "dcnas_file_io_test";
  std::filesystem::remove_all(dir);
  const std::string path = (dir / "sub" / "out.txt").string();
  WriteFileAtomic(path, "first");
  WriteFileAtomic(path, "second");
  CHECK(ReadFile(path) == "second");
  int files = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir / "sub")) {
    (void)entry;
    ++files;
  }
  CHECK(files == 1);
  std::filesystem::remove_all(dir);
}

TEST_CASE("reading a missing file names it", "[common]") {
  try {
    ReadFile("/nonexistent/dcnas/file.json");
    FAIL("expected an InputError");
  } catch (const InputError& e) {
    CHECK(std::string(e.what()).find("/nonexistent/dcnas/file.json") != std::string::npos);
  }
}

TEST_CASE("reading a directory or an endless device is an input error naming it", "[common]") {
  CHECK_THROWS_WITH(ReadFile("/tmp"), Catch::Contains("/tmp: is a directory"));
  CHECK_THROWS_WITH(ReadFile("/dev/zero", size_t{1} << 20),
                    Catch::Contains("/dev/zero: larger than 1 MiB"));
}

}  // namespace dcnas
