#include "search/journal.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <unordered_map>

#include "common/errors.h"
#include "common/strict_json.h"
#include "space/space.h"

namespace dcnas::search {
namespace {

constexpr std::array<const char*, 5> kLineKeys = {"accuracy", "encoding", "id", "latency_ms",
                                                  "reward"};

// A value for a message: its JSON text, cut short past 200 characters (an encoding of a large
// space stays whole).
std::string Shown(const nlohmann::json& value) {
  std::string text = value.dump();
  if (text.size() > 200) text = text.substr(0, 197) + "...";
  return text;
}

// A finite number under `key`; "key 'K' is V: WHY" otherwise.
double Number(const nlohmann::json& line, const char* key, const std::string& where) {
  const auto it = line.find(key);
  if (it == line.end()) throw InputError(where + "missing key '" + key + "'");
  if (!it->is_number() || !std::isfinite(it->get<double>())) {
    throw InputError(where + "key '" + key + "' is " + Shown(*it) + ": not a finite number");
  }
  return it->get<double>();
}

// Why `text` is not the canonical text of a valid network of `space`; empty when it is.
std::string EncodingProblem(const space::Space& space, const std::string& text) {
  try {
    const space::Encoding canonical = space.Canonical(space.FromText(text));
    if (!space.IsValid(canonical)) {
      (void)space.Decode(canonical);  // throws the reason
      return "not a valid network of space '" + space.name() + "'";
    }
    const std::string canonical_text = space.ToText(canonical);
    if (canonical_text != text) {
      return "not canonical in space '" + space.name() + "' (the same network is " +
             canonical_text + "; the search journals canonical encodings)";
    }
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

// The header's config.KEY, or null when absent.
nlohmann::json ConfigValue(const nlohmann::json& header, const char* key) {
  const auto config = header.find("config");
  if (config == header.end() || !config->is_object()) return nullptr;
  const auto it = config->find(key);
  return it == config->end() ? nlohmann::json() : *it;
}

// One result line checked against the rules of a fresh evaluation.
JournalEntry CheckedEntry(const nlohmann::json& j, const std::string& where,
                          const ReplayRules& rules) {
  if (!j.is_object()) throw InputError(where + "not a JSON object (a journal result line)");
  for (const auto& item : j.items()) {
    const std::string& key = item.key();
    if (std::find_if(kLineKeys.begin(), kLineKeys.end(),
                     [&key](const char* k) { return key == k; }) == kLineKeys.end()) {
      throw InputError(where + "unknown key " + Shown(nlohmann::json(key)) +
                       " (a result line has accuracy, encoding, id, latency_ms, reward)");
    }
  }
  JournalEntry e;
  const auto id = j.find("id");
  if (id == j.end()) throw InputError(where + "missing key 'id'");
  if (!id->is_number_unsigned()) {
    throw InputError(where + "key 'id' is " + Shown(*id) + ": not a non-negative integer");
  }
  e.id = id->get<uint64_t>();
  const auto encoding = j.find("encoding");
  if (encoding == j.end()) throw InputError(where + "missing key 'encoding'");
  if (!encoding->is_string()) {
    throw InputError(where + "key 'encoding' is " + Shown(*encoding) + ": not a string");
  }
  e.encoding = encoding->get<std::string>();
  if (rules.space == nullptr) throw InternalError("journal replay without the run's space");
  if (const std::string why = EncodingProblem(*rules.space, e.encoding); !why.empty()) {
    throw InputError(where + "key 'encoding' is " + Shown(*encoding) + ": " + why);
  }
  e.accuracy = Number(j, "accuracy", where);
  if (e.accuracy < 0.0 || e.accuracy > 100.0) {
    throw InputError(where + "key 'accuracy' is " + Shown(j["accuracy"]) +
                     ": outside 0..100 (percent)");
  }
  if (rules.latency) {
    e.latency_ms = Number(j, "latency_ms", where);
    if (e.latency_ms <= 0.0) {
      throw InputError(where + "key 'latency_ms' is " + Shown(j["latency_ms"]) +
                       ": a latency must be above 0 ms");
    }
  } else if (const auto lat = j.find("latency_ms");
             lat != j.end() && !lat->is_null() && !(lat->is_number() && *lat == 0)) {
    throw InputError(where + "key 'latency_ms' is " + Shown(*lat) +
                     ": this run has no latency (--latency none; absent, null or 0)");
  }
  e.reward = Number(j, "reward", where);
  if (!rules.reward) throw InternalError("journal replay without the run's reward");
  double expected = 0.0;
  try {
    expected = rules.reward(e.accuracy, e.latency_ms);
  } catch (const InputError& error) {
    throw InputError(where + error.what());
  }
  if (!(std::abs(e.reward - expected) <=
        kReplayRewardTolerance * std::max(1.0, std::abs(expected)))) {
    throw InputError(
        where + "key 'reward' is " + Shown(j["reward"]) + ": the configured reward gives " +
        nlohmann::json(expected).dump() + " for accuracy " + nlohmann::json(e.accuracy).dump() +
        (rules.latency ? " and latency_ms " + nlohmann::json(e.latency_ms).dump() : std::string()));
  }
  return e;
}

}  // namespace

nlohmann::json ParseJsonLine(const std::string& line, const std::string& where,
                             const std::string& not_json) {
  std::optional<DuplicateJsonKey> twice;
  nlohmann::json j;
  try {
    j = ParseJsonKeysOnce(line, twice);
  } catch (const nlohmann::json::exception&) {
    throw InputError(where + not_json);
  }
  if (twice)
    throw InputError(where + "key " + Shown(nlohmann::json(twice->Text())) + " given twice");
  return j;
}

nlohmann::json JournalHeader(const nlohmann::json& space, const nlohmann::json& config) {
  return {{"format", kJournalFormat},
          {"version", kJournalVersion},
          {"space", space},
          {"config", config}};
}

std::string FirstDifference(const nlohmann::json& a, const nlohmann::json& b,
                            const std::vector<std::string>& ignored) {
  if (a.is_object() && b.is_object()) {
    std::vector<std::string> keys;
    for (const auto& [k, v] : a.items()) keys.push_back(k);
    for (const auto& [k, v] : b.items()) {
      if (!a.contains(k)) keys.push_back(k);
    }
    for (const auto& k : keys) {
      if (std::find(ignored.begin(), ignored.end(), k) != ignored.end()) continue;
      if (!a.contains(k) || !b.contains(k)) return k;
      const std::string sub = FirstDifference(a[k], b[k], ignored);
      if (!sub.empty()) return sub == "." ? k : k + "." + sub;
    }
    return "";
  }
  return a == b ? "" : ".";
}

std::string JournalLine(const JournalEntry& e) {
  // The dump of the object {id, encoding, accuracy, latency_ms, reward} (keys in nlohmann::json's
  // sorted order, its number format), written without building the object: one per evaluation.
  const bool plain = std::all_of(e.encoding.begin(), e.encoding.end(), [](char c) {
    return c >= 0x20 && c < 0x7f && c != '"' && c != '\\';
  });
  std::string line = "{\"accuracy\":";
  line += nlohmann::json(e.accuracy).dump();
  line += ",\"encoding\":";
  line += plain ? '"' + e.encoding + '"' : nlohmann::json(e.encoding).dump();
  line += ",\"id\":";
  line += std::to_string(e.id);
  line += ",\"latency_ms\":";
  line += nlohmann::json(e.latency_ms).dump();
  line += ",\"reward\":";
  line += nlohmann::json(e.reward).dump();
  line += '}';
  return line;
}

Journal Journal::Create(const std::string& path, const nlohmann::json& header) {
  Journal journal(AppendLog::Create(path, {.sync_interval = kSyncInterval}));
  journal.log_.Append(header.dump());
  journal.log_.Sync();
  return journal;
}

std::vector<JournalEntry> ReplayJournal(const std::vector<std::string>& lines,
                                        const std::string& path, const nlohmann::json& header,
                                        const ReplayRules& rules) {
  std::vector<JournalEntry> entries;
  auto where_at = [&path](size_t line) { return path + ":" + std::to_string(line) + ": "; };
  nlohmann::json budget, asynchronous;
  std::map<uint64_t, size_t> id_lines;                 // id -> line
  std::unordered_map<std::string, size_t> text_lines;  // encoding -> line
  for (size_t i = 0; i < lines.size(); ++i) {
    const std::string where = where_at(i + 1);
    const nlohmann::json j = ParseJsonLine(lines[i], where, "not a JSON line (a journal is JSONL)");
    if (i == 0) {
      // Compared as JSON values: a format or version of another type is refused, not thrown.
      if (!j.is_object() || !j.contains("format") || j["format"] != kJournalFormat) {
        throw InputError(where + "not a search journal (format is not '" +
                         std::string(kJournalFormat) + "')");
      }
      const nlohmann::json version = j.contains("version") ? j["version"] : nlohmann::json();
      if (version != kJournalVersion) {
        throw InputError(where + "journal version " + Shown(version) +
                         ", this dcnas writes version " + std::to_string(kJournalVersion) +
                         (version == 1
                              ? " (key 'version': version 1 charged every evaluation to the "
                                "budget, version 2 counts distinct networks; start a new run)"
                              : " (key 'version')"));
      }
      const std::string diff = FirstDifference(j, header, {"file"});
      if (!diff.empty()) {
        auto show = [&diff](const nlohmann::json& h) {
          std::string rest = diff;
          const nlohmann::json* node = &h;
          while (!rest.empty() && node != nullptr) {
            const size_t dot = rest.find('.');
            const std::string key = rest.substr(0, dot);
            rest = dot == std::string::npos ? "" : rest.substr(dot + 1);
            node = node->is_object() && node->contains(key) ? &(*node)[key] : nullptr;
          }
          return node == nullptr ? std::string("(absent)") : node->dump();
        };
        throw InputError(path + ": journal does not match this configuration: " + diff + " is " +
                         show(j) + " in the journal, " + show(header) + " here");
      }
      budget = ConfigValue(j, "budget");
      asynchronous = ConfigValue(j, "asynchronous");
      continue;
    }
    JournalEntry e = CheckedEntry(j, where, rules);
    if (budget.is_number_integer() &&
        static_cast<int64_t>(entries.size()) >= budget.get<int64_t>()) {
      throw InputError(where + "result " + std::to_string(entries.size() + 1) +
                       " is past the budget: key 'config.budget' is " + budget.dump() +
                       " on line 1 (a header edited, or lines added; the budget is part of the "
                       "configuration and must equal --budget)");
    }
    if (const auto [it, added] = id_lines.emplace(e.id, i + 1); !added) {
      throw InputError(where + "key 'id' is " + std::to_string(e.id) + ": already on line " +
                       std::to_string(it->second));
    }
    if (!entries.empty() && asynchronous != true && e.id < entries.back().id) {
      throw InputError(where + "key 'id' is " + std::to_string(e.id) + " after id " +
                       std::to_string(entries.back().id) + " on line " + std::to_string(i) +
                       ": a search in rounds journals increasing ids");
    }
    if (const auto [it, added] = text_lines.emplace(e.encoding, i + 1); !added) {
      throw InputError(where + "key 'encoding' is " + Shown(nlohmann::json(e.encoding)) +
                       ": already on line " + std::to_string(it->second) +
                       " (a journal holds one line per distinct network)");
    }
    entries.push_back(std::move(e));
  }
  return entries;
}

Journal Journal::Resume(const std::string& path, const nlohmann::json& header,
                        const ReplayRules& rules, std::vector<JournalEntry>& entries) {
  entries.clear();
  // A line cut by a kill during its write is cut from the file: its result is evaluated again.
  Journal journal(AppendLog::Open(path, {.sync_interval = kSyncInterval}));
  const std::vector<std::string>& lines = journal.log_.lines();
  if (lines.empty()) {
    // Killed while writing the header: nothing was journaled.
    journal.log_.Append(header.dump());
    journal.log_.Sync();
    return journal;
  }
  entries = ReplayJournal(lines, journal.log_.path(), header, rules);
  return journal;
}

}  // namespace dcnas::search
