// A gRPC server interceptor that counts every finished call by method and status code
// (contactsim_rpcs_total), so no rpc handler has to remember to.
#pragma once

#include <memory>

#include "grpcpp/support/server_interceptor.h"
#include "server/metrics/server_metrics.h"

namespace contactsim::server::metrics {

// `counters` must outlive the server.
std::unique_ptr<grpc::experimental::ServerInterceptorFactoryInterface> MakeRpcCountingInterceptor(
    RpcCounters* counters);

}  // namespace contactsim::server::metrics
