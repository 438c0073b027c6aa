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
//
// A resume replays nothing it has not checked (ReplayJournal): every line must be what a fresh
// evaluation of the resuming run could have written (the keys above and no other, each once; ids
// distinct non-negative integers, increasing unless the search is asynchronous; the canonical text
// of a valid network of the space, each network once; accuracy in 0..100; latency_ms finite and
// > 0, or absent, null or 0 for an accuracy-only run; the reward the configured formula gives for
// that accuracy and latency), and no more lines than the header's config.budget. Any other line is
// an InputError naming the file, the line, the key and the value.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <vector>

#include "common/append_log.h"

namespace dcnas::space {
class Space;
}  // namespace dcnas::space

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

// One JSON line of an append-only log (this journal, the LACS trained store): its value, or an
// InputError `where` + `not_json` when it does not parse, or naming a member name given twice in
// one object (nlohmann::json would keep the last value silently).
nlohmann::json ParseJsonLine(const std::string& line, const std::string& where,
                             const std::string& not_json);

// What a replayed line must satisfy: the rules of a fresh evaluation in the resuming run.
struct ReplayRules {
  // The run's space: an encoding must be the canonical text of a valid network of it.
  const space::Space* space = nullptr;
  // The configured reward of an accuracy and a latency (SearchReward under the run's options);
  // it may throw InputError for inputs it refuses.
  std::function<double(double accuracy, double latency_ms)> reward;
  // False for an accuracy-only run (--latency none): latency_ms is absent, null or 0 (what this
  // dcnas writes), and replayed as 0.
  bool latency = true;
};

// A journaled reward may differ from the recomputed one by this much (relative): values are
// written with round-trip text, so a journal of this build replays exactly; the slack admits a
// pow() of another C library.
inline constexpr double kReplayRewardTolerance = 1e-9;

// The results of a journal's lines (lines[0] is the header, line N of `path` is lines[N-1]),
// checked against the run's `header` and `rules` (see the top of this file). Throws InputError
// naming `path`, the line and, for a bad value, the key. Reads nothing from disk.
std::vector<JournalEntry> ReplayJournal(const std::vector<std::string>& lines,
                                        const std::string& path, const nlohmann::json& header,
                                        const ReplayRules& rules);

class Journal {
 public:
  // Creates `path` with `header` as its first line; throws InputError when it exists.
  static Journal Create(const std::string& path, const nlohmann::json& header);
  // Opens an existing journal to continue it: the header must equal `header` (except keys named
  // "file": paths may differ between runs) and have this version; a torn last line is cut from
  // the file. Fills `entries` with the journaled results in file order, each checked by
  // ReplayJournal. Throws InputError naming the file and the differing key, or the line (and key)
  // that does not parse or breaks a rule; the file is then left as it was.
  static Journal Resume(const std::string& path, const nlohmann::json& header,
                        const ReplayRules& rules, std::vector<JournalEntry>& entries);

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
