// How many StreamState streams may be open at once, per session and per peer (--max-streams-
// per-session, --max-streams-per-peer): each open stream holds a frame cursor, a dispatcher entry
// and a write in flight, so a client opening streams in a loop must meet a limit, not exhaust the
// server. A slot is held by the stream and released when the stream ends.
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "absl/status/statusor.h"

namespace contactsim::server {

class StreamSlots {
 public:
  // 0: no limit.
  StreamSlots(int max_per_session, int max_per_peer);

  // A slot for one stream of `session_id` from `peer` (PeerKey), released when the last copy of
  // the handle is destroyed (it may outlive this object). ResourceExhausted naming the flag when
  // either count is at its limit.
  absl::StatusOr<std::shared_ptr<void>> Acquire(const std::string& session_id,
                                                const std::string& peer);

 private:
  struct Counts {
    std::mutex mu;
    std::map<std::string, int> per_session;
    std::map<std::string, int> per_peer;
  };
  const int max_per_session_;
  const int max_per_peer_;
  const std::shared_ptr<Counts> counts_ = std::make_shared<Counts>();
};

}  // namespace contactsim::server
