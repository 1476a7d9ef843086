// strand_latency_bench: the cost of the session strand on a robot loop's round trip. Starts an
// in-process server on loopback, then times, one call at a time, N Ping calls (the transport's
// floor) and N Step calls of one tiny step (a 1 kg box resting on the ground), and prints the
// p50 / p90 / p99 of each and p50(Step) / p50(Ping). Run it with --inline-step-budget-us 0 to send
// every Step through the worker pool (a thread hop) instead of running it inline.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <vector>

#include "CLI/CLI.hpp"
#include "contactsim/v1/simulation.grpc.pb.h"
#include "core/geometry/generators.h"
#include "grpcpp/grpcpp.h"
#include "scenes/requests/box_scene_request.h"
#include "server/convert/mesh_convert.h"
#include "server/service/server.h"
#include "spdlog/spdlog.h"

namespace {

using Clock = std::chrono::steady_clock;

struct Percentiles {
  double p50_us, p90_us, p99_us;
};

Percentiles Summarize(std::vector<double> samples_us) {
  std::sort(samples_us.begin(), samples_us.end());
  auto at = [&](double q) { return samples_us[static_cast<size_t>(q * (samples_us.size() - 1))]; };
  return {at(0.5), at(0.9), at(0.99)};
}

template <typename Call>
std::vector<double> Time(int n, Call call) {
  std::vector<double> samples_us;
  samples_us.reserve(n);
  for (int i = 0; i < n; ++i) {
    const auto start = Clock::now();
    if (!call()) {
      std::fprintf(stderr, "call failed\n");
      std::exit(1);
    }
    samples_us.push_back(std::chrono::duration<double, std::micro>(Clock::now() - start).count());
  }
  return samples_us;
}

}  // namespace

int main(int argc, char** argv) {
  int rounds = 5000;
  double inline_budget_us = 1000.0;
  int step_threads = 0;
  CLI::App app{"Ping vs one-step Step round trips on loopback (the strand's latency cost)"};
  app.add_option("--rounds", rounds, "calls of each kind")->capture_default_str();
  app.add_option("--inline-step-budget-us", inline_budget_us, "the server's inline budget [us]")
      ->capture_default_str();
  app.add_option("--step-threads", step_threads, "worker pool threads (0: hardware)")
      ->capture_default_str();
  CLI11_PARSE(app, argc, argv);
  spdlog::set_level(spdlog::level::warn);

  contactsim::server::ServerOptions options;
  options.listen_address = "127.0.0.1:0";
  options.inline_step_budget_s = inline_budget_us * 1e-6;
  options.step_threads = step_threads;
  auto server = contactsim::server::ContactSimServer::Start(options);
  if (!server.ok()) {
    std::fprintf(stderr, "%s\n", server.status().ToString().c_str());
    return 1;
  }
  auto channel = grpc::CreateChannel((*server)->address(), grpc::InsecureChannelCredentials());
  auto stub = contactsim::v1::Simulation::NewStub(channel);

  contactsim::v1::CreateSessionResponse created;
  {
    grpc::ClientContext context;
    if (!stub->CreateSession(&context, contactsim::test_fixtures::BoxSceneRequest(), &created)
             .ok()) {
      return 1;
    }
  }
  const std::string bearer = "Bearer " + created.controller_token();
  {
    contactsim::v1::AddBodyRequest request;
    request.set_session_id(created.session_id());
    auto* body = request.mutable_body();
    body->set_kind(contactsim::v1::BODY_KIND_RIGID);
    *body->mutable_triangle_mesh() = contactsim::server::ToProto(
        *contactsim::core::MakeBox(contactsim::core::Vec3(0.1, 0.1, 0.1)));
    body->mutable_rigid()->set_density_kg_per_m3(125.0);
    body->mutable_pose()->mutable_position_m()->set_z(0.1);
    contactsim::v1::AddBodyResponse response;
    grpc::ClientContext context;
    context.AddMetadata("authorization", bearer);
    if (!stub->AddBody(&context, request, &response).ok()) return 1;
  }

  auto ping = [&] {
    contactsim::v1::PingRequest request;
    contactsim::v1::PingResponse response;
    grpc::ClientContext context;
    return stub->Ping(&context, request, &response).ok();
  };
  contactsim::v1::StepRequest step_request;
  step_request.set_session_id(created.session_id());
  step_request.set_n_steps(1);
  auto step = [&] {
    contactsim::v1::StepResponse response;
    grpc::ClientContext context;
    context.AddMetadata("authorization", bearer);
    return stub->Step(&context, step_request, &response).ok();
  };
  Time(rounds / 10 + 1, ping);  // warm up the connection and the session's cost estimate
  Time(rounds / 10 + 1, step);
  // Interleave the two kinds in blocks so that machine load affects both alike.
  std::vector<double> ping_us, step_us;
  for (int block = 0; block < 10; ++block) {
    for (double v : Time(rounds / 10, ping)) ping_us.push_back(v);
    for (double v : Time(rounds / 10, step)) step_us.push_back(v);
  }
  const Percentiles p = Summarize(ping_us);
  const Percentiles s = Summarize(step_us);
  std::printf("inline budget %.0f us, %d pool threads, %zu rounds each\n", inline_budget_us,
              (*server)->worker_pool().num_threads(), ping_us.size());
  std::printf("Ping        p50 %8.1f us  p90 %8.1f us  p99 %8.1f us\n", p.p50_us, p.p90_us,
              p.p99_us);
  std::printf("Step(n=1)   p50 %8.1f us  p90 %8.1f us  p99 %8.1f us\n", s.p50_us, s.p90_us,
              s.p99_us);
  std::printf("p50 ratio Step / Ping: %.2f\n", s.p50_us / p.p50_us);
  // The server-side share: the session's last measured time per step (World::Step, the frame
  // published for streams and the reply filled), which no threading change removes.
  auto session = (*server)->sessions().Get(created.session_id());
  if (session.ok()) {
    std::printf("server time of the last step: %.1f us\n",
                (*session)->strand()->step_cost_s() * 1e6);
  }
  (*server)->Shutdown();
  return 0;
}
