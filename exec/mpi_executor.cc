#include "exec/mpi_executor.h"

// Only the C API: the deprecated C++ bindings do not compile cleanly with -Werror.
#define OMPI_SKIP_MPICXX 1
#include <mpi.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "common/errors.h"
#include "common/kill_point.h"

namespace dcnas::exec {
namespace {

using Clock = std::chrono::steady_clock;

// Message tags. A job is "INDEX\nPAYLOAD"; a result is "INDEX\nSECONDS\nok|error\nTEXT".
constexpr int kTagJob = 1;
constexpr int kTagStop = 2;
constexpr int kTagResult = 3;

void Send(const std::string& text, int to, int tag) {
  MPI_Send(text.data(), static_cast<int>(text.size()), MPI_CHAR, to, tag, MPI_COMM_WORLD);
}

// Receives the probed message.
std::string Receive(const MPI_Status& probed) {
  int count = 0;
  MPI_Get_count(&probed, MPI_CHAR, &count);
  std::string text(static_cast<size_t>(count), '\0');
  MPI_Recv(text.data(), count, MPI_CHAR, probed.MPI_SOURCE, probed.MPI_TAG, MPI_COMM_WORLD,
           MPI_STATUS_IGNORE);
  return text;
}

std::string Line(const std::string& text, size_t& pos) {
  const size_t end = text.find('\n', pos);
  std::string line = text.substr(pos, end == std::string::npos ? std::string::npos : end - pos);
  pos = end == std::string::npos ? text.size() : end + 1;
  return line;
}

class MpiExecutor : public Executor {
 public:
  MpiExecutor(int size, double timeout_s) : size_(size), timeout_s_(timeout_s) {}
  int workers() const override { return size_ - 1; }
  std::string name() const override { return "mpi"; }

  void Run(const WorkSource& next, const WorkSink& done) override {
    struct InFlight {
      size_t index = 0;
      Clock::time_point start;
    };
    std::map<int, InFlight> busy;  // rank -> its job
    // Polling backs off from 20 us to 5 ms while nothing arrives: cheap jobs are collected at
    // once, long ones cost the master next to no CPU.
    auto wait = std::chrono::microseconds(20);
    while (true) {
      for (int rank = 1; rank < size_; ++rank) {
        if (busy.count(rank) > 0 || lost_.count(rank) > 0) continue;
        std::optional<WorkItem> item = next();
        if (!item) break;
        Send(std::to_string(item->index) + "\n" + item->payload, rank, kTagJob);
        busy[rank] = InFlight{item->index, Clock::now()};
      }
      if (busy.empty()) break;  // nothing to hand out and nothing in flight (or no workers left)
      int flag = 0;
      MPI_Status status;
      MPI_Iprobe(MPI_ANY_SOURCE, kTagResult, MPI_COMM_WORLD, &flag, &status);
      if (flag == 0) {
        CheckTimeouts(busy, done);
        std::this_thread::sleep_for(wait);
        wait = std::min(wait * 2, std::chrono::microseconds(5000));
        continue;
      }
      wait = std::chrono::microseconds(20);
      const std::string text = Receive(status);
      const auto it = busy.find(status.MPI_SOURCE);
      if (it == busy.end()) continue;  // a late result from a worker given up on
      busy.erase(it);
      size_t pos = 0;
      WorkResult r;
      r.index = std::stoul(Line(text, pos));
      r.seconds = std::stod(Line(text, pos));
      const std::string kind = Line(text, pos);
      (kind == "ok" ? r.payload : r.error) = text.substr(pos);
      r.worker = status.MPI_SOURCE;
      done(r);
    }
  }

  // The workers stop when the executor goes (Run is called once per round of a search). With a
  // rank lost to the timeout the job is aborted at once, the live workers still waiting for a
  // job: stopping them first would have them finalize while mpirun tears the job down, and that
  // teardown is where OpenMPI 4.1's mpirun once crashed (SIGSEGV) instead of exiting with 3.
  ~MpiExecutor() override {
    if (!lost_.empty()) {
      std::fprintf(stderr,
                   "dcnas: %zu MPI worker(s) ran past --task-timeout; every result is written, "
                   "aborting the job so that they do not hold it (exit code 3)\n",
                   lost_.size());
      MpiSession::Abort(3);
    }
    for (int rank = 1; rank < size_; ++rank) Send("", rank, kTagStop);
  }

 private:
  template <typename Busy>
  void CheckTimeouts(Busy& busy, const WorkSink& done) {
    if (timeout_s_ <= 0) return;
    const auto now = Clock::now();
    for (auto it = busy.begin(); it != busy.end();) {
      const double s = std::chrono::duration<double>(now - it->second.start).count();
      if (s <= timeout_s_) {
        ++it;
        continue;
      }
      WorkResult r;
      r.index = it->second.index;
      r.worker = it->first;
      r.seconds = s;
      r.error = "no result from MPI rank " + std::to_string(it->first) + " after " +
                std::to_string(static_cast<int>(s)) +
                " s (--task-timeout); that rank is given "
                "no more work";
      lost_.insert(it->first);
      it = busy.erase(it);
      done(r);
    }
  }

  int size_;
  double timeout_s_;
  std::set<int> lost_;
};

}  // namespace

MpiSession::MpiSession() {
  int initialized = 0;
  MPI_Initialized(&initialized);
  if (initialized == 0) MPI_Init(nullptr, nullptr);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
  MPI_Comm_size(MPI_COMM_WORLD, &size_);
}

MpiSession::~MpiSession() {
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (finalized == 0) MPI_Finalize();
}

void MpiSession::Abort(int code) {
  std::fflush(stdout);
  std::fflush(stderr);
  MPI_Abort(MPI_COMM_WORLD, code);
  std::_Exit(code);
}

std::unique_ptr<Executor> MakeMpiExecutor(const MpiSession& session, double timeout_s) {
  if (session.rank() != 0) throw InternalError("MakeMpiExecutor: only rank 0 is the master");
  if (session.size() < 2) {
    throw InputError("--executor mpi: " + std::to_string(session.size()) +
                     " MPI rank(s); it needs a master and at least one worker "
                     "(mpirun -np N with N >= 2)");
  }
  return std::make_unique<MpiExecutor>(session.size(), timeout_s);
}

void RunMpiWorker(const MpiSession& session, const WorkHandler& handler) {
  (void)session;
  while (true) {
    MPI_Status status;
    MPI_Probe(0, MPI_ANY_TAG, MPI_COMM_WORLD, &status);
    const std::string job = Receive(status);
    if (status.MPI_TAG == kTagStop) return;
    size_t pos = 0;
    const std::string index = Line(job, pos);
    StallPoint("mpi.worker-job");  // a worker that stops answering (the timeout's test)
    const auto start = Clock::now();
    std::string kind = "ok";
    std::string text;
    try {
      text = handler(job.substr(pos));
    } catch (const std::exception& e) {
      kind = "error";
      text = e.what();
    }
    const double s = std::chrono::duration<double>(Clock::now() - start).count();
    Send(index + "\n" + std::to_string(s) + "\n" + kind + "\n" + text, 0, kTagResult);
  }
}

bool RunMasterWorker(double timeout_s, const std::function<WorkHandler()>& make_worker,
                     const std::function<void(Executor&)>& master) {
  MpiSession mpi;
  try {
    if (mpi.rank() != 0) {
      RunMpiWorker(mpi, make_worker());
      return false;
    }
    const auto executor = MakeMpiExecutor(mpi, timeout_s);
    master(*executor);
  } catch (const InputError& e) {
    std::fprintf(stderr, "dcnas: error (MPI rank %d): %s\n", mpi.rank(), e.what());
    MpiSession::Abort(2);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "dcnas: failure (MPI rank %d): %s\n", mpi.rank(), e.what());
    MpiSession::Abort(1);
  }
  return true;
}

}  // namespace dcnas::exec
