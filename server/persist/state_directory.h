// StateDirectory: sessions that survive a restart (--state-dir, docs/deploy.md). Each session is
// one file <id>.session (session_record.h: its snapshot blob, name, device and tokens' hashes),
// replaced atomically (atomic_file.h) by a background thread:
//
//   - after a change of content (a body or constraint added or removed, a Restore), at the next
//     tick (every 0.1 s, or every interval_s when shorter);
//   - after steps, once interval_s has passed since the session's last write or every_steps
//     steps have been taken since, whichever comes first;
//   - on Stop (the server's drain): every session that changed since its last write.
//
// A closed session's file is removed at the next tick. A failed (diverged) session is not
// written: its last good state stays on disk. At start-up RestoreAll brings back every session
// whose file is this server's (its id carries the server's id prefix, the replica ordinal, so
// replicas may share one directory); a file that cannot be read or decoded is logged, renamed
// <file>.damaged and skipped, and the other sessions are restored. Leftover <file>.tmp files (a
// crash mid-write) are removed.
#pragma once

#include <chrono>
#include <condition_variable>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "core/linalg/backend.h"
#include "server/session/session_manager.h"

namespace contactsim::server::persist {

struct PersistOptions {
  std::string state_dir;       // --state-dir; empty: sessions are not persisted
  double interval_s = 5.0;     // --persist-interval-s: a stepping session's write period [s]
  int64_t every_steps = 1000;  // --persist-every-steps: or after this many steps
};

// InvalidArgument naming the flag for a negative interval or a non-positive step count.
absl::Status ValidatePersistOptions(const PersistOptions& options);

// The backend a restored session runs on, from the device it ran on ("cpu", "cuda").
using BackendForDevice =
    std::function<absl::StatusOr<std::shared_ptr<core::Backend>>(std::string_view device)>;

struct RestoreReport {
  int restored = 0;
  // "<file>: <reason>" for each file skipped (damaged, or refused by the server).
  std::vector<std::string> skipped;
};

class StateDirectory {
 public:
  // FailedPrecondition naming --state-dir when the directory cannot be made or written.
  static absl::StatusOr<std::unique_ptr<StateDirectory>> Open(const PersistOptions& options,
                                                              SessionManager* sessions,
                                                              BackendForDevice backend_for_device);
  ~StateDirectory();

  // Restores this server's sessions into the manager; logs each skip and a summary line.
  RestoreReport RestoreAll();
  // Starts the background writer.
  void Start();
  // Stops the writer and writes every session that changed since its last write.
  void Stop();
  // Writes every session that changed since its last write and removes closed sessions' files
  // now (what the writer does on a tick, without waiting for the interval).
  void FlushAll();

  // The idle timeout's eviction: writes the session now and forgets it in memory, keeping its
  // file, if it is still idle (SessionManager::Unload). Errors: NotFound, FailedPrecondition (in
  // use again), or the write's error for a session that has no file.
  absl::Status Unload(std::string_view id, std::chrono::steady_clock::time_point now,
                      std::chrono::steady_clock::duration timeout);
  // SessionManager's loader: brings a session Unload unloaded back from its file (NotFound for
  // any other id; a damaged file's error otherwise, logged, the file left as it is).
  absl::Status Load(std::string_view id);

  const std::filesystem::path& path() const { return dir_; }
  static std::string FileName(std::string_view session_id);

 private:
  StateDirectory(const PersistOptions& options, SessionManager* sessions,
                 BackendForDevice backend_for_device);
  // One pass over the sessions; `all_changed`: ignore the interval and step count.
  void Pass(bool all_changed);
  bool OwnsId(std::string_view id) const;
  absl::Status RestoreFile(const std::filesystem::path& file);
  // Captures and writes one session, recording it in written_ (pass_mu_ held).
  absl::Status WriteSessionLocked(Session& session, std::chrono::steady_clock::time_point now);

  struct Written {
    ChangeMarks marks;
    std::chrono::steady_clock::time_point at;
    bool skip_logged = false;  // a failed session: logged once, not retried until it changes
  };

  const PersistOptions options_;
  const std::filesystem::path dir_;
  SessionManager* const sessions_;
  const BackendForDevice backend_for_device_;

  std::mutex pass_mu_;  // one pass at a time (the thread, FlushAll, Stop)
  std::map<std::string, Written, std::less<>> written_;  // guarded by pass_mu_
  std::set<std::string, std::less<>> unloaded_;          // guarded by pass_mu_; on disk only

  std::mutex mu_;
  std::condition_variable wake_;
  bool stopping_ = false;  // guarded by mu_
  std::thread thread_;
};

}  // namespace contactsim::server::persist
