// An articulated robot as the rigid_lcp step sees it (docs/robots.md): links as rigid polytope
// bodies with their inertials, joints as JointInput rows (joint_rows.h), visual meshes kept by
// path for a viewer. Made from URDF by urdf_loader.h; placed in the world at a joint
// configuration by PlaceRobot.
//
// Frames: a link's frame L is the URDF link frame; its body frame B (what the stepper moves) has
// L's orientation and its origin at the centre of mass (the inertial origin), the inertia rotated
// into it. A joint's frame is the child link's frame (URDF), given in the parent link's frame.
#pragma once

#include <Eigen/Geometry>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "core/common/eigen_types.h"
#include "core/dynamics/rigid_body.h"
#include "core/dynamics/rigid_lcp/joint_rows.h"
#include "core/dynamics/rigid_lcp/polytope_stepper.h"
#include "core/geometry/polytope_union.h"

namespace contactsim::core {

struct RobotVisual {
  std::string mesh_path;  // resolved path of a mesh file; empty for a primitive
  Vec3 scale = Vec3::Ones();
  Eigen::Isometry3d link_from_visual = Eigen::Isometry3d::Identity();
};

struct RobotLink {
  std::string name;
  double mass_kg = 0.0;
  Mat3 inertia_body_kg_m2 = Mat3::Zero();  // about the centre of mass, in B
  Vec3 center_of_mass_L = Vec3::Zero();    // B's origin in L
  std::optional<PolytopeUnion> collision;  // in B; none: the link does not collide
  std::vector<RobotVisual> visuals;
  bool is_static = false;  // the base of a fixed-base robot (the world holds it)
};

struct RobotJoint {
  std::string name;
  JointType type = JointType::kFixed;
  int parent = -1;  // link indices
  int child = -1;
  Eigen::Isometry3d parent_from_joint = Eigen::Isometry3d::Identity();  // in the parent's L
  Vec3 axis = Vec3::UnitX();                                            // unit, joint frame
  bool has_limits = false;
  double lower = 0.0, upper = 0.0;
  double effort_limit = 0.0;    // 0: unlimited
  double velocity_limit = 0.0;  // 0: unlimited; the motors drive no faster (joint_rows.h)
  double damping = 0.0, friction = 0.0;
  int mimic_joint = -1;
  double mimic_multiplier = 1.0, mimic_offset = 0.0;
};

struct RobotModel {
  std::string name;
  std::vector<RobotLink> links;
  std::vector<RobotJoint> joints;  // parents before children (a tree from the root)
  int root = 0;
  std::vector<std::string> notes;  // what the loader read leniently (docs/robots.md)
};

// The robot's bodies and joints at the joint positions q (one per joint, 0 for fixed ones; empty:
// all 0), its root link's frame at world_from_root, at rest. Bodies are appended in link order
// (body index = first_body + link index) and the joints' body indices point at them;
// shapes point into `model`, which must outlive the inputs. Without self_collision the links
// share the collision group first_body (they collide with other bodies only, as PyBullet's
// default; a URDF's links often overlap where they meet); with it, only the two links of a joint
// skip each other.
absl::Status PlaceRobot(const RobotModel& model, const Eigen::Isometry3d& world_from_root,
                        const std::vector<double>& q, int first_body,
                        std::vector<PolytopeBodyInput>* bodies, std::vector<JointInput>* joints,
                        bool self_collision = false);
// The same, moving: joint velocities qdot (one per joint; empty: at rest) give each link's twist,
// the root at rest.
absl::Status PlaceRobot(const RobotModel& model, const Eigen::Isometry3d& world_from_root,
                        const std::vector<double>& q, const std::vector<double>& qdot,
                        int first_body, std::vector<PolytopeBodyInput>* bodies,
                        std::vector<JointInput>* joints, bool self_collision = false);

}  // namespace contactsim::core
