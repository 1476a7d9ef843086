#include "core/dynamics/local_global/mesh_contact_obstacle.h"

#include <Eigen/Geometry>

namespace contactsim::core {
namespace mesh_contact {

Mat3 RotationAt(const Vec3& angular_velocity_radps, double time_s) {
  const double rate = angular_velocity_radps.norm();
  return Eigen::AngleAxisd(rate * time_s, angular_velocity_radps / rate).toRotationMatrix();
}

Points3 TurnedAbout(const Points3& points, const Mat3& turn, const Vec3& c, const Vec3& centre) {
  return ((points.rowwise() - c.transpose()) * turn.transpose()).rowwise() + centre.transpose();
}

}  // namespace mesh_contact

Points3 ObstacleVerticesAt(const TriangleMeshObstacle& obstacle, double time_s) {
  const Vec3 shift = time_s * obstacle.velocity_mps;
  if (obstacle.angular_velocity_radps.isZero(0.0)) {
    return obstacle.vertices_m.rowwise() + shift.transpose();
  }
  return mesh_contact::TurnedAbout(
      obstacle.vertices_m, mesh_contact::RotationAt(obstacle.angular_velocity_radps, time_s),
      obstacle.rotation_center_m, obstacle.rotation_center_m + shift);
}

}  // namespace contactsim::core
