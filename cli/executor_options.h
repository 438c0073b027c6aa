// --executor and --task-timeout of the commands that can run on MPI (accuracy-data generate,
// search, search finalists), and running a command's whole job on the executor they choose.
#pragma once

#include <functional>
#include <string>

#include "cli/cli.h"
#include "exec/executor.h"

namespace dcnas::cli {

struct ExecutorArgs {
  std::string executor = "process";
  double task_timeout_s = 0.0;

  // Adds --executor (`help`: what process and mpi do in this command) and --task-timeout
  // (`timeout_help`: what one task of the command is).
  void AddOptions(po::options_description& options, const std::string& help,
                  const std::string& timeout_help);
  // Whether --executor is mpi (UseMpiExecutor with `whole_job`); with mpi, the command's own
  // workers (`workers`, the value of --`workers_option`) must be 1: the workers are the ranks.
  bool UseMpi(const std::string& whole_job, int workers, const std::string& workers_option) const;
};

// Runs a command's job: here, `job(nullptr)`; or, with `mpi`, as one MPI master-worker job
// (exec::RunMasterWorker): rank 0 runs `job` with the MPI executor, the other ranks serve the
// handler `make_worker` returns. Returns false on those worker ranks, where the command ends
// without printing.
bool RunJob(bool mpi, double task_timeout_s, const std::function<exec::WorkHandler()>& make_worker,
            const std::function<void(exec::Executor*)>& job);

}  // namespace dcnas::cli
