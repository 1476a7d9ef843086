#include "server/session/session_manager.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "core/common/status_macros.h"
#include "server/auth/token.h"

namespace contactsim::server {

absl::Status SessionManager::CheckPeerQuotaLocked(std::string_view peer) const {
  if (limits_.max_sessions_per_peer <= 0 || peer.empty()) return absl::OkStatus();
  int held = 0;
  for (const auto& [id, creator] : creators_) held += creator == peer ? 1 : 0;
  if (held >= limits_.max_sessions_per_peer) {
    return absl::ResourceExhaustedError(absl::StrCat(
        "session: ", std::string(peer), " already holds ", held,
        " sessions, the server's limit per peer (--max-sessions-per-peer); close one first"));
  }
  return absl::OkStatus();
}

absl::StatusOr<std::shared_ptr<Session>> SessionManager::Create(
    std::string name, const core::WorldSettings& settings,
    const std::vector<core::GroundPlane>& planes, std::shared_ptr<core::Backend> backend,
    std::string_view peer) {
  {
    // Refused before the World is built; checked again below, when the session is added.
    std::lock_guard lock(mu_);
    RETURN_IF_ERROR(CheckPeerQuotaLocked(peer));
  }
  if (absl::Status s = core::ValidateWorldSettings(settings); !s.ok()) {
    return absl::Status(s.code(), absl::StrCat("settings: ", s.message()));
  }
  absl::StatusOr<core::World> world = core::World::Create(settings, std::move(backend));
  if (!world.ok()) {
    return absl::Status(world.status().code(), absl::StrCat("device: ", world.status().message()));
  }
  for (size_t i = 0; i < planes.size(); ++i) {
    absl::StatusOr<int32_t> id = world->AddGroundPlane(planes[i].normal, planes[i].offset_m);
    if (!id.ok()) {
      return absl::Status(id.status().code(),
                          absl::StrCat("ground_planes[", i, "]: ", id.status().message()));
    }
  }
  std::lock_guard lock(mu_);
  if (static_cast<int>(sessions_.size()) >= limits_.max_sessions) {
    return absl::ResourceExhaustedError(
        absl::StrCat("session: the server already has ", sessions_.size(), " sessions, its limit"));
  }
  RETURN_IF_ERROR(CheckPeerQuotaLocked(peer));
  std::string id;
  do {
    id = absl::StrCat(id_prefix_, GenerateToken().substr(0, 16));
  } while (sessions_.count(id) > 0);
  auto session = std::make_shared<Session>(id, std::move(name), *std::move(world), limits_);
  session->AttachMemoryBudget(memory_budget_);
  sessions_.emplace(id, session);
  if (limits_.max_sessions_per_peer > 0 && !peer.empty()) creators_.emplace(id, peer);
  return session;
}

absl::Status SessionManager::Adopt(std::shared_ptr<Session> session) {
  std::lock_guard lock(mu_);
  if (sessions_.count(session->id()) > 0) {
    return absl::AlreadyExistsError(
        absl::StrCat("session_id: a session '", session->id(), "' already exists"));
  }
  if (static_cast<int>(sessions_.size()) >= limits_.max_sessions) {
    return absl::ResourceExhaustedError(
        absl::StrCat("session: the server already has ", sessions_.size(), " sessions, its limit"));
  }
  session->AttachMemoryBudget(memory_budget_);
  std::string id = session->id();
  sessions_.emplace(std::move(id), std::move(session));
  return absl::OkStatus();
}

std::vector<std::shared_ptr<Session>> SessionManager::All() const {
  std::lock_guard lock(mu_);
  std::vector<std::shared_ptr<Session>> sessions;
  for (const auto& [id, session] : sessions_) sessions.push_back(session);
  return sessions;
}

std::shared_ptr<Session> SessionManager::Find(std::string_view id, bool mark_used) const {
  std::lock_guard lock(mu_);
  auto it = sessions_.find(id);
  if (it == sessions_.end()) return nullptr;
  // Under mu_, so that Unload, which checks idleness under mu_, never forgets a session a call
  // has just found.
  if (mark_used) it->second->MarkUsed();
  return it->second;
}

absl::StatusOr<std::shared_ptr<Session>> SessionManager::Get(std::string_view id) const {
  std::shared_ptr<Session> session = Find(id, /*mark_used=*/true);
  if (session == nullptr && loader_) {
    // Outside mu_: the loader reads a file and Adopts. Two calls racing to load the same id: one
    // adopts, the other's AlreadyExists is ignored and both find it below.
    const absl::Status loaded = loader_(id);
    if (!loaded.ok() && loaded.code() != absl::StatusCode::kNotFound &&
        loaded.code() != absl::StatusCode::kAlreadyExists) {
      return absl::UnavailableError(absl::StrCat("session_id: session '", std::string(id),
                                                 "' could not be loaded: ", loaded.message()));
    }
    session = Find(id, /*mark_used=*/true);
  }
  if (session == nullptr) {
    return absl::NotFoundError(absl::StrCat("session_id: no session '", std::string(id), "'"));
  }
  return session;
}

std::vector<std::string> SessionManager::IdleIds(
    std::chrono::steady_clock::time_point now, std::chrono::steady_clock::duration timeout) const {
  std::lock_guard lock(mu_);
  std::vector<std::string> idle;
  for (const auto& [id, session] : sessions_) {
    if (session->IdleAt(now, timeout)) idle.push_back(id);
  }
  return idle;
}

absl::Status SessionManager::Unload(std::string_view id, std::chrono::steady_clock::time_point now,
                                    std::chrono::steady_clock::duration timeout) {
  std::lock_guard lock(mu_);
  auto it = sessions_.find(id);
  if (it == sessions_.end()) {
    return absl::NotFoundError(absl::StrCat("session_id: no session '", std::string(id), "'"));
  }
  if (!it->second->IdleAt(now, timeout)) {
    return absl::FailedPreconditionError(
        absl::StrCat("session '", std::string(id), "' is in use again"));
  }
  it->second->CloseStreams();
  if (auto creator = creators_.find(id); creator != creators_.end()) creators_.erase(creator);
  sessions_.erase(it);
  return absl::OkStatus();
}

absl::Status SessionManager::Close(std::string_view id) {
  if (loader_ && Find(id, /*mark_used=*/false) == nullptr) (void)loader_(id);
  std::lock_guard lock(mu_);
  auto it = sessions_.find(id);
  if (it == sessions_.end()) {
    return absl::NotFoundError(absl::StrCat("session_id: no session '", std::string(id), "'"));
  }
  it->second->CloseStreams();
  if (auto creator = creators_.find(id); creator != creators_.end()) creators_.erase(creator);
  sessions_.erase(it);
  return absl::OkStatus();
}

std::vector<SessionSummary> SessionManager::List() const {
  std::vector<std::shared_ptr<Session>> sessions;
  {
    std::lock_guard lock(mu_);
    for (const auto& [id, session] : sessions_) sessions.push_back(session);
  }
  // Summaries take each session's own lock; not under mu_, so a long step elsewhere does not
  // block creating sessions.
  std::vector<SessionSummary> summaries;
  for (const auto& session : sessions) summaries.push_back(session->Summary());
  return summaries;
}

void SessionManager::CloseAllStreams() {
  std::lock_guard lock(mu_);
  for (const auto& [id, session] : sessions_) session->CloseStreams();
}

int SessionManager::size() const {
  std::lock_guard lock(mu_);
  return static_cast<int>(sessions_.size());
}

SessionManager::StateCounts SessionManager::CountByState() const {
  std::lock_guard lock(mu_);
  StateCounts counts;
  for (const auto& [id, session] : sessions_) {
    (session->state() == SessionState::kFailed ? counts.failed : counts.active) += 1;
  }
  return counts;
}

std::map<std::string, SessionManager::DeviceCounts> SessionManager::CountByDevice() const {
  std::lock_guard lock(mu_);
  std::map<std::string, DeviceCounts> counts;
  for (const auto& [id, session] : sessions_) {
    DeviceCounts& device = counts[session->device()];
    device.sessions += 1;
    device.resident_bytes += session->device_resident_bytes();
  }
  return counts;
}

}  // namespace contactsim::server
