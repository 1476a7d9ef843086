#include "scenes/penalty/scene_building.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <utility>

#include "absl/strings/str_format.h"
#include "core/common/status_macros.h"
#include "core/dynamics/rigid_body.h"
#include "core/geometry/generators.h"

namespace contactsim::core::scene_internal {

absl::Status CheckOptions(const PenaltySceneOptions& options) {
  if (!(options.resolution > 0.0 && options.resolution <= 1.0)) {
    return absl::InvalidArgumentError(
        absl::StrFormat("resolution: must be in (0, 1], got %g", options.resolution));
  }
  if (!(options.dt_s >= 0.0) || !std::isfinite(options.dt_s)) {
    return absl::InvalidArgumentError(
        absl::StrFormat("dt_s: must be finite and >= 0 (0: the scene's), got %g", options.dt_s));
  }
  if (!(options.stiffness_n_per_m >= 0.0) || !std::isfinite(options.stiffness_n_per_m)) {
    return absl::InvalidArgumentError(
        absl::StrFormat("stiffness_n_per_m: must be finite and >= 0 (0: the scene's), got %g",
                        options.stiffness_n_per_m));
  }
  return absl::OkStatus();
}

int Scaled(int full, double resolution, int minimum) {
  return std::max(minimum, static_cast<int>(std::lround(full * resolution)));
}

absl::StatusOr<World> MakeWorld(const PenaltySceneOptions& options, double dt_s,
                                double stiffness_n_per_m, const Vec3& gravity_m_per_s2,
                                bool energy_check) {
  WorldSettings settings;
  settings.dt_s = options.dt_s > 0.0 ? options.dt_s : dt_s;
  settings.gravity_m_per_s2 = gravity_m_per_s2;
  settings.stiffness_n_per_m =
      options.stiffness_n_per_m > 0.0 ? options.stiffness_n_per_m : stiffness_n_per_m;
  settings.contact_model = options.contact_model;
  if (!energy_check) {
    settings.divergence.energy_growth_factor = std::numeric_limits<double>::infinity();
  }
  return World::Create(settings);
}

BodyOptions NamedOptions(const std::string& name) {
  BodyOptions options;
  options.name = name;
  return options;
}

PenaltyScene EmptyScene(const char* name, World world) {
  return PenaltyScene{.name = name,
                      .world = std::move(world),
                      .num_triangles = 0,
                      .force_bodies = {},
                      .force_against = {},
                      .description = {},
                      .check_containment = {}};
}

absl::StatusOr<int32_t> AddRigid(World& world, TriangleMesh mesh, double density, const Vec3& p_WB,
                                 const Eigen::Quaterniond& q_WB, const std::string& name,
                                 int* triangles) {
  *triangles += mesh.num_faces();
  ASSIGN_OR_RETURN(RigidBody body, RigidBody::Create(std::move(mesh), density));
  RETURN_IF_ERROR(body.SetPose(p_WB, q_WB));
  return world.AddBody(std::make_unique<RigidBody>(std::move(body)), NamedOptions(name));
}

absl::StatusOr<int32_t> AddStatic(World& world, const TriangleMesh& mesh, const Mat3& rotation,
                                  const Vec3& center, const std::string& name, int* triangles) {
  *triangles += mesh.num_faces();
  ASSIGN_OR_RETURN(
      TriangleMesh moved,
      TriangleMesh::Create(Transformed(mesh.vertices(), rotation, center), mesh.faces()));
  ASSIGN_OR_RETURN(RigidBody body,
                   RigidBody::CreateWithoutMass(std::move(moved), RigidBodyKind::kStatic));
  return world.AddBody(std::make_unique<RigidBody>(std::move(body)), NamedOptions(name));
}

}  // namespace contactsim::core::scene_internal
