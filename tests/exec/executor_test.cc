// The in-process executor: every job runs once in a forked child, results carry the handler's
// output or its failure, and the source may add jobs as results arrive.
#include "exec/executor.h"

#include <unistd.h>

#include <catch2/catch.hpp>
#include <csignal>
#include <cstdlib>
#include <map>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "common/errors.h"

namespace dcnas::exec {
namespace {

// A source handing out `count` jobs whose payloads are their indices.
WorkSource Counting(size_t count, size_t& handed) {
  return [count, &handed]() -> std::optional<WorkItem> {
    if (handed >= count) return std::nullopt;
    WorkItem item{handed, std::to_string(handed)};
    ++handed;
    return item;
  };
}

std::vector<WorkResult> RunAll(Executor& executor, const WorkSource& source) {
  std::vector<WorkResult> results;
  executor.Run(source, [&](const WorkResult& r) { results.push_back(r); });
  return results;
}

TEST_CASE("every job runs once and its result comes back under its index", "[exec]") {
  auto executor = MakeProcessExecutor(
      2, [](const std::string& payload) { return "x" + std::to_string(2 * std::stoi(payload)); });
  CHECK(executor->workers() == 2);
  CHECK(executor->name() == "process");
  size_t handed = 0;
  const auto results = RunAll(*executor, Counting(7, handed));
  REQUIRE(results.size() == 7);
  std::set<size_t> seen;
  for (const auto& r : results) {
    CHECK(r.error.empty());
    CHECK(r.payload == "x" + std::to_string(2 * r.index));
    CHECK(r.worker >= 1);
    CHECK(r.worker <= 2);
    CHECK(r.seconds >= 0.0);
    seen.insert(r.index);
  }
  CHECK(seen.size() == 7);
}

TEST_CASE("a handler's exception, a crash and an oversized result are that job's error", "[exec]") {
  auto executor = MakeProcessExecutor(1, [](const std::string& payload) -> std::string {
    if (payload == "0") throw std::runtime_error("bad architecture");
    if (payload == "1") ::raise(SIGKILL);
    if (payload == "2") std::_Exit(3);
    if (payload == "3") return std::string(70000, 'a');
    return "fine";
  });
  size_t handed = 0;
  std::map<size_t, WorkResult> by_index;
  for (const auto& r : RunAll(*executor, Counting(5, handed))) by_index[r.index] = r;
  REQUIRE(by_index.size() == 5);
  CHECK(by_index[0].error == "bad architecture");
  CHECK(by_index[0].payload.empty());
  CHECK(by_index[1].error == "worker killed by signal 9");
  CHECK(by_index[2].error.find("exited without a result") != std::string::npos);
  CHECK(by_index[3].error.find("at most 60000") != std::string::npos);
  CHECK(by_index[4].error.empty());
  CHECK(by_index[4].payload == "fine");
}

TEST_CASE("a source may create the next job from a result", "[exec]") {
  auto executor = MakeProcessExecutor(3, [](const std::string& payload) { return payload; });
  // Start with one job; each result of index i < 4 adds job i + 1.
  std::vector<WorkItem> queue{{0, "0"}};
  std::vector<size_t> order;
  executor->Run(
      [&]() -> std::optional<WorkItem> {
        if (queue.empty()) return std::nullopt;
        WorkItem item = queue.back();
        queue.pop_back();
        return item;
      },
      [&](const WorkResult& r) {
        order.push_back(r.index);
        if (r.index < 4) queue.push_back({r.index + 1, std::to_string(r.index + 1)});
      });
  CHECK(order == std::vector<size_t>{0, 1, 2, 3, 4});
}

TEST_CASE("the number of workers is checked", "[exec]") {
  const WorkHandler echo = [](const std::string& p) { return p; };
  CHECK_THROWS_AS(MakeProcessExecutor(0, echo), InputError);
  CHECK_THROWS_AS(MakeProcessExecutor(4097, echo), InputError);
  CHECK_NOTHROW(MakeProcessExecutor(4096, echo));
}

TEST_CASE("the launcher's rank count comes from its environment", "[exec]") {
  for (const char* name : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_SIZE"}) ::unsetenv(name);
  CHECK(LauncherRanks() == 1);
  ::setenv("PMI_SIZE", "4", 1);
  CHECK(LauncherRanks() == 4);
  ::setenv("PMI_SIZE", "1", 1);
  CHECK(LauncherRanks() == 1);
  ::unsetenv("PMI_SIZE");
}

}  // namespace
}  // namespace dcnas::exec
