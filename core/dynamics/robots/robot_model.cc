#include "core/dynamics/robots/robot_model.h"

#include "absl/strings/str_cat.h"

namespace contactsim::core {
namespace {

Eigen::Isometry3d Translation(const Vec3& p) {
  Eigen::Isometry3d x = Eigen::Isometry3d::Identity();
  x.translation() = p;
  return x;
}

// The joint's motion at coordinate q (in the joint frame).
Eigen::Isometry3d JointMotion(const RobotJoint& joint, double q) {
  Eigen::Isometry3d x = Eigen::Isometry3d::Identity();
  if (joint.type == JointType::kRevolute || joint.type == JointType::kContinuous) {
    x.linear() = Eigen::AngleAxisd(q, joint.axis).toRotationMatrix();
  } else if (joint.type == JointType::kPrismatic) {
    x.translation() = q * joint.axis;
  }
  return x;
}

}  // namespace

absl::Status PlaceRobot(const RobotModel& model, const Eigen::Isometry3d& world_from_root,
                        const std::vector<double>& q, int first_body,
                        std::vector<PolytopeBodyInput>* bodies, std::vector<JointInput>* joints,
                        bool self_collision) {
  return PlaceRobot(model, world_from_root, q, {}, first_body, bodies, joints, self_collision);
}

absl::Status PlaceRobot(const RobotModel& model, const Eigen::Isometry3d& world_from_root,
                        const std::vector<double>& q, const std::vector<double>& qdot,
                        int first_body, std::vector<PolytopeBodyInput>* bodies,
                        std::vector<JointInput>* joints, bool self_collision) {
  if (!q.empty() && q.size() != model.joints.size()) {
    return absl::InvalidArgumentError(
        absl::StrCat("q: ", q.size(), " positions for ", model.joints.size(), " joints"));
  }
  if (!qdot.empty() && qdot.size() != model.joints.size()) {
    return absl::InvalidArgumentError(
        absl::StrCat("qdot: ", qdot.size(), " velocities for ", model.joints.size(), " joints"));
  }
  const int n = static_cast<int>(model.links.size());
  std::vector<Eigen::Isometry3d> world_from_link(n, Eigen::Isometry3d::Identity());
  world_from_link[model.root] = world_from_root;
  for (size_t j = 0; j < model.joints.size(); ++j) {  // parents before children
    const RobotJoint& joint = model.joints[j];
    world_from_link[joint.child] = world_from_link[joint.parent] * joint.parent_from_joint *
                                   JointMotion(joint, q.empty() ? 0.0 : q[j]);
  }
  // Twists from the root (at rest) outwards: the child's centre of mass moves with the parent's
  // rigid motion plus the joint's rate about (or along) its axis through the joint origin.
  std::vector<Vec3> v(n, Vec3::Zero()), w(n, Vec3::Zero());
  auto com = [&](int l) { return world_from_link[l] * model.links[l].center_of_mass_L; };
  for (size_t j = 0; j < model.joints.size() && !qdot.empty(); ++j) {
    const RobotJoint& joint = model.joints[j];
    const int p = joint.parent, c = joint.child;
    const Eigen::Isometry3d world_from_joint = world_from_link[p] * joint.parent_from_joint;
    const Vec3 axis = world_from_joint.linear() * joint.axis;
    w[c] = w[p];
    v[c] = v[p] + w[p].cross(com(c) - com(p));
    if (joint.type == JointType::kRevolute || joint.type == JointType::kContinuous) {
      w[c] += qdot[j] * axis;
      v[c] += (qdot[j] * axis).cross(com(c) - world_from_joint.translation());
    } else if (joint.type == JointType::kPrismatic) {
      v[c] += qdot[j] * axis;
    }
  }
  for (int l = 0; l < n; ++l) {
    const RobotLink& link = model.links[l];
    const Eigen::Isometry3d world_from_body =
        world_from_link[l] * Translation(link.center_of_mass_L);
    PolytopeBodyInput body;
    body.shape = link.collision ? &*link.collision : nullptr;
    body.kind = link.is_static ? RigidBodyKind::kStatic : RigidBodyKind::kDynamic;
    body.mass_kg = link.mass_kg;
    body.inertia_body_kg_m2 = link.inertia_body_kg_m2;
    body.state.p_WB_m = world_from_body.translation();
    body.state.q_WB = Eigen::Quaterniond(world_from_body.rotation()).normalized();
    if (!link.is_static) {
      body.state.v_WB_m_per_s = v[l];
      body.state.w_WB_rad_per_s = w[l];
    }
    body.collides = link.collision.has_value();
    body.collision_group = self_collision ? -1 : first_body;
    bodies->push_back(body);
  }
  for (const RobotJoint& rj : model.joints) {
    JointInput j;
    j.type = rj.type;
    j.parent = first_body + rj.parent;
    j.child = first_body + rj.child;
    j.parent_from_joint =
        Translation(-model.links[rj.parent].center_of_mass_L) * rj.parent_from_joint;
    j.child_from_joint = Translation(-model.links[rj.child].center_of_mass_L);
    j.axis_J = rj.axis;
    j.has_limits = rj.has_limits;
    j.lower = rj.lower;
    j.upper = rj.upper;
    j.damping = rj.damping;
    j.friction = rj.friction;
    if (rj.effort_limit > 0.0) j.effort_limit = rj.effort_limit;
    if (rj.velocity_limit > 0.0) j.velocity_limit = rj.velocity_limit;
    j.mimic_joint = rj.mimic_joint;
    j.mimic_multiplier = rj.mimic_multiplier;
    j.mimic_offset = rj.mimic_offset;
    joints->push_back(j);
  }
  return absl::OkStatus();
}

}  // namespace contactsim::core
