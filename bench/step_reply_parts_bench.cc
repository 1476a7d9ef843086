// step_reply_parts_bench: what StepRequest.reply_parts saves on a large scene. One process starts
// the server library on 127.0.0.1 (an ephemeral port) and, through the generated stub on one
// channel, times Step(n_steps = 1) of a 181 x 181 cloth (32,761 vertices, about the tori_cloth
// scene's 33k) lying on the ground plane, so every vertex is in contact, with the full reply and
// with parts of it, in alternating calls so that all see the same noise.
//
//   step_reply_parts_bench [--calls 30] [--cells 180]
//
// Prints the median [ms], the reply's bytes and the ratio to the full reply
// (docs/benchmarks.md, "Step replies with and without reply_parts").
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include "CLI/CLI.hpp"
#include "contactsim/v1/simulation.grpc.pb.h"
#include "core/geometry/generators.h"
#include "grpcpp/grpcpp.h"
#include "server/convert/mesh_convert.h"
#include "server/service/server.h"

namespace {

namespace v1 = contactsim::v1;
using Clock = std::chrono::steady_clock;

struct Variant {
  std::string name;
  bool has_parts = false;
  v1::StepReplyParts parts;
  std::vector<double> ms;
  size_t bytes = 0;
};

std::vector<Variant> Variants() {
  std::vector<Variant> variants;
  variants.push_back({"full reply (default)", false, {}, {}, 0});
  Variant positions{"vertex positions only", true, {}, {}, 0};
  positions.parts.set_vertex_positions(true);
  variants.push_back(positions);
  Variant totals{"contact totals + diagnostics only", true, {}, {}, 0};
  totals.parts.set_contact_totals(true);
  totals.parts.set_diagnostics(true);
  variants.push_back(totals);
  return variants;
}

double Median(std::vector<double> values) {
  std::nth_element(values.begin(), values.begin() + values.size() / 2, values.end());
  return values[values.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"Step(1) of a large cloth with and without StepRequest.reply_parts"};
  int calls = 30;
  int cells = 180;
  app.add_option("--calls", calls, "timed calls per variant")->check(CLI::Range(3, 100000));
  app.add_option("--cells", cells, "cloth cells per side")->check(CLI::Range(1, 400));
  CLI11_PARSE(app, argc, argv);

  contactsim::server::ServerOptions options;
  options.listen_address = "127.0.0.1:0";
  auto server = contactsim::server::ContactSimServer::Start(options);
  if (!server.ok()) {
    std::fprintf(stderr, "server: %s\n", std::string(server.status().message()).c_str());
    return 1;
  }
  grpc::ChannelArguments arguments;
  arguments.SetMaxReceiveMessageSize(64 << 20);
  auto stub = v1::Simulation::NewStub(grpc::CreateCustomChannel(
      (*server)->address(), grpc::InsecureChannelCredentials(), arguments));

  v1::CreateSessionRequest create;
  create.set_pipeline("penalty");
  create.mutable_settings()->set_dt_s(1e-3);
  // Soft enough for explicit steps of 1 ms on 2.4 g vertices: contact and springs at
  // omega dt ~ 0.2 and 0.05.
  create.mutable_settings()->set_stiffness_n_per_m(100.0);
  create.add_ground_planes()->mutable_normal()->set_z(1.0);
  v1::CreateSessionResponse created;
  grpc::ClientContext create_context;
  if (!stub->CreateSession(&create_context, create, &created).ok()) return 1;
  const std::string bearer = "Bearer " + created.controller_token();

  v1::AddBodyRequest add;
  add.set_session_id(created.session_id());
  v1::BodySpec* cloth = add.mutable_body();
  cloth->set_kind(v1::BODY_KIND_CLOTH);
  *cloth->mutable_triangle_mesh() =
      contactsim::server::ToProto(*contactsim::core::MakeClothGrid(2.0, 2.0, cells, cells));
  cloth->mutable_pose()->mutable_position_m()->set_z(1e-4);  // on the plane: all in contact
  cloth->mutable_cloth()->set_area_density_kg_per_m2(20.0);
  cloth->mutable_cloth()->set_stretch_stiffness_n_per_m(5.0);
  v1::AddBodyResponse added;
  grpc::ClientContext add_context;
  add_context.AddMetadata("authorization", bearer);
  grpc::Status status = stub->AddBody(&add_context, add, &added);
  if (!status.ok()) {
    std::fprintf(stderr, "AddBody: %s\n", status.error_message().c_str());
    return 1;
  }

  std::vector<Variant> variants = Variants();
  for (int i = 0; i < calls + 2; ++i) {
    for (Variant& variant : variants) {
      v1::StepRequest request;
      request.set_session_id(created.session_id());
      request.set_n_steps(1);
      if (variant.has_parts) *request.mutable_reply_parts() = variant.parts;
      v1::StepResponse response;
      grpc::ClientContext context;
      context.AddMetadata("authorization", bearer);
      const Clock::time_point start = Clock::now();
      status = stub->Step(&context, request, &response);
      const double ms = std::chrono::duration<double, std::milli>(Clock::now() - start).count();
      if (!status.ok()) {
        std::fprintf(stderr, "Step: %s\n", status.error_message().c_str());
        return 1;
      }
      if (i >= 2) variant.ms.push_back(ms);  // warm-up: channel, caches, tracked contacts
      variant.bytes = response.ByteSizeLong();
    }
  }
  std::printf("cloth %dx%d cells, %d vertices, Step(1), %d calls each\n\n", cells, cells,
              added.num_vertices(), calls);
  std::printf("| reply | p50 [ms] | reply bytes | p50 / full |\n|---|---|---|---|\n");
  const double full = Median(variants.front().ms);
  for (const Variant& variant : variants) {
    const double p50 = Median(variant.ms);
    std::printf("| %s | %.2f | %zu | %.2f |\n", variant.name.c_str(), p50, variant.bytes,
                p50 / full);
  }
  return 0;
}
