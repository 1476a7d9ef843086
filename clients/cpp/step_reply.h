// StepReply: the Step reply of a controller's loop, reused from call to call
// (SessionHandle::StepInto). A Step reply of a few contacts is tens of small messages (a Vec3
// per point, normal and impulse); parsed on the heap each is a malloc and a free on the round
// trip's critical path, and a reused heap message does not help (parsing clears it first, which
// deletes its singular sub-messages). StepReply parses the reply, and builds the request, on a
// protobuf arena whose first block it keeps: each call resets the arena, so a reply that fits
// the first block costs no heap allocation at all, and a larger one gets more blocks, released
// at the next call.
//
// One StepReply per controller thread: a call overwrites the previous reply, and the reference
// from `response()` is valid until the next StepInto with this StepReply.
#pragma once

#include <cstddef>
#include <memory>

#include "contactsim/v1/simulation.pb.h"
#include "google/protobuf/arena.h"

namespace contactsim::client {

class StepReply {
 public:
  static constexpr size_t kDefaultFirstBlockBytes = 16 * 1024;

  explicit StepReply(size_t first_block_bytes = kDefaultFirstBlockBytes);
  StepReply(const StepReply&) = delete;
  StepReply& operator=(const StepReply&) = delete;

  // The last reply (empty before the first call and after a failed one).
  const v1::StepResponse& response() const { return *response_; }
  const v1::StepResponse* operator->() const { return response_; }

 private:
  friend class SessionHandle;
  // Releases the previous call's messages; returns a new empty request and reply on the arena.
  struct Call {
    v1::StepRequest* request;
    v1::StepResponse* response;
  };
  Call StartCall();

  size_t first_block_bytes_;
  std::unique_ptr<char[]> first_block_;  // before arena_: the arena uses it until destroyed
  google::protobuf::Arena arena_;
  v1::StepResponse* response_;
};

}  // namespace contactsim::client
