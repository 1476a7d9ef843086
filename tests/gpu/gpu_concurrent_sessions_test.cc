// Two sessions on one GPU: two Worlds on two CUDA backends (each its own stream), stepping the
// same local_global scene at the same time on two threads, give the results of one World stepping
// it alone. Skips, saying why, where CUDA is not usable (gpu::CudaUsable()).
//
// Tolerance. The three runs execute the same operations on the same inputs; the backends share
// nothing but the device, so the only way they can differ is an operation whose result depends on
// scheduling (a reduction whose order the library picks at run time, e.g. atomics in a cuSPARSE
// or cuBLAS algorithm). Such a difference starts at the rounding of one double (relative 1.1e-16,
// ~1e-17 m on these 0.1 m cubes) and is not amplified much by this scene (cubes settling on a
// plane and on each other: dissipative, no chaotic contact switching after the first steps), so
// it grows about linearly with the rounded operations on the path of one position (kSteps x 10
// iterations x a few reductions ~ 2,000), ~1e-13 m; 1e-5 m leaves room for a contact that switches
// on a rounding difference (a contact's own force, ~mm of travel per step, times a 1e-2 share)
// and is 1e-4 of the
// cube size. A bug that mixes the sessions (a shared stream, buffer or handle) moves vertices by
// the millimetres the cubes fall per step, far above it. With deterministic kernels the runs are
// bit-identical, which the test reports.
#include <gtest/gtest.h>

#include <cstdio>
#include <memory>
#include <thread>
#include <utility>
#include <vector>

#include "contactsim/gpu/cuda_backend.h"
#include "core/dynamics/local_global/hyperelastic_body.h"
#include "core/geometry/generators.h"
#include "core/sim/world.h"

namespace contactsim {
namespace {

constexpr double kDt = 0.01;
constexpr int kSteps = 60;
constexpr double kToleranceM = 1e-5;

core::WorldSettings LocalGlobalSettings() {
  core::WorldSettings settings;
  settings.pipeline = core::PipelineKind::kLocalGlobal;
  settings.dt_s = kDt;
  settings.local_global.friction_coefficient = 0.5;
  return settings;
}

std::unique_ptr<core::HyperelasticBody> Cube(double x_m, double z0_m,
                                             std::shared_ptr<core::Backend> backend) {
  absl::StatusOr<core::TetMesh> box = core::MakeTetBox(core::Vec3(0.05, 0.05, 0.05), 4, 4, 4);
  EXPECT_TRUE(box.ok()) << box.status();
  core::Points3 x = box->vertices();
  x.col(0).array() += x_m;
  x.col(2).array() += 0.05 + z0_m;
  absl::StatusOr<core::TetMesh> placed = core::TetMesh::Create(x, box->tets());
  EXPECT_TRUE(placed.ok()) << placed.status();
  core::HyperelasticBodyParams params;
  params.model = core::MaterialModel::kNeoHookean;
  params.material = {1.0e6, 0.3, 1000.0};
  params.time_step_s = kDt;
  absl::StatusOr<std::unique_ptr<core::HyperelasticBody>> body =
      core::HyperelasticBody::Create(*std::move(placed), params, std::move(backend));
  EXPECT_TRUE(body.ok()) << body.status();
  return body.ok() ? *std::move(body) : nullptr;
}

// The scene on a new CUDA backend: a lone cube and two stacked ones (a contact group) on z = 0.
absl::StatusOr<core::World> MakeScene() {
  absl::StatusOr<std::unique_ptr<core::Backend>> backend =
      gpu::CreateCudaBackend(gpu::CudaBackendOptions{});
  if (!backend.ok()) return backend.status();
  std::shared_ptr<core::Backend> shared = *std::move(backend);
  absl::StatusOr<core::World> world = core::World::Create(LocalGlobalSettings(), shared);
  if (!world.ok()) return world.status();
  if (absl::StatusOr<int32_t> p = world->AddGroundPlane(core::Vec3::UnitZ(), 0.0); !p.ok()) {
    return p.status();
  }
  for (auto [x, z] : {std::pair{0.0, 0.001}, std::pair{0.3, 0.001}, std::pair{0.31, 0.12}}) {
    std::unique_ptr<core::HyperelasticBody> cube = Cube(x, z, shared);
    if (cube == nullptr) return absl::InternalError("cube not built");
    if (absl::StatusOr<int32_t> id = world->AddBody(std::move(cube)); !id.ok()) {
      return id.status();
    }
  }
  return world;
}

std::vector<core::Points3> Positions(const core::World& world) {
  std::vector<core::Points3> out;
  for (int32_t id : world.body_ids()) out.push_back(world.body(id)->positions_t0());
  return out;
}

TEST(GpuConcurrentSessionsTest, TwoSessionsOnTwoStreamsGiveTheResultsOfOneAlone) {
  if (absl::Status usable = gpu::CudaUsable(); !usable.ok()) {
    GTEST_SKIP() << "CUDA is not usable here: " << usable.message();
  }
  absl::StatusOr<core::World> alone = MakeScene();
  ASSERT_TRUE(alone.ok()) << alone.status();
  ASSERT_EQ(alone->backend()->name(), "cuda");
  ASSERT_TRUE(alone->Step(kSteps).ok());
  const std::vector<core::Points3> expected = Positions(*alone);

  absl::StatusOr<core::World> first = MakeScene();
  absl::StatusOr<core::World> second = MakeScene();
  ASSERT_TRUE(first.ok()) << first.status();
  ASSERT_TRUE(second.ok()) << second.status();
  ASSERT_NE(first->backend(), second->backend());
  absl::Status first_status, second_status;
  {
    // One step at a time on each thread, so the two streams overlap for the whole run.
    std::thread a([&] {
      for (int i = 0; i < kSteps && first_status.ok(); ++i) first_status = first->Step(1);
    });
    std::thread b([&] {
      for (int i = 0; i < kSteps && second_status.ok(); ++i) second_status = second->Step(1);
    });
    a.join();
    b.join();
  }
  ASSERT_TRUE(first_status.ok()) << first_status;
  ASSERT_TRUE(second_status.ok()) << second_status;

  bool bit_identical = true;
  for (const core::World* world : {&*first, &*second}) {
    const std::vector<core::Points3> got = Positions(*world);
    ASSERT_EQ(got.size(), expected.size());
    for (size_t b = 0; b < got.size(); ++b) {
      ASSERT_EQ(got[b].rows(), expected[b].rows());
      const double deviation = (got[b] - expected[b]).cwiseAbs().maxCoeff();
      EXPECT_LE(deviation, kToleranceM) << "body " << b;
      bit_identical = bit_identical && (got[b].array() == expected[b].array()).all();
    }
  }
  // The cubes did move (the comparison is not of initial states).
  EXPECT_GT((expected[0] - Cube(0.0, 0.001, alone->backend())->positions_t0()).norm(), 0.0);
  RecordProperty("bit_identical", bit_identical ? "true" : "false");
  std::printf("two concurrent CUDA sessions vs one alone: %s\n",
              bit_identical ? "bit-identical" : "within tolerance");
}

}  // namespace
}  // namespace contactsim
