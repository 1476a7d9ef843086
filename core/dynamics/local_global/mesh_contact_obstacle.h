// A triangle-mesh obstacle of the local-global contact (mesh_contact.h): static, or kinematic
// (rigidly translating at a constant velocity v [m/s] and rotating at a constant angular
// velocity w [rad/s] about an axis through c, the centre at time 0 carried along by v), and
// where it is at a time t: c + R(w t)(x0 - c) + v t, R(w t) the turn by |w| t about w / |w|.
#pragma once

#include "core/common/eigen_types.h"

namespace contactsim::core {

struct TriangleMeshObstacle {
  Points3 vertices_m;  // positions at time 0 [m]
  IndexTriples faces;  // counter-clockwise seen from the free side: outward (x1-x0) x (x2-x0)
  Vec3 velocity_mps = Vec3::Zero();   // kinematic translation (0: static)
  double friction_coefficient = 0.0;  // Coulomb mu >= 0, isotropic
  // Kinematic rotation (0: none): angular velocity w [rad/s] (axis w / |w|, right-handed, rate
  // |w|) about the point rotation_center_m at time 0 [m], which moves with velocity_mps.
  Vec3 angular_velocity_radps = Vec3::Zero();
  Vec3 rotation_center_m = Vec3::Zero();
  // Codimensional (zero thickness, both sides free: a knife blade, a sheet): every normal is
  // oriented towards the side the body primitive is on at the step start (mesh_contact.h),
  // boundary edges and boundary vertices are sharp features, and the face winding does not
  // matter.
  bool two_sided = false;
  // Two-sided only: the sheet is a slab of this thickness [m] around its triangles (a blade's
  // real thickness), so every contact keeps the body thickness_m / 2 from them. With 0 a point
  // that reaches the sheet's plane has no side left to be pushed back to; the solver's
  // penetration error must stay below thickness_m / 2 (docs/local_global.md, "Cloth on Knives").
  double thickness_m = 0.0;
};

// The obstacle's vertices at time t [m]: c + R(w t)(x0 - c) + v t (x0 + v t without rotation).
Points3 ObstacleVerticesAt(const TriangleMeshObstacle& obstacle, double time_s);

namespace mesh_contact {

// The turn by |w| t about w / |w| (w != 0).
Mat3 RotationAt(const Vec3& angular_velocity_radps, double time_s);

// Points turned by `turn` about c, then moved so that c lands on `centre` [m].
Points3 TurnedAbout(const Points3& points, const Mat3& turn, const Vec3& c, const Vec3& centre);

}  // namespace mesh_contact
}  // namespace contactsim::core
