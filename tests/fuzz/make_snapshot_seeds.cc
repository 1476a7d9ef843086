// Writes the seed corpus of snapshot_fuzzer: the payloads of real worlds' snapshots (every penalty
// scene at its coarsest resolution after a few steps, mid-contact; a local_global world with two
// hyperelastic cubes on a slab; a rigid_lcp world with a robot). Generated at build time rather
// than committed, so the seeds follow the format. Usage: make_snapshot_seeds OUT_DIR
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>

#include "core/common/status_macros.h"
#include "core/dynamics/local_global/hyperelastic_body.h"
#include "core/dynamics/rigid_body.h"
#include "core/geometry/generators.h"
#include "core/linalg/cpu_backend.h"
#include "core/sim/serialization/world_serialization.h"
#include "scenes/penalty/penalty_scenes.h"
#include "tests/fuzz/snapshot_framing.h"

namespace {

using namespace contactsim::core;

bool WriteSeed(const std::filesystem::path& dir, const std::string& name, const World& world) {
  const absl::StatusOr<std::string> blob = SerializeWorld(world);
  if (!blob.ok()) {
    std::fprintf(stderr, "%s: %s\n", name.c_str(), blob.status().ToString().c_str());
    return false;
  }
  std::ofstream(dir / name, std::ios::binary) << contactsim::fuzz::PayloadOf(*blob);
  return true;
}

absl::StatusOr<World> LocalGlobalWorld() {
  WorldSettings settings;
  settings.pipeline = PipelineKind::kLocalGlobal;
  settings.dt_s = 1e-2;
  absl::StatusOr<World> world = World::Create(settings);
  if (!world.ok()) return world.status();
  absl::StatusOr<TriangleMesh> box = MakeBox(Vec3(0.5, 0.5, 0.05));
  if (!box.ok()) return box.status();
  Points3 slab_vertices = box->vertices();
  slab_vertices.col(2).array() -= 0.05;  // top face at z = 0
  absl::StatusOr<TriangleMesh> slab = TriangleMesh::Create(slab_vertices, box->faces());
  if (!slab.ok()) return slab.status();
  absl::StatusOr<RigidBody> floor =
      RigidBody::CreateWithoutMass(*std::move(slab), RigidBodyKind::kStatic);
  if (!floor.ok()) return floor.status();
  if (auto id = world->AddBody(std::make_unique<RigidBody>(*std::move(floor))); !id.ok()) {
    return id.status();
  }
  for (const double x : {-0.06, 0.06}) {
    absl::StatusOr<TetMesh> box = MakeTetBox(Vec3(0.05, 0.05, 0.05), 2, 2, 2);
    if (!box.ok()) return box.status();
    Points3 vertices = box->vertices();
    vertices.col(0).array() += x;
    vertices.col(2).array() += 0.06;
    absl::StatusOr<TetMesh> placed = TetMesh::Create(vertices, box->tets());
    if (!placed.ok()) return placed.status();
    HyperelasticBodyParams params;
    params.material = {1.0e5, 0.3, 1000.0};
    params.time_step_s = settings.dt_s;
    auto body = HyperelasticBody::Create(*std::move(placed), params, world->backend());
    if (!body.ok()) return body.status();
    if (auto id = world->AddBody(*std::move(body)); !id.ok()) return id.status();
  }
  if (absl::Status stepped = world->Step(3); !stepped.ok()) return stepped;
  return world;
}

// A rigid_lcp world with a two-link robot (a box base and a cylinder on a revolute joint under a
// position motor), stepped mid-swing: the seed of the robots section (RBOT).
absl::StatusOr<World> RobotWorld() {
  WorldSettings settings;
  settings.pipeline = PipelineKind::kRigidLcp;
  settings.dt_s = 1e-3;
  absl::StatusOr<World> world = World::Create(settings);
  if (!world.ok()) return world.status();
  RobotSpec spec;
  spec.name = "pendulum";
  spec.cylinder_sides = 6;
  spec.urdf = R"(<robot name="pendulum">
  <link name="base"><collision><geometry><box size="0.1 0.1 0.1"/></geometry></collision></link>
  <link name="rod">
    <inertial><origin xyz="0 0 -0.1"/><mass value="1"/>
      <inertia ixx="0.004" iyy="0.004" izz="0.001" ixy="0" ixz="0" iyz="0"/></inertial>
    <collision><origin xyz="0 0 -0.1"/>
      <geometry><cylinder radius="0.02" length="0.2"/></geometry></collision>
  </link>
  <joint name="hinge" type="revolute"><parent link="base"/><child link="rod"/>
    <origin xyz="0 0 -0.06"/><axis xyz="1 0 0"/>
    <limit lower="-1" upper="1" effort="10" velocity="3"/></joint>
</robot>)";
  spec.world_from_root.translation() = Vec3(0, 0, 1);
  absl::StatusOr<int32_t> id = world->AddRobot(spec);
  if (!id.ok()) return id.status();
  RETURN_IF_ERROR(world->SetJointMotor(*id, 0, {JointMotorMode::kPosition, 0.5, 0, 0, 100, 2}));
  RETURN_IF_ERROR(world->Step(5));
  return world;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s OUT_DIR\n", argv[0]);
    return 1;
  }
  const std::filesystem::path dir = argv[1];
  std::filesystem::create_directories(dir);
  bool ok = true;
  for (const std::string& name : PenaltySceneNames()) {
    PenaltySceneOptions options;
    options.resolution = 0.05;  // the coarsest meshes: small seeds, every section present
    options.count = 2;
    absl::StatusOr<PenaltyScene> scene = MakePenaltyScene(name, options);
    if (!scene.ok()) {
      std::fprintf(stderr, "%s: %s\n", name.c_str(), scene.status().ToString().c_str());
      ok = false;
      continue;
    }
    (void)scene->world.Step(20);
    ok = WriteSeed(dir, "penalty_" + name, scene->world) && ok;
  }
  absl::StatusOr<World> local_global = LocalGlobalWorld();
  if (!local_global.ok()) {
    std::fprintf(stderr, "local_global: %s\n", local_global.status().ToString().c_str());
    return 1;
  }
  ok = WriteSeed(dir, "local_global_cubes", *local_global) && ok;
  absl::StatusOr<World> robot = RobotWorld();
  if (!robot.ok()) {
    std::fprintf(stderr, "robot: %s\n", robot.status().ToString().c_str());
    return 1;
  }
  ok = WriteSeed(dir, "rigid_lcp_robot", *robot) && ok;
  return ok ? 0 : 1;
}
