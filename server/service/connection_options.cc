#include "server/service/connection_options.h"

#include <cmath>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "grpc/grpc.h"

namespace contactsim::server {
namespace {

constexpr double kMaxSeconds = 2.0e6;  // under INT_MAX ms (24.8 days)

int Milliseconds(double seconds) { return static_cast<int>(std::lround(seconds * 1000.0)); }

}  // namespace

absl::Status ValidateConnectionOptions(const ConnectionOptions& options) {
  for (const auto& [value, flag] :
       {std::pair{options.keepalive_s, "--keepalive-s"},
        std::pair{options.keepalive_timeout_s, "--keepalive-timeout-s"},
        std::pair{options.min_client_ping_interval_s, "--min-client-ping-interval-s"},
        std::pair{options.max_connection_idle_s, "--max-connection-idle-s"},
        std::pair{options.max_connection_age_s, "--max-connection-age-s"},
        std::pair{options.max_connection_age_grace_s, "--max-connection-age-grace-s"}}) {
    if (!(std::isfinite(value) && value >= 0.0 && value <= kMaxSeconds)) {
      return absl::InvalidArgumentError(
          absl::StrCat(flag, ": must be in [0, ", kMaxSeconds, "] s, got ", value));
    }
  }
  if (options.keepalive_s < 1.0 || options.keepalive_timeout_s < 1.0) {
    return absl::InvalidArgumentError(
        "--keepalive-s, --keepalive-timeout-s: must be >= 1 s (pings more often than that are "
        "load, not liveness)");
  }
  return absl::OkStatus();
}

void ApplyConnectionOptions(const ConnectionOptions& options, grpc::ServerBuilder* builder) {
  builder->AddChannelArgument(GRPC_ARG_KEEPALIVE_TIME_MS, Milliseconds(options.keepalive_s));
  builder->AddChannelArgument(GRPC_ARG_KEEPALIVE_TIMEOUT_MS,
                              Milliseconds(options.keepalive_timeout_s));
  // The server's own pings go out on idle connections too: that is how a dead peer is found.
  builder->AddChannelArgument(GRPC_ARG_KEEPALIVE_PERMIT_WITHOUT_CALLS, 1);
  builder->AddChannelArgument(GRPC_ARG_HTTP2_MIN_RECV_PING_INTERVAL_WITHOUT_DATA_MS,
                              Milliseconds(options.min_client_ping_interval_s));
  builder->AddChannelArgument(GRPC_ARG_HTTP2_MAX_PING_STRIKES, 2);
  if (options.max_connection_idle_s > 0.0) {
    builder->AddChannelArgument(GRPC_ARG_MAX_CONNECTION_IDLE_MS,
                                Milliseconds(options.max_connection_idle_s));
  }
  if (options.max_connection_age_s > 0.0) {
    builder->AddChannelArgument(GRPC_ARG_MAX_CONNECTION_AGE_MS,
                                Milliseconds(options.max_connection_age_s));
    builder->AddChannelArgument(GRPC_ARG_MAX_CONNECTION_AGE_GRACE_MS,
                                Milliseconds(options.max_connection_age_grace_s));
  }
}

}  // namespace contactsim::server
