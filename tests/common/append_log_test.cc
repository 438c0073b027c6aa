// The append-only log: lines survive reopening, a torn last line is cut only when the log appends
// again, and a log that is only read leaves its file untouched.
#include "common/append_log.h"

#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <string>
#include <vector>

#include "common/errors.h"
#include "common/file_io.h"

namespace dcnas {
namespace {

namespace fs = std::filesystem;

struct TempDir {
  fs::path path;
  TempDir() {
    std::string tmpl = (fs::temp_directory_path() / "dcnas-append-log-XXXXXX").string();
    path = ::mkdtemp(tmpl.data());
  }
  ~TempDir() { fs::remove_all(path); }
};

void Write(const fs::path& path, const std::string& text) { WriteFileAtomic(path.string(), text); }

TEST_CASE("lines appended are read back after reopening", "[append_log]") {
  TempDir dir;
  const std::string path = (dir.path / "log.jsonl").string();
  {
    AppendLog log = AppendLog::Open(path);
    CHECK(log.lines().empty());
    CHECK_FALSE(fs::exists(path));  // nothing written yet
    log.Append("one");
    log.Append("");
    log.Append("three");
  }
  CHECK(ReadFile(path) == "one\n\nthree\n");
  const AppendLog again = AppendLog::Open(path);
  CHECK(again.lines() == std::vector<std::string>{"one", "", "three"});
  CHECK(again.torn_tail().empty());
  CHECK(again.Where(3) == path + ":3: ");
}

TEST_CASE("a torn last line is cut before the next append, and only then", "[append_log]") {
  TempDir dir;
  const fs::path path = dir.path / "log.jsonl";
  Write(path, "a\nb\n{\"cut\":");
  {
    AppendLog log = AppendLog::Open(path.string());
    CHECK(log.lines() == std::vector<std::string>{"a", "b"});
    CHECK(log.torn_tail() == "{\"cut\":");
  }
  // Read but not appended to: the file is as it was.
  CHECK(ReadFile(path.string()) == "a\nb\n{\"cut\":");
  {
    AppendLog log = AppendLog::Open(path.string());
    log.Append("c");
  }
  CHECK(ReadFile(path.string()) == "a\nb\nc\n");
}

TEST_CASE("a file that is one torn line is an empty log", "[append_log]") {
  TempDir dir;
  const fs::path path = dir.path / "log.jsonl";
  Write(path, "{\"format\":");
  AppendLog log = AppendLog::Open(path.string());
  CHECK(log.lines().empty());
  log.Append("header");
  CHECK(ReadFile(path.string()) == "header\n");
}

TEST_CASE("Create refuses an existing file and makes directories on request", "[append_log]") {
  TempDir dir;
  const fs::path path = dir.path / "sub" / "dir" / "log.jsonl";
  CHECK_THROWS_AS(AppendLog::Create(path.string(), {}), std::exception);
  {
    AppendLog log = AppendLog::Create(path.string(), {.create_directories = true});
    log.Append("x");
  }
  CHECK(ReadFile(path.string()) == "x\n");
  CHECK_THROWS_WITH(AppendLog::Create(path.string(), {}),
                    Catch::Contains("exists; refusing to overwrite"));
  CHECK(ReadFile(path.string()) == "x\n");
}

TEST_CASE("group commit: lines are written at once, a newline in a line is refused",
          "[append_log]") {
  TempDir dir;
  const std::string path = (dir.path / "log.jsonl").string();
  AppendLog log = AppendLog::Open(path, {.sync_interval = std::chrono::milliseconds(60000)});
  log.Append("first");
  log.Append("second");
  // Not yet synced, but written: another reader sees both lines.
  CHECK(ReadFile(path) == "first\nsecond\n");
  log.Sync();
  CHECK_THROWS_AS(log.Append("two\nlines"), InternalError);
  CHECK(ReadFile(path) == "first\nsecond\n");
}

}  // namespace
}  // namespace dcnas
