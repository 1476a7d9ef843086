#include "tests/fuzz/snapshot_framing.h"

#include "core/sim/serialization/byte_writer.h"
#include "core/sim/serialization/checksum.h"
#include "core/sim/serialization/world_format.h"

namespace contactsim::fuzz {

std::string FramePayload(std::string_view payload) {
  using namespace core::serialization;
  ByteWriter out;
  out.Bytes(kMagic);
  out.U32(kFormatVersion);
  out.U64(payload.size());
  out.Bytes(payload);
  out.U64(Fnv1a64(out.bytes()));
  return out.Release();
}

std::string_view PayloadOf(std::string_view blob) {
  using namespace core::serialization;
  return blob.substr(kHeaderBytes, blob.size() - kHeaderBytes - kChecksumBytes);
}

}  // namespace contactsim::fuzz
