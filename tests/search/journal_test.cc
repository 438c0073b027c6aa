#include "search/journal.h"

#include <catch2/catch.hpp>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <random>

#include "common/errors.h"
#include "common/file_io.h"
#include "search/strategy.h"
#include "space/space.h"

namespace {

using dcnas::InputError;
using dcnas::search::FirstDifference;
using dcnas::search::Journal;
using dcnas::search::JournalEntry;
using dcnas::search::JournalHeader;
using dcnas::search::JournalLine;
using dcnas::search::ReplayJournal;
using dcnas::search::ReplayRules;
using dcnas::space::Encoding;
using dcnas::space::Space;

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

const Space& TestSpace() {
  static const Space kSpace = [] {
    const char* root = std::getenv("DCNAS_SOURCE_ROOT");
    return Space::Load(std::string(root ? root : ".") + "/data/search_spaces/dc-accelerator.yaml");
  }();
  return kSpace;
}

// Distinct canonical encodings of the test space, in a fixed order.
const std::vector<std::string>& Texts() {
  static const std::vector<std::string> kTexts = [] {
    std::mt19937_64 rng(3);
    std::vector<std::string> out;
    while (out.size() < 8) {
      const std::string t = TestSpace().ToText(TestSpace().Sample(rng));
      if (std::find(out.begin(), out.end(), t) == out.end()) out.push_back(t);
    }
    return out;
  }();
  return kTexts;
}

constexpr double kTargetMs = 2.0;

double Reward(double accuracy, double latency_ms) {
  return dcnas::search::MnasReward(accuracy, latency_ms, kTargetMs, -0.07);
}

// Function-local: the space's tables are statics of another translation unit.
const ReplayRules& Rules() {
  static const ReplayRules kRules{.space = &TestSpace(), .reward = Reward, .latency = true};
  return kRules;
}
const ReplayRules& AccuracyOnly() {
  static const ReplayRules kRules{.space = &TestSpace(),
                                  .reward = [](double accuracy, double) { return accuracy; },
                                  .latency = false};
  return kRules;
}

// A fresh evaluation's entry: id, the i-th encoding, the reward of its accuracy and latency.
JournalEntry Entry(uint64_t id, size_t i, double accuracy, double latency_ms) {
  return {id, Texts()[i], accuracy, latency_ms, Reward(accuracy, latency_ms)};
}

nlohmann::json HeaderWithBudget(int64_t budget) {
  nlohmann::json h = kHeader;
  h["config"]["budget"] = budget;
  return h;
}

// A journal of three results whose line `line` (2..4) is replaced by `edited`.
std::vector<std::string> Edited(size_t line, const std::string& edited) {
  std::vector<std::string> lines = {HeaderWithBudget(10).dump(), JournalLine(Entry(0, 0, 70, 1.5)),
                                    JournalLine(Entry(3, 1, 72, 2.5)),
                                    JournalLine(Entry(4, 2, 71, 1.0))};
  lines.at(line - 1) = edited;
  return lines;
}

std::string Replaced(const std::string& line, const std::string& from, const std::string& to) {
  std::string out = line;
  const size_t at = out.find(from);
  REQUIRE(at != std::string::npos);
  return out.replace(at, from.size(), to);
}

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
  const JournalEntry a = Entry(0, 0, 76.123456789012345, 0.1 + 0.2);
  const JournalEntry b = Entry(1, 1, 70.0, 2.5e-3);
  {
    Journal j = Journal::Create(path, kHeader);
    j.Append(a);
    j.Append(b);
  }
  CHECK_THROWS_AS(Journal::Create(path, kHeader), InputError);
  std::vector<JournalEntry> entries;
  Journal::Resume(path, kHeader, Rules(), entries);
  REQUIRE(entries.size() == 2);
  CHECK(entries[0] == a);
  CHECK(entries[1] == b);
}

TEST_CASE("resume drops a torn last line and refuses another configuration") {
  const std::string path = TempPath("torn.jsonl");
  {
    Journal j = Journal::Create(path, kHeader);
    j.Append(Entry(0, 0, 76.0, 1.5));
  }
  {
    std::ofstream out(path, std::ios::app);
    out << R"({"id":1,"encoding":"0.)";
  }
  std::vector<JournalEntry> entries;
  {
    Journal j = Journal::Resume(path, kHeader, Rules(), entries);
    CHECK(entries.size() == 1);
    j.Append(Entry(1, 1, 70.0, 2.0));
  }
  Journal::Resume(path, kHeader, Rules(), entries);
  REQUIRE(entries.size() == 2);
  CHECK(entries[1].encoding == Texts()[1]);

  nlohmann::json other = kHeader;
  other["config"]["seed"] = 2;
  CHECK_THROWS_WITH(Journal::Resume(path, other, Rules(), entries),
                    Catch::Contains("does not match this configuration: config.seed"));
  other = kHeader;
  other["config"]["accuracy"]["file"] = "moved/a.csv";
  CHECK_NOTHROW(Journal::Resume(path, other, Rules(), entries));
}

TEST_CASE("resume refuses a file that is not a journal, naming the line") {
  const std::string path = TempPath("bad.jsonl");
  dcnas::WriteFileAtomic(path, "{\"format\":\"other\"}\n");
  std::vector<JournalEntry> entries;
  CHECK_THROWS_WITH(Journal::Resume(path, kHeader, Rules(), entries),
                    Catch::Contains("bad.jsonl:1: not a search journal"));
  dcnas::WriteFileAtomic(path, kHeader.dump() + "\nnot json\n");
  CHECK_THROWS_WITH(Journal::Resume(path, kHeader, Rules(), entries),
                    Catch::Contains("bad.jsonl:2: not a JSON line"));
  // A format or version of another type (found by fuzz_journal_replay: it escaped as a
  // nlohmann::json type error).
  dcnas::WriteFileAtomic(path, "{\"format\":69}\n");
  CHECK_THROWS_WITH(Journal::Resume(path, kHeader, Rules(), entries),
                    Catch::Contains("bad.jsonl:1: not a search journal"));
  nlohmann::json version = kHeader;
  version["version"] = "2";
  dcnas::WriteFileAtomic(path, version.dump() + "\n");
  CHECK_THROWS_WITH(Journal::Resume(path, kHeader, Rules(), entries),
                    Catch::Contains("bad.jsonl:1: journal version \"2\""));
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

TEST_CASE("replay refuses a line no fresh evaluation writes, naming the file, line, key, value") {
  const nlohmann::json header = HeaderWithBudget(10);
  auto refused = [&header](const std::vector<std::string>& lines, const std::string& what) {
    INFO(what);
    CHECK_THROWS_AS(ReplayJournal(lines, "run/journal.jsonl", header, Rules()), InputError);
    CHECK_THROWS_WITH(ReplayJournal(lines, "run/journal.jsonl", header, Rules()),
                      Catch::Contains(what));
  };
  const std::vector<std::string> good = Edited(3, JournalLine(Entry(3, 1, 72, 2.5)));
  REQUIRE(ReplayJournal(good, "run/journal.jsonl", header, Rules()).size() == 3);
  const std::string line = good[2];

  JournalEntry e = Entry(3, 1, 72, 2.5);
  e.accuracy = -5;
  refused(Edited(3, JournalLine(e)), "run/journal.jsonl:3: key 'accuracy' is -5.0: outside 0..100");
  e.accuracy = 100.5;
  refused(Edited(3, JournalLine(e)), "journal.jsonl:3: key 'accuracy' is 100.5: outside 0..100");
  e = Entry(3, 1, 72, 2.5);
  e.reward = 1e308;
  refused(Edited(3, JournalLine(e)),
          "journal.jsonl:3: key 'reward' is 1e+308: the configured reward gives");
  e.reward = Reward(72, 2.5) * (1 + 1e-6);
  refused(Edited(3, JournalLine(e)), "journal.jsonl:3: key 'reward' is ");
  e = Entry(3, 1, 72, 2.5);
  e.latency_ms = 0;
  refused(Edited(3, JournalLine(e)), "journal.jsonl:3: key 'latency_ms' is 0.0: a latency must be");
  e.latency_ms = -1;
  refused(Edited(3, JournalLine(e)), "journal.jsonl:3: key 'latency_ms' is -1.0");
  refused(Edited(3, Replaced(line, "\"reward\"", "\"rewards\"")),
          "journal.jsonl:3: unknown key \"rewards\"");
  refused(Edited(3, Replaced(line, "{", "{\"note\":1,")), "journal.jsonl:3: unknown key \"note\"");
  refused(Edited(3, Replaced(line, "{", "{\"accuracy\":99,")),
          "journal.jsonl:3: key \"accuracy\" given twice");
  refused(Edited(3, Replaced(line, ",\"latency_ms\":2.5", "")),
          "journal.jsonl:3: missing key 'latency_ms'");
  refused(Edited(3, Replaced(line, "\"latency_ms\":2.5", "\"latency_ms\":\"2.5\"")),
          "journal.jsonl:3: key 'latency_ms' is \"2.5\": not a finite number");
  refused(Edited(3, Replaced(line, "\"id\":3", "\"id\":3.5")),
          "journal.jsonl:3: key 'id' is 3.5: not a non-negative integer");
  refused(Edited(3, Replaced(line, "\"id\":3", "\"id\":-3")), "journal.jsonl:3: key 'id' is -3");
  refused(Edited(3, JournalLine(Entry(0, 1, 72, 2.5))),
          "journal.jsonl:3: key 'id' is 0: already on line 2");
  refused(Edited(4, JournalLine(Entry(1, 2, 71, 1.0))),
          "journal.jsonl:4: key 'id' is 1 after id 3 on line 3");
  refused(Edited(3, JournalLine(Entry(3, 0, 72, 2.5))),
          "journal.jsonl:3: key 'encoding' is \"" + Texts()[0] + "\": already on line 2");
  refused(Edited(3, Replaced(line, "\"encoding\":\"", "\"encoding\":\"9")),
          "journal.jsonl:3: key 'encoding' is ");
  refused(Edited(3, JournalLine({3, "1.0_2", 72, 2.5, Reward(72, 2.5)})),
          "journal.jsonl:3: key 'encoding' is \"1.0_2\": encoding '1.0_2'");
  refused(Edited(3, "[1,2]"), "journal.jsonl:3: not a JSON object");
  refused(Edited(3, "{\"id\":3"), "journal.jsonl:3: not a JSON line");

  // A valid network of the space written in a form that is not canonical.
  const Space& space = TestSpace();
  std::mt19937_64 rng(5);
  std::string raw;
  for (int k = 0; k < 10000 && raw.empty(); ++k) {
    Encoding r(space.vector_length());
    for (size_t i = 0; i < r.size(); ++i) {
      r[i] = std::uniform_int_distribution<int>(0, space.choice_counts()[i] - 1)(rng);
    }
    if (space.IsValid(r) && space.ToText(space.Canonical(r)) != space.ToText(r)) {
      raw = space.ToText(r);
    }
  }
  REQUIRE_FALSE(raw.empty());
  refused(Edited(3, JournalLine({3, raw, 72, 2.5, Reward(72, 2.5)})),
          "journal.jsonl:3: key 'encoding' is \"" + raw + "\": not canonical");

  // Past the header's budget: the key named, not an internal error.
  std::vector<std::string> lines = good;
  lines[0] = HeaderWithBudget(2).dump();
  CHECK_THROWS_WITH(ReplayJournal(lines, "run/journal.jsonl", HeaderWithBudget(2), Rules()),
                    Catch::Contains("run/journal.jsonl:4: result 3 is past the budget: key "
                                    "'config.budget' is 2 on line 1"));
  lines[0] = HeaderWithBudget(3).dump();
  CHECK(ReplayJournal(lines, "run/journal.jsonl", HeaderWithBudget(3), Rules()).size() == 3);
}

TEST_CASE("an asynchronous search journals ids in arrival order") {
  nlohmann::json header = HeaderWithBudget(10);
  header["config"]["asynchronous"] = true;
  std::vector<std::string> lines = Edited(4, JournalLine(Entry(1, 2, 71, 1.0)));
  lines[0] = header.dump();
  CHECK(ReplayJournal(lines, "j", header, Rules()).size() == 3);
  lines[3] = JournalLine(Entry(3, 2, 71, 1.0));
  CHECK_THROWS_WITH(ReplayJournal(lines, "j", header, Rules()),
                    Catch::Contains("j:4: key 'id' is 3: already on line 3"));
}

TEST_CASE("an accuracy-only journal has no latency: absent, null or 0") {
  const nlohmann::json header = HeaderWithBudget(10);
  auto line = [](const std::string& latency) {
    return "{\"accuracy\":71.5,\"encoding\":\"" + Texts()[0] + "\",\"id\":0" + latency +
           ",\"reward\":71.5}";
  };
  for (const std::string latency : {"", ",\"latency_ms\":null", ",\"latency_ms\":0.0"}) {
    const auto entries = ReplayJournal({header.dump(), line(latency)}, "j", header, AccuracyOnly());
    REQUIRE(entries.size() == 1);
    CHECK(entries[0].latency_ms == 0.0);
    CHECK(entries[0].reward == 71.5);
  }
  CHECK_THROWS_WITH(
      ReplayJournal({header.dump(), line(",\"latency_ms\":2.5")}, "j", header, AccuracyOnly()),
      Catch::Contains("j:2: key 'latency_ms' is 2.5: this run has no latency"));
  const std::string wrong = Replaced(line(""), "\"reward\":71.5", "\"reward\":70");
  CHECK_THROWS_WITH(ReplayJournal({header.dump(), wrong}, "j", header, AccuracyOnly()),
                    Catch::Contains("j:2: key 'reward' is 70: the configured reward gives 71.5"));
}

TEST_CASE("a refused journal is left as it was") {
  const std::string path = TempPath("refused.jsonl");
  JournalEntry e = Entry(0, 0, 70, 1.5);
  e.reward = 1e308;
  const std::string text = kHeader.dump() + "\n" + JournalLine(e) + "\n{\"id\":1";
  dcnas::WriteFileAtomic(path, text);
  std::vector<JournalEntry> entries;
  CHECK_THROWS_WITH(Journal::Resume(path, kHeader, Rules(), entries),
                    Catch::Contains("refused.jsonl:2: key 'reward' is 1e+308"));
  CHECK(dcnas::ReadFile(path) == text);
}
