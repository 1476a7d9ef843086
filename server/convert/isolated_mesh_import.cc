#include "server/convert/isolated_mesh_import.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <string>

#include "absl/strings/str_cat.h"
#include "core/geometry/mesh_import.h"

#if defined(__SANITIZE_ADDRESS__)
#define CONTACTSIM_UNDER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define CONTACTSIM_UNDER_ASAN 1
#endif
#endif

namespace contactsim::server {
namespace {

// The child's answer on the pipe: u8 1, u64 vertices, u64 faces, the doubles, the int32 indices;
// or u8 0, i32 status code, then the message's bytes.
void WriteAll(int fd, const void* data, size_t size) {
  const char* bytes = static_cast<const char*>(data);
  while (size > 0) {
    const ssize_t written = write(fd, bytes, size);
    if (written < 0 && errno == EINTR) continue;
    if (written <= 0) _exit(3);
    bytes += written;
    size -= static_cast<size_t>(written);
  }
}

[[noreturn]] void RunChild(int fd, std::string_view data, std::string_view hint,
                           const core::MeshOptions& options, double scale,
                           const IsolatedImportLimits& limits) {
  const rlimit cpu{static_cast<rlim_t>(limits.cpu_seconds),
                   static_cast<rlim_t>(limits.cpu_seconds) + 1};
  setrlimit(RLIMIT_CPU, &cpu);
#if !defined(CONTACTSIM_UNDER_ASAN)
  // (AddressSanitizer reserves terabytes of address space: no AS limit under it.)
  const rlimit memory{static_cast<rlim_t>(limits.address_space_bytes),
                      static_cast<rlim_t>(limits.address_space_bytes)};
  setrlimit(RLIMIT_AS, &memory);
#endif
  const absl::StatusOr<core::TriangleMesh> mesh =
      core::ImportTriangleMeshFromMemory(data, hint, options, scale);
  if (!mesh.ok()) {
    const uint8_t ok = 0;
    const int32_t code = static_cast<int32_t>(mesh.status().code());
    WriteAll(fd, &ok, 1);
    WriteAll(fd, &code, sizeof code);
    WriteAll(fd, mesh.status().message().data(), mesh.status().message().size());
  } else {
    const uint8_t ok = 1;
    const uint64_t vertices = static_cast<uint64_t>(mesh->num_vertices());
    const uint64_t faces = static_cast<uint64_t>(mesh->num_faces());
    WriteAll(fd, &ok, 1);
    WriteAll(fd, &vertices, sizeof vertices);
    WriteAll(fd, &faces, sizeof faces);
    WriteAll(fd, mesh->vertices().data(), vertices * 3 * sizeof(double));
    WriteAll(fd, mesh->faces().data(), faces * 3 * sizeof(int32_t));
  }
  close(fd);
  _exit(0);  // no destructors, no atexit handlers of the server's libraries
}

// Everything the child writes, until it closes the pipe (false past the deadline).
bool ReadUntilClosed(int fd, std::chrono::steady_clock::time_point deadline, std::string* out) {
  char buffer[1 << 16];
  while (true) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) return false;
    pollfd poll_fd{fd, POLLIN, 0};
    const int ready = poll(&poll_fd, 1, static_cast<int>(left.count()));
    if (ready < 0 && errno == EINTR) continue;
    if (ready <= 0) return false;
    const ssize_t got = read(fd, buffer, sizeof buffer);
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) return true;
    out->append(buffer, static_cast<size_t>(got));
  }
}

absl::Status Failed(std::string_view why) {
  return absl::InvalidArgumentError(
      absl::StrCat("the importer failed on this file (", std::string(why), ")"));
}

}  // namespace

absl::StatusOr<core::TriangleMesh> ImportTriangleMeshIsolated(std::string_view data,
                                                              std::string_view format_hint,
                                                              const core::MeshOptions& options,
                                                              double scale,
                                                              const IsolatedImportLimits& limits) {
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0) {
    return absl::UnavailableError(absl::StrCat("mesh import: pipe: ", std::strerror(errno)));
  }
  const pid_t child = fork();
  if (child < 0) {
    close(fds[0]);
    close(fds[1]);
    return absl::UnavailableError(absl::StrCat("mesh import: fork: ", std::strerror(errno)));
  }
  if (child == 0) {
    close(fds[0]);
    RunChild(fds[1], data, format_hint, options, scale, limits);
  }
  close(fds[1]);
  std::string answer;
  // Wall time: the CPU limit plus room for a loaded machine.
  const auto deadline =
      std::chrono::steady_clock::now() + std::chrono::seconds(2 * limits.cpu_seconds + 5);
  const bool complete = ReadUntilClosed(fds[0], deadline, &answer);
  close(fds[0]);
  if (!complete) kill(child, SIGKILL);
  int wait_status = 0;
  while (waitpid(child, &wait_status, 0) < 0 && errno == EINTR) {
  }
  if (!complete) return Failed(absl::StrCat("no answer within ", 2 * limits.cpu_seconds + 5, " s"));
  if (WIFSIGNALED(wait_status)) {
    const int signal_number = WTERMSIG(wait_status);
    return Failed(
        signal_number == SIGXCPU
            ? absl::StrCat("over ", limits.cpu_seconds, " s of CPU time")
            : absl::StrCat("it died of signal ", signal_number, ", ", strsignal(signal_number)));
  }
  if (!WIFEXITED(wait_status) || WEXITSTATUS(wait_status) != 0 || answer.empty()) {
    return Failed("it ended without an answer");
  }
  if (answer[0] == 0) {
    int32_t code = 0;
    if (answer.size() < 1 + sizeof code) return Failed("a short answer");
    std::memcpy(&code, answer.data() + 1, sizeof code);
    return absl::Status(static_cast<absl::StatusCode>(code), answer.substr(1 + sizeof code));
  }
  uint64_t vertices = 0, faces = 0;
  if (answer.size() < 1 + 2 * sizeof(uint64_t)) return Failed("a short answer");
  std::memcpy(&vertices, answer.data() + 1, sizeof vertices);
  std::memcpy(&faces, answer.data() + 1 + sizeof vertices, sizeof faces);
  const size_t header = 1 + 2 * sizeof(uint64_t);
  if (vertices > static_cast<uint64_t>(options.limits.max_vertices) ||
      faces > static_cast<uint64_t>(options.limits.max_elements) ||
      answer.size() != header + vertices * 3 * sizeof(double) + faces * 3 * sizeof(int32_t)) {
    return Failed("an answer of the wrong size");
  }
  core::Points3 points(static_cast<Eigen::Index>(vertices), 3);
  core::IndexTriples triangles(static_cast<Eigen::Index>(faces), 3);
  std::memcpy(points.data(), answer.data() + header, vertices * 3 * sizeof(double));
  std::memcpy(triangles.data(), answer.data() + header + vertices * 3 * sizeof(double),
              faces * 3 * sizeof(int32_t));
  // Validated again here: the parent trusts nothing it did not check itself.
  return core::TriangleMesh::Create(std::move(points), std::move(triangles), options);
}

}  // namespace contactsim::server
