// The binary's side of the LibTorch module (module.h): Train, MeasureGraph, ComputeZeroCost and
// the training cache's functions, each loading libdcnas_torch.so on first use and calling its
// entry point.
#include <dlfcn.h>

#include <cstdlib>
#include <filesystem>
#include <mutex>
#include <string>
#include <vector>

#include "common/errors.h"
#include "models/torch/module.h"

namespace dcnas::models::libtorch {
namespace {

namespace fs = std::filesystem;

std::vector<std::string> Candidates() {
  std::vector<std::string> out;
  if (const char* env = std::getenv("DCNAS_TORCH_MODULE"); env != nullptr && *env != '\0') {
    out.emplace_back(env);
    return out;
  }
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) out.push_back((exe.parent_path() / DCNAS_BIN_TO_TORCH_MODULE / kModuleFile).string());
  // The installed Python module (python/): the LibTorch module relative to the loaded file that
  // holds this code, when that is not the executable.
  Dl_info info{};
  if (std::string(DCNAS_PYTHON_TO_TORCH_MODULE).empty() ||
      ::dladdr(reinterpret_cast<const void*>(&Candidates), &info) == 0 ||
      info.dli_fname == nullptr) {
    out.push_back((fs::path(DCNAS_TORCH_MODULE_BUILD_DIR) / kModuleFile).string());
    return out;
  }
  const fs::path image = fs::weakly_canonical(info.dli_fname, ec);
  if (!ec && image != fs::weakly_canonical(exe, ec)) {
    out.push_back((image.parent_path() / DCNAS_PYTHON_TO_TORCH_MODULE / kModuleFile).string());
  }
  out.push_back((fs::path(DCNAS_TORCH_MODULE_BUILD_DIR) / kModuleFile).string());
  return out;
}

struct Loaded {
  const ModuleApi* api = nullptr;
  std::string path;
};

Loaded Load() {
  std::string tried;
  for (const std::string& path : Candidates()) {
    std::error_code ec;
    if (!fs::exists(path, ec)) {
      tried += "\n  " + path + ": not found";
      continue;
    }
    // RTLD_GLOBAL: the module looks up OpenBLAS's thread setter in the global scope
    // (SetBlasThreads in measure.cc), and LibTorch's libraries are meant to be loaded globally.
    void* handle = ::dlopen(path.c_str(), RTLD_NOW | RTLD_GLOBAL);
    if (handle == nullptr) {
      const char* why = ::dlerror();
      tried += "\n  " + path + ": " + (why != nullptr ? why : "dlopen failed");
      continue;
    }
    using EntryFn = const ModuleApi* (*)();
    auto entry = reinterpret_cast<EntryFn>(::dlsym(handle, kModuleSymbol));
    const ModuleApi* api = entry != nullptr ? entry() : nullptr;
    if (api == nullptr || api->version != kModuleApiVersion || api->size != sizeof(ModuleApi)) {
      tried += "\n  " + path +
               ": not a module of this dcnas (entry point missing or of another version)";
      continue;
    }
    return {api, fs::weakly_canonical(path, ec).string()};
  }
  throw InternalError("cannot load the LibTorch module " + std::string(kModuleFile) +
                      " (set DCNAS_TORCH_MODULE to its path); tried:" + tried);
}

const Loaded& Module() {
  static std::once_flag once;
  static Loaded loaded;
  std::call_once(once, [] { loaded = Load(); });
  return loaded;
}

}  // namespace

const ModuleApi& LoadedModule() { return *Module().api; }

const std::string& LoadedModulePath() { return Module().path; }

TrainResult Train(const Graph& graph, const TrainOptions& options, const ProgressFn& progress) {
  return LoadedModule().train(graph, options, progress);
}

TrainResult Train(const Graph& graph, const TrainOptions& options, const TrainingData& data,
                  const ProgressFn& progress) {
  return LoadedModule().train_on(graph, options, data, progress);
}

Measurement MeasureGraph(const Graph& graph, const MeasureOptions& options) {
  return LoadedModule().measure(graph, options);
}

std::shared_ptr<TrainingData::Cache> NewTrainingCache() { return LoadedModule().new_cache(); }

int64_t TrainingCacheBytes(const TrainingData::Cache& cache) {
  return LoadedModule().cache_bytes(cache);
}

void ClearTrainingCache(TrainingData::Cache& cache) { LoadedModule().clear_cache(cache); }

ZeroCostScores ComputeZeroCost(const Graph& graph, const ZeroCostOptions& options,
                               const TrainingData& data) {
  return LoadedModule().zero_cost(graph, options, data);
}

}  // namespace dcnas::models::libtorch
