// grpc::Status -> absl::Status for the client library: the API-level conversion of
// scenes/loader/grpc_status.h (codes carried over by value, the server's message verbatim).
#pragma once

#include "scenes/loader/grpc_status.h"

namespace contactsim::client {

using scenes::FromGrpcStatus;

}  // namespace contactsim::client
