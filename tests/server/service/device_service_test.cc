// Devices through the gRPC API (server/service/device_choice.h): CreateSession's `device` field
// (unknown value, cuda without a usable device or under the penalty pipeline, the default), the
// device and resident bytes in GetSession / ListSessions and /metrics, the --device start-up
// choice, and --gpu-memory-budget's byte sizes. In a build or on a machine without CUDA the
// default is "cpu"; where CUDA is usable the expectations follow it.
#include <gtest/gtest.h>

#include <string>

#include "contactsim/gpu/cuda_backend.h"
#include "server/service/device_choice.h"
#include "tests/server/service/prometheus_text.h"
#include "tests/server/service/service_fixture.h"

namespace contactsim::server::servertest {
namespace {

bool CudaUsable() { return gpu::CudaUsable().ok(); }

v1::CreateSessionRequest LocalGlobalRequest(const std::string& device) {
  v1::CreateSessionRequest request;
  request.set_pipeline("local_global");
  request.set_device(device);
  request.mutable_settings()->set_dt_s(0.01);
  request.add_ground_planes()->mutable_normal()->set_z(1.0);
  return request;
}

// A 0.1 m hyperelastic cube (48 tets) resting just above z = 0.
v1::BodySpec HyperelasticCube(double x_m) {
  v1::BodySpec body;
  body.set_kind(v1::BODY_KIND_HYPERELASTIC);
  auto tets = core::MakeTetBox(core::Vec3(0.05, 0.05, 0.05), 2, 2, 2);
  EXPECT_TRUE(tets.ok());
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

class DeviceServiceTest : public ServiceTest {
 protected:
  void SetUp() override {
    ServerOptions options;
    options.metrics_listen = "127.0.0.1:0";
    StartServerWith(options);
  }

  grpc::Status TryCreate(const v1::CreateSessionRequest& request) {
    v1::CreateSessionResponse response;
    return stub_->CreateSession(Context().get(), request, &response);
  }

  Exposition Scrape() {
    std::optional<HttpResponse> response = HttpGet(server_->metrics_port(), "/metrics");
    EXPECT_TRUE(response.has_value());
    if (!response) return {};
    Exposition exposition = ParseExposition(response->body);
    for (const std::string& error : exposition.errors) ADD_FAILURE() << error;
    return exposition;
  }
};

TEST_F(DeviceServiceTest, AnUnknownDeviceIsInvalidArgumentNamingTheField) {
  for (const char* device : {"gpu", "CUDA", "cpu0", " cpu"}) {
    const grpc::Status status = TryCreate(LocalGlobalRequest(device));
    EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT) << device;
    EXPECT_EQ(status.error_message().rfind("device: ", 0), 0u) << status.error_message();
    EXPECT_NE(status.error_message().find("auto, cpu, cuda"), std::string::npos)
        << status.error_message();
  }
  EXPECT_EQ(server_->sessions().size(), 0);
}

TEST_F(DeviceServiceTest, CudaWithoutAUsableDeviceIsFailedPreconditionSayingWhy) {
  if (CudaUsable()) GTEST_SKIP() << "CUDA is usable here: tests/gpu covers CUDA sessions";
  const grpc::Status status = TryCreate(LocalGlobalRequest("cuda"));
  EXPECT_EQ(status.error_code(), grpc::StatusCode::FAILED_PRECONDITION);
  EXPECT_EQ(status.error_message().rfind("device: ", 0), 0u) << status.error_message();
  // The reason CudaUsable() gives (e.g. "this build has no CUDA backend ...").
  EXPECT_NE(status.error_message().find(std::string(gpu::CudaUsable().message())),
            std::string::npos)
      << status.error_message();
  EXPECT_EQ(server_->sessions().size(), 0);
}

TEST_F(DeviceServiceTest, CudaUnderThePenaltyPipelineIsFailedPreconditionNamingIt) {
  v1::CreateSessionRequest request = BoxSceneRequest();
  request.set_device("cuda");
  const grpc::Status status = TryCreate(request);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::FAILED_PRECONDITION);
  EXPECT_NE(status.error_message().find("penalty pipeline runs on the CPU only"), std::string::npos)
      << status.error_message();
}

TEST_F(DeviceServiceTest, SessionsReportTheirDeviceAndResidentBytes) {
  const std::string expected_default = CudaUsable() ? "cuda" : "cpu";
  EXPECT_EQ(server_->devices().default_device() == DeviceKind::kCuda ? "cuda" : "cpu",
            expected_default);
  const SessionHandle by_default = CreateSession(LocalGlobalRequest(""));
  const SessionHandle on_cpu = CreateSession(LocalGlobalRequest("cpu"));
  const SessionHandle auto_penalty = CreateSession(BoxSceneRequest());  // penalty: always cpu
  EXPECT_EQ(GetSession(by_default).summary().device(), expected_default);
  EXPECT_EQ(GetSession(on_cpu).summary().device(), "cpu");
  EXPECT_EQ(GetSession(auto_penalty).summary().device(), "cpu");

  // Resident bytes: a body's factorization on the backend, given back by RemoveBody.
  const int64_t empty = GetSession(on_cpu).summary().device_resident_bytes();
  const int32_t cube = AddBody(on_cpu, HyperelasticCube(0.0));
  const int64_t with_cube = GetSession(on_cpu).summary().device_resident_bytes();
  EXPECT_GT(with_cube, empty);
  v1::StepResponse stepped;
  ASSERT_TRUE(Step(on_cpu, 5, &stepped).ok());
  v1::RemoveBodyRequest remove;
  remove.set_session_id(on_cpu.id);
  remove.set_body_id(cube);
  v1::RemoveBodyResponse removed;
  ASSERT_TRUE(stub_->RemoveBody(Context(on_cpu.controller).get(), remove, &removed).ok());
  EXPECT_LT(GetSession(on_cpu).summary().device_resident_bytes(), with_cube);

  // ListSessions reports the same.
  v1::ListSessionsResponse list;
  ASSERT_TRUE(stub_->ListSessions(Context().get(), {}, &list).ok());
  ASSERT_EQ(list.sessions_size(), 3);
  int cpu_sessions = 0;
  for (const v1::SessionSummary& summary : list.sessions()) {
    EXPECT_TRUE(summary.device() == "cpu" || summary.device() == "cuda") << summary.device();
    cpu_sessions += summary.device() == "cpu";
  }
  // Metrics: sessions per device.
  const Exposition scraped = Scrape();
  EXPECT_EQ(scraped["contactsim_sessions_by_device{device=\"cpu\"}"], cpu_sessions);
  EXPECT_EQ(scraped["contactsim_sessions_by_device{device=\"cuda\"}"], 3 - cpu_sessions);
  EXPECT_GE(scraped["contactsim_device_resident_bytes{device=\"cpu\"}"], 0);
}

TEST(DeviceChoiceTest, StartUpChoice) {
  DeviceOptions options;
  options.device = "cpu";
  absl::StatusOr<std::unique_ptr<DeviceChoice>> cpu = DeviceChoice::Create(options);
  ASSERT_TRUE(cpu.ok()) << cpu.status();
  EXPECT_EQ((*cpu)->default_device(), DeviceKind::kCpu);

  options.device = "auto";
  absl::StatusOr<std::unique_ptr<DeviceChoice>> automatic = DeviceChoice::Create(options);
  ASSERT_TRUE(automatic.ok()) << automatic.status();
  EXPECT_EQ((*automatic)->default_device(), CudaUsable() ? DeviceKind::kCuda : DeviceKind::kCpu);
  if (!CudaUsable()) {
    // The log line says why not, and that CPU sessions are served.
    EXPECT_NE((*automatic)->Describe().find(std::string(gpu::CudaUsable().message())),
              std::string::npos)
        << (*automatic)->Describe();
    EXPECT_NE((*automatic)->Describe().find("serving CPU sessions"), std::string::npos);
  }

  options.device = "cuda";
  absl::StatusOr<std::unique_ptr<DeviceChoice>> cuda = DeviceChoice::Create(options);
  if (CudaUsable()) {
    EXPECT_TRUE(cuda.ok()) << cuda.status();
  } else {
    EXPECT_EQ(cuda.status().code(), absl::StatusCode::kFailedPrecondition);
    EXPECT_NE(cuda.status().message().find("--device cuda"), std::string::npos) << cuda.status();
    // The server refuses to start.
    ServerOptions server_options;
    server_options.listen_address = "127.0.0.1:0";
    server_options.device.device = "cuda";
    EXPECT_EQ(ContactSimServer::Start(server_options).status().code(),
              absl::StatusCode::kFailedPrecondition);
  }

  options.device = "tpu";
  EXPECT_EQ(DeviceChoice::Create(options).status().code(), absl::StatusCode::kInvalidArgument);
  options.device = "cpu";
  options.gpu_memory_budget_bytes = -1;
  EXPECT_EQ(DeviceChoice::Create(options).status().code(), absl::StatusCode::kInvalidArgument);
  options.gpu_memory_budget_bytes = 1 << 20;
  absl::StatusOr<std::unique_ptr<DeviceChoice>> budgeted = DeviceChoice::Create(options);
  ASSERT_TRUE(budgeted.ok());
  ASSERT_NE((*budgeted)->budget(), nullptr);
  EXPECT_EQ((*budgeted)->budget()->limit_bytes(), 1 << 20);
  options.gpu_memory_budget_bytes = 0;
  EXPECT_EQ((*DeviceChoice::Create(options))->budget(), nullptr);
}

TEST(DeviceChoiceTest, GpuMemoryBudgetSizes) {
  const std::string field = "--gpu-memory-budget";
  EXPECT_EQ(*ParseByteSize("0", field), 0);
  EXPECT_EQ(*ParseByteSize("1073741824", field), int64_t{1} << 30);
  EXPECT_EQ(*ParseByteSize("512B", field), 512);
  EXPECT_EQ(*ParseByteSize("4KiB", field), 4096);
  EXPECT_EQ(*ParseByteSize("512MiB", field), int64_t{512} << 20);
  EXPECT_EQ(*ParseByteSize("2GiB", field), int64_t{2} << 30);
  EXPECT_EQ(*ParseByteSize(" 2 GiB ", field), int64_t{2} << 30);
  EXPECT_EQ(*ParseByteSize("8589934591GiB", field), int64_t{8589934591} << 30);
  for (const char* bad : {"", "GiB", "-1", "1.5GiB", "2GB", "2gib", "2 TiB", "1e9", "0x10",
                          "99999999999999999999", "8589934593GiB"}) {
    absl::StatusOr<int64_t> parsed = ParseByteSize(bad, field);
    EXPECT_EQ(parsed.status().code(), absl::StatusCode::kInvalidArgument) << "'" << bad << "'";
    EXPECT_EQ(parsed.status().message().rfind(field + ": ", 0), 0u) << parsed.status();
  }
}

}  // namespace
}  // namespace contactsim::server::servertest
