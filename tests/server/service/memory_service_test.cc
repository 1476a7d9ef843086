// Per-session memory accounting and the memory budgets (server/session/session_memory.h,
// memory_budget.h) over loopback gRPC: GetSession's parts against sizes computed by hand, every
// growing request refused before it allocates (naming the budget, the session bit-identical),
// and the accounting against the process's real growth for a big mesh.
#include <malloc.h>
#include <unistd.h>

#include <fstream>
#include <iostream>
#include <string>
#include <vector>

#include "absl/strings/numbers.h"
#include "gmock/gmock.h"
#include "google/protobuf/util/message_differencer.h"
#include "gtest/gtest.h"
#include "tests/server/service/service_fixture.h"

namespace contactsim::server::servertest {
namespace {

using ::google::protobuf::util::MessageDifferencer;
using ::testing::HasSubstr;
using ::testing::StartsWith;

// The process's resident set [bytes] (/proc/self/statm: pages), after glibc has returned its
// free pages (the server raises the trim threshold, so freed temporaries would stay resident).
int64_t ResidentBytes() {
  malloc_trim(0);
  std::ifstream statm("/proc/self/statm");
  int64_t size_pages = 0, resident_pages = 0;
  statm >> size_pages >> resident_pages;
  return resident_pages * sysconf(_SC_PAGESIZE);
}

v1::BodySpec Cloth(int cells, double z_m = 0.5) {
  v1::BodySpec cloth;
  cloth.set_kind(v1::BODY_KIND_CLOTH);
  v1::ClothGridShape* grid = cloth.mutable_primitive()->mutable_cloth_grid();
  grid->set_size_x_m(1.0);
  grid->set_size_y_m(1.0);
  grid->set_cells_x(cells);
  grid->set_cells_y(cells);
  cloth.mutable_cloth()->set_area_density_kg_per_m2(1.0);
  cloth.mutable_cloth()->set_stretch_stiffness_n_per_m(10.0);
  cloth.mutable_pose()->mutable_position_m()->set_z(z_m);
  return cloth;
}

// The accounting's formula (session_memory.h) written out by hand: bytes per vertex of a rigid
// body 96 and of a cloth 272, 12 per face; collision structures 128 per vertex and 320 per face;
// per frame 48 per vertex plus 256 per body.
int64_t RigidBytes(int64_t vertices, int64_t faces) { return 96 * vertices + 12 * faces; }
int64_t ClothBytes(int cells) {
  const int64_t vertices = int64_t{cells + 1} * (cells + 1);
  return 272 * vertices + 12 * (2 * int64_t{cells} * cells);
}
int64_t CollisionBytes(int64_t vertices, int64_t faces) { return 128 * vertices + 320 * faces; }
int64_t FrameBytes(int64_t vertices, int64_t bodies) { return 48 * vertices + 256 * bodies; }

class MemoryServiceTest : public ServiceTest {
 protected:
  grpc::Status TryAddBody(const SessionHandle& session, const v1::BodySpec& body) {
    v1::AddBodyRequest request;
    request.set_session_id(session.id);
    *request.mutable_body() = body;
    v1::AddBodyResponse response;
    return stub_->AddBody(Context(session.controller).get(), request, &response);
  }

  std::string SnapshotBlob(const SessionHandle& session) {
    v1::SnapshotRequest request;
    request.set_session_id(session.id);
    v1::SnapshotResponse response;
    grpc::Status status = stub_->Snapshot(Context(session.controller).get(), request, &response);
    EXPECT_TRUE(status.ok()) << status.error_message();
    return response.snapshot();
  }

  grpc::Status Restore(const SessionHandle& session, const std::string& blob) {
    v1::RestoreRequest request;
    request.set_session_id(session.id);
    request.set_snapshot(blob);
    v1::RestoreResponse response;
    return stub_->Restore(Context(session.controller).get(), request, &response);
  }

  // One triangle mesh uploaded in chunks of 3,000 values.
  grpc::Status Upload(const SessionHandle& session, const std::vector<double>& vertices_m,
                      const std::vector<int32_t>& triangles, v1::UploadMeshResponse* response) {
    auto context = Context(session.controller);
    std::unique_ptr<grpc::ClientWriter<v1::UploadMeshChunk>> writer =
        stub_->UploadMesh(context.get(), response);
    size_t v = 0, e = 0;
    bool first = true;
    while (first || v < vertices_m.size() || e < triangles.size()) {
      v1::UploadMeshChunk chunk;
      if (first) chunk.set_session_id(session.id);
      first = false;
      const size_t nv = std::min<size_t>(3000, vertices_m.size() - v);
      const size_t ne = std::min<size_t>(3000, triangles.size() - e);
      chunk.mutable_vertices_m()->Add(vertices_m.begin() + v, vertices_m.begin() + v + nv);
      chunk.mutable_elements()->Add(triangles.begin() + e, triangles.begin() + e + ne);
      v += nv;
      e += ne;
      if (!writer->Write(chunk)) break;  // the server finished early (a refusal)
    }
    writer->WritesDone();
    return writer->Finish();
  }

  // The session as a twin would see it: its summary (memory included) and its whole state.
  struct Observed {
    v1::GetSessionResponse session;
    std::string blob;
  };
  Observed Observe(const SessionHandle& session) {
    return {GetSession(session), SnapshotBlob(session)};
  }
  static void ExpectSame(const Observed& before, const Observed& after) {
    EXPECT_TRUE(MessageDifferencer::Equals(before.session, after.session))
        << before.session.DebugString() << "\nvs\n"
        << after.session.DebugString();
    EXPECT_EQ(before.blob, after.blob);
  }
};

TEST_F(MemoryServiceTest, GetSessionReportsThePartsComputedByHand) {
  const SessionHandle session = CreateSession(BoxSceneRequest());
  AddBody(session, BoxBody());  // 8 vertices, 12 faces
  constexpr int kCells = 10;    // 121 vertices, 200 faces
  AddBody(session, Cloth(kCells));
  const int64_t vertices = 8 + 121;
  const int64_t bodies = RigidBytes(8, 12) + ClothBytes(kCells);
  const int64_t collision = CollisionBytes(8, 12) + CollisionBytes(121, 200);
  const int64_t frames = int64_t{ServerLimits{}.stream_ring_frames} * FrameBytes(vertices, 2);

  v1::SessionMemory memory = GetSession(session).summary().memory();
  EXPECT_EQ(memory.bodies_bytes(), bodies);
  EXPECT_EQ(memory.collision_bytes(), collision);
  EXPECT_EQ(memory.frames_bytes(), frames);
  EXPECT_EQ(memory.meshes_bytes(), 0);
  EXPECT_EQ(memory.solver_bytes(), 0);  // the penalty pipeline keeps nothing on its backend
  EXPECT_EQ(memory.snapshots_bytes(), 0);
  EXPECT_EQ(GetSession(session).summary().memory_bytes(), bodies + collision + frames);

  // The first Step keeps the initial state (ResetSession's): the bodies once more (the collision
  // structures are the pipeline's, not copied).
  v1::StepResponse step;
  ASSERT_TRUE(Step(session, 1, &step).ok());
  memory = GetSession(session).summary().memory();
  EXPECT_EQ(memory.snapshots_bytes(), bodies);

  // An uploaded mesh: 8 bytes per coordinate, 4 per index.
  const std::vector<double> vertices_m = {0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1};
  const std::vector<int32_t> triangles = {0, 2, 1, 0, 1, 3, 0, 3, 2, 1, 2, 3};
  v1::UploadMeshResponse uploaded;
  ASSERT_TRUE(Upload(session, vertices_m, triangles, &uploaded).ok());
  memory = GetSession(session).summary().memory();
  EXPECT_EQ(memory.meshes_bytes(), 12 * 8 + 12 * 4);

  // ListSessions carries the same figures.
  v1::ListSessionsResponse list;
  ASSERT_TRUE(stub_->ListSessions(Context().get(), v1::ListSessionsRequest(), &list).ok());
  ASSERT_EQ(list.sessions_size(), 1);
  EXPECT_EQ(list.sessions(0).memory_bytes(), GetSession(session).summary().memory_bytes());
}

v1::CreateSessionRequest LocalGlobalRequest() {
  v1::CreateSessionRequest request;
  request.set_pipeline("local_global");
  request.mutable_settings()->set_dt_s(0.01);
  request.set_device("cpu");
  return request;
}

// A hyperelastic tet box of 2 x 2 x 2 cells: 27 vertices, 48 tetrahedra, 48 surface triangles.
v1::BodySpec HyperelasticBox() {
  v1::BodySpec body;
  body.set_kind(v1::BODY_KIND_HYPERELASTIC);
  v1::TetBoxShape* box = body.mutable_primitive()->mutable_tet_box();
  box->mutable_half_extents_m()->set_x(0.05);
  box->mutable_half_extents_m()->set_y(0.05);
  box->mutable_half_extents_m()->set_z(0.05);
  box->set_cells_x(2);
  box->set_cells_y(2);
  box->set_cells_z(2);
  v1::HyperelasticMaterial* material = body.mutable_hyperelastic();
  material->set_model(v1::HYPERELASTIC_MODEL_NEO_HOOKEAN);
  material->set_youngs_modulus_pa(1e6);
  material->set_poisson_ratio(0.3);
  material->set_density_kg_per_m3(1000.0);
  return body;
}

TEST_F(MemoryServiceTest, TheSolverPartIsTheFactorOnTheBackend) {
  const SessionHandle session = CreateSession(LocalGlobalRequest());
  AddBody(session, HyperelasticBox());
  const v1::SessionSummary summary = GetSession(session).summary();
  // 200 bytes per vertex, 12 per surface triangle, 384 per tetrahedron.
  EXPECT_EQ(summary.memory().bodies_bytes(), 200 * 27 + 12 * 48 + 384 * 48);
  // The factor S = L^-1 (as R and R^T) and the blocks the body put on its CPU backend.
  EXPECT_GT(summary.memory().solver_bytes(), 0);
  EXPECT_EQ(summary.memory().solver_bytes(), summary.device_resident_bytes());
}

TEST_F(MemoryServiceTest, ABodyWhoseFactorPassesTheBudgetNeverJoinsTheSession) {
  // The factor's size, measured where no budget applies.
  const SessionHandle measured = CreateSession(LocalGlobalRequest());
  AddBody(measured, HyperelasticBox());
  const int64_t factor = GetSession(measured).summary().memory().solver_bytes();
  ASSERT_GT(factor, 1000);
  // The estimate from the request (no surface, no factor): 200 x 27 + 384 x 48, collision
  // 128 x 27, and 64 frames of 48 x 27 + 256 bytes. With the surface (12 x 48 and collision
  // 320 x 48) it fits; with the factor as well it does not.
  const int64_t estimate = 200 * 27 + 384 * 48 + 128 * 27 + 64 * (48 * 27 + 256);
  ServerLimits limits;
  limits.max_memory_bytes_per_session = estimate + (12 + 320) * 48 + factor / 2;
  StartServer(limits);
  const SessionHandle session = CreateSession(LocalGlobalRequest());
  const Observed before = Observe(session);
  const grpc::Status refused = TryAddBody(session, HyperelasticBox());
  EXPECT_EQ(refused.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED) << refused.error_message();
  EXPECT_THAT(refused.error_message(), StartsWith("body: "));
  EXPECT_THAT(refused.error_message(), HasSubstr("--session-memory-budget"));
  ExpectSame(before, Observe(session));
}

// The process's peak resident set since the last ResetPeakResidentBytes [bytes] (VmHWM).
int64_t PeakResidentBytes() {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.rfind("VmHWM:", 0) == 0) return std::stoll(line.substr(6)) * 1024;  // kB
  }
  return -1;
}
// Sets the peak to the current resident set (clear_refs 5, Linux >= 4.0), after glibc has
// returned its free pages; false when the kernel refuses.
bool ResetPeakResidentBytes() {
  malloc_trim(0);
  std::ofstream clear("/proc/self/clear_refs");
  clear << "5";
  clear.flush();
  return clear.good();
}

// A hyperelastic tet box of cells^3 cells: (cells + 1)^3 vertices, 6 cells^3 tetrahedra.
v1::BodySpec HyperelasticCube(int cells) {
  v1::BodySpec body = HyperelasticBox();
  body.mutable_primitive()->mutable_tet_box()->set_cells_x(cells);
  body.mutable_primitive()->mutable_tet_box()->set_cells_y(cells);
  body.mutable_primitive()->mutable_tet_box()->set_cells_z(cells);
  return body;
}

TEST_F(MemoryServiceTest, AFactorPastTheBudgetIsRefusedBeforeItIsBuilt) {
  // 6,859 vertices: nnz(S) 4.7 M, a factor of about 113 MB (factor_count_bench's tet_box_18).
  constexpr int kCells = 18;
  const int64_t vertices = int64_t{kCells + 1} * (kCells + 1) * (kCells + 1);
  const int64_t tets = 6 * int64_t{kCells} * kCells * kCells;
  const int64_t triangles = 12 * int64_t{kCells} * kCells;
  // The factor's size, measured where no budget applies.
  int64_t factor = 0;
  {
    const SessionHandle measured = CreateSession(LocalGlobalRequest());
    AddBody(measured, HyperelasticCube(kCells));
    factor = GetSession(measured).summary().memory().solver_bytes();
  }
  // The request's estimate (no surface, no factor; see above) and the surface fit; half the
  // factor more does not.
  const int64_t estimate =
      200 * vertices + 384 * tets + 128 * vertices + 64 * (48 * vertices + 256);
  ServerLimits limits;
  limits.max_memory_bytes_per_session = estimate + 332 * triangles + factor / 2;
  StartServer(limits);  // the measured session goes with the old server
  const SessionHandle session = CreateSession(LocalGlobalRequest());
  const Observed before = Observe(session);
  const int64_t rss_before = ResidentBytes();
  ASSERT_TRUE(ResetPeakResidentBytes()) << "clear_refs refused: no peak to measure";
  const grpc::Status refused = TryAddBody(session, HyperelasticCube(kCells));
  const int64_t peak_growth = PeakResidentBytes() - rss_before;
  // Building the factor touches at least R and R^T (the factor's accounted bytes) and the host's
  // L, S, R and R^T; refused before, the call's peak is the mesh, its solver's matrices, the
  // ordering and gRPC's buffers (measured 42 MB against a factor of 114 MB).
  EXPECT_LT(peak_growth, factor / 2) << "factor " << factor << " peak growth " << peak_growth;
  std::cout << "factor " << factor << " bytes; the refused call's peak RSS growth " << peak_growth
            << " bytes\n";
  ExpectSame(before, Observe(session));
  EXPECT_EQ(refused.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED) << refused.error_message();
  EXPECT_THAT(refused.error_message(), StartsWith("body: the local_global factor would put "));
  EXPECT_THAT(refused.error_message(), HasSubstr("--session-memory-budget"));
  // The bytes it names are the measured factor's: exactly for one ordering (core's
  // core_lg_factor_counts_test); here 10 % apart at most, because METIS draws from libc's rand(),
  // which other threads of this process share, so two orderings of one mesh may differ
  // (measured: up to 5.4 % apart).
  int64_t named = 0;
  const std::string prefix = "body: the local_global factor would put ";
  ASSERT_TRUE(absl::SimpleAtoi(
      refused.error_message().substr(
          prefix.size(), refused.error_message().find(' ', prefix.size()) - prefix.size()),
      &named));
  EXPECT_NEAR(static_cast<double>(named), static_cast<double>(factor), 0.1 * factor);
}

TEST_F(MemoryServiceTest, AddBodyPastTheSessionBudgetIsRefusedBeforeGenerating) {
  ServerLimits limits;
  limits.max_memory_bytes_per_session = int64_t{8} << 20;
  StartServer(limits);
  const SessionHandle session = CreateSession(BoxSceneRequest());
  AddBody(session, BoxBody());
  const Observed before = Observe(session);
  const int64_t rss_before = ResidentBytes();
  // 998,001 vertices (under the vertex limit): generated, the cloth alone would take about 270 MB
  // (272 bytes a vertex), its frames 64 times 48 MB more.
  const grpc::Status refused = TryAddBody(session, Cloth(998));
  const int64_t rss_growth = ResidentBytes() - rss_before;
  EXPECT_EQ(refused.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED) << refused.error_message();
  EXPECT_THAT(refused.error_message(), StartsWith("body: "));
  EXPECT_THAT(refused.error_message(), HasSubstr("--session-memory-budget"));
  // Refused before the mesh was generated: the process grew by far less than the mesh's 24 MB of
  // coordinates alone (16 MiB leaves room for gRPC's buffers and the allocator's arenas).
  EXPECT_LT(rss_growth, int64_t{16} << 20);
  ExpectSame(before, Observe(session));
  // A body that fits is still added.
  EXPECT_TRUE(TryAddBody(session, Cloth(10)).ok());
}

TEST_F(MemoryServiceTest, TheServerBudgetCountsEverySessionAndFreesOnClose) {
  ServerLimits limits;
  limits.memory_budget_bytes = int64_t{4} << 20;
  StartServer(limits);
  // One cloth of 20 x 20 cells (441 vertices, 800 faces): 129,552 bytes, collision 312,448 and
  // 64 frames of 21,424 bytes: 1,813,136 bytes. Two fit in 4 MiB (4,194,304), a third does not.
  const SessionHandle first = CreateSession(BoxSceneRequest());
  const SessionHandle second = CreateSession(BoxSceneRequest());
  ASSERT_TRUE(TryAddBody(first, Cloth(20)).ok());
  ASSERT_TRUE(TryAddBody(first, Cloth(20, 1.0)).ok());
  const Observed before = Observe(second);
  const grpc::Status refused = TryAddBody(second, Cloth(20));
  EXPECT_EQ(refused.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED) << refused.error_message();
  EXPECT_THAT(refused.error_message(), StartsWith("body: "));
  EXPECT_THAT(refused.error_message(), HasSubstr("--memory-budget"));
  ExpectSame(before, Observe(second));

  v1::CloseSessionRequest close;
  close.set_session_id(first.id);
  v1::CloseSessionResponse closed;
  ASSERT_TRUE(stub_->CloseSession(Context(first.controller).get(), close, &closed).ok());
  EXPECT_TRUE(TryAddBody(second, Cloth(20)).ok());
}

TEST_F(MemoryServiceTest, UploadMeshPastTheSessionBudgetIsRefusedWhileItStreams) {
  ServerLimits limits;
  limits.max_memory_bytes_per_session = int64_t{2} << 20;
  StartServer(limits);
  const SessionHandle session = CreateSession(BoxSceneRequest());
  const Observed before = Observe(session);
  // 150,000 vertices: 3.6 MB of coordinates, over the 2 MiB cap before the last chunk.
  std::vector<double> vertices_m(3 * 150'000, 0.0);
  for (size_t i = 0; i < vertices_m.size(); ++i) vertices_m[i] = static_cast<double>(i % 7);
  const std::vector<int32_t> triangles = {0, 1, 2};
  v1::UploadMeshResponse response;
  const grpc::Status refused = Upload(session, vertices_m, triangles, &response);
  EXPECT_EQ(refused.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED) << refused.error_message();
  EXPECT_THAT(refused.error_message(), StartsWith("vertices_m: "));
  EXPECT_THAT(refused.error_message(), HasSubstr("--session-memory-budget"));
  ExpectSame(before, Observe(session));
}

TEST_F(MemoryServiceTest, RestorePastTheSessionBudgetLeavesTheSessionAsItWas) {
  // A snapshot taken where no budget applies: four cloths, about 7.3 MB accounted.
  const SessionHandle big = CreateSession(BoxSceneRequest());
  for (int i = 0; i < 4; ++i) ASSERT_TRUE(TryAddBody(big, Cloth(20, 0.5 + i)).ok());
  const std::string blob = SnapshotBlob(big);

  ServerLimits limits;
  limits.max_memory_bytes_per_session = int64_t{4} << 20;
  StartServer(limits);
  const SessionHandle session = CreateSession(BoxSceneRequest());
  AddBody(session, BoxBody());
  const Observed before = Observe(session);
  const grpc::Status refused = Restore(session, blob);
  EXPECT_EQ(refused.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED) << refused.error_message();
  EXPECT_THAT(refused.error_message(), StartsWith("snapshot: "));
  EXPECT_THAT(refused.error_message(), HasSubstr("--session-memory-budget"));
  ExpectSame(before, Observe(session));
}

TEST_F(MemoryServiceTest, TheAccountingFollowsTheProcessGrowthForABigMesh) {
  ServerLimits limits;
  limits.stream_ring_frames = 4;  // a full ring after 4 Step calls
  StartServer(limits);
  v1::CreateSessionRequest request = BoxSceneRequest();
  request.clear_ground_planes();
  const SessionHandle session = CreateSession(request);
  const int64_t accounted_before = GetSession(session).summary().memory_bytes();
  const int64_t rss_before = ResidentBytes();
  v1::BodySpec cloth = Cloth(250);  // 63,001 vertices (a reply of 3 MB fits the client)
  cloth.set_collision_disabled(true);
  AddBody(session, cloth);
  v1::StepResponse step;
  for (int i = 0; i < 4; ++i) {
    const grpc::Status stepped = Step(session, 1, &step);
    ASSERT_TRUE(stepped.ok()) << stepped.error_message();
  }
  const int64_t real = ResidentBytes() - rss_before;
  const int64_t accounted = GetSession(session).summary().memory_bytes() - accounted_before;
  // The accounting counts the arrays the session keeps, not the allocator's slack, the
  // BVH and pipeline scratch a step leaves, or the copies a reply makes: spec, within a factor of
  // 2 of the real growth either way.
  ASSERT_GT(real, 0);
  const double ratio = static_cast<double>(accounted) / static_cast<double>(real);
  EXPECT_GT(ratio, 0.5) << "accounted " << accounted << " real " << real;
  EXPECT_LT(ratio, 2.0) << "accounted " << accounted << " real " << real;
  // Measured here: 0.81-0.92 over 5 runs (the allocator's and the step's scratch are the rest).
  // A change that drops or doubles a part shows below.
  EXPECT_GT(ratio, 0.7) << "accounted " << accounted << " real " << real;
  EXPECT_LT(ratio, 1.1) << "accounted " << accounted << " real " << real;
  RecordProperty("accounted_over_rss", std::to_string(ratio));
  std::cout << "accounted " << accounted << " bytes, RSS growth " << real << " bytes, ratio "
            << ratio << "\n";
}

}  // namespace
}  // namespace contactsim::server::servertest
