// Several CUDA sessions under one --gpu-memory-budget, through the server's session layer
// (DeviceChoice makes each session's CudaBackend sharing the budget, SessionManager holds the
// sessions, BodyFromProto builds bodies on the session's backend): a body that would pass the
// budget is RESOURCE_EXHAUSTED naming it and leaves its session as it was, while another session
// keeps stepping; RemoveBody and closing a session give their device bytes back.
// Skips, saying why, where CUDA is not usable (gpu::CudaUsable()).
#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "contactsim/gpu/cuda_backend.h"
#include "core/geometry/generators.h"
#include "server/convert/body_convert.h"
#include "server/convert/mesh_convert.h"
#include "server/service/device_choice.h"
#include "server/session/session_manager.h"

namespace contactsim::server {
namespace {

constexpr double kDt = 0.01;
constexpr int kSteps = 20;

core::WorldSettings LocalGlobalSettings() {
  core::WorldSettings settings;
  settings.pipeline = core::PipelineKind::kLocalGlobal;
  settings.dt_s = kDt;
  settings.local_global.friction_coefficient = 0.5;
  return settings;
}

// A hyperelastic box of cells^3 x 6 tets, 0.1 m wide, resting just above z = 0.
v1::BodySpec Box(int cells, double x_m) {
  v1::BodySpec body;
  body.set_kind(v1::BODY_KIND_HYPERELASTIC);
  auto tets = core::MakeTetBox(core::Vec3(0.05, 0.05, 0.05), cells, cells, cells);
  EXPECT_TRUE(tets.ok()) << tets.status();
  *body.mutable_tet_mesh() = ToProto(*tets);
  body.mutable_pose()->mutable_position_m()->set_x(x_m);
  body.mutable_pose()->mutable_position_m()->set_z(0.051);
  v1::HyperelasticMaterial* material = body.mutable_hyperelastic();
  material->set_model(v1::HYPERELASTIC_MODEL_NEO_HOOKEAN);
  material->set_youngs_modulus_pa(1e6);
  material->set_poisson_ratio(0.3);
  material->set_density_kg_per_m3(1000.0);
  return body;
}

struct Server {
  std::unique_ptr<DeviceChoice> devices;
  std::unique_ptr<SessionManager> sessions;
};

Server MakeServer(int64_t budget_bytes) {
  DeviceOptions options;
  options.device = "cuda";
  options.gpu_memory_budget_bytes = budget_bytes;
  absl::StatusOr<std::unique_ptr<DeviceChoice>> devices = DeviceChoice::Create(options);
  EXPECT_TRUE(devices.ok()) << devices.status();
  ServerLimits limits;
  limits.max_vertices_per_mesh = 1 << 20;
  limits.max_elements_per_mesh = 1 << 22;
  return {*std::move(devices), std::make_unique<SessionManager>(limits)};
}

// CreateSession's path: a CUDA backend from the choice, then the session on it.
absl::StatusOr<std::shared_ptr<Session>> CreateCudaSession(const Server& server) {
  absl::StatusOr<DeviceKind> device =
      server.devices->Resolve("cuda", core::PipelineKind::kLocalGlobal, "device");
  if (!device.ok()) return device.status();
  absl::StatusOr<std::shared_ptr<core::Backend>> backend = server.devices->MakeBackend(*device);
  if (!backend.ok()) return backend.status();
  std::vector<core::GroundPlane> planes = {{0, core::Vec3::UnitZ(), 0.0}};
  return server.sessions->Create("gpu", LocalGlobalSettings(), planes, *std::move(backend));
}

// AddBody's path: the body built on the session's backend, then added.
absl::StatusOr<int32_t> AddBody(const Server& server, Session& session, const v1::BodySpec& spec) {
  absl::StatusOr<NewBody> body =
      BodyFromProto(spec, server.sessions->limits(), "body", session.settings(), session.backend());
  if (!body.ok()) return body.status();
  return session.AddBody(std::move(body->body), std::move(body->options), "body");
}

int64_t Used(const Server& server) { return server.devices->budget()->used_bytes(); }

TEST(GpuSessionBudgetTest, ABodyPastTheBudgetIsRefusedWhileAnotherSessionKeepsStepping) {
  if (absl::Status usable = gpu::CudaUsable(); !usable.ok()) {
    GTEST_SKIP() << "CUDA is not usable here: " << usable.message();
  }
  // Measure on an ample budget what a session, a small body stepped kSteps times and a large body
  // take, so that the real budget below fits the first session and the second session, and not
  // the large body on top (by half of it: room for the small session's stepping, measured).
  int64_t session_bytes = 0, small_stepped_bytes = 0, large_bytes = 0;
  {
    Server probe = MakeServer(int64_t{64} << 30);
    absl::StatusOr<std::shared_ptr<Session>> a = CreateCudaSession(probe);
    ASSERT_TRUE(a.ok()) << a.status();
    session_bytes = Used(probe);
    ASSERT_TRUE(AddBody(probe, **a, Box(2, 0.0)).ok());
    ASSERT_TRUE((*a)->Step(kSteps, {}).status.ok());
    small_stepped_bytes = Used(probe);  // session a with its body, stepped
    absl::StatusOr<std::shared_ptr<Session>> b = CreateCudaSession(probe);
    ASSERT_TRUE(b.ok()) << b.status();
    const int64_t before_large = Used(probe);
    ASSERT_TRUE(AddBody(probe, **b, Box(12, 0.5)).ok());
    large_bytes = Used(probe) - before_large;
  }
  ASSERT_GT(large_bytes, 0);
  const int64_t limit = small_stepped_bytes + session_bytes + large_bytes / 2;

  Server server = MakeServer(limit);
  absl::StatusOr<std::shared_ptr<Session>> a = CreateCudaSession(server);
  ASSERT_TRUE(a.ok()) << a.status();
  absl::StatusOr<int32_t> small = AddBody(server, **a, Box(2, 0.0));
  ASSERT_TRUE(small.ok()) << small.status();
  ASSERT_TRUE((*a)->Step(kSteps, {}).status.ok());
  absl::StatusOr<std::shared_ptr<Session>> b = CreateCudaSession(server);
  ASSERT_TRUE(b.ok()) << b.status();
  EXPECT_EQ((*b)->device(), "cuda");

  const int64_t used_before = Used(server);
  absl::StatusOr<int32_t> large = AddBody(server, **b, Box(12, 0.5));
  ASSERT_EQ(large.status().code(), absl::StatusCode::kResourceExhausted) << large.status();
  EXPECT_NE(large.status().message().find("budget"), std::string::npos) << large.status();
  EXPECT_EQ(large.status().message().rfind("body", 0), 0u) << large.status();
  // Session b is as it was: no body, nothing of the refused body left on the device.
  EXPECT_EQ((*b)->Summary().num_bodies, 0);
  EXPECT_EQ(Used(server), used_before);
  // The other session keeps stepping.
  const SessionStepResult stepped = (*a)->Step(kSteps, {});
  ASSERT_TRUE(stepped.status.ok()) << stepped.status;
  EXPECT_EQ((*a)->Summary().step_count, 2 * kSteps);
  // And b still takes a body that fits.
  ASSERT_TRUE(AddBody(server, **b, Box(2, 0.5)).ok());
  ASSERT_TRUE((*b)->Step(1, {}).status.ok());

  // RemoveBody gives the body's device bytes back.
  const int64_t with_body = Used(server);
  ASSERT_TRUE((*a)->RemoveBody(*small).ok());
  EXPECT_LT(Used(server), with_body);
  EXPECT_EQ((*a)->device_resident_bytes(), (*a)->backend()->ResidentBytes());
  // Closing a session (and the last reference to it going) gives all of its bytes back.
  const int64_t with_a = Used(server);
  const std::string a_id = (*a)->id();
  ASSERT_TRUE(server.sessions->Close(a_id).ok());
  a->reset();
  EXPECT_LT(Used(server), with_a);
  const std::string b_id = (*b)->id();
  ASSERT_TRUE(server.sessions->Close(b_id).ok());
  b->reset();
  EXPECT_EQ(Used(server), 0);
}

TEST(GpuSessionBudgetTest, ASessionPastTheBudgetIsRefused) {
  if (absl::Status usable = gpu::CudaUsable(); !usable.ok()) {
    GTEST_SKIP() << "CUDA is not usable here: " << usable.message();
  }
  Server server = MakeServer(1);  // one byte: no CUDA backend fits (its stream's work buffers)
  absl::StatusOr<std::shared_ptr<Session>> session = CreateCudaSession(server);
  if (session.ok()) {
    // A backend that reserves nothing up front: the first body is refused instead.
    absl::StatusOr<int32_t> body = AddBody(server, **session, Box(2, 0.0));
    ASSERT_EQ(body.status().code(), absl::StatusCode::kResourceExhausted) << body.status();
    EXPECT_NE(body.status().message().find("budget"), std::string::npos) << body.status();
    return;
  }
  EXPECT_EQ(session.status().code(), absl::StatusCode::kResourceExhausted) << session.status();
  EXPECT_NE(session.status().message().find("budget"), std::string::npos) << session.status();
  EXPECT_EQ(server.sessions->size(), 0);
  EXPECT_EQ(Used(server), 0);
}

}  // namespace
}  // namespace contactsim::server
