// RigidBody: a triangle-mesh rigid body: dynamic in the explicit penalty pipeline (body.h), static
// or kinematic (an obstacle or a driven tool) in every pipeline.
//
// Frames: W world; B the body frame, origin at the centre of mass, axes those of the mesh the body
// was built from; P the principal axes of inertia (internal). State: p_WB [m] (centre of mass),
// q_WB (unit quaternion, w x y z, rotation R = R_WB), v_WB [m/s], w_WB [rad/s] (world frame).
// Mass m [kg], inertia about the centre of mass I_B [kg m^2] in B; world inertia I_W = R I_B R^T;
// world angular momentum about the centre of mass L = I_W w_WB. Vertex i of the mesh sits at
//   x_i = p_WB + R r_i,   r_i = (mesh vertex i) - (centre of mass in mesh coordinates).
//
// Step (symplectic Euler, Lie-group form), with the force f and torque tau about the centre of
// mass accumulated since the last step (forces at points add r x f to tau) and gravity g:
//   Predict:  v* = v + dt (f / m + g),  L* = L + dt tau,  p_t1 = p + dt v*,
//             (R_t1, w*) = Phi_dt(R, L*),  x_t1,i = p_t1 + R_t1 r_i
//   Correct:  v = v* + (sum_i J_i) / m,  L = L* + sum_i (x_t0,i - p) x J_i,
//             p = p_t0 + dt v,  (R, w) = Phi_dt(R_t0, L)
// Phi_dt is the torque-free rotation for time dt with world angular momentum L held fixed. It
// carries the gyroscopic term w x I w: no explicit gyroscopic force is integrated. Phi_dt is the
// Strang splitting of the kinetic energy T = sum_k L_P,k^2 / (2 I_k) over principal axes (McLachlan
// 1993; Dullweber, Leimkuhler and McLachlan 1997): each T_k flow is an exact rotation about body
// axis k by the angle dt L_P,k / I_k, composed as half 1, half 2, full 3, half 2, half 1 (axes in
// ascending order of moment). So L is conserved to rounding, spin about a principal axis is
// exact, and the energy error is O((|w| dt)^2) with no secular drift (the splitting is a
// Lie-Poisson integrator). Explicit Euler on w with I_W (w += dt I_W^-1 (tau - w x I_W w), or L
// stored and w = I_W(R_t0)^-1 L) would instead gain energy every step (for the stored-L form
// dt^2/2 (w x L)^T I_W^-1 (w x L) to leading order) and drift towards the minor axis.
//
// Kinds: kDynamic as above. kStatic never moves. kKinematic follows its scripted velocities,
// p_t1 = p + dt v, R_t1 = exp(dt [w]x) R (set them, or SetKinematicTarget, before each step).
// Static and kinematic bodies have infinite mass: forces and impulses on them are accepted and
// ignored, and their inverse masses are 0.
//
// Quaternion inputs: a unit quaternion is required; one within 1e-6 of unit norm is normalized
// (float32 round trips), any other is rejected with InvalidArgument (likely a wrong component
// order or not a rotation).
#pragma once

#include <Eigen/Geometry>

#include "absl/status/statusor.h"
#include "core/common/eigen_types.h"
#include "core/dynamics/body.h"
#include "core/geometry/triangle_mesh.h"

namespace contactsim::core {

enum class RigidBodyKind { kDynamic, kStatic, kKinematic };

struct RigidBodyState {
  Vec3 p_WB_m = Vec3::Zero();                                // centre of mass in W [m]
  Eigen::Quaterniond q_WB = Eigen::Quaterniond::Identity();  // (w, x, y, z), unit
  Vec3 v_WB_m_per_s = Vec3::Zero();                          // centre-of-mass velocity in W
  Vec3 w_WB_rad_per_s = Vec3::Zero();                        // angular velocity in W
};

class RigidBody final : public Body {
 public:
  // Mass properties of the closed mesh filled with density rho [kg/m^3] (mass_properties.h;
  // FailedPrecondition for an open mesh). The body starts at rest where the mesh is: p_WB at the
  // mesh's centre of mass, q_WB identity.
  static absl::StatusOr<RigidBody> Create(TriangleMesh mesh, double density_kg_per_m3,
                                          RigidBodyKind kind = RigidBodyKind::kDynamic);
  // Explicit mass [kg] > 0, centre of mass in mesh coordinates [m] and inertia about it in mesh
  // axes [kg m^2]: symmetric, positive definite, principal moments satisfying the triangle
  // inequality I_a + I_b >= I_c (a real mass distribution). Any mesh, open or closed.
  static absl::StatusOr<RigidBody> CreateWithMass(TriangleMesh mesh, double mass_kg,
                                                  const Vec3& center_of_mass_m,
                                                  const Mat3& inertia_about_com_kg_m2,
                                                  RigidBodyKind kind = RigidBodyKind::kDynamic);
  // A static or kinematic body without mass (ground, scripted obstacles; any mesh): B has its
  // origin at the mesh origin. InvalidArgument for kDynamic.
  static absl::StatusOr<RigidBody> CreateWithoutMass(TriangleMesh mesh, RigidBodyKind kind);

  BodyType type() const override { return BodyType::kRigid; }
  const TriangleMesh& surface() const override { return mesh_; }
  RigidBodyKind kind() const { return kind_; }
  // FailedPrecondition for kDynamic on a body without mass, or between Predict and Correct.
  absl::Status SetKind(RigidBodyKind kind);

  double mass_kg() const { return mass_kg_; }                       // 0 for a body without mass
  const Mat3& inertia_body_kg_m2() const { return inertia_body_; }  // I_B about the COM
  Mat3 InertiaWorld() const;                                        // I_W = R I_B R^T
  Mat3 InverseInertiaWorld() const;                                 // I_W^-1 (0 without mass)
  // Mesh vertices relative to the centre of mass, in B [m] (r_i above).
  const Points3& body_vertices() const { return body_vertices_; }
  // The surface is closed and encloses a positive volume (sum over faces of r0 . (r1 x r2) / 6),
  // i.e. its faces wind counter-clockwise seen from outside. A rigid motion keeps the volume, so
  // this is decided once, from body_vertices(), rather than from the world positions each step.
  bool outward_closed() const { return outward_closed_; }
  // The centre of mass in mesh coordinates the body was built with [m] (0 without mass): with the
  // mesh, mass and inertia it rebuilds the same body (world serialization).
  const Vec3& center_of_mass_mesh_m() const { return center_of_mass_mesh_m_; }

  const RigidBodyState& state() const { return state_; }
  // Between Predict and Correct the predicted end-of-step state (pose p_t1, R_t1); otherwise
  // state().
  const RigidBodyState& predicted_state() const { return predicted_ ? predicted_state_ : state_; }
  // Between steps only (FailedPrecondition otherwise); InvalidArgument naming the field for a
  // non-finite value or a quaternion that is not unit (see the top of this file).
  absl::Status SetState(const RigidBodyState& state);
  absl::Status SetPose(const Vec3& p_WB_m, const Eigen::Quaterniond& q_WB);
  absl::Status SetVelocity(const Vec3& v_WB_m_per_s, const Vec3& w_WB_rad_per_s);
  // SetState that keeps every bit of q_WB (SetState normalizes it, which may change its last
  // bit): for restoring a saved state exactly. Same errors as SetState.
  absl::Status RestoreState(const RigidBodyState& state);
  // Ends a step that another scheme integrated (the rigid_lcp pipeline's Stewart–Trinkle step),
  // between steps only, with the same bookkeeping as Predict + Correct: a dynamic body takes
  // `next` (every bit kept; same checks as RestoreState) and the work of its pending force and
  // torque over the step, dt (f . v_next + tau . w_next); a kinematic body moves along its
  // velocities as Predict does and did the work -(J . v + L . w) on what it touched, J and L the
  // contact impulse [N s] and its moment about the centre of mass [N m s] it received; a static
  // body stays. The pending force, torque and impulses are cleared.
  absl::Status FinishExternalStep(double dt_s, const RigidBodyState& next,
                                  const Vec3& received_impulse_n_s,
                                  const Vec3& received_angular_impulse_n_m_s);
  // Kinematic bodies: sets v and w so that the next Predict(dt_s, g) reaches the target pose
  // (rotation by the shortest arc). FailedPrecondition for other kinds.
  absl::Status SetKinematicTarget(const Vec3& p_WB_t1_m, const Eigen::Quaterniond& q_WB_t1,
                                  double dt_s);

  // For the next step, between steps only (FailedPrecondition otherwise): Predict applies them,
  // Correct clears them. Torque about the centre of mass [N m]; a force [N] at a world point [m]
  // adds (p - p_WB) x f to it.
  absl::Status ApplyForce(const Vec3& force_n);
  absl::Status ApplyTorque(const Vec3& torque_n_m);
  absl::Status ApplyForceAtPoint(const Vec3& force_n, const Vec3& point_W_m);
  // Immediate velocity change from an impulse [N s] at a world point [m], between steps only:
  // v += J / m, w += I_W^-1 ((p - p_WB) x J).
  absl::Status ApplyImpulseAtPoint(const Vec3& impulse_n_s, const Vec3& point_W_m);
  // What the Apply* calls accumulated for the next step (world serialization).
  const Vec3& pending_force_n() const { return force_n_; }
  const Vec3& pending_torque_n_m() const { return torque_n_m_; }

  const Points3& positions_t0() const override { return positions_t0_; }
  const Points3& positions_t1() const override { return positions_t1_; }
  Vec3 VertexVelocity(int i) const override;  // v + w x (x_i - p_WB)
  double InverseMass(int i) const override;
  double InverseMassAlong(int i, const Vec3& unit_direction) const override;
  absl::Status AddVertexForce(int i, const Vec3& force_n) override;
  absl::Status AddVertexImpulse(int i, const Vec3& impulse_n_s) override;
  absl::Status Predict(double dt_s, const Vec3& gravity_m_per_s2) override;
  absl::Status Correct(double dt_s) override;
  // Also drops what the Apply* calls accumulated for the step.
  void AbandonStep() override;
  double ExternalWorkOfLastStep() const override { return external_work_last_step_j_; }

  // 1/2 m |v|^2 + 1/2 w . I_W w [J].
  double KineticEnergy() const override;
  // -m g . p_WB [J] (no elastic energy).
  double PotentialEnergy(const Vec3& gravity_m_per_s2) const override;
  Vec3 LinearMomentum() const override;   // m v
  Vec3 AngularMomentum() const override;  // m p x v + I_W w, about the world origin
  Vec3 AngularMomentumAboutCom() const;   // I_W w
  absl::Status CheckFinite() const override;
  double StableTimeStepEstimate() const override;  // +infinity: no internal forces

 private:
  RigidBody(TriangleMesh mesh, double mass_kg, const Vec3& center_of_mass_m,
            const Mat3& inertia_body, RigidBodyKind kind);

  bool is_dynamic() const { return kind_ == RigidBodyKind::kDynamic; }
  // Phi_dt above: orientation and angular velocity after dt under fixed world momentum L.
  void FreeRotation(const Eigen::Quaterniond& q_WB, const Vec3& angular_momentum_W, double dt_s,
                    Eigen::Quaterniond* q_WB_t1, Vec3* w_WB_t1) const;
  // x_i = p + R r_i for every vertex.
  void WorldVertices(const Vec3& p_WB, const Eigen::Quaterniond& q_WB, Points3* out) const;
  absl::Status CheckBetweenSteps(const char* operation) const;

  TriangleMesh mesh_;
  Vec3 center_of_mass_mesh_m_ = Vec3::Zero();
  Points3 body_vertices_;  // r_i in B [m]
  bool outward_closed_ = false;
  double mass_kg_ = 0.0;
  Mat3 inertia_body_ = Mat3::Zero();
  Mat3 inverse_inertia_body_ = Mat3::Zero();
  Eigen::Quaterniond q_BP_ = Eigen::Quaterniond::Identity();  // principal axes in B
  Vec3 principal_moments_kg_m2_ = Vec3::Zero();               // I_P, ascending
  RigidBodyKind kind_ = RigidBodyKind::kDynamic;

  RigidBodyState state_;
  Points3 positions_t0_;
  Points3 positions_t1_;

  // Accumulated for the step; cleared by Correct.
  double external_work_last_step_j_ = 0.0;  // see Body::ExternalWorkOfLastStep
  Vec3 force_n_ = Vec3::Zero();
  Vec3 torque_n_m_ = Vec3::Zero();
  Vec3 impulse_n_s_ = Vec3::Zero();
  Vec3 angular_impulse_n_m_s_ = Vec3::Zero();

  // Between Predict and Correct.
  bool predicted_ = false;
  double predicted_dt_s_ = 0.0;
  Vec3 v_star_ = Vec3::Zero();
  Vec3 angular_momentum_star_ = Vec3::Zero();
  RigidBodyState predicted_state_;
};

}  // namespace contactsim::core
