#include "server/service/stream_slots.h"

#include <utility>

#include "absl/strings/str_cat.h"

namespace contactsim::server {
namespace {

int CountOf(const std::map<std::string, int>& counts, const std::string& key) {
  const auto it = counts.find(key);
  return it == counts.end() ? 0 : it->second;
}

void Release(std::map<std::string, int>& counts, const std::string& key) {
  const auto it = counts.find(key);
  if (it != counts.end() && --it->second <= 0) counts.erase(it);
}

}  // namespace

StreamSlots::StreamSlots(int max_per_session, int max_per_peer)
    : max_per_session_(max_per_session), max_per_peer_(max_per_peer) {}

absl::StatusOr<std::shared_ptr<void>> StreamSlots::Acquire(const std::string& session_id,
                                                           const std::string& peer) {
  std::lock_guard lock(counts_->mu);
  const int session_count = CountOf(counts_->per_session, session_id);
  const int peer_count = CountOf(counts_->per_peer, peer);
  if (max_per_session_ > 0 && session_count >= max_per_session_) {
    return absl::ResourceExhaustedError(
        absl::StrCat("session_id: the session already has ", session_count,
                     " open StreamState streams, the server's --max-streams-per-session"));
  }
  if (max_per_peer_ > 0 && peer_count >= max_per_peer_) {
    return absl::ResourceExhaustedError(
        absl::StrCat("this client already has ", peer_count,
                     " open StreamState streams, the server's --max-streams-per-peer"));
  }
  ++counts_->per_session[session_id];
  ++counts_->per_peer[peer];
  // The handle releases both counts; it holds the counts, so it may outlive this object.
  return std::shared_ptr<void>(nullptr, [counts = counts_, session_id, peer](void*) {
    std::lock_guard lock(counts->mu);
    Release(counts->per_session, session_id);
    Release(counts->per_peer, peer);
  });
}

}  // namespace contactsim::server
