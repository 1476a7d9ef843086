// Helpers shared by the penalty-scene builders (penalty_scenes.cc, deformable_scenes.cc): option
// checks, the World's settings, and adding bodies while counting their surface triangles.
#pragma once

#include <Eigen/Geometry>
#include <cstdint>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "core/common/eigen_types.h"
#include "core/geometry/triangle_mesh.h"
#include "core/sim/world.h"
#include "scenes/penalty/penalty_scenes.h"

namespace contactsim::core::scene_internal {

// InvalidArgument unless resolution is in (0, 1].
absl::Status CheckOptions(const PenaltySceneOptions& options);

// round(full * resolution), at least `minimum`.
int Scaled(int full, double resolution, int minimum);

// A World with the options' contact model, dt, and k (options.stiffness_n_per_m when > 0,
// otherwise `stiffness_n_per_m`); energy_check false turns the blow-up check off (a kinematic
// body does work on the others, which the check would count as gain).
absl::StatusOr<World> MakeWorld(const PenaltySceneOptions& options, double dt_s,
                                double stiffness_n_per_m,
                                const Vec3& gravity_m_per_s2 = Vec3(0.0, 0.0, -9.81),
                                bool energy_check = true);

BodyOptions NamedOptions(const std::string& name);

PenaltyScene EmptyScene(const char* name, World world);

// A dynamic rigid body from `mesh` at p_WB with rotation q_WB (mesh centred at its own origin).
absl::StatusOr<int32_t> AddRigid(World& world, TriangleMesh mesh, double density, const Vec3& p_WB,
                                 const Eigen::Quaterniond& q_WB, const std::string& name,
                                 int* triangles);

// A static body: `mesh` rotated by R and moved to `center`.
absl::StatusOr<int32_t> AddStatic(World& world, const TriangleMesh& mesh, const Mat3& rotation,
                                  const Vec3& center, const std::string& name, int* triangles);

}  // namespace contactsim::core::scene_internal
