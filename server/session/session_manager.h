// SessionManager: the server's sessions by id, with the server-wide limits. Thread-safe; a
// Session is shared, so a call that found one finishes on it even if the session is closed
// meanwhile.
#pragma once

#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "core/sim/world.h"
#include "server/common/limits.h"
#include "server/session/memory_budget.h"
#include "server/session/session.h"

namespace contactsim::server {

class SessionManager {
 public:
  // `id_prefix` begins every new session's id: a replica's ordinal ("r2-", server.h), which a
  // gateway routes by (docs/deploy.md); empty for a lone server.
  explicit SessionManager(const ServerLimits& limits, std::string id_prefix = "")
      : limits_(limits),
        id_prefix_(std::move(id_prefix)),
        memory_budget_(std::make_shared<MemoryBudget>(limits.memory_budget_bytes,
                                                      limits.max_memory_bytes_per_session)) {}

  const ServerLimits& limits() const { return limits_; }
  // The memory budget every session charges (Create and Adopt attach it); a session's charge
  // goes back when the session is destroyed.
  const MemoryBudget& memory_budget() const { return *memory_budget_; }
  const std::string& id_prefix() const { return id_prefix_; }

  // Builds the session's World from `settings` (its pipeline included) on `backend` (the
  // session's own, never shared with another session: server/service/device_choice.h) with the
  // ground planes (their ids are assigned; errors name "settings: ..." or "ground_planes[i]:
  // ..."; a backend the pipeline cannot use is FailedPrecondition naming "device"), then
  // ResourceExhausted at the session limit. The id is 64 random bits in hex.
  // `peer` (auth/creator_access.h PeerKey; empty: not counted) holds the session against
  // limits.max_sessions_per_peer until it is closed (ResourceExhausted naming the peer).
  absl::StatusOr<std::shared_ptr<Session>> Create(std::string name,
                                                  const core::WorldSettings& settings,
                                                  const std::vector<core::GroundPlane>& planes,
                                                  std::shared_ptr<core::Backend> backend,
                                                  std::string_view peer = {});
  // Adds a session brought back from a state directory (server/persist/) under its own id;
  // AlreadyExists for an id in use, ResourceExhausted at the session limit.
  absl::Status Adopt(std::shared_ptr<Session> session);
  // Every session (ascending id), for the state directory's persister.
  std::vector<std::shared_ptr<Session>> All() const;
  // NotFound naming session_id for an unknown id. Marks the session used (idle timeout). An id
  // that is not here is asked of the loader, when one is set (a session unloaded to the state
  // directory comes back on its next call).
  absl::StatusOr<std::shared_ptr<Session>> Get(std::string_view id) const;
  // Ends the session's streams and forgets it; an unloaded session is loaded first, so closing
  // it also removes its file from the state directory.
  absl::Status Close(std::string_view id);

  // The session when it is in memory, else null: no loader, not marked used (the state
  // directory's writer).
  std::shared_ptr<Session> Peek(std::string_view id) const { return Find(id, false); }

  // Brings back a session that is not in memory (it must Adopt it), or NotFound.
  using Loader = std::function<absl::Status(std::string_view id)>;
  // Set once, before calls arrive (the server's start-up, with --state-dir).
  void SetLoader(Loader loader) { loader_ = std::move(loader); }
  // The sessions with no call for `timeout` and nobody watching at `now` (ascending id).
  std::vector<std::string> IdleIds(std::chrono::steady_clock::time_point now,
                                   std::chrono::steady_clock::duration timeout) const;
  // Forgets the session without closing it for its clients (the state directory keeps it):
  // NotFound for an unknown id, FailedPrecondition when it is no longer idle (a call or a watcher
  // came meanwhile).
  absl::Status Unload(std::string_view id, std::chrono::steady_clock::time_point now,
                      std::chrono::steady_clock::duration timeout);
  std::vector<SessionSummary> List() const;  // ascending id
  // Ends every session's streams (server shutdown), keeping the sessions.
  void CloseAllStreams();
  int size() const;
  // Sessions in each state (for metrics; reads each session's state without its lock).
  struct StateCounts {
    int active = 0;
    int failed = 0;
  };
  StateCounts CountByState() const;
  // Sessions and their backends' resident bytes per device name ("cpu", "cuda"), for metrics
  // (reads each session's last published bytes without its lock).
  struct DeviceCounts {
    int sessions = 0;
    int64_t resident_bytes = 0;
  };
  std::map<std::string, DeviceCounts> CountByDevice() const;

 private:
  const ServerLimits limits_;
  const std::string id_prefix_;
  const std::shared_ptr<MemoryBudget> memory_budget_;
  // The session (null when not in memory), without the loader.
  std::shared_ptr<Session> Find(std::string_view id, bool mark_used) const;

  absl::Status CheckPeerQuotaLocked(std::string_view peer) const;

  Loader loader_;
  mutable std::mutex mu_;
  // Who created each session, with a per-peer quota (guarded by mu_). Sessions restored from a
  // state directory count against no one.
  std::map<std::string, std::string, std::less<>> creators_;
  std::map<std::string, std::shared_ptr<Session>, std::less<>> sessions_;
};

}  // namespace contactsim::server
