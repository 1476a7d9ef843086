// The memory a body will take in its session (server/session/session_memory.h), estimated from
// the request alone before anything is built, so that AddBody refuses a body that cannot fit
// before generating or copying its mesh: an inline or uploaded mesh's counts are its arrays'
// sizes, a primitive's follow from its parameters (server/convert/primitive_convert.h). What is
// known only once the body is built (a tet mesh's surface, a local_global factor) is checked by
// Session::AddBody then, before the body joins the session.
#pragma once

#include <cstdint>

#include "contactsim/v1/scene.pb.h"
#include "server/common/limits.h"

namespace contactsim::server {

// The body and its share of the ring's frames [bytes]; 0 for a spec the conversion refuses,
// counts beyond the limits included (their error, naming the mesh, comes first).
int64_t EstimateBodyBytes(const v1::BodySpec& spec, const ServerLimits& limits);

}  // namespace contactsim::server
