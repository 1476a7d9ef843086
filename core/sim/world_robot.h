// Articulated robots in a World (docs/robots.md): a robot is loaded from URDF text plus the mesh
// files it names (sent as bytes, so a service never reads its own disk for a client), its links
// become rigid bodies of the World (listed, stepped, reported and snapshotted like any body) and
// its joints the rigid_lcp pipeline's joint rows. Only the rigid_lcp pipeline steps robots.
//
// A link body's mesh is its collision polytopes (a union when the URDF gives several elements)
// triangulated in the body frame; a link without collision geometry is a 1 cm marker cube that
// does not collide. The body's mass and inertia are the URDF inertial's; the root link of a
// fixed-base robot is a static body.
#pragma once

#include <Eigen/Geometry>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "core/dynamics/rigid_lcp/joint_rows.h"
#include "core/dynamics/robots/robot_model.h"
#include "core/geometry/triangle_mesh.h"

namespace contactsim::core {

// Everything a robot is rebuilt from (a snapshot stores it).
struct RobotSpec {
  std::string name;  // optional
  std::string urdf;  // the URDF text
  // Mesh files by the path the URDF writes (e.g. "package://arm/meshes/l1.stl") -> bytes.
  std::map<std::string, std::string> mesh_files;
  bool fixed_base = true;
  int cylinder_sides = 16;   // in [kMinCylinderSides, kMaxCylinderSides] (urdf_loader.h)
  int sphere_segments = 12;  // in [kMinSphereSegments, kMaxSphereSegments]
  Eigen::Isometry3d world_from_root = Eigen::Isometry3d::Identity();
  std::vector<double> initial_positions;  // one per joint (0 for fixed ones), or empty: all 0
};

// The resolutions a robot's spec may ask for: they bound its polytopes' sizes (a snapshot or a
// client may carry any number).
inline constexpr int kMinCylinderSides = 3, kMaxCylinderSides = 256;
inline constexpr int kMinSphereSegments = 4, kMaxSphereSegments = 64;

// Limits on what one robot may bring (a service boundary: checked before anything is built).
struct RobotLimits {
  size_t max_urdf_bytes = size_t{1} << 20;   // 1 MiB of URDF text
  size_t max_mesh_files = 256;               // distinct mesh files
  size_t max_mesh_bytes = size_t{64} << 20;  // all mesh files together
  size_t max_links = 256;
};

struct WorldRobot {
  int32_t id = 0;
  RobotSpec spec;
  std::shared_ptr<const RobotModel> model;
  std::vector<int32_t> link_body_ids;  // per link of model->links
  // Per joint of model->joints: the joint's rows with body indices relative to the first link
  // (PlaceRobot with first_body 0), the motor command in force (kept until replaced), and what
  // the joint did in the last step (position and velocity at its end, effort, reaction wrench).
  std::vector<JointInput> joints;
  std::vector<JointStepResult> last_joint_states;
  // The motors' work in the last step, sum of effort x h x the joint's end-of-step rate [J]:
  // energy fed in from outside the passive system, which the World's divergence check allows.
  double motor_work_last_step_j = 0.0;
};

// The model from the spec (LoadUrdf with the spec's mesh bytes), after the limits; errors name
// the field ("urdf: ...", "mesh_files: ...") or, from the loader, the link or joint and line.
absl::StatusOr<std::shared_ptr<const RobotModel>> LoadRobotModel(const RobotSpec& spec,
                                                                 const RobotLimits& limits = {});

// A link's body mesh in its body frame (see the top of this file).
absl::StatusOr<TriangleMesh> LinkMesh(const RobotLink& link);

// The index of the joint named `name`, or NotFound naming it and the robot.
absl::StatusOr<int> RobotJointIndex(const WorldRobot& robot, std::string_view name);

}  // namespace contactsim::core
