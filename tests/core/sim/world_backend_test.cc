// The World's Backend (core/sim/world.h): given at World::Create and shared with every solver of
// the local_global pipeline (lone bodies, the contact group), bodies moved onto it by AddBody,
// snapshots restored onto it; an explicit CpuBackend gives the bits of World::Create(settings);
// refusals (null backend, a non-CPU backend under the penalty pipeline); resident bytes given back
// by RemoveBody.
#include <gtest/gtest.h>

#include <atomic>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/dynamics/local_global/hyperelastic_body.h"
#include "core/geometry/generators.h"
#include "core/linalg/cpu_backend.h"
#include "core/sim/serialization/world_serialization.h"
#include "core/sim/world.h"
#include "tests/core/sim/scene_builders.h"

namespace contactsim::core {
namespace {

constexpr double kDt = 1.0 / 60.0;

// A CpuBackend under another name that counts the operations called on it and, with a limit,
// refuses an allocation that would take its resident bytes past it (as a device memory budget).
class CountingBackend final : public Backend {
 public:
  explicit CountingBackend(std::string name = "cpu", int64_t limit_bytes = 0)
      : name_(std::move(name)), limit_bytes_(limit_bytes) {}
  int64_t calls() const { return calls_.load(); }
  void set_limit_bytes(int64_t limit) { limit_bytes_ = limit; }

  std::string name() const override { return name_; }
  absl::Status Synchronize() override { return Count(inner_.Synchronize()); }
  int64_t ResidentBytes() const override { return inner_.ResidentBytes(); }
  absl::StatusOr<SparseId> UploadCsr(const CsrMatrix& m) override {
    return Limited(Count(inner_.UploadCsr(m)));
  }
  absl::StatusOr<CsrMatrix> DownloadCsr(SparseId id) const override {
    return Count(inner_.DownloadCsr(id));
  }
  absl::Status ReleaseSparse(SparseId id) override { return Count(inner_.ReleaseSparse(id)); }
  absl::StatusOr<DenseId> CreateDense(int32_t rows, int32_t cols) override {
    return Limited(Count(inner_.CreateDense(rows, cols)));
  }
  absl::Status UploadDense(DenseId id, absl::Span<const double> v) override {
    return Count(inner_.UploadDense(id, v));
  }
  absl::Status DownloadDense(DenseId id, absl::Span<double> v) const override {
    return Count(inner_.DownloadDense(id, v));
  }
  absl::Status ReleaseDense(DenseId id) override { return Count(inner_.ReleaseDense(id)); }
  absl::Status SpMM(double alpha, SparseId a, Op op, DenseId x, double beta, DenseId y) override {
    return Count(inner_.SpMM(alpha, a, op, x, beta, y));
  }
  absl::StatusOr<SparseId> SpGEMM(SparseId a, SparseId b) override {
    return Limited(Count(inner_.SpGEMM(a, b)));
  }
  absl::StatusOr<SparseId> Transpose(SparseId a) override {
    return Limited(Count(inner_.Transpose(a)));
  }
  absl::StatusOr<SparseId> SpAdd(double alpha, SparseId a, double beta, SparseId b) override {
    return Limited(Count(inner_.SpAdd(alpha, a, beta, b)));
  }
  absl::Status Gram(SparseId a, DenseId c) override { return Count(inner_.Gram(a, c)); }
  absl::Status Gemm(double alpha, DenseId a, DenseId b, double beta, DenseId c) override {
    return Count(inner_.Gemm(alpha, a, b, beta, c));
  }
  absl::StatusOr<double> Dot(DenseId x, DenseId y) const override {
    return Count(inner_.Dot(x, y));
  }
  absl::Status Axpy(double alpha, DenseId x, DenseId y) override {
    return Count(inner_.Axpy(alpha, x, y));
  }
  absl::Status Scale(double alpha, DenseId x) override { return Count(inner_.Scale(alpha, x)); }
  absl::Status ForEachElementRange(int32_t n, const ElementRangeKernel& kernel) override {
    return Count(inner_.ForEachElementRange(n, kernel));
  }

 private:
  template <typename T>
  T Count(T result) const {
    calls_.fetch_add(1);
    return result;
  }
  absl::Status OverLimit() const {
    return absl::ResourceExhaustedError(absl::StrCat("test memory budget of ", limit_bytes_,
                                                     " bytes exceeded: ", inner_.ResidentBytes(),
                                                     " bytes"));
  }
  absl::StatusOr<SparseId> Limited(absl::StatusOr<SparseId> id) {
    if (id.ok() && limit_bytes_ > 0 && inner_.ResidentBytes() > limit_bytes_) {
      const absl::Status over = OverLimit();
      inner_.ReleaseSparse(*id).IgnoreError();
      return over;
    }
    return id;
  }
  absl::StatusOr<DenseId> Limited(absl::StatusOr<DenseId> id) {
    if (id.ok() && limit_bytes_ > 0 && inner_.ResidentBytes() > limit_bytes_) {
      const absl::Status over = OverLimit();
      inner_.ReleaseDense(*id).IgnoreError();
      return over;
    }
    return id;
  }
  std::string name_;
  int64_t limit_bytes_ = 0;
  mutable std::atomic<int64_t> calls_{0};
  CpuBackend inner_;
};

WorldSettings LocalGlobalSettings() {
  WorldSettings settings;
  settings.pipeline = PipelineKind::kLocalGlobal;
  settings.dt_s = kDt;
  settings.local_global.friction_coefficient = 0.5;
  return settings;
}

// A 0.1 m cube of 48 tets, bottom face at height z0, its solver on `backend`.
std::unique_ptr<HyperelasticBody> Cube(double x0_m, double z0_m, std::shared_ptr<Backend> backend) {
  return testing::MakeArapTetCube(x0_m, z0_m, kDt, std::move(backend));
}

// Two stacked cubes (one contact group) and a lone one on a ground plane.
void Populate(World* world, const std::shared_ptr<Backend>& bodies_backend) {
  ASSERT_TRUE(world->AddGroundPlane(Vec3::UnitZ(), 0.0).ok());
  ASSERT_TRUE(world->AddBody(Cube(0.0, 0.001, bodies_backend)).ok());
  ASSERT_TRUE(world->AddBody(Cube(0.01, 0.12, bodies_backend)).ok());
  ASSERT_TRUE(world->AddBody(Cube(0.5, 0.001, bodies_backend), {"", {.enabled = false}}).ok());
}

std::vector<Points3> Positions(const World& world) {
  std::vector<Points3> out;
  for (int32_t id : world.body_ids()) out.push_back(world.body(id)->positions_t0());
  return out;
}

void ExpectSameBits(const std::vector<Points3>& a, const std::vector<Points3>& b) {
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i) {
    ASSERT_EQ(a[i].rows(), b[i].rows());
    EXPECT_TRUE((a[i].array() == b[i].array()).all()) << "body " << i;
  }
}

TEST(WorldBackendTest, AnExplicitCpuBackendGivesTheBitsOfTheConvenience) {
  absl::StatusOr<World> convenience = World::Create(LocalGlobalSettings());
  ASSERT_TRUE(convenience.ok()) << convenience.status();
  ASSERT_NE(convenience->backend(), nullptr);
  EXPECT_EQ(convenience->backend()->name(), "cpu");
  auto backend = std::make_shared<CpuBackend>();
  absl::StatusOr<World> explicit_world = World::Create(LocalGlobalSettings(), backend);
  ASSERT_TRUE(explicit_world.ok()) << explicit_world.status();
  EXPECT_EQ(explicit_world->backend(), backend);
  Populate(&*convenience, std::make_shared<CpuBackend>());
  Populate(&*explicit_world, backend);
  ASSERT_TRUE(convenience->Step(30).ok());
  ASSERT_TRUE(explicit_world->Step(30).ok());
  ExpectSameBits(Positions(*convenience), Positions(*explicit_world));
}

TEST(WorldBackendTest, EverySolverRunsOnTheWorldsBackend) {
  auto world_backend = std::make_shared<CountingBackend>();
  auto other = std::make_shared<CountingBackend>();
  absl::StatusOr<World> world = World::Create(LocalGlobalSettings(), world_backend);
  ASSERT_TRUE(world.ok()) << world.status();
  Populate(&*world, other);  // built elsewhere: AddBody moves them
  for (int32_t id : world->body_ids()) {
    const auto* body = dynamic_cast<const HyperelasticBody*>(world->body(id));
    ASSERT_NE(body, nullptr);
    EXPECT_EQ(body->backend(), world_backend) << "body " << id;
  }
  const int64_t other_calls = other->calls();
  const int64_t before = world_backend->calls();
  ASSERT_TRUE(world->Step(3).ok());  // the group (two cubes) and the lone cube
  EXPECT_GT(world_backend->calls(), before);
  EXPECT_EQ(other->calls(), other_calls) << "a solver stepped on the bodies' first backend";
  // Snapshots, restores and resets stay on it.
  absl::StatusOr<WorldSnapshot> snapshot = world->Snapshot();
  ASSERT_TRUE(snapshot.ok()) << snapshot.status();
  ASSERT_TRUE(world->Restore(*snapshot).ok());
  ASSERT_TRUE(world->Step(1).ok());
  ASSERT_TRUE(world->Reset().ok());
  ASSERT_TRUE(world->Step(1).ok());
  for (int32_t id : world->body_ids()) {
    EXPECT_EQ(dynamic_cast<const HyperelasticBody*>(world->body(id))->backend(), world_backend);
  }
  EXPECT_EQ(other->calls(), other_calls);
}

TEST(WorldBackendTest, SnapshotsRestoreOntoTheRestoringWorldsBackend) {
  auto a = std::make_shared<CpuBackend>();
  auto b = std::make_shared<CpuBackend>();
  absl::StatusOr<World> first = World::Create(LocalGlobalSettings(), a);
  ASSERT_TRUE(first.ok());
  Populate(&*first, a);
  ASSERT_TRUE(first->Step(10).ok());
  absl::StatusOr<WorldSnapshot> snapshot = first->Snapshot();
  ASSERT_TRUE(snapshot.ok()) << snapshot.status();
  absl::StatusOr<World> second = World::Create(LocalGlobalSettings(), b);
  ASSERT_TRUE(second.ok());
  ASSERT_TRUE(second->Restore(*snapshot).ok());
  for (int32_t id : second->body_ids()) {
    EXPECT_EQ(dynamic_cast<const HyperelasticBody*>(second->body(id))->backend(), b);
  }
  // Serialized and deserialized onto a third backend.
  absl::StatusOr<std::string> bytes = SerializeWorld(*first);
  ASSERT_TRUE(bytes.ok()) << bytes.status();
  auto c = std::make_shared<CpuBackend>();
  absl::StatusOr<World> third = DeserializeWorld(*bytes, c);
  ASSERT_TRUE(third.ok()) << third.status();
  EXPECT_EQ(third->backend(), c);
  for (int32_t id : third->body_ids()) {
    EXPECT_EQ(dynamic_cast<const HyperelasticBody*>(third->body(id))->backend(), c);
  }
  ASSERT_TRUE(first->Step(10).ok());
  ASSERT_TRUE(second->Step(10).ok());
  ASSERT_TRUE(third->Step(10).ok());
  ExpectSameBits(Positions(*first), Positions(*second));
  ExpectSameBits(Positions(*first), Positions(*third));
}

TEST(WorldBackendTest, RefusesANullBackendAndADeviceUnderThePenaltyPipeline) {
  absl::StatusOr<World> null_backend = World::Create(LocalGlobalSettings(), nullptr);
  EXPECT_EQ(null_backend.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(null_backend.status().message().find("backend"), std::string::npos);
  WorldSettings penalty;
  penalty.pipeline = PipelineKind::kPenalty;
  absl::StatusOr<World> on_device =
      World::Create(penalty, std::make_shared<CountingBackend>("cuda"));
  EXPECT_EQ(on_device.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_NE(on_device.status().message().find("penalty"), std::string::npos) << on_device.status();
  EXPECT_TRUE(World::Create(penalty, std::make_shared<CpuBackend>()).ok());
  // A local_global World takes any backend.
  EXPECT_TRUE(World::Create(LocalGlobalSettings(), std::make_shared<CountingBackend>("cuda")).ok());
  HyperelasticBodyParams params;
  params.time_step_s = kDt;
  absl::StatusOr<TetMesh> box = MakeTetBox(Vec3(0.05, 0.05, 0.05), 1, 1, 1);
  ASSERT_TRUE(box.ok());
  EXPECT_EQ(HyperelasticBody::Create(*box, params, nullptr).status().code(),
            absl::StatusCode::kInvalidArgument);
}

TEST(WorldBackendTest, RemoveBodyGivesTheBackendsBytesBack) {
  auto backend = std::make_shared<CpuBackend>();
  absl::StatusOr<World> world = World::Create(LocalGlobalSettings(), backend);
  ASSERT_TRUE(world.ok());
  ASSERT_TRUE(world->AddGroundPlane(Vec3::UnitZ(), 0.0).ok());
  const int64_t empty = backend->ResidentBytes();
  absl::StatusOr<int32_t> a = world->AddBody(Cube(0.0, 0.001, backend));
  ASSERT_TRUE(a.ok());
  const int64_t one = backend->ResidentBytes();
  EXPECT_GT(one, empty);
  absl::StatusOr<int32_t> b = world->AddBody(Cube(0.3, 0.001, backend));
  ASSERT_TRUE(b.ok());
  EXPECT_GT(backend->ResidentBytes(), one);
  ASSERT_TRUE(world->RemoveBody(*b).ok());
  EXPECT_EQ(backend->ResidentBytes(), one);
  ASSERT_TRUE(world->RemoveBody(*a).ok());
  EXPECT_EQ(backend->ResidentBytes(), empty);
}

// A backend that cannot hold what a step needs (a device memory budget): the contact group of two
// bodies needs their joint system on top of their own. World::Step answers ResourceExhausted from
// PrepareStep before anything moves, the World has not diverged, and once a body is removed it
// steps on.
TEST(WorldBackendTest, AStepTheBackendCannotHoldLeavesTheWorldAsItWas) {
  auto backend = std::make_shared<CountingBackend>();
  absl::StatusOr<World> world = World::Create(LocalGlobalSettings(), backend);
  ASSERT_TRUE(world.ok());
  ASSERT_TRUE(world->AddGroundPlane(Vec3::UnitZ(), 0.0).ok());
  absl::StatusOr<int32_t> a = world->AddBody(Cube(0.0, 0.001, backend));
  ASSERT_TRUE(a.ok());
  ASSERT_TRUE(world->Step(2).ok());
  absl::StatusOr<int32_t> b = world->AddBody(Cube(0.01, 0.12, backend));
  ASSERT_TRUE(b.ok());
  // Room for what is there now (and the snapshot copies' small blocks), not for the group.
  backend->set_limit_bytes(backend->ResidentBytes() + 4096);
  const std::vector<Points3> before = Positions(*world);
  const int64_t steps = world->step_count();
  const absl::Status refused = world->Step(1);
  EXPECT_EQ(refused.code(), absl::StatusCode::kResourceExhausted) << refused;
  EXPECT_NE(refused.message().find("budget"), std::string::npos) << refused;
  EXPECT_FALSE(world->diverged());
  EXPECT_EQ(world->step_count(), steps);
  ExpectSameBits(Positions(*world), before);
  // The same through the controls path.
  StepOutcome outcome;
  EXPECT_EQ(world->Step(1, StepControls{}, &outcome).code(), absl::StatusCode::kResourceExhausted);
  EXPECT_TRUE(outcome.diagnostics.empty());
  ExpectSameBits(Positions(*world), before);
  // Without the second body the first steps on.
  ASSERT_TRUE(world->RemoveBody(*b).ok());
  ASSERT_TRUE(world->Step(2).ok());
  EXPECT_EQ(world->step_count(), steps + 2);
}

}  // namespace
}  // namespace contactsim::core
