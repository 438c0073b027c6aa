#include "search/journal.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>

#include "common/errors.h"
#include "common/file_io.h"

namespace dcnas::search {
namespace {

void WriteAll(int fd, const std::string& path, const std::string& text) {
  if (::write(fd, text.data(), text.size()) != static_cast<ssize_t>(text.size()) ||
      ::fsync(fd) != 0) {
    throw InputError(path + ": write failed: " + std::strerror(errno));
  }
}

int OpenForAppend(const std::string& path, int extra_flags) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_APPEND | O_CLOEXEC | extra_flags, 0644);
  if (fd < 0) {
    throw InputError(path + ": cannot open for appending: " + std::strerror(errno));
  }
  return fd;
}

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
  const nlohmann::json j = {{"id", e.id},
                            {"encoding", e.encoding},
                            {"accuracy", e.accuracy},
                            {"latency_ms", e.latency_ms},
                            {"reward", e.reward}};
  return j.dump() + "\n";
}

Journal Journal::Create(const std::string& path, const nlohmann::json& header) {
  const int fd = OpenForAppend(path, O_CREAT | O_EXCL);
  Journal journal(path, fd);
  WriteAll(fd, path, header.dump() + "\n");
  return journal;
}

Journal Journal::Resume(const std::string& path, const nlohmann::json& header,
                        std::vector<JournalEntry>& entries) {
  entries.clear();
  const std::string text = ReadFile(path);
  const size_t complete = text.rfind('\n') == std::string::npos ? 0 : text.rfind('\n') + 1;
  if (complete < text.size()) {
    // A line cut by a kill during its write: its result is evaluated again.
    std::filesystem::resize_file(path, complete);
  }
  if (complete == 0) {
    // Killed while writing the header: nothing was journaled.
    const int fd = OpenForAppend(path, 0);
    Journal journal(path, fd);
    WriteAll(fd, path, header.dump() + "\n");
    return journal;
  }
  size_t start = 0;
  int line_no = 0;
  while (start < complete) {
    const size_t eol = text.find('\n', start);
    const std::string line = text.substr(start, eol - start);
    start = eol + 1;
    ++line_no;
    const std::string where = path + ":" + std::to_string(line_no) + ": ";
    nlohmann::json j;
    try {
      j = nlohmann::json::parse(line);
    } catch (const nlohmann::json::exception&) {
      throw InputError(where + "not a JSON line (a journal is JSONL)");
    }
    if (line_no == 1) {
      if (!j.is_object() || j.value("format", "") != kJournalFormat) {
        throw InputError(where + "not a search journal (format is not '" +
                         std::string(kJournalFormat) + "')");
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
  return {path, OpenForAppend(path, 0)};
}

Journal::Journal(Journal&& other) noexcept : path_(std::move(other.path_)), fd_(other.fd_) {
  other.fd_ = -1;
}

Journal::~Journal() {
  if (fd_ >= 0) {
    if (unsynced_) ::fsync(fd_);
    ::close(fd_);
  }
}

void Journal::Append(const JournalEntry& entry) {
  const std::string line = JournalLine(entry);
  if (::write(fd_, line.data(), line.size()) != static_cast<ssize_t>(line.size())) {
    throw InputError(path_ + ": write failed: " + std::strerror(errno));
  }
  unsynced_ = true;
  if (std::chrono::steady_clock::now() - last_sync_ >= kSyncInterval) Sync();
}

void Journal::Sync() {
  if (!unsynced_) return;
  if (::fsync(fd_) != 0) throw InputError(path_ + ": fsync failed: " + std::strerror(errno));
  unsynced_ = false;
  last_sync_ = std::chrono::steady_clock::now();
}

}  // namespace dcnas::search
