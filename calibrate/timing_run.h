// A resumable, kill-safe run of host timings into a measurement CSV (`dcnas measure`, `dcnas
// calibrate-host`): one point per (zoo model, batch) and per layer-graph file. Each row is added
// and the file rewritten atomically as soon as its point is timed, so a killed run loses at most
// the point in flight, and a resumed run keeps the rows already in the file and times only the
// missing points. The timing itself is the caller's (LibTorch lives in models/torch): a
// PointTimer.
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <vector>

#include "calibrate/measurement.h"
#include "models/builder.h"
#include "models/graph.h"
#include "models/registry.h"

namespace dcnas::calibrate {

// What a timer reports for one graph (models/torch's Measurement, as the rows need it).
struct TimedPoint {
  int batch = 0;          // of the graph as lowered
  int resolution_px = 0;  // of the graph as lowered
  int threads = 0;        // intra-op threads in effect
  double median_ms = 0.0;
  double spread_ms = 0.0;  // max - min of the timed runs
  double throughput_img_per_s = 0.0;
  double minor_faults_per_run = 0.0;
  double kernel_cpu_share = 0.0;  // the kernel's share of the process's CPU time
};
using PointTimer = std::function<TimedPoint(const models::Graph& graph)>;

// The stack and precision of every row: LibTorch's eager CPU stack in fp32.
inline constexpr const char* kHostTimingStack = "libtorch-cpu";
inline constexpr const char* kHostTimingPrecision = "fp32";

struct TimingPlan {
  std::vector<std::string> models;  // registry names, each timed at every batch
  // Where the names are built (null: the zoo, models::BuiltinModels()).
  const models::ModelRegistry* registry = nullptr;
  std::vector<int> batches;
  std::vector<std::string> graph_paths;  // layer-graph JSON files, timed as they are
  models::BuildOptions build;            // of the zoo models (the batch is set per point)
  std::string save_graphs;  // directory for each built zoo graph (<model>-b<batch>-r<res>.json)
  // How the timer runs, recorded in the rows (repeats column, notes).
  int threads = 1;  // requested intra-op threads (part of a point's identity)
  int repeats = 5;
  int warmup = 2;
  bool cpu_clock = false;  // runs timed by process CPU time
  std::string malloc_policy = "keep";
  std::string torch_device = "cpu";  // where LibTorch runs the graphs: cpu, cuda, cuda:N
  // Columns of the rows.
  std::string device = "host-cpu";
  std::string regime = kRegimeHostCpu;
  std::string cpu_model;  // this machine's CPU (cpu_model column and source_ref)
  std::string notes;      // appended to the notes column
  // The CSV, rewritten after every point; empty: the table is only returned.
  std::string out;
  bool resume = false;  // keep the points already in `out` and time only the missing ones
};

struct TimingRunResult {
  std::string csv;     // the table: rows kept by the resume first, then the new ones
  size_t points = 0;   // in the plan
  size_t skipped = 0;  // already in the file
  size_t measured() const { return points - skipped; }
};

// Called before each point is timed: its index (0-based), the number of points, its model and
// batch.
using TimingProgress =
    std::function<void(size_t index, size_t points, const std::string& model, int batch)>;

// Times the plan's points in order (zoo models at each batch, then the graph files). Throws
// InputError for an unknown zoo model before anything is timed, and for a resume file that
// `dcnas measure` did not write (its header differs).
TimingRunResult RunTimings(const TimingPlan& plan, const PointTimer& timer,
                           const TimingProgress& progress = {});

}  // namespace dcnas::calibrate
