// The standard gRPC health check (grpc.health.v1.Health/Check) of a server, for container and
// orchestrator health checks (`contactsim health`, docs/deploy.md). Debian ships no generated
// code for the health proto, so the two one-field messages are written and read here:
//   HealthCheckRequest  { string service = 1; }
//   HealthCheckResponse { ServingStatus status = 1; }  UNKNOWN 0, SERVING 1, NOT_SERVING 2,
//                                                      SERVICE_UNKNOWN 3
#pragma once

#include <chrono>
#include <memory>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "grpcpp/channel.h"

namespace contactsim::client {

enum class ServingStatus { kUnknown = 0, kServing = 1, kNotServing = 2, kServiceUnknown = 3 };

std::string_view ServingStatusName(ServingStatus status);

// The server's answer for `service` ("" : the server as a whole; "contactsim.v1.Simulation":
// the simulation service). A service the server does not know is NOT_FOUND (the gRPC status);
// an unreachable server UNAVAILABLE or DEADLINE_EXCEEDED; a reply that is not a
// HealthCheckResponse is Internal.
absl::StatusOr<ServingStatus> CheckHealth(const std::shared_ptr<grpc::Channel>& channel,
                                          std::string_view service,
                                          std::chrono::milliseconds deadline);

}  // namespace contactsim::client
