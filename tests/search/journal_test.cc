#include "search/journal.h"

#include <catch2/catch.hpp>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <random>

#include "common/errors.h"
#include "common/file_io.h"

namespace {

using dcnas::InputError;
using dcnas::search::FirstDifference;
using dcnas::search::Journal;
using dcnas::search::JournalEntry;
using dcnas::search::JournalHeader;

std::string TempPath(const std::string& name) {
  const auto dir = std::filesystem::temp_directory_path() / "dcnas_journal_test";
  std::filesystem::create_directories(dir);
  const auto path = dir / name;
  std::filesystem::remove(path);
  return path.string();
}

const nlohmann::json kHeader = JournalHeader(
    {{"name", "s"}, {"fingerprint", "0123"}},
    {{"seed", 1}, {"accuracy", {{"kind", "table"}, {"file", "a.csv"}, {"sha256", "ab"}}}});

}  // namespace

TEST_CASE("FirstDifference names the first differing key path, ignoring named keys") {
  nlohmann::json other = kHeader;
  CHECK(FirstDifference(kHeader, other, {}).empty());
  other["config"]["accuracy"]["file"] = "elsewhere/a.csv";
  CHECK(FirstDifference(kHeader, other, {}) == "config.accuracy.file");
  CHECK(FirstDifference(kHeader, other, {"file"}).empty());
  other["config"]["accuracy"]["sha256"] = "cd";
  CHECK(FirstDifference(kHeader, other, {"file"}) == "config.accuracy.sha256");
  other = kHeader;
  other["config"]["budget"] = 10;
  CHECK(FirstDifference(kHeader, other, {}) == "config.budget");
}

TEST_CASE("a journal replays its entries with bit-identical values") {
  const std::string path = TempPath("replay.jsonl");
  const JournalEntry a{0, "1.0_2", 76.123456789012345, 0.1 + 0.2, 1.0 / 3.0};
  const JournalEntry b{1, "0.0_1", 70.0, 2.5e-3, 0.7};
  {
    Journal j = Journal::Create(path, kHeader);
    j.Append(a);
    j.Append(b);
  }
  CHECK_THROWS_AS(Journal::Create(path, kHeader), InputError);
  std::vector<JournalEntry> entries;
  Journal::Resume(path, kHeader, entries);
  REQUIRE(entries.size() == 2);
  CHECK(entries[0] == a);
  CHECK(entries[1] == b);
}

TEST_CASE("resume drops a torn last line and refuses another configuration") {
  const std::string path = TempPath("torn.jsonl");
  {
    Journal j = Journal::Create(path, kHeader);
    j.Append({0, "1.0_2", 76.0, 1.5, 0.9});
  }
  {
    std::ofstream out(path, std::ios::app);
    out << R"({"id":1,"encoding":"0.)";
  }
  std::vector<JournalEntry> entries;
  {
    Journal j = Journal::Resume(path, kHeader, entries);
    CHECK(entries.size() == 1);
    j.Append({1, "0.0_1", 70.0, 2.0, 0.8});
  }
  Journal::Resume(path, kHeader, entries);
  REQUIRE(entries.size() == 2);
  CHECK(entries[1].encoding == "0.0_1");

  nlohmann::json other = kHeader;
  other["config"]["seed"] = 2;
  CHECK_THROWS_WITH(Journal::Resume(path, other, entries),
                    Catch::Contains("does not match this configuration: config.seed"));
  other = kHeader;
  other["config"]["accuracy"]["file"] = "moved/a.csv";
  CHECK_NOTHROW(Journal::Resume(path, other, entries));
}

TEST_CASE("resume refuses a file that is not a journal, naming the line") {
  const std::string path = TempPath("bad.jsonl");
  dcnas::WriteFileAtomic(path, "{\"format\":\"other\"}\n");
  std::vector<JournalEntry> entries;
  CHECK_THROWS_WITH(Journal::Resume(path, kHeader, entries),
                    Catch::Contains("bad.jsonl:1: not a search journal"));
  dcnas::WriteFileAtomic(path, kHeader.dump() + "\nnot json\n");
  CHECK_THROWS_WITH(Journal::Resume(path, kHeader, entries),
                    Catch::Contains("bad.jsonl:2: not a JSON line"));
}

TEST_CASE("a journal line is what nlohmann::json writes for the entry's object") {
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  std::vector<double> values = {0.0, 1.0, 3.0, -2.5, 1e-5, 1e21, 1e22, 123456789.0, 0.1 + 0.2};
  for (int i = 0; i < 2000; ++i) values.push_back(std::pow(10.0, 12 * unit(rng) - 6) * unit(rng));
  for (size_t i = 0; i < values.size(); ++i) {
    const JournalEntry e{i * 7919, i % 3 == 0 ? "0.1.2_3-a\"\\" : "0.1.2_a.b", values[i],
                         values[(i + 1) % values.size()], -values[(i + 2) % values.size()]};
    const nlohmann::json j = {{"id", e.id},
                              {"encoding", e.encoding},
                              {"accuracy", e.accuracy},
                              {"latency_ms", e.latency_ms},
                              {"reward", e.reward}};
    REQUIRE(dcnas::search::JournalLine(e) == j.dump());
  }
}
