// The ContactSim C++ client library in one include: Connection (channel, deadline, token-free
// calls), SessionHandle (the calls on one session with its token), StreamStop, and the
// grpc::Status -> absl::Status conversion. Links contactsim_proto and gRPC only.
#pragma once

#include "clients/cpp/connection.h"      // IWYU pragma: export
#include "clients/cpp/robot_joints.h"    // IWYU pragma: export
#include "clients/cpp/robot_request.h"   // IWYU pragma: export
#include "clients/cpp/session_handle.h"  // IWYU pragma: export
#include "clients/cpp/status_convert.h"  // IWYU pragma: export
#include "clients/cpp/step_reply.h"      // IWYU pragma: export
#include "clients/cpp/stream_stop.h"     // IWYU pragma: export
#include "clients/cpp/tls_options.h"     // IWYU pragma: export
