#include "exec/executor.h"

#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <map>
#include <stdexcept>
#include <vector>

#include "common/errors.h"

namespace dcnas::exec {
namespace {

using Clock = std::chrono::steady_clock;

constexpr size_t kMaxResultBytes = 60000;

std::string ReadAll(int fd) {
  std::string out;
  char buf[65536];
  while (true) {
    const ssize_t n = ::read(fd, buf, sizeof buf);
    if (n > 0) {
      out.append(buf, static_cast<size_t>(n));
    } else if (n == 0 || errno != EINTR) {
      break;
    }
  }
  return out;
}

void WriteAll(int fd, const std::string& text) {
  size_t off = 0;
  while (off < text.size()) {
    const ssize_t n = ::write(fd, text.data() + off, text.size() - off);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) ::_exit(1);
    off += static_cast<size_t>(n);
  }
}

class ProcessExecutor : public Executor {
 public:
  ProcessExecutor(int jobs, WorkHandler handler) : jobs_(jobs), handler_(std::move(handler)) {
    if (jobs_ < 1 || jobs_ > 4096) throw InputError("--jobs must be in [1, 4096]");
  }
  int workers() const override { return jobs_; }
  std::string name() const override { return "process"; }

  void Run(const WorkSource& next, const WorkSink& done) override {
    struct Running {
      WorkItem item;
      int fd = -1;
      int slot = 0;
      Clock::time_point start;
    };
    const pid_t parent = ::getpid();
    std::map<pid_t, Running> running;
    std::vector<bool> busy(static_cast<size_t>(jobs_), false);
    while (true) {
      while (static_cast<int>(running.size()) < jobs_) {
        std::optional<WorkItem> item = next();
        if (!item) break;
        int slot = 0;
        while (busy[static_cast<size_t>(slot)]) ++slot;
        // The parent reads a child's result after it exits, so a result must fit in the pipe
        // (64 KiB on Linux): the child refuses a larger one rather than block.
        int fds[2];
        if (::pipe(fds) != 0)
          throw std::runtime_error(std::string("pipe: ") + std::strerror(errno));
        const pid_t pid = ::fork();
        if (pid < 0) throw std::runtime_error(std::string("fork: ") + std::strerror(errno));
        if (pid == 0) {
          ::close(fds[0]);
          ::prctl(PR_SET_PDEATHSIG, SIGKILL);
          if (::getppid() != parent) ::_exit(1);
          std::string message;
          try {
            message = "ok\n" + handler_(item->payload);
          } catch (const std::exception& e) {
            message = std::string("error\n") + e.what();
          }
          if (message.size() > kMaxResultBytes) {
            message = "error\nresult of " + std::to_string(message.size()) + " bytes (at most " +
                      std::to_string(kMaxResultBytes) + ")";
          }
          WriteAll(fds[1], message);
          ::_exit(0);
        }
        ::close(fds[1]);
        busy[static_cast<size_t>(slot)] = true;
        running[pid] = Running{std::move(*item), fds[0], slot, Clock::now()};
      }
      if (running.empty()) return;
      int status = 0;
      pid_t pid = -1;
      do {
        pid = ::waitpid(-1, &status, 0);
      } while (pid < 0 && errno == EINTR);
      if (pid < 0) throw std::runtime_error(std::string("waitpid: ") + std::strerror(errno));
      const auto it = running.find(pid);
      if (it == running.end()) continue;
      Running run = std::move(it->second);
      running.erase(it);
      busy[static_cast<size_t>(run.slot)] = false;
      const std::string message = ReadAll(run.fd);
      ::close(run.fd);
      WorkResult r;
      r.index = run.item.index;
      r.worker = run.slot + 1;
      r.seconds = std::chrono::duration<double>(Clock::now() - run.start).count();
      if (message.starts_with("ok\n")) {
        r.payload = message.substr(3);
      } else if (message.starts_with("error\n")) {
        r.error = message.substr(6);
      } else {
        r.error = WIFSIGNALED(status)
                      ? "worker killed by signal " + std::to_string(WTERMSIG(status))
                      : "worker exited without a result (status " + std::to_string(status) + ")";
      }
      done(r);
    }
  }

 private:
  int jobs_;
  WorkHandler handler_;
};

}  // namespace

int LauncherRanks() {
  for (const char* name : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_SIZE"}) {
    if (const char* v = std::getenv(name); v != nullptr) {
      const long n = std::strtol(v, nullptr, 10);
      if (n > 1) return static_cast<int>(n);
    }
  }
  return 1;
}

std::unique_ptr<Executor> MakeProcessExecutor(int jobs, WorkHandler handler) {
  return std::make_unique<ProcessExecutor>(jobs, std::move(handler));
}

}  // namespace dcnas::exec
