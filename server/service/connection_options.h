// The server's HTTP/2 connection policy (--keepalive-s, --keepalive-timeout-s,
// --min-client-ping-interval-s, --max-connection-idle-s, --max-connection-age-s,
// --max-connection-age-grace-s; docs/service.md "Connections"): dead peers are found by the
// server's own pings, clients may not ping it more often than allowed, and connections may be
// recycled so that a gateway can rebalance them. Defaults suit a robot controller on one
// long-lived channel and viewers with hour-long streams.
#pragma once

#include "absl/status/status.h"
#include "grpcpp/server_builder.h"

namespace contactsim::server {

struct ConnectionOptions {
  // The server pings a connection idle this long, and closes it when no ack comes within the
  // timeout: a controller whose machine died frees its streams and quota in ~80 s [s].
  double keepalive_s = 60.0;
  double keepalive_timeout_s = 20.0;
  // The least interval between a client's pings without data; a client pinging more often is
  // sent GOAWAY (gRPC's ping abuse policy) [s].
  double min_client_ping_interval_s = 10.0;
  // 0: never. A connection with no call for this long is closed (clients reconnect on their next
  // call) [s].
  double max_connection_idle_s = 0.0;
  // 0: never. A connection older than this is sent GOAWAY (new calls go to a new connection,
  // possibly another replica behind a gateway); calls still running get the grace, then are
  // cancelled [s].
  double max_connection_age_s = 0.0;
  double max_connection_age_grace_s = 30.0;
};

// InvalidArgument naming the flag for a negative, non-finite or too large (over 24 days: gRPC's
// int milliseconds) value, or keepalive below 1 s.
absl::Status ValidateConnectionOptions(const ConnectionOptions& options);

// The channel arguments of `options` on the builder.
void ApplyConnectionOptions(const ConnectionOptions& options, grpc::ServerBuilder* builder);

}  // namespace contactsim::server
