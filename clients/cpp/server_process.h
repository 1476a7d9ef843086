// ServerProcess: the real `contactsim-server` binary run as a child process on an ephemeral
// loopback port, for the demo, the soak (bench/soak.cc) and the tests that need the process. The
// child's log (stdout and stderr) is copied to a file; the bound address is read from its
// "listening on host:port" log line. Stop() sends SIGTERM (the server's graceful shutdown) and
// reports the exit status; the destructor kills a child still running.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <condition_variable>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "absl/status/statusor.h"

namespace contactsim::client {

class ServerProcess {
 public:
  // Runs `binary --listen 127.0.0.1:0 <extra_args>` and waits up to `startup_timeout` for the
  // address. FailedPrecondition when the binary cannot be run or exits before it listens,
  // DeadlineExceeded when it does not listen in time; the message carries the log's last lines.
  static absl::StatusOr<std::unique_ptr<ServerProcess>> Start(
      const std::string& binary, const std::vector<std::string>& extra_args,
      const std::string& log_path, std::chrono::milliseconds startup_timeout);
  ~ServerProcess();
  ServerProcess(const ServerProcess&) = delete;
  ServerProcess& operator=(const ServerProcess&) = delete;

  const std::string& address() const { return address_; }  // host:port
  pid_t pid() const { return pid_; }

  // SIGTERM, then waits up to `timeout` for the exit. Returns the exit code; Internal when the
  // child died of a signal, DeadlineExceeded (after SIGKILL) when it did not exit in time.
  absl::StatusOr<int> Stop(std::chrono::milliseconds timeout);

 private:
  ServerProcess() = default;
  void ReadLog(int fd, const std::string& log_path);  // the log thread
  std::string LastLogLines() const;                   // for error messages

  pid_t pid_ = -1;
  bool exited_ = false;  // reaped by Stop()
  std::string address_;
  std::thread log_thread_;
  mutable std::mutex mu_;
  std::condition_variable changed_;
  std::string found_address_;           // guarded by mu_
  bool log_closed_ = false;             // guarded by mu_: the child closed its output (exited)
  std::deque<std::string> last_lines_;  // guarded by mu_
};

// The server binary next to the demo: `relative_path` from the demo executable's folder (the
// build tree's layout), then a `contactsim-server` in the same folder (an installed bin/).
// NotFound listing the places tried.
absl::StatusOr<std::string> FindServerBinary(const std::string& relative_path);

}  // namespace contactsim::client
