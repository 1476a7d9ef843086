#include "server/metrics/rpc_interceptor.h"

#include <string>

namespace contactsim::server::metrics {
namespace {

class RpcCountingInterceptor final : public grpc::experimental::Interceptor {
 public:
  RpcCountingInterceptor(RpcCounters* counters, const char* method)
      : counters_(counters), method_(method) {}

  void Intercept(grpc::experimental::InterceptorBatchMethods* methods) override {
    if (methods->QueryInterceptionHookPoint(
            grpc::experimental::InterceptionHookPoints::PRE_SEND_STATUS)) {
      counters_->Count(method_, static_cast<int>(methods->GetSendStatus().error_code()));
    }
    methods->Proceed();
  }

 private:
  RpcCounters* const counters_;
  const char* const method_;  // owned by gRPC for the call's lifetime
};

class RpcCountingFactory final : public grpc::experimental::ServerInterceptorFactoryInterface {
 public:
  explicit RpcCountingFactory(RpcCounters* counters) : counters_(counters) {}
  grpc::experimental::Interceptor* CreateServerInterceptor(
      grpc::experimental::ServerRpcInfo* info) override {
    return new RpcCountingInterceptor(counters_, info->method());
  }

 private:
  RpcCounters* const counters_;
};

}  // namespace

std::unique_ptr<grpc::experimental::ServerInterceptorFactoryInterface> MakeRpcCountingInterceptor(
    RpcCounters* counters) {
  return std::make_unique<RpcCountingFactory>(counters);
}

}  // namespace contactsim::server::metrics
