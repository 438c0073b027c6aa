// The resumable, kill-safe timing run behind `dcnas measure`, with a timer that makes numbers up:
// rows in the measurement schema, the file rewritten after every point, a resumed run timing only
// the missing points, and bad input refused before anything is timed.
#include "calibrate/timing_run.h"

#include <catch2/catch.hpp>

#include <unistd.h>

#include <filesystem>
#include <stdexcept>
#include <tuple>

#include "common/errors.h"
#include "common/file_io.h"
#include "models/graph_json.h"
#include "models/zoo/zoo.h"

namespace dcnas::calibrate {
namespace {

using Catch::Contains;
using Catch::EndsWith;
using Catch::StartsWith;
using Rows = std::vector<std::vector<std::string>>;

struct TempDir {
  std::filesystem::path path;
  explicit TempDir(const std::string& tag)
      : path(std::filesystem::temp_directory_path() /
             ("dcnas-timing-" + tag + "-" + std::to_string(::getpid()))) {
    std::filesystem::remove_all(path);
    std::filesystem::create_directories(path);
  }
  ~TempDir() { std::filesystem::remove_all(path); }
  std::string File(const std::string& name) const { return (path / name).string(); }
};

// Two zoo models at two batches, 32 px: four points.
TimingPlan SmallPlan(const std::string& out) {
  TimingPlan plan;
  plan.models = {"mobilenetv2-1.0", "efficientnet-b0"};
  plan.batches = {1, 2};
  plan.build.resolution = 32;
  plan.cpu_model = "test cpu";
  plan.out = out;
  return plan;
}

// The point's own batch and resolution, a latency that counts the calls.
TimedPoint MadeUp(const models::Graph& graph, int call) {
  TimedPoint p;
  p.batch = graph.info().batch;
  p.resolution_px = graph.info().resolution;
  p.threads = 1;
  p.median_ms = 10.0 + call;
  p.spread_ms = 0.5;
  p.throughput_img_per_s = 1000.0 * p.batch / p.median_ms;
  p.minor_faults_per_run = 12;
  p.kernel_cpu_share = 0.25;
  return p;
}

Rows FileRows(const std::string& path) {
  if (!std::filesystem::exists(path)) return {};
  const auto rows = ParseTimingRows(ReadFile(path), path);
  REQUIRE(rows);
  return *rows;
}

std::string Cell(const std::vector<std::string>& row, const char* column) {
  return TimingCell(row, column);
}

TEST_CASE("each point becomes a row of the schema, written as soon as it is timed",
          "[calibrate][unit]") {
  TempDir dir("rows");
  TimingPlan plan = SmallPlan(dir.File("m.csv"));
  plan.notes = "extra";
  int calls = 0;
  const PointTimer timer = [&](const models::Graph& graph) {
    // Every point timed before this one is already in the file (a kill loses only this one).
    CHECK(FileRows(plan.out).size() == static_cast<size_t>(calls));
    return MadeUp(graph, ++calls);
  };
  std::vector<std::tuple<size_t, size_t, std::string, int>> seen;
  const auto progress = [&](size_t i, size_t n, const std::string& model, int batch) {
    seen.emplace_back(i, n, model, batch);
  };
  const TimingRunResult result = RunTimings(plan, timer, progress);
  CHECK(result.points == 4);
  CHECK(result.skipped == 0);
  CHECK(result.measured() == 4);
  CHECK(result.csv == ReadFile(plan.out));
  using Seen = std::tuple<size_t, size_t, std::string, int>;
  CHECK(seen == std::vector<Seen>{{0, 4, "mobilenetv2-1.0", 1},
                                  {1, 4, "mobilenetv2-1.0", 2},
                                  {2, 4, "efficientnet-b0", 1},
                                  {3, 4, "efficientnet-b0", 2}});
  const Rows rows = FileRows(plan.out);
  REQUIRE(rows.size() == 4);
  const std::vector<std::string>& r = rows[3];
  CHECK(Cell(r, "model") == "efficientnet-b0");
  CHECK(Cell(r, "device") == "host-cpu");
  CHECK(Cell(r, "stack") == "libtorch-cpu");
  CHECK(Cell(r, "precision") == "fp32");
  CHECK(Cell(r, "batch_size") == "2");
  CHECK(Cell(r, "image_size") == "32");
  CHECK(Cell(r, "latency_ms") == "14.000");
  CHECK(Cell(r, "latency_spread_ms") == "0.500");
  CHECK(Cell(r, "repeats") == "5");
  CHECK(Cell(r, "regime") == kRegimeHostCpu);
  CHECK(Cell(r, "source_id") == "dcnas_measure");
  CHECK_THAT(Cell(r, "source_ref"), StartsWith("dcnas measure ") && EndsWith(" on test cpu"));
  CHECK(Cell(r, "cpu_model") == "test cpu");
  CHECK(Cell(r, "threads") == "1");
  CHECK(Cell(r, "notes") ==
        "warmup=2; median of 5 runs, spread = max - min; malloc keep: 12 minor page faults per "
        "run, kernel 25.0% of CPU time; extra");
}

TEST_CASE("a resumed run keeps the rows already timed and times only the missing points",
          "[calibrate][unit]") {
  TempDir dir("resume");
  TimingPlan plan = SmallPlan(dir.File("m.csv"));
  int calls = 0;
  // The first run dies while timing its third point.
  CHECK_THROWS_AS(RunTimings(plan,
                             [&](const models::Graph& graph) {
                               if (++calls == 3) throw std::runtime_error("killed");
                               return MadeUp(graph, calls);
                             }),
                  std::runtime_error);
  const Rows before = FileRows(plan.out);
  REQUIRE(before.size() == 2);

  plan.resume = true;
  std::vector<std::string> timed;
  const PointTimer record = [&](const models::Graph& graph) {
    timed.push_back(graph.info().model + " b" + std::to_string(graph.info().batch));
    return MadeUp(graph, 100);
  };
  TimingRunResult result = RunTimings(plan, record);
  CHECK(timed == std::vector<std::string>{"efficientnet-b0 b1", "efficientnet-b0 b2"});
  CHECK(result.skipped == 2);
  CHECK(result.measured() == 2);
  const Rows after = FileRows(plan.out);
  REQUIRE(after.size() == 4);
  CHECK(after[0] == before[0]);
  CHECK(after[1] == before[1]);
  CHECK(Cell(after[2], "model") == "efficientnet-b0");

  // Nothing is missing: nothing is timed.
  timed.clear();
  result = RunTimings(plan, record);
  CHECK(timed.empty());
  CHECK(result.skipped == 4);
  CHECK(FileRows(plan.out) == after);

  // Other threads are other points.
  plan.threads = 2;
  result = RunTimings(plan, record);
  CHECK(timed.size() == 4);
  CHECK(FileRows(plan.out).size() == 8);

  // Without resume, the file is started again.
  plan.resume = false;
  result = RunTimings(plan, record);
  CHECK(FileRows(plan.out).size() == 4);
}

TEST_CASE("bad input is refused before anything is timed", "[calibrate][unit]") {
  TempDir dir("bad");
  bool timed = false;
  const PointTimer timer = [&](const models::Graph& graph) {
    timed = true;
    return MadeUp(graph, 1);
  };
  TimingPlan plan = SmallPlan(dir.File("m.csv"));
  plan.models.push_back("no-such-model");
  CHECK_THROWS_AS(RunTimings(plan, timer), InputError);
  CHECK_FALSE(timed);
  CHECK_FALSE(std::filesystem::exists(plan.out));

  plan = SmallPlan(dir.File("other.csv"));
  WriteFileAtomic(plan.out, "model,device\nresnet50,v100\n");
  plan.resume = true;
  CHECK_THROWS_WITH(RunTimings(plan, timer),
                    Contains("other.csv: --resume needs a file written by `dcnas measure`"));
  CHECK_FALSE(timed);
  CHECK(ReadFile(plan.out) == "model,device\nresnet50,v100\n");
}

TEST_CASE("graph files are timed as built; zoo graphs are saved on request", "[calibrate][unit]") {
  TempDir dir("graphs");
  models::BuildOptions b;
  b.resolution = 48;
  b.batch = 3;
  const models::Graph file_graph = models::BuiltinModels().Build("mobilenetv2-1.0", b);
  const std::string graph_path = dir.File("g.json");
  models::WriteGraphFile(file_graph, graph_path);

  TimingPlan plan;
  plan.models = {"efficientnet-b0"};
  plan.batches = {1};
  plan.graph_paths = {graph_path};
  plan.build.resolution = 32;
  plan.build.proxy_removed_downsamples = 1;
  plan.build.width_scale = 0.5;
  plan.save_graphs = dir.File("saved");
  plan.regime = "host_cpu_train";
  plan.cpu_clock = true;
  int calls = 0;
  const TimingRunResult result =
      RunTimings(plan, [&](const models::Graph& graph) { return MadeUp(graph, ++calls); });
  CHECK(std::filesystem::exists(dir.File("saved/efficientnet-b0-b1-r32.json")));
  const auto rows = ParseTimingRows(result.csv, "result");
  REQUIRE(rows);
  REQUIRE(rows->size() == 2);
  const std::vector<std::string>& g = (*rows)[1];
  CHECK(Cell(g, "model") == file_graph.info().model);
  CHECK(Cell(g, "batch_size") == "3");
  CHECK(Cell(g, "image_size") == "48");
  CHECK(Cell(g, "regime") == "host_cpu_train");
  CHECK_THAT(Cell((*rows)[0], "notes"),
             StartsWith("process CPU time per run; warmup=2") &&
                 EndsWith("; proxy removed_downsamples=1 width_scale=0.500"));
}

}  // namespace
}  // namespace dcnas::calibrate
