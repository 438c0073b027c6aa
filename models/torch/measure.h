// Timing layer graphs on this machine's CPU with LibTorch: warm-up runs, then repeated timed
// runs, summarised by the median and the spread (max - min). No LibTorch headers here.
#pragma once

#include <string>
#include <vector>

#include "models/graph.h"

namespace dcnas::models::libtorch {

enum class MeasureMode {
  kInference,  // forward pass in inference mode (batch norm uses running statistics)
  kTrain,      // one training step: forward, cross-entropy loss, backward, SGD update
};

struct MeasureOptions {
  MeasureMode mode = MeasureMode::kInference;
  int threads = 1;  // LibTorch intra-op threads
  int warmup = 2;   // untimed runs before the timed ones
  int repeats = 5;  // timed runs
  uint64_t seed = 0;
  // Time each run by the process's CPU time instead of wall time. With one thread this is the
  // run's latency on an idle core, and it stays meaningful on a machine shared with other work
  // (time slices lost to other processes are not counted).
  bool cpu_clock = false;
  // "cpu", "cuda" or "cuda:N" (a LibTorch built with CUDA; InputError otherwise). On a CUDA
  // device each run ends with a device synchronisation, so the wall time covers its kernels.
  std::string device = "cpu";
};

struct Measurement {
  std::string model;
  int batch = 0;
  int resolution_px = 0;
  int threads = 0;
  MeasureMode mode = MeasureMode::kInference;
  std::vector<double> samples_ms;  // one per timed run, in run order
  double median_ms = 0.0;
  double spread_ms = 0.0;             // max - min of the samples
  double throughput_img_per_s = 0.0;  // batch / median
  // Over the timed runs (common/process_stats.h): minor page faults per run, and the share of the
  // process's CPU time spent in the kernel.
  double minor_faults_per_run = 0.0;
  double kernel_cpu_share = 0.0;
};

// Lowers `graph` (batch and resolution as built) and times it. Throws InputError on impossible
// options (threads, repeats < 1) or graphs that cannot be lowered.
Measurement MeasureGraph(const Graph& graph, const MeasureOptions& options);

// max - min of a non-empty sample (its median: common/statistics.h).
double Spread(const std::vector<double>& samples);

// The CPU model from /proc/cpuinfo ("model name"), or "unknown-cpu".
std::string CpuModelName();

// Number of LibTorch intra-op threads after setting them (checks the setting took effect). Also
// sets the BLAS library's own threads (SetBlasThreads).
int SetThreads(int threads);

// The training and measuring device's name checked: "cpu", "cuda" or "cuda:N"; InputError
// naming `device` otherwise.
void CheckDeviceName(const std::string& device);
// CUDA devices this LibTorch sees (0 for Debian's CPU-only build).
int CudaDeviceCount();

// Sets OpenBLAS's thread pool to `threads` when OpenBLAS is the BLAS loaded in this process
// (returns whether it is). Its idle workers otherwise spin beside a one-thread LibTorch run.
bool SetBlasThreads(int threads);

}  // namespace dcnas::models::libtorch
