// Articulation joints of the rigid_lcp step (docs/robots.md): fixed, revolute, continuous and
// prismatic joints between two bodies (or a body and the world), as rows of the island's mixed LCP
// (spatial_contact_lcp.h, SpatialLcpJointRows), all at the velocity level of the step h:
//
//   locked directions   bilateral rows G^T nu+ + psi / h = 0 (3 translations at the joint origin,
//                       2 or 3 rotations), psi the position error at the step start: the same
//                       full-strength stabilization as the contacts' psi / h (a drift is removed in
//                       one step, so it never accumulates beyond one step's linearization error,
//                       O(h^2 |omega|^2 r));
//   limits              unilateral rows qdot+ + (q - lower) / h >= 0 and -qdot+ + (upper - q) / h
//                       >= 0, each added when the joint is within two steps' motion at its
//                       current speed plus 5 mm or mrad of the limit;
//   damping d           implicit: a bilateral row qdot+ + gamma u = 0 with gamma = 1 / (h d), the
//                       impulse u = -h d qdot+ (the end-of-step velocity: unconditionally stable);
//   friction f          a bounded row qdot+ = 0 with |u| <= f h;
//   position motor      implicit PD, u / h = kp (q* - q - h qdot+) + kd (qdot* - qdot+), i.e. the
//                       row qdot+ - v* + gamma u = 0 with K = kp h + kd, gamma = 1 / (h K),
//                       v* = (kp (q* - q) + kd qdot*) / K, bounded by |u| <= effort h;
//   velocity motor      the row qdot+ - qdot* = 0 bounded by |u| <= effort h (friction is then
//                       not added: the motor's effort is what holds the joint);
//   torque motor        an applied generalized force (clamped to the effort limit), in the free
//                       velocities (AddJointMotorWrenches);
//   velocity limit      the position and velocity motors' v* clamped to [-v_max, v_max]; a
//                       torque motor's effort is 0 while |qdot| >= v_max in its direction;
//   mimic               a bilateral row qdot_f - m qdot_l + (q_f - m q_l - offset) / h = 0 on the
//                       follower f (URDF <mimic joint=l multiplier=m offset=...>), which replaces
//                       the follower's motor; the two joints may touch at most three bodies
//                       (a gripper's fingers on one hand).
// q is the joint coordinate of the child's joint frame J_c in the parent's J_p (the URDF joint
// frame: child link frame = J_c; J_p = J_c at q = 0): the angle about the axis (revolute,
// continuous, wrapped to (-pi, pi]) or the displacement along it (prismatic).
#pragma once

#include <Eigen/Geometry>
#include <limits>
#include <span>
#include <vector>

#include "absl/status/status.h"
#include "core/common/eigen_types.h"
#include "core/dynamics/rigid_lcp/spatial_contact_lcp.h"

namespace contactsim::core {

enum class JointType { kFixed, kRevolute, kContinuous, kPrismatic };
enum class JointMotorMode { kNone, kTorque, kVelocity, kPosition };

struct JointMotor {
  JointMotorMode mode = JointMotorMode::kNone;
  double target_position = 0.0;  // [rad or m] (position)
  double target_velocity = 0.0;  // [rad/s or m/s] (velocity, and the PD's qdot*)
  double torque = 0.0;           // [N m or N] (torque)
  double stiffness = 0.0;        // kp [N m/rad or N/m] (position)
  double damping = 0.0;          // kd [N m s/rad or N s/m] (position)
  // > 0 [N m or N]: the most effort this command spends, below the joint's effort_limit (a gripper
  // squeezing with a chosen force); +inf: the joint's limit alone.
  double max_effort = std::numeric_limits<double>::infinity();
};

struct JointInput {
  JointType type = JointType::kRevolute;
  int parent = -1;  // body index, -1: the world
  int child = 0;    // body index
  // Joint frame in each body's frame (the body frame: origin at the centre of mass).
  Eigen::Isometry3d parent_from_joint = Eigen::Isometry3d::Identity();
  Eigen::Isometry3d child_from_joint = Eigen::Isometry3d::Identity();
  Vec3 axis_J = Vec3::UnitZ();  // unit, in the joint frame
  bool has_limits = false;
  double lower = 0.0;  // <= upper
  double upper = 0.0;
  double damping = 0.0;                                           // d >= 0 [N m s/rad or N s/m]
  double friction = 0.0;                                          // f >= 0 [N m or N]
  double effort_limit = std::numeric_limits<double>::infinity();  // > 0 [N m or N]
  // > 0 [rad/s or m/s]: the motor drives no faster (the URDF's actuator speed): a position or
  // velocity motor's target speed is clamped to it, and a torque motor gives no effort in the
  // direction of motion at or beyond it. Gravity and contacts may still move the joint faster.
  double velocity_limit = std::numeric_limits<double>::infinity();
  JointMotor motor;
  int mimic_joint = -1;  // index of the leader l in the joints, -1: none
  double mimic_multiplier = 1.0;
  double mimic_offset = 0.0;
};

// A body as the joint rows see it (the step's start).
struct JointBodyView {
  Vec3 position = Vec3::Zero();  // centre of mass in W
  Mat3 rotation = Mat3::Identity();
  Vec6 velocity = Vec6::Zero();  // [v; omega] in W
  bool dynamic = false;          // an unknown of the LCP; otherwise its velocity is in the biases
};

// The rows of one joint, with global body indices (-1: not an unknown).
struct JointRowSet {
  std::vector<SpatialLcpSoftRow> bilateral;  // locked directions, then damping
  int locked = 0;                            // how many of bilateral are locked directions
  std::vector<SpatialLcpRow> limits;
  std::vector<double> limit_signs;         // +1: lower, -1: upper (the row's qdot sign)
  std::vector<SpatialLcpSoftRow> bounded;  // motor (position, velocity) and friction
  int motor_rows = 0;                      // leading rows of bounded that are the motor's
  int parent = -1, child = 0;              // dynamic bodies joined (-1: none)
  std::vector<int> joined;                 // every dynamic body its rows touch (islands)
  // The joint's generalized directions for the child (the reaction wrench is sum G_c u) and the
  // torque-motor wrench on the child (the parent receives the opposite at the joint).
  std::vector<Vec6> child_jacobians_bilateral, child_jacobians_limits, child_jacobians_bounded;
};

struct JointCoordinate {
  double position = 0.0;
  double velocity = 0.0;
};

// What a joint carried in a step, and its coordinate at the step end.
struct JointStepResult {
  double position = 0.0;        // q at the step end [rad or m]
  double velocity = 0.0;        // qdot at the step end
  double applied_effort = 0.0;  // the motor's torque or force over the step [N m or N]
  // The wrench the parent exerts on the child through the joint (constraint, limits, motor,
  // damping, friction), averaged over the step, at the joint origin, in the child's joint frame
  // (the URDF child link frame): a force-torque sensor at the joint reads it.
  Vec3 reaction_force_n = Vec3::Zero();
  Vec3 reaction_torque_n_m = Vec3::Zero();
  bool at_limit = false;  // a limit row carried an impulse
};

// InvalidArgument naming joints[i] and the field (bad indices, a non-unit axis, inverted
// limits, negative damping, friction or gains, a non-positive effort limit).
absl::Status ValidateJoints(std::span<const JointInput> joints, int num_bodies);

// q and qdot of a joint from its bodies' states (parent -1: the world at rest).
JointCoordinate ComputeJointCoordinate(const JointInput& joint,
                                       std::span<const JointBodyView> bodies);

// The rows of every joint at the step start; h the step.
std::vector<JointRowSet> BuildJointRows(std::span<const JointInput> joints,
                                        std::span<const JointBodyView> bodies, double h);

// The most effort the joint's motor may give [N m or N]: the joint's effort limit, or the
// command's max_effort when lower.
double MotorEffortLimit(const JointInput& joint);

// The effort a torque motor applies over the step: its torque clamped to the effort limit, 0
// while the joint turns at or beyond its velocity limit in the torque's direction.
double TorqueMotorEffort(const JointInput& joint, std::span<const JointBodyView> bodies);

// Torque motors' generalized forces [f; tau about the centre of mass] added to each body.
void AddJointMotorWrenches(std::span<const JointInput> joints,
                           std::span<const JointBodyView> bodies, std::vector<Vec6>* wrenches);

// The step's result of one joint from its rows' impulses (u per row, as SpatialLcpSolution's)
// and the torque motor's effort; the coordinate is filled by the caller from the step end.
JointStepResult JointResultFromImpulses(const JointInput& joint, const JointRowSet& rows,
                                        std::span<const double> bilateral,
                                        std::span<const double> limits,
                                        std::span<const double> bounded,
                                        std::span<const JointBodyView> bodies, double h);

}  // namespace contactsim::core
