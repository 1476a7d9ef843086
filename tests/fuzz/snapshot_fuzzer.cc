// libFuzzer target: the World snapshot decoder (core/sim/serialization). The input is a blob's
// payload (its sections); the target adds the header and a valid checksum, as anyone can, so the
// fuzzer explores the sections instead of the checksum. A blob must be refused with
// InvalidArgument, or restore into a World that steps and serializes again: never crash, hang or
// overflow. Seeds: tests/fuzz/make_snapshot_seeds.cc writes the payloads of real worlds.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string_view>

#include "core/sim/serialization/world_serialization.h"
#include "tests/fuzz/fuzz_checks.h"
#include "tests/fuzz/snapshot_framing.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace contactsim;
  const std::string blob =
      fuzz::FramePayload(std::string_view(reinterpret_cast<const char*>(data), size));
  absl::StatusOr<core::World> world = core::DeserializeWorld(blob);
  if (!world.ok()) {
    fuzz::CheckRefusal(world.status(), "DeserializeWorld");
    return 0;
  }
  (void)world->Step(2);  // may diverge or refuse; must not crash
  if (!world->diverged()) {
    const absl::StatusOr<std::string> again = core::SerializeWorld(*world);
    if (!again.ok()) {
      std::fprintf(stderr, "a restored world does not serialize: %s\n",
                   again.status().ToString().c_str());
      std::abort();
    }
  }
  return 0;
}
