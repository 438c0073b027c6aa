#include "cli/host_timing.h"

#include <unistd.h>

#include <iostream>

#include "common/process_stats.h"

namespace dcnas::cli {

namespace lt = models::libtorch;

calibrate::TimingRunResult TimeOnHostCpu(calibrate::TimingPlan plan, lt::MeasureMode mode) {
  ApplyMallocPolicy(ParseMallocPolicy(plan.malloc_policy));
  plan.cpu_model = lt::CpuModelName();
  lt::MeasureOptions options;
  options.mode = mode;
  options.threads = plan.threads;
  options.warmup = plan.warmup;
  options.repeats = plan.repeats;
  options.cpu_clock = plan.cpu_clock;
  options.device = plan.torch_device;
  if (plan.torch_device != "cpu") {
    // Timed on a CUDA device: the rows say so instead of naming this host's CPU.
    plan.device = "libtorch-" + plan.torch_device;
    plan.notes +=
        (plan.notes.empty() ? "" : "; ") + std::string("LibTorch on ") + plan.torch_device;
  }
  const auto timer = [&options](const models::Graph& graph) {
    const lt::Measurement m = lt::MeasureGraph(graph, options);
    return calibrate::TimedPoint{m.batch,
                                 m.resolution_px,
                                 m.threads,
                                 m.median_ms,
                                 m.spread_ms,
                                 m.throughput_img_per_s,
                                 m.minor_faults_per_run,
                                 m.kernel_cpu_share};
  };
  const bool terminal = isatty(STDERR_FILENO) != 0;
  const auto progress = [terminal](size_t i, size_t points, const std::string& model, int batch) {
    if (!terminal) return;
    std::cerr << "\r\033[K[" << i + 1 << "/" << points << "] " << model << " batch " << batch
              << std::flush;
  };
  const calibrate::TimingRunResult result = calibrate::RunTimings(plan, timer, progress);
  if (terminal) std::cerr << "\r\033[K";
  if (!plan.out.empty()) {
    std::cerr << "measured " << result.measured() << " points";
    if (result.skipped > 0) std::cerr << " (" << result.skipped << " already in the file)";
    std::cerr << ": " << plan.out << "\n";
  }
  return result;
}

}  // namespace dcnas::cli
