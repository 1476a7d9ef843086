// ArenaMessageAllocator: request and response of a callback unary rpc on one protobuf Arena per
// call, whose first block lives inside the per-call holder. A Step reply is tens of small
// messages (a Vec3 per point, normal and impulse of every contact); on the heap each is an
// allocation and a free on the latency path, on the arena the whole reply is usually one
// holder allocation, freed at once when gRPC releases the call.
#pragma once

#include <array>
#include <cstddef>

#include "google/protobuf/arena.h"
#include "grpcpp/support/message_allocator.h"

namespace contactsim::server {

template <typename RequestT, typename ResponseT>
class ArenaMessageAllocator final : public grpc::MessageAllocator<RequestT, ResponseT> {
 public:
  grpc::MessageHolder<RequestT, ResponseT>* AllocateMessages() override { return new Holder(); }

 private:
  // Enough for a small session's request and reply; larger ones get more blocks from the heap.
  static constexpr size_t kInlineBlockBytes = 8 * 1024;

  class Holder final : public grpc::MessageHolder<RequestT, ResponseT> {
   public:
    Holder() : arena_(ArenaOptions(block_)) {
      this->set_request(google::protobuf::Arena::CreateMessage<RequestT>(&arena_));
      this->set_response(google::protobuf::Arena::CreateMessage<ResponseT>(&arena_));
    }
    void Release() override { delete this; }

   private:
    static google::protobuf::ArenaOptions ArenaOptions(std::array<char, kInlineBlockBytes>& block) {
      google::protobuf::ArenaOptions options;
      options.initial_block = block.data();
      options.initial_block_size = block.size();
      return options;
    }

    alignas(std::max_align_t) std::array<char, kInlineBlockBytes> block_;  // before arena_
    google::protobuf::Arena arena_;
  };
};

}  // namespace contactsim::server
