#include "clients/cpp/server_process.h"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>

extern char** environ;

namespace contactsim::client {
namespace {

constexpr size_t kKeptLogLines = 8;
constexpr std::string_view kListeningMarker = "listening on ";

}  // namespace

absl::StatusOr<std::unique_ptr<ServerProcess>> ServerProcess::Start(
    const std::string& binary, const std::vector<std::string>& extra_args,
    const std::string& log_path, std::chrono::milliseconds startup_timeout) {
  std::vector<std::string> args = {binary, "--listen", "127.0.0.1:0"};
  args.insert(args.end(), extra_args.begin(), extra_args.end());
  std::vector<char*> argv;
  for (std::string& arg : args) argv.push_back(arg.data());
  argv.push_back(nullptr);

  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0) {
    return absl::InternalError(std::string("pipe: ") + std::strerror(errno));
  }
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, fds[1], STDOUT_FILENO);
  posix_spawn_file_actions_adddup2(&actions, fds[1], STDERR_FILENO);
  std::unique_ptr<ServerProcess> process(new ServerProcess());
  const int error =
      posix_spawn(&process->pid_, binary.c_str(), &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  close(fds[1]);
  if (error != 0) {
    close(fds[0]);
    process->pid_ = -1;
    return absl::FailedPreconditionError("cannot run " + binary + ": " + std::strerror(error));
  }
  process->log_thread_ = std::thread(&ServerProcess::ReadLog, process.get(), fds[0], log_path);

  std::unique_lock<std::mutex> lock(process->mu_);
  const bool ready = process->changed_.wait_for(lock, startup_timeout, [&] {
    return !process->found_address_.empty() || process->log_closed_;
  });
  if (!process->found_address_.empty()) {
    process->address_ = process->found_address_;
    return process;
  }
  lock.unlock();
  const std::string tail = process->LastLogLines();
  if (!ready) {
    return absl::DeadlineExceededError(binary + " did not report a listening address within " +
                                       std::to_string(startup_timeout.count()) +
                                       " ms; its last log lines:\n" + tail);
  }
  return absl::FailedPreconditionError(binary + " exited before listening; its last log lines:\n" +
                                       tail);
}

void ServerProcess::ReadLog(int fd, const std::string& log_path) {
  std::ofstream log(log_path);
  std::string pending;
  char buffer[4096];
  ssize_t n;
  while ((n = read(fd, buffer, sizeof(buffer))) > 0 || (n < 0 && errno == EINTR)) {
    if (n < 0) continue;
    pending.append(buffer, static_cast<size_t>(n));
    size_t end;
    while ((end = pending.find('\n')) != std::string::npos) {
      const std::string line = pending.substr(0, end);
      pending.erase(0, end + 1);
      log << line << '\n';
      log.flush();
      std::lock_guard<std::mutex> lock(mu_);
      last_lines_.push_back(line);
      if (last_lines_.size() > kKeptLogLines) last_lines_.pop_front();
      const size_t at = line.find(kListeningMarker);
      if (found_address_.empty() && at != std::string::npos) {
        const size_t begin = at + kListeningMarker.size();
        found_address_ = line.substr(begin, line.find(' ', begin) - begin);
        changed_.notify_all();
      }
    }
  }
  close(fd);
  std::lock_guard<std::mutex> lock(mu_);
  log_closed_ = true;
  changed_.notify_all();
}

std::string ServerProcess::LastLogLines() const {
  std::lock_guard<std::mutex> lock(mu_);
  std::string text;
  for (const std::string& line : last_lines_) text += "  " + line + "\n";
  return text.empty() ? "  (no output)\n" : text;
}

absl::StatusOr<int> ServerProcess::Stop(std::chrono::milliseconds timeout) {
  if (pid_ < 0 || exited_) return absl::FailedPreconditionError("server already stopped");
  kill(pid_, SIGTERM);
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  int status = 0;
  pid_t reaped = 0;
  while ((reaped = waitpid(pid_, &status, WNOHANG)) == 0 &&
         std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  if (reaped == 0) {
    kill(pid_, SIGKILL);
    waitpid(pid_, &status, 0);
  }
  exited_ = true;
  if (log_thread_.joinable()) log_thread_.join();
  if (reaped == 0) {
    return absl::DeadlineExceededError("server did not exit within " +
                                       std::to_string(timeout.count()) + " ms of SIGTERM (killed)");
  }
  if (WIFSIGNALED(status)) {
    return absl::InternalError(std::string("server died of signal ") + strsignal(WTERMSIG(status)));
  }
  return WEXITSTATUS(status);
}

ServerProcess::~ServerProcess() {
  if (pid_ > 0 && !exited_) {
    kill(pid_, SIGKILL);
    waitpid(pid_, nullptr, 0);
  }
  if (log_thread_.joinable()) log_thread_.join();
}

absl::StatusOr<std::string> FindServerBinary(const std::string& relative_path) {
  std::error_code error;
  const std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", error);
  if (error) return absl::NotFoundError("cannot find the demo's own path: " + error.message());
  const std::filesystem::path candidates[] = {
      (self.parent_path() / relative_path).lexically_normal(),
      self.parent_path() / "contactsim-server"};
  std::string tried;
  for (const std::filesystem::path& candidate : candidates) {
    if (access(candidate.c_str(), X_OK) == 0) return candidate.string();
    tried.append(" ").append(candidate.string());
  }
  return absl::NotFoundError("contactsim-server not found (tried" + tried +
                             "); build it (cmake --build build --target contactsim-server) or "
                             "pass --server-binary");
}

}  // namespace contactsim::client
