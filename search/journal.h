// The search journal: an append-only JSONL file, a header line and one line per told result.
//
//   {"format":"dcnas-search-journal","version":2,"space":{...},"config":{...}}
//   {"id":0,"encoding":"1.0.2_...","accuracy":76.1,"latency_ms":2.31,"reward":0.73}
//
// One line per distinct network (search/run.h): a proposal of a network evaluated before is not
// journaled, its answer is re-derived on replay. Version 2 says so (with config.budget_counts
// "distinct networks"); version 1 journals counted every evaluation against the budget, and
// Resume refuses them naming the file and the key.
//
// Each line is written with one write() as soon as its result is told, so a killed process loses
// at most the line being written; fsync() groups the lines of up to 50 ms (an OS crash loses at
// most those, and a resume re-evaluates them). Reopening drops a torn last line (one without
// '\n'). Values are printed with the
// shortest text that reads back as the same double, so a replay tells bit-identical scores.
// No timestamps: two runs of one configuration write identical journals.
#pragma once

#include <chrono>
#include <cstdint>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <vector>

#include "common/append_log.h"

namespace dcnas::search {

inline constexpr const char* kJournalFormat = "dcnas-search-journal";
inline constexpr int kJournalVersion = 2;

struct JournalEntry {
  uint64_t id = 0;
  std::string encoding;  // canonical text form
  double accuracy = 0.0;
  double latency_ms = 0.0;
  double reward = 0.0;
  bool operator==(const JournalEntry&) const = default;
};

// The header line of a journal for a space and a configuration.
nlohmann::json JournalHeader(const nlohmann::json& space, const nlohmann::json& config);

// The first key path (e.g. "config.latency.batch") where `a` and `b` differ, ignoring keys named
// in `ignored` at any depth; empty when they agree.
std::string FirstDifference(const nlohmann::json& a, const nlohmann::json& b,
                            const std::vector<std::string>& ignored);

std::string JournalLine(const JournalEntry& entry);  // without '\n'

class Journal {
 public:
  // Creates `path` with `header` as its first line; throws InputError when it exists.
  static Journal Create(const std::string& path, const nlohmann::json& header);
  // Opens an existing journal to continue it: the header must equal `header` (except keys named
  // "file": paths may differ between runs) and have this version; a torn last line is cut from
  // the file. Fills
  // `entries` with the journaled results in file order. Throws InputError naming the file and the
  // differing key, or the line that does not parse.
  static Journal Resume(const std::string& path, const nlohmann::json& header,
                        std::vector<JournalEntry>& entries);

  Journal(Journal&& other) noexcept = default;
  Journal& operator=(Journal&& other) = delete;
  Journal(const Journal&) = delete;
  Journal& operator=(const Journal&) = delete;
  ~Journal() = default;

  // Appends one result line with one write(), at once: a killed process loses nothing it told.
  // fsync() follows when kSyncInterval has passed since the last one (group commit), and on
  // Sync() and destruction: an OS crash or power loss loses at most that window, which a resume
  // re-evaluates deterministically.
  void Append(const JournalEntry& entry) { log_.Append(JournalLine(entry)); }
  void Sync() { log_.Sync(); }
  static constexpr std::chrono::milliseconds kSyncInterval{50};
  const std::string& path() const { return log_.path(); }

 private:
  explicit Journal(AppendLog log) : log_(std::move(log)) {}
  AppendLog log_;
};

}  // namespace dcnas::search
