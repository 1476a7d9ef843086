// reset_session_bench: what an episode restart costs. One process starts the server library on
// 127.0.0.1 (an ephemeral port) and, through the generated stub on one channel, times
// ResetSession (back to the state kept at the first Step) against Step(n_steps = 1) of the same
// session, in alternating calls so that both see the same noise, and SetBodyState of one body.
// Scenes: a 1 kg box on the plane (penalty), a 40 x 40 cloth (penalty, 1681 vertices) and a
// hyperelastic cube of 8 x 8 x 8 cells (local_global, 729 vertices: the reset rebuilds its factored
// system).
//
//   reset_session_bench [--calls 200]
//
// Prints the medians [us] and the ratio ResetSession / Step (docs/service.md, "Reset").
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <functional>
#include <memory>
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
namespace core = contactsim::core;
using Clock = std::chrono::steady_clock;

struct Scene {
  std::string name;
  v1::CreateSessionRequest session;
  v1::BodySpec body;
};

v1::CreateSessionRequest Penalty(double dt_s) {
  v1::CreateSessionRequest request;
  request.set_pipeline("penalty");
  request.mutable_settings()->set_dt_s(dt_s);
  request.mutable_settings()->set_stiffness_n_per_m(2500.0);
  request.add_ground_planes()->mutable_normal()->set_z(1.0);
  return request;
}

std::vector<Scene> Scenes() {
  std::vector<Scene> scenes;
  Scene box{"box (penalty, 8 vertices)", Penalty(0.01), {}};
  box.body.set_kind(v1::BODY_KIND_RIGID);
  *box.body.mutable_triangle_mesh() =
      contactsim::server::ToProto(*core::MakeBox(core::Vec3(0.1, 0.1, 0.1)));
  box.body.mutable_rigid()->set_density_kg_per_m3(125.0);
  box.body.mutable_pose()->mutable_position_m()->set_z(0.1005);
  scenes.push_back(box);

  Scene cloth{"cloth 40x40 (penalty, 1681 vertices)", Penalty(0.001), {}};
  cloth.body.set_kind(v1::BODY_KIND_CLOTH);
  *cloth.body.mutable_triangle_mesh() =
      contactsim::server::ToProto(*core::MakeClothGrid(1.0, 1.0, 40, 40));
  cloth.body.mutable_pose()->mutable_position_m()->set_z(0.5);
  cloth.body.mutable_cloth()->set_area_density_kg_per_m2(0.2);
  cloth.body.mutable_cloth()->set_stretch_stiffness_n_per_m(50.0);
  cloth.body.mutable_cloth()->set_bend_stiffness_n_per_m(0.5);
  scenes.push_back(cloth);

  Scene cube{"hyperelastic cube 8^3 (local_global, 729 vertices)", {}, {}};
  cube.session.set_pipeline("local_global");
  cube.session.mutable_settings()->set_dt_s(0.01);
  cube.session.add_ground_planes()->mutable_normal()->set_z(1.0);
  cube.body.set_kind(v1::BODY_KIND_HYPERELASTIC);
  *cube.body.mutable_tet_mesh() =
      contactsim::server::ToProto(*core::MakeTetBox(core::Vec3(0.05, 0.05, 0.05), 8, 8, 8));
  cube.body.mutable_pose()->mutable_position_m()->set_z(0.06);
  v1::HyperelasticMaterial* material = cube.body.mutable_hyperelastic();
  material->set_model(v1::HYPERELASTIC_MODEL_NEO_HOOKEAN);
  material->set_youngs_modulus_pa(1e6);
  material->set_poisson_ratio(0.3);
  material->set_density_kg_per_m3(1000.0);
  scenes.push_back(cube);
  return scenes;
}

std::unique_ptr<grpc::ClientContext> Context(const std::string& token) {
  auto context = std::make_unique<grpc::ClientContext>();
  if (!token.empty()) context->AddMetadata("authorization", "Bearer " + token);
  return context;
}

double Median(std::vector<double> values) {
  std::nth_element(values.begin(), values.begin() + values.size() / 2, values.end());
  return values[values.size() / 2];
}

// Microseconds of one call; exits on a failed call (a benchmark of errors measures nothing).
double TimeUs(const std::function<grpc::Status()>& call, const char* what) {
  const Clock::time_point start = Clock::now();
  const grpc::Status status = call();
  const double us = std::chrono::duration<double, std::micro>(Clock::now() - start).count();
  if (!status.ok()) {
    std::fprintf(stderr, "%s failed: %s\n", what, status.error_message().c_str());
    std::exit(1);
  }
  return us;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"ResetSession and SetBodyState against Step(1), through the service"};
  int calls = 200;
  app.add_option("--calls", calls, "timed calls of each kind per scene")
      ->check(CLI::Range(3, 1000000));
  CLI11_PARSE(app, argc, argv);

  contactsim::server::ServerOptions options;
  options.listen_address = "127.0.0.1:0";
  auto server = contactsim::server::ContactSimServer::Start(options);
  if (!server.ok()) {
    std::fprintf(stderr, "server: %s\n", std::string(server.status().message()).c_str());
    return 1;
  }
  auto stub = v1::Simulation::NewStub(
      grpc::CreateChannel((*server)->address(), grpc::InsecureChannelCredentials()));

  std::printf(
      "| scene | Step(1) p50 [us] | ResetSession p50 [us] | reset / step | "
      "SetBodyState p50 [us] |\n|---|---|---|---|---|\n");
  for (const Scene& scene : Scenes()) {
    v1::CreateSessionResponse created;
    TimeUs([&] { return stub->CreateSession(Context("").get(), scene.session, &created); },
           "CreateSession");
    const std::string& token = created.controller_token();
    v1::AddBodyRequest add;
    add.set_session_id(created.session_id());
    *add.mutable_body() = scene.body;
    v1::AddBodyResponse added;
    TimeUs([&] { return stub->AddBody(Context(token).get(), add, &added); }, "AddBody");

    v1::StepRequest step;
    step.set_session_id(created.session_id());
    step.set_n_steps(1);
    v1::ResetSessionRequest reset;
    reset.set_session_id(created.session_id());
    std::vector<double> step_us;
    std::vector<double> reset_us;
    // The first Step keeps the initial state; then one-step episodes: Step, ResetSession, ...
    for (int i = 0; i < calls + 3; ++i) {
      v1::StepResponse stepped;
      const double s =
          TimeUs([&] { return stub->Step(Context(token).get(), step, &stepped); }, "Step");
      v1::ResetSessionResponse was_reset;
      const double r =
          TimeUs([&] { return stub->ResetSession(Context(token).get(), reset, &was_reset); },
                 "ResetSession");
      if (i >= 3) {  // warm-up: the first calls build channels, caches and the step's solver
        step_us.push_back(s);
        reset_us.push_back(r);
      }
    }
    // SetBodyState of the body's own state as the last Step reported it.
    v1::StepResponse stepped;
    TimeUs([&] { return stub->Step(Context(token).get(), step, &stepped); }, "Step");
    v1::SetBodyStateRequest set;
    set.set_session_id(created.session_id());
    set.set_body_id(added.body_id());
    const v1::BodyState& state = stepped.bodies(0);
    if (state.kind() == v1::BODY_KIND_RIGID) {
      *set.mutable_rigid()->mutable_pose()->mutable_position_m() = state.p_wb_m();
      *set.mutable_rigid()->mutable_pose()->mutable_orientation() = state.q_wb();
      *set.mutable_rigid()->mutable_linear_velocity_m_per_s() = state.v_wb_m_per_s();
      *set.mutable_rigid()->mutable_angular_velocity_rad_per_s() = state.w_wb_rad_per_s();
    } else {
      *set.mutable_vertices()->mutable_positions_m() = state.positions_m();
      *set.mutable_vertices()->mutable_velocities_m_per_s() = state.velocities_m_per_s();
    }
    std::vector<double> set_us;
    for (int i = 0; i < calls; ++i) {
      v1::SetBodyStateResponse response;
      set_us.push_back(
          TimeUs([&] { return stub->SetBodyState(Context(token).get(), set, &response); },
                 "SetBodyState"));
    }
    const double step_p50 = Median(step_us);
    const double reset_p50 = Median(reset_us);
    std::printf("| %s | %.0f | %.0f | %.2f | %.0f |\n", scene.name.c_str(), step_p50, reset_p50,
                reset_p50 / step_p50, Median(set_us));
    std::fflush(stdout);
  }
  return 0;
}
