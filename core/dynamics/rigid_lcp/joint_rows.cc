#include "core/dynamics/rigid_lcp/joint_rows.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "absl/strings/str_cat.h"

namespace contactsim::core {
namespace {

struct JointFrames {
  Mat3 rotation_p = Mat3::Identity();  // J_p in W
  Vec3 origin_p = Vec3::Zero();
  Mat3 rotation_c = Mat3::Identity();  // J_c in W
  Vec3 origin_c = Vec3::Zero();
  Vec3 offset_p = Vec3::Zero();  // J_p origin - parent centre of mass (0 for the world)
  Vec3 offset_c = Vec3::Zero();  // J_c origin - child centre of mass
  Vec3 axis_W = Vec3::UnitZ();   // the axis of J_p in W
};

JointFrames Frames(const JointInput& joint, std::span<const JointBodyView> bodies) {
  JointFrames f;
  Mat3 rp = Mat3::Identity();
  Vec3 xp = Vec3::Zero();
  if (joint.parent >= 0) {
    rp = bodies[joint.parent].rotation;
    xp = bodies[joint.parent].position;
  }
  f.rotation_p = rp * joint.parent_from_joint.linear();
  f.origin_p = xp + rp * joint.parent_from_joint.translation();
  f.offset_p = f.origin_p - xp;
  const JointBodyView& c = bodies[joint.child];
  f.rotation_c = c.rotation * joint.child_from_joint.linear();
  f.origin_c = c.position + c.rotation * joint.child_from_joint.translation();
  f.offset_c = f.origin_c - c.position;
  f.axis_W = f.rotation_p * joint.axis_J;
  return f;
}

Vec6 Angular(const Vec3& t) {
  Vec6 g;
  g << Vec3::Zero(), t;
  return g;
}

double WrapAngle(double a) {
  a = std::remainder(a, 2.0 * M_PI);
  return a <= -M_PI ? a + 2.0 * M_PI : a;
}

bool Rotational(JointType type) {
  return type == JointType::kRevolute || type == JointType::kContinuous;
}

// Two unit directions completing the unit a to a right-handed basis (deterministic).
void Perpendiculars(const Vec3& a, Vec3* t1, Vec3* t2) {
  int axis = 0;
  a.cwiseAbs().minCoeff(&axis);
  *t1 = (Vec3::Unit(axis) - a[axis] * a).normalized();
  *t2 = a.cross(*t1);
}

// The generalized directions of the joint axis for child and parent.
void AxisJacobians(const JointInput& joint, const JointFrames& f, Vec6* child, Vec6* parent) {
  if (joint.type == JointType::kPrismatic) {
    *child = PushAtOffset(f.axis_W, f.offset_c);
    *parent = -PushAtOffset(f.axis_W, f.offset_p);
  } else {
    *child = Angular(f.axis_W);
    *parent = -Angular(f.axis_W);
  }
}

}  // namespace

absl::Status ValidateJoints(std::span<const JointInput> joints, int num_bodies) {
  for (size_t i = 0; i < joints.size(); ++i) {
    const JointInput& j = joints[i];
    const std::string name = absl::StrCat("joints[", i, "]");
    if (j.child < 0 || j.child >= num_bodies) {
      return absl::InvalidArgumentError(
          absl::StrCat(name, ".child: body ", j.child, " out of range"));
    }
    if (j.parent < -1 || j.parent >= num_bodies || j.parent == j.child) {
      return absl::InvalidArgumentError(
          absl::StrCat(name, ".parent: body ", j.parent, " out of range or the child"));
    }
    if (!j.parent_from_joint.matrix().allFinite() || !j.child_from_joint.matrix().allFinite()) {
      return absl::InvalidArgumentError(name + ": non-finite joint frame");
    }
    if (!(j.axis_J.allFinite() && std::abs(j.axis_J.norm() - 1.0) < 1e-9)) {
      return absl::InvalidArgumentError(name + ".axis_J: must be a unit vector");
    }
    if (j.has_limits && !(std::isfinite(j.lower) && std::isfinite(j.upper) && j.lower <= j.upper)) {
      return absl::InvalidArgumentError(absl::StrCat(
          name, ": limits must be finite with lower <= upper, got [", j.lower, ", ", j.upper, "]"));
    }
    if (!(std::isfinite(j.damping) && j.damping >= 0.0) ||
        !(std::isfinite(j.friction) && j.friction >= 0.0)) {
      return absl::InvalidArgumentError(name + ": damping and friction must be finite and >= 0");
    }
    if (!(j.velocity_limit > 0.0)) {
      return absl::InvalidArgumentError(name + ".velocity_limit: must be > 0");
    }
    if (!(j.effort_limit > 0.0)) {
      return absl::InvalidArgumentError(name + ".effort_limit: must be > 0");
    }
    if (!(j.motor.max_effort > 0.0)) {
      return absl::InvalidArgumentError(name + ".motor.max_effort: must be > 0");
    }
    if (j.mimic_joint != -1) {
      if (j.mimic_joint < 0 || j.mimic_joint >= static_cast<int>(joints.size()) ||
          j.mimic_joint == static_cast<int>(i)) {
        return absl::InvalidArgumentError(
            absl::StrCat(name, ".mimic_joint: ", j.mimic_joint, " is not another joint"));
      }
      const JointInput& leader = joints[j.mimic_joint];
      if (leader.mimic_joint != -1 || j.type == JointType::kFixed ||
          leader.type == JointType::kFixed) {
        return absl::InvalidArgumentError(absl::StrCat(
            name, ".mimic_joint: the leader must be a moving joint that mimics no other"));
      }
      std::vector<int> touched = {j.parent, j.child, leader.parent, leader.child};
      std::sort(touched.begin(), touched.end());
      touched.erase(std::unique(touched.begin(), touched.end()), touched.end());
      std::erase(touched, -1);
      if (touched.size() > 3 || !std::isfinite(j.mimic_multiplier) ||
          !std::isfinite(j.mimic_offset)) {
        return absl::InvalidArgumentError(absl::StrCat(
            name,
            ".mimic_joint: follower and leader must share a body (3 bodies at most), with "
            "a finite multiplier and offset"));
      }
    }
    const JointMotor& m = j.motor;
    if (!(std::isfinite(m.target_position) && std::isfinite(m.target_velocity) &&
          std::isfinite(m.torque) && std::isfinite(m.stiffness) && std::isfinite(m.damping) &&
          m.stiffness >= 0.0 && m.damping >= 0.0)) {
      return absl::InvalidArgumentError(
          name + ".motor: targets must be finite, stiffness and damping finite and >= 0");
    }
  }
  return absl::OkStatus();
}

JointCoordinate ComputeJointCoordinate(const JointInput& joint,
                                       std::span<const JointBodyView> bodies) {
  JointCoordinate out;
  if (joint.type == JointType::kFixed) return out;
  const JointFrames f = Frames(joint, bodies);
  const Vec6 vp = joint.parent >= 0 ? bodies[joint.parent].velocity : Vec6::Zero();
  const Vec6& vc = bodies[joint.child].velocity;
  Vec6 gc, gp;
  AxisJacobians(joint, f, &gc, &gp);
  out.velocity = gc.dot(vc) + gp.dot(vp);
  if (joint.type == JointType::kPrismatic) {
    out.position = f.axis_W.dot(f.origin_c - f.origin_p);
  } else {
    const Eigen::Quaterniond relative(f.rotation_p.transpose() * f.rotation_c);
    out.position = WrapAngle(2.0 * std::atan2(relative.vec().dot(joint.axis_J), relative.w()));
  }
  return out;
}

std::vector<JointRowSet> BuildJointRows(std::span<const JointInput> joints,
                                        std::span<const JointBodyView> bodies, double h) {
  std::vector<JointRowSet> out(joints.size());
  for (size_t i = 0; i < joints.size(); ++i) {
    const JointInput& joint = joints[i];
    JointRowSet& set = out[i];
    const bool parent_dynamic = joint.parent >= 0 && bodies[joint.parent].dynamic;
    const bool child_dynamic = bodies[joint.child].dynamic;
    set.parent = parent_dynamic ? joint.parent : -1;
    set.child = child_dynamic ? joint.child : -1;
    if (set.parent >= 0) set.joined.push_back(set.parent);
    if (set.child >= 0) set.joined.push_back(set.child);
    const Vec6 vp = joint.parent >= 0 ? bodies[joint.parent].velocity : Vec6::Zero();
    const Vec6& vc = bodies[joint.child].velocity;
    // G_c^T nu_c + G_p^T nu_p + bias, a non-dynamic side's known velocity folded into the bias.
    auto row = [&](const Vec6& gc, const Vec6& gp, double bias) {
      SpatialLcpRow r;
      r.bias = bias;
      if (parent_dynamic) {
        r.body_a = joint.parent;
        r.jacobian_a = gp;
      } else {
        r.bias += gp.dot(vp);
      }
      if (child_dynamic) {
        r.body_b = joint.child;
        r.jacobian_b = gc;
      } else {
        r.bias += gc.dot(vc);
      }
      return r;
    };
    auto bilateral = [&](const Vec6& gc, const Vec6& gp, double bias, double compliance) {
      set.bilateral.push_back({row(gc, gp, bias), compliance, 0.0});
      set.child_jacobians_bilateral.push_back(gc);
    };
    const JointFrames f = Frames(joint, bodies);
    const Vec3 a = f.axis_W;
    // Locked translations at the joint origin (all three, or the two across a prismatic axis).
    const Vec3 position_error = f.origin_c - f.origin_p;
    std::vector<Vec3> linear;
    if (joint.type == JointType::kPrismatic) {
      Vec3 t1, t2;
      Perpendiculars(a, &t1, &t2);
      linear = {t1, t2};
    } else {
      linear = {Vec3::UnitX(), Vec3::UnitY(), Vec3::UnitZ()};
    }
    for (const Vec3& d : linear) {
      bilateral(PushAtOffset(d, f.offset_c), -PushAtOffset(d, f.offset_p),
                d.dot(position_error) / h, 0.0);
    }
    // Locked rotations: the rotation vector of J_c relative to J_p (all three), or the angle
    // between the axes as seen by each body (the two across a rotational axis).
    if (Rotational(joint.type)) {
      const Vec3 tilt = a.cross(f.rotation_c * joint.axis_J);
      Vec3 t1, t2;
      Perpendiculars(a, &t1, &t2);
      for (const Vec3& t : {t1, t2}) bilateral(Angular(t), -Angular(t), t.dot(tilt) / h, 0.0);
    } else {
      const Eigen::AngleAxisd error(f.rotation_c * f.rotation_p.transpose());
      const Vec3 rotation_error = error.angle() * error.axis();
      for (int k = 0; k < 3; ++k) {
        const Vec3 t = Vec3::Unit(k);
        bilateral(Angular(t), -Angular(t), t.dot(rotation_error) / h, 0.0);
      }
    }
    set.locked = static_cast<int>(set.bilateral.size());
    if (joint.type == JointType::kFixed) continue;

    Vec6 gc, gp;
    AxisJacobians(joint, f, &gc, &gp);
    const JointCoordinate q = ComputeJointCoordinate(joint, bodies);
    if (joint.damping > 0.0) bilateral(gc, gp, 0.0, 1.0 / (h * joint.damping));
    // Continuous joints ignore limits (URDFs give them some: shared/robots/README.md).
    // A limit's row only near it: within two steps' motion at the current speed plus
    // kLimitMargin (a joint gets there only by an acceleration of over kLimitMargin / h^2 in
    // one step, an impact). Far rows would be slack anyway, and the rows of both limits at once
    // (G and -G) make the LCP degenerate for Lemke.
    constexpr double kLimitMargin = 5e-3;  // [rad or m]
    const double reach = 2.0 * h * std::abs(q.velocity) + kLimitMargin;
    if (joint.has_limits && joint.type != JointType::kContinuous) {
      if (q.position - joint.lower <= reach) {
        set.limits.push_back(row(gc, gp, (q.position - joint.lower) / h));
        set.limit_signs.push_back(1.0);
        set.child_jacobians_limits.push_back(gc);
      }
      if (joint.upper - q.position <= reach) {
        set.limits.push_back(row(-gc, -gp, (joint.upper - q.position) / h));
        set.limit_signs.push_back(-1.0);
        set.child_jacobians_limits.push_back(-gc);
      }
    }
    if (joint.mimic_joint >= 0) {
      // Sum the follower's and -m times the leader's axis Jacobians per body.
      const JointInput& leader = joints[joint.mimic_joint];
      Vec6 lc, lp;
      AxisJacobians(leader, Frames(leader, bodies), &lc, &lp);
      const double mult = joint.mimic_multiplier;
      const std::pair<int, Vec6> terms[4] = {{joint.child, gc},
                                             {joint.parent, gp},
                                             {leader.child, -mult * lc},
                                             {leader.parent, -mult * lp}};
      const JointCoordinate ql = ComputeJointCoordinate(leader, bodies);
      SpatialLcpRow r;
      r.bias = (q.position - mult * ql.position - joint.mimic_offset) / h;
      int* slot_body[3] = {&r.body_a, &r.body_b, &r.body_c};
      Vec6* slot_jacobian[3] = {&r.jacobian_a, &r.jacobian_b, &r.jacobian_c};
      for (const auto& [b, g] : terms) {
        if (b < 0) continue;
        if (!bodies[b].dynamic) {
          r.bias += g.dot(bodies[b].velocity);
          continue;
        }
        int slot = 0;
        while (*slot_body[slot] >= 0 && *slot_body[slot] != b) ++slot;  // <= 3 bodies (validated)
        *slot_body[slot] = b;
        *slot_jacobian[slot] += g;
        if (std::find(set.joined.begin(), set.joined.end(), b) == set.joined.end()) {
          set.joined.push_back(b);
        }
      }
      set.bilateral.push_back({r, 0.0, 0.0});
      set.child_jacobians_bilateral.push_back(gc);
      ++set.locked;  // a constraint, not the motor
    }
    const JointMotor& m = joint.mimic_joint >= 0 ? JointMotor{} : joint.motor;
    const double bound = MotorEffortLimit(joint) * h;
    auto motor_row = [&](double target, double compliance) {
      if (std::isinf(bound)) {
        bilateral(gc, gp, -target, compliance);
      } else {
        set.bounded.push_back({row(gc, gp, -target), compliance, bound});
        set.child_jacobians_bounded.push_back(gc);
        ++set.motor_rows;
      }
    };
    if (m.mode == JointMotorMode::kPosition) {
      const double k = m.stiffness * h + m.damping;
      if (k > 0.0) {
        double error = m.target_position - q.position;
        if (joint.type == JointType::kContinuous) error = WrapAngle(error);
        const double v = (m.stiffness * error + m.damping * m.target_velocity) / k;
        motor_row(std::clamp(v, -joint.velocity_limit, joint.velocity_limit), 1.0 / (h * k));
      }
    } else if (m.mode == JointMotorMode::kVelocity) {
      motor_row(std::clamp(m.target_velocity, -joint.velocity_limit, joint.velocity_limit), 0.0);
    }
    if (joint.friction > 0.0 && m.mode != JointMotorMode::kVelocity) {
      set.bounded.push_back({row(gc, gp, 0.0), 0.0, joint.friction * h});
      set.child_jacobians_bounded.push_back(gc);
    }
  }
  return out;
}

double MotorEffortLimit(const JointInput& joint) {
  return std::min(joint.effort_limit, joint.motor.max_effort);
}

double TorqueMotorEffort(const JointInput& joint, std::span<const JointBodyView> bodies) {
  const double limit = MotorEffortLimit(joint);
  const double effort = std::clamp(joint.motor.torque, -limit, limit);
  if (std::isinf(joint.velocity_limit)) return effort;
  const double qdot = ComputeJointCoordinate(joint, bodies).velocity;
  return effort * qdot >= 0.0 && std::abs(qdot) >= joint.velocity_limit ? 0.0 : effort;
}

void AddJointMotorWrenches(std::span<const JointInput> joints,
                           std::span<const JointBodyView> bodies, std::vector<Vec6>* wrenches) {
  for (const JointInput& joint : joints) {
    if (joint.motor.mode != JointMotorMode::kTorque || joint.type == JointType::kFixed ||
        joint.mimic_joint >= 0) {
      continue;
    }
    const double effort = TorqueMotorEffort(joint, bodies);
    Vec6 gc, gp;
    AxisJacobians(joint, Frames(joint, bodies), &gc, &gp);
    (*wrenches)[joint.child] += effort * gc;
    if (joint.parent >= 0) (*wrenches)[joint.parent] += effort * gp;
  }
}

JointStepResult JointResultFromImpulses(const JointInput& joint, const JointRowSet& rows,
                                        std::span<const double> bilateral,
                                        std::span<const double> limits,
                                        std::span<const double> bounded,
                                        std::span<const JointBodyView> bodies, double h) {
  JointStepResult out;
  Vec6 impulse = Vec6::Zero();  // on the child, about its centre of mass
  for (size_t k = 0; k < bilateral.size(); ++k) {
    impulse += bilateral[k] * rows.child_jacobians_bilateral[k];
  }
  for (size_t k = 0; k < limits.size(); ++k) {
    impulse += limits[k] * rows.child_jacobians_limits[k];
    out.at_limit |= limits[k] > 0.0;
  }
  for (size_t k = 0; k < bounded.size(); ++k) {
    impulse += bounded[k] * rows.child_jacobians_bounded[k];
  }
  const JointFrames f = Frames(joint, bodies);
  if (joint.motor.mode == JointMotorMode::kTorque && joint.type != JointType::kFixed &&
      joint.mimic_joint < 0) {
    out.applied_effort = TorqueMotorEffort(joint, bodies);
    Vec6 gc, gp;
    AxisJacobians(joint, f, &gc, &gp);
    impulse += h * out.applied_effort * gc;
  } else if (joint.motor.mode != JointMotorMode::kNone && joint.mimic_joint < 0) {
    // The motor's row: the last bilateral one when unbounded, else the first bounded one.
    if (rows.motor_rows > 0 && !bounded.empty()) {
      out.applied_effort = bounded[0] / h;
    } else if (static_cast<int>(bilateral.size()) > rows.locked + (joint.damping > 0.0 ? 1 : 0)) {
      out.applied_effort = bilateral.back() / h;
    }
  }
  const Vec3 force = impulse.head<3>() / h;
  // The torque about the joint origin: tau_C + (x_C - p_J) x f.
  const Vec3 torque = impulse.tail<3>() / h - f.offset_c.cross(force);
  out.reaction_force_n = f.rotation_c.transpose() * force;
  out.reaction_torque_n_m = f.rotation_c.transpose() * torque;
  return out;
}

}  // namespace contactsim::core
