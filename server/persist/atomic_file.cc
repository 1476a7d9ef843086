#include "server/persist/atomic_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>
#include <system_error>

#include "absl/strings/str_cat.h"

namespace contactsim::server::persist {
namespace {

absl::Status ErrnoError(std::string_view what, const std::filesystem::path& path, int error) {
  return absl::InternalError(
      absl::StrCat(std::string(what), " ", path.string(), ": ", std::strerror(error)));
}

absl::Status SyncDirectory(const std::filesystem::path& dir) {
  const int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return ErrnoError("open", dir, errno);
  const int result = ::fsync(fd);
  const int error = errno;
  ::close(fd);
  if (result != 0) return ErrnoError("fsync", dir, error);
  return absl::OkStatus();
}

}  // namespace

absl::Status EnsurePrivateDirectory(const std::filesystem::path& dir) {
  std::error_code error;
  if (!std::filesystem::exists(dir, error)) {
    std::filesystem::create_directories(dir, error);
    if (error) {
      return absl::FailedPreconditionError(
          absl::StrCat("--state-dir: cannot create ", dir.string(), ": ", error.message()));
    }
    std::filesystem::permissions(dir, std::filesystem::perms::owner_all,
                                 std::filesystem::perm_options::replace, error);
  }
  if (!std::filesystem::is_directory(dir, error)) {
    return absl::FailedPreconditionError(
        absl::StrCat("--state-dir: ", dir.string(), " is not a directory"));
  }
  if (::access(dir.c_str(), W_OK | X_OK) != 0) {
    return absl::FailedPreconditionError(
        absl::StrCat("--state-dir: ", dir.string(), " is not writable: ", std::strerror(errno)));
  }
  return absl::OkStatus();
}

absl::Status WriteFileAtomically(const std::filesystem::path& dir, std::string_view name,
                                 std::string_view bytes) {
  const std::filesystem::path target = dir / std::string(name);
  const std::filesystem::path temporary = dir / (std::string(name) + ".tmp");
  const int fd = ::open(temporary.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0) return ErrnoError("create", temporary, errno);
  size_t written = 0;
  while (written < bytes.size()) {
    const ssize_t n = ::write(fd, bytes.data() + written, bytes.size() - written);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      const int error = errno;
      ::close(fd);
      ::unlink(temporary.c_str());
      return ErrnoError("write", temporary, error);
    }
    written += static_cast<size_t>(n);
  }
  if (::fsync(fd) != 0) {
    const int error = errno;
    ::close(fd);
    ::unlink(temporary.c_str());
    return ErrnoError("fsync", temporary, error);
  }
  if (::close(fd) != 0) {
    const int error = errno;
    ::unlink(temporary.c_str());
    return ErrnoError("close", temporary, error);
  }
  if (::rename(temporary.c_str(), target.c_str()) != 0) {
    const int error = errno;
    ::unlink(temporary.c_str());
    return ErrnoError("rename to", target, error);
  }
  return SyncDirectory(dir);
}

absl::Status RemoveFileDurably(const std::filesystem::path& dir, std::string_view name) {
  const std::filesystem::path target = dir / std::string(name);
  if (::unlink(target.c_str()) != 0) {
    if (errno == ENOENT) return absl::OkStatus();
    return ErrnoError("remove", target, errno);
  }
  return SyncDirectory(dir);
}

absl::StatusOr<std::string> ReadWholeFile(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return absl::NotFoundError(absl::StrCat("cannot open ", path.string()));
  std::ostringstream content;
  content << in.rdbuf();
  if (in.bad()) return absl::InternalError(absl::StrCat("cannot read ", path.string()));
  return std::move(content).str();
}

}  // namespace contactsim::server::persist
