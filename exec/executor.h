// Executors: "run these jobs, give me results as they finish", with dynamic load balancing (a
// worker takes the next job when it is idle). The caller owns the strategy and the journal; a
// worker only turns a job's payload into a result payload with a WorkHandler.
//
// Two back ends: the in-process one here (each job in a forked child, up to `jobs` at a time;
// children die with the parent), and MPI master-worker (exec/mpi_executor.h, rank 0 the
// caller, ranks 1..N-1 the workers; built when MPI is found).
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>

namespace dcnas::exec {

struct WorkItem {
  size_t index = 0;     // the caller's name for the job (echoed in its result)
  std::string payload;  // what the handler reads
};

struct WorkResult {
  size_t index = 0;
  std::string payload;  // the handler's output; empty when `error` is set
  std::string error;    // the handler threw, the worker died, or it ran past the timeout
  int worker = 0;       // 1-based worker number (MPI: the rank)
  double seconds = 0.0;
};

// Next job, or nullopt when there is none now: the source is asked again after each result, and
// Run ends when it has none while nothing is in flight (so a result may create the next job).
using WorkSource = std::function<std::optional<WorkItem>()>;
// Called on the caller's thread as each job ends, in the order they end.
using WorkSink = std::function<void(const WorkResult&)>;
// Runs one job on a worker; throws on failure (the message becomes the result's error).
using WorkHandler = std::function<std::string(const std::string& payload)>;

class Executor {
 public:
  virtual ~Executor() = default;
  virtual int workers() const = 0;
  virtual std::string name() const = 0;  // "process" or "mpi"
  // Asks `next` for jobs while a worker is idle; ends when it has none and none is in flight.
  virtual void Run(const WorkSource& next, const WorkSink& done) = 0;
};

// How many ranks the launcher (mpirun, srun) started this process among, from its environment
// (OMPI_COMM_WORLD_SIZE, PMI_SIZE, PMIX_SIZE); 1 when it was not started by one. A command run
// under mpirun without an MPI executor refuses to start when this is above 1 (every rank would
// do the whole job).
int LauncherRanks();

// The in-process back end: each job runs `handler` in a forked child (so a crash or a leak
// stays there), `jobs` at a time; a child that exits without a result is that job's error.
std::unique_ptr<Executor> MakeProcessExecutor(int jobs, WorkHandler handler);

}  // namespace dcnas::exec
