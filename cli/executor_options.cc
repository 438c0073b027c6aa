#include "cli/executor_options.h"

#include "common/errors.h"
#ifdef DCNAS_WITH_MPI
#include "exec/mpi_executor.h"
#endif

namespace dcnas::cli {

void ExecutorArgs::AddOptions(po::options_description& options, const std::string& help,
                              const std::string& timeout_help) {
  options.add_options()("executor", po::value(&executor)->default_value(executor), help.c_str())(
      "task-timeout", po::value(&task_timeout_s)->default_value(task_timeout_s),
      timeout_help.c_str());
}

bool ExecutorArgs::UseMpi(const std::string& whole_job, int workers,
                          const std::string& workers_option) const {
  const bool mpi = UseMpiExecutor(executor, whole_job);
  if (mpi && workers != 1) {
    throw UsageError("--executor mpi: the workers are the MPI ranks; drop --" + workers_option);
  }
  return mpi;
}

bool RunJob(bool mpi, double task_timeout_s, const std::function<exec::WorkHandler()>& make_worker,
            const std::function<void(exec::Executor*)>& job) {
  if (!mpi) {
    job(nullptr);
    return true;
  }
#ifdef DCNAS_WITH_MPI
  return exec::RunMasterWorker(task_timeout_s, make_worker,
                               [&job](exec::Executor& executor) { job(&executor); });
#else
  (void)task_timeout_s, (void)make_worker;
  throw InternalError("--executor mpi in a build without MPI (UseMpiExecutor refuses it)");
#endif
}

}  // namespace dcnas::cli
