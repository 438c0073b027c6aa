// The MPI back end of the executor (exec/executor.h): master-worker over MPI_COMM_WORLD. Rank 0
// is the caller (it owns the strategy and the journal); ranks 1..N-1 are workers that loop
// "receive a job, run the handler, send the result" until told to stop. Jobs go to whichever
// worker is idle (dynamic load balancing). Built only when meson finds MPI (-Dmpi=auto).
//
// Fault model (OpenMPI 4.1, the Debian one): a rank that dies makes mpirun abort the whole job,
// so a dead worker ends the run; the journal on rank 0 is appended and fsync'ed per result, so
// the restart with --resume redoes only the jobs that were in flight. A worker that hangs past
// the timeout loses its job (reported as failed) and is never given another; when the work is
// done the master aborts the job (exit code 3) rather than wait for it in MPI_Finalize.
#pragma once

#include <functional>
#include <memory>

#include "exec/executor.h"

namespace dcnas::exec {

// MPI_Init on construction, MPI_Finalize on destruction (once per process).
class MpiSession {
 public:
  MpiSession();
  ~MpiSession();
  MpiSession(const MpiSession&) = delete;
  MpiSession& operator=(const MpiSession&) = delete;
  int rank() const { return rank_; }
  int size() const { return size_; }
  // Ends every rank of the job now with `code` (MPI_Abort): for errors on one rank.
  [[noreturn]] static void Abort(int code);

 private:
  int rank_ = 0;
  int size_ = 1;
};

// Rank 0's executor over the workers 1..size-1; `timeout_s` > 0 bounds one job's time. Run may
// be called many times; destroying the executor (before the session) stops the workers.
std::unique_ptr<Executor> MakeMpiExecutor(const MpiSession& session, double timeout_s);

// A worker rank's loop: runs `handler` on each job until the master says stop.
void RunMpiWorker(const MpiSession& session, const WorkHandler& handler);

// One master-worker job: starts MPI; rank 0 runs `master` with an MPI executor, the other ranks
// serve the handler `make_worker` returns. An exception on any rank is printed with the rank and
// aborts the whole job (exit 2 for an InputError, 1 otherwise), so no rank waits for a dead
// peer. Returns true on rank 0.
bool RunMasterWorker(double timeout_s, const std::function<WorkHandler()>& make_worker,
                     const std::function<void(Executor&)>& master);

}  // namespace dcnas::exec
