// grpc::Status -> absl::Status for the API-level code (the scene loader here, and the C++ client
// library, which re-exports it as client::FromGrpcStatus). The two libraries number their codes
// identically (both follow google.rpc.Code), so the code is carried over by value and the message
// is kept verbatim: a caller can branch on absl::IsUnauthenticated() etc. and show the server's
// message, which names the offending field.
#pragma once

#include "absl/status/status.h"
#include "grpcpp/support/status.h"

namespace contactsim::scenes {

absl::Status FromGrpcStatus(const grpc::Status& status);

}  // namespace contactsim::scenes
