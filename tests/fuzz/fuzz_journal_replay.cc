// Search journals (RUN_DIR/journal.jsonl, `dcnas search --resume`): ReplayJournal on the input's
// complete lines (a torn last line is dropped, as AppendLog does), against the dc-accelerator
// space and four configurations of a budget of 4 networks (the MnasNet soft reward, the hard
// reward, an accuracy-only run, an asynchronous run). What a replay accepts must be what a fresh
// evaluation could have written: finite, accuracies in 0..100, the configured reward, at most the
// budget, and the same entries again when written back with JournalLine.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "common/errors.h"
#include "search/journal.h"
#include "search/run.h"
#include "space/space.h"
#include "tests/fuzz/fuzz_common.h"

namespace {

struct Variant {
  dcnas::search::SearchOptions options;
  nlohmann::json header;
};

constexpr int64_t kBudget = 4;

std::vector<Variant> Variants(const dcnas::space::Space& space) {
  std::vector<Variant> out;
  for (int v = 0; v < 4; ++v) {
    dcnas::search::SearchOptions o;
    o.strategy = "random";
    o.budget = kBudget;
    o.target_ms = 5.0;
    o.hard = v == 1;
    o.accuracy_only = v == 2;
    nlohmann::json reward = {{"kind", o.hard ? "hard" : "mnas"}, {"target_ms", o.target_ms}};
    if (!o.hard) reward["w"] = o.w;
    if (o.accuracy_only) reward = {{"kind", "accuracy"}};
    nlohmann::json config = {
        {"strategy", o.strategy},
        {"strategy_options", nlohmann::json::object()},
        {"seed", 0},
        {"budget", kBudget},
        {"budget_counts", "distinct networks"},
        {"in_flight", 1},
        {"reward", reward},
        {"accuracy", {{"kind", "table"}, {"file", "acc.csv"}, {"sha256", "0"}}},
        {"latency", o.accuracy_only
                        ? nlohmann::json{{"kind", "none"}}
                        : nlohmann::json{{"kind", "table"}, {"file", "lat.csv"}, {"sha256", "0"}}}};
    if (v == 3) config["asynchronous"] = true;
    out.push_back({o, dcnas::search::JournalHeader(
                          {{"name", space.name()}, {"fingerprint", space.fingerprint()}}, config)});
  }
  return out;
}

[[noreturn]] void Fail(const std::string& why) {
  std::fprintf(stderr, "fuzz: %s\n", why.c_str());
  std::abort();
}

void Replay(const std::vector<std::string>& lines, const Variant& v,
            const dcnas::space::Space& space) {
  const dcnas::search::ReplayRules rules{.space = &space,
                                         .reward =
                                             [&v](double accuracy, double latency_ms) {
                                               return dcnas::search::SearchReward(
                                                   v.options, accuracy, latency_ms);
                                             },
                                         .latency = !v.options.accuracy_only};
  const std::vector<dcnas::search::JournalEntry> entries =
      dcnas::search::ReplayJournal(lines, "fuzz.jsonl", v.header, rules);
  if (static_cast<int64_t>(entries.size()) > kBudget) Fail("more results than the budget");
  std::vector<std::string> again = {v.header.dump()};
  for (const dcnas::search::JournalEntry& e : entries) {
    if (!(e.accuracy >= 0.0 && e.accuracy <= 100.0) || !std::isfinite(e.reward) ||
        !std::isfinite(e.latency_ms) ||
        (rules.latency ? !(e.latency_ms > 0.0) : e.latency_ms != 0.0)) {
      Fail("accepted " + dcnas::search::JournalLine(e));
    }
    const double expected = rules.reward(e.accuracy, e.latency_ms);
    if (std::abs(e.reward - expected) >
        dcnas::search::kReplayRewardTolerance * std::max(1.0, std::abs(expected))) {
      Fail("accepted reward of " + dcnas::search::JournalLine(e));
    }
    again.push_back(dcnas::search::JournalLine(e));
  }
  if (dcnas::search::ReplayJournal(again, "again.jsonl", v.header, rules) != entries) {
    Fail("entries written back do not replay the same");
  }
}

void Body(const std::string& text) {
  static const dcnas::space::Space kSpace =
      dcnas::space::Space::Load(dcnas::fuzz::Data() + "/search_spaces/dc-accelerator.yaml");
  static const std::vector<Variant> kVariants = Variants(kSpace);
  std::vector<std::string> lines;
  size_t begin = 0;
  for (size_t end = text.find('\n'); end != std::string::npos; end = text.find('\n', begin)) {
    lines.push_back(text.substr(begin, end - begin));
    begin = end + 1;
  }
  if (lines.empty()) return;  // an empty journal (or only a torn header) replays nothing
  for (const Variant& v : kVariants) {
    try {
      Replay(lines, v, kSpace);
    } catch (const dcnas::InputError&) {
      // refused: the contract holds; the next configuration may accept the header
    }
  }
}

}  // namespace

DCNAS_FUZZ_TARGET(Body)
