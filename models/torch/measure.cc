#include "models/torch/measure.h"

#include <dlfcn.h>

#include <algorithm>
#include <chrono>
#include <ctime>
#include <string>

#include "common/errors.h"
#include "common/process_stats.h"
#include "common/statistics.h"
#include "models/torch/lower.h"

namespace dcnas::models::libtorch {

double Spread(const std::vector<double>& samples) {
  if (samples.empty()) throw InternalError("spread of an empty sample");
  const auto [lo, hi] = std::minmax_element(samples.begin(), samples.end());
  return *hi - *lo;
}

int SetThreads(int threads) {
  if (threads < 1) throw InputError("threads must be at least 1, got " + std::to_string(threads));
  ::torch::set_num_threads(threads);
  SetBlasThreads(threads);
  return ::at::get_num_threads();
}

bool SetBlasThreads(int threads) {
  // LibTorch's set_num_threads reaches OpenMP and MKL but not OpenBLAS's own pthread pool
  // (Debian's libopenblas0-pthread behind libblas), whose idle workers spin on the other cores
  // after each GEMM: with one LibTorch thread the process then burns about twice the CPU time of
  // its wall time, and --cpu-clock measured that. Looked up at run time, since the BLAS behind
  // libblas.so.3 is chosen by Debian's alternatives, not at link time.
  using SetFn = void (*)(int);
  void* symbol = ::dlsym(RTLD_DEFAULT, "openblas_set_num_threads");
  if (symbol == nullptr) return false;
  reinterpret_cast<SetFn>(symbol)(threads);
  return true;
}

Measurement MeasureGraph(const Graph& graph, const MeasureOptions& options) {
  if (options.repeats < 1) {
    throw InputError("repeats must be at least 1, got " + std::to_string(options.repeats));
  }
  if (options.warmup < 0) {
    throw InputError("warm-up runs must not be negative, got " + std::to_string(options.warmup));
  }
  const ::torch::Device device = ResolveDevice(options.device);
  Measurement m;
  m.model = graph.info().model;
  m.threads = SetThreads(options.threads);
  m.mode = options.mode;
  ::torch::manual_seed(options.seed);
  GraphModule module(graph);
  module->to(device);
  const int input_id = graph.Inputs().at(0);
  const Shape& in = graph.op(input_id).out.shape;
  m.batch = static_cast<int>(in.n);
  m.resolution_px = static_cast<int>(in.h);
  const ::torch::Tensor input = ::torch::randn(NchwSizes(in)).to(device);

  std::function<void()> step;
  std::unique_ptr<::torch::optim::SGD> optimizer;
  ::torch::Tensor labels;
  if (options.mode == MeasureMode::kInference) {
    module->eval();
    step = [&] {
      ::torch::InferenceMode guard;
      const ::torch::Tensor y = module->forward(input);
      (void)y;
    };
  } else {
    module->train();
    const int64_t classes = graph.op(module->logits_id()).out.shape.per_image();
    labels = ::torch::randint(classes, {in.n}, ::torch::kLong).to(device);
    optimizer = std::make_unique<::torch::optim::SGD>(
        module->parameters(), ::torch::optim::SGDOptions(0.01).momentum(0.9));
    step = [&] {
      optimizer->zero_grad();
      const ::torch::Tensor loss =
          ::torch::nn::functional::cross_entropy(module->Logits(input), labels);
      loss.backward();
      optimizer->step();
    };
  }
  if (device.is_cuda()) {
    step = [device, run = std::move(step)] {
      run();
      SyncDevice(device);
    };
  }
  for (int i = 0; i < options.warmup; ++i) step();
  auto cpu_ms = [] {
    timespec t{};
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return 1e3 * static_cast<double>(t.tv_sec) + 1e-6 * static_cast<double>(t.tv_nsec);
  };
  const ProcessCounters before = ReadProcessCounters();
  for (int i = 0; i < options.repeats; ++i) {
    if (options.cpu_clock) {
      const double start = cpu_ms();
      step();
      m.samples_ms.push_back(cpu_ms() - start);
      continue;
    }
    const auto start = std::chrono::steady_clock::now();
    step();
    const auto end = std::chrono::steady_clock::now();
    m.samples_ms.push_back(std::chrono::duration<double, std::milli>(end - start).count());
  }
  const ProcessCounters used = ReadProcessCounters() - before;
  m.minor_faults_per_run = static_cast<double>(used.minor_faults) / options.repeats;
  const double cpu_s = used.user_s + used.system_s;
  m.kernel_cpu_share = cpu_s > 0 ? used.system_s / cpu_s : 0.0;
  m.median_ms = Median(m.samples_ms);
  m.spread_ms = Spread(m.samples_ms);
  m.throughput_img_per_s = m.median_ms > 0 ? 1000.0 * m.batch / m.median_ms : 0.0;
  return m;
}

}  // namespace dcnas::models::libtorch
