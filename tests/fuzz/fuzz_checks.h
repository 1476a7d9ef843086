// What every fuzz target asserts about a refusal, and the small limits the targets parse under
// (so one input stays cheap and the fuzzer explores instead of allocating).
#pragma once

#include <string_view>

#include "absl/status/status.h"
#include "core/geometry/mesh_options.h"

namespace contactsim::fuzz {

// Meshes of at most 20,000 vertices and elements: enough for every structure a parser has.
core::MeshOptions SmallMeshOptions();

// A parser's or decoder's refusal of bad bytes must be InvalidArgument (or ResourceExhausted for a
// size past a limit) with a message: anything else (Internal, Unknown, an empty message) is a bug,
// reported and aborted on so that libFuzzer saves the input.
void CheckRefusal(const absl::Status& status, std::string_view what);

}  // namespace contactsim::fuzz
