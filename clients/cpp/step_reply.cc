#include "clients/cpp/step_reply.h"

#include <algorithm>

namespace contactsim::client {
namespace {

google::protobuf::ArenaOptions FirstBlockOptions(char* block, size_t bytes) {
  google::protobuf::ArenaOptions options;
  options.initial_block = block;
  options.initial_block_size = bytes;
  return options;
}

// The arena needs room for its own header in the first block; below this it would ignore it.
constexpr size_t kMinFirstBlockBytes = 1024;

}  // namespace

StepReply::StepReply(size_t first_block_bytes)
    : first_block_bytes_(std::max(first_block_bytes, kMinFirstBlockBytes)),
      first_block_(new char[first_block_bytes_]),
      arena_(FirstBlockOptions(first_block_.get(), first_block_bytes_)),
      response_(google::protobuf::Arena::CreateMessage<v1::StepResponse>(&arena_)) {}

StepReply::Call StepReply::StartCall() {
  arena_.Reset();  // keeps the first block, frees the others
  Call call{google::protobuf::Arena::CreateMessage<v1::StepRequest>(&arena_),
            google::protobuf::Arena::CreateMessage<v1::StepResponse>(&arena_)};
  response_ = call.response;
  return call;
}

}  // namespace contactsim::client
