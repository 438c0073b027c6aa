#include "search/journal.h"

#include <algorithm>
#include <nlohmann/json.hpp>

#include "common/errors.h"

namespace dcnas::search {
namespace {

double Number(const nlohmann::json& line, const char* key, const std::string& where) {
  const auto it = line.find(key);
  if (it == line.end() || !it->is_number()) {
    throw InputError(where + "missing or non-numeric '" + key + "'");
  }
  return it->get<double>();
}

}  // namespace

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

Journal Journal::Resume(const std::string& path, const nlohmann::json& header,
                        std::vector<JournalEntry>& entries) {
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
  for (size_t i = 0; i < lines.size(); ++i) {
    const std::string where = journal.log_.Where(i + 1);
    nlohmann::json j;
    try {
      j = nlohmann::json::parse(lines[i]);
    } catch (const nlohmann::json::exception&) {
      throw InputError(where + "not a JSON line (a journal is JSONL)");
    }
    if (i == 0) {
      if (!j.is_object() || j.value("format", "") != kJournalFormat) {
        throw InputError(where + "not a search journal (format is not '" +
                         std::string(kJournalFormat) + "')");
      }
      if (j.value("version", 0) != kJournalVersion) {
        throw InputError(where + "journal version " + j.value("version", nlohmann::json()).dump() +
                         ", this dcnas writes version " + std::to_string(kJournalVersion) +
                         (j.value("version", 0) == 1
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
      continue;
    }
    if (!j.is_object() || !j.contains("encoding") || !j["encoding"].is_string()) {
      throw InputError(where + "missing 'encoding'");
    }
    JournalEntry e;
    e.id = static_cast<uint64_t>(Number(j, "id", where));
    e.encoding = j["encoding"].get<std::string>();
    e.accuracy = Number(j, "accuracy", where);
    e.latency_ms = Number(j, "latency_ms", where);
    e.reward = Number(j, "reward", where);
    entries.push_back(std::move(e));
  }
  return journal;
}

}  // namespace dcnas::search
