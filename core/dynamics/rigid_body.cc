#include "core/dynamics/rigid_body.h"

#include <Eigen/Eigenvalues>
#include <Eigen/Geometry>
#include <Eigen/LU>
#include <cmath>
#include <limits>
#include <utility>

#include "absl/strings/str_cat.h"
#include "core/common/status_macros.h"
#include "core/dynamics/dynamics_checks.h"
#include "core/geometry/mass_properties.h"

namespace contactsim::core {
namespace {

// Quaternions within this of unit norm are normalized; others are rejected.
constexpr double kUnitQuaternionTolerance = 1e-6;
// Relative tolerance of the inertia checks (symmetry, triangle inequality): well above the
// rounding of ComputeMassProperties, well below any physical asymmetry.
constexpr double kInertiaRelativeTolerance = 1e-9;

absl::StatusOr<Eigen::Quaterniond> CheckedUnitQuaternion(const Eigen::Quaterniond& q,
                                                         const char* field) {
  const double norm = q.norm();
  if (!std::isfinite(norm) || std::abs(norm - 1.0) > kUnitQuaternionTolerance) {
    return absl::InvalidArgumentError(
        absl::StrCat(field, ": norm ", norm, " is not 1; (w, x, y, z) must be a unit quaternion (",
                     q.w(), ", ", q.x(), ", ", q.y(), ", ", q.z(), ")"));
  }
  return q.normalized();
}

absl::Status CheckInertia(const Mat3& inertia) {
  if (!inertia.allFinite()) {
    return absl::InvalidArgumentError("inertia_about_com_kg_m2: has a non-finite entry");
  }
  const double scale = inertia.cwiseAbs().maxCoeff();
  if ((inertia - inertia.transpose()).cwiseAbs().maxCoeff() > kInertiaRelativeTolerance * scale) {
    return absl::InvalidArgumentError("inertia_about_com_kg_m2: is not symmetric");
  }
  const Vec3 moments = Eigen::SelfAdjointEigenSolver<Mat3>(inertia).eigenvalues();  // ascending
  if (!(moments[0] > 0.0)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "inertia_about_com_kg_m2: is not positive definite (smallest principal moment ", moments[0],
        " kg m^2)"));
  }
  if (moments[0] + moments[1] < moments[2] * (1.0 - kInertiaRelativeTolerance)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "inertia_about_com_kg_m2: principal moments (", moments[0], ", ", moments[1], ", ",
        moments[2], ") kg m^2 violate I_a + I_b >= I_c; no mass distribution has them"));
  }
  return absl::OkStatus();
}

absl::Status CheckFiniteState(const Vec3& value, const char* field) {
  if (absl::Status s = internal::CheckFiniteVector(value, field); !s.ok()) {
    return absl::FailedPreconditionError(s.message());
  }
  return absl::OkStatus();
}

}  // namespace

RigidBody::RigidBody(TriangleMesh mesh, double mass_kg, const Vec3& center_of_mass_m,
                     const Mat3& inertia_body, RigidBodyKind kind)
    : mesh_(std::move(mesh)),
      center_of_mass_mesh_m_(center_of_mass_m),
      mass_kg_(mass_kg),
      inertia_body_(inertia_body),
      kind_(kind) {
  body_vertices_ = mesh_.vertices().rowwise() - center_of_mass_m.transpose();
  outward_closed_ = EnclosesPositiveVolume(mesh_, body_vertices_);
  if (mass_kg_ > 0.0) {
    inverse_inertia_body_ = inertia_body_.inverse();
    const Eigen::SelfAdjointEigenSolver<Mat3> eigen(inertia_body_);
    Mat3 axes = eigen.eigenvectors();
    if (axes.determinant() < 0.0) axes.col(2) = -axes.col(2);  // a rotation, not a reflection
    q_BP_ = Eigen::Quaterniond(axes).normalized();
    principal_moments_kg_m2_ = eigen.eigenvalues();
  }
  state_.p_WB_m = center_of_mass_m;
  WorldVertices(state_.p_WB_m, state_.q_WB, &positions_t0_);
  positions_t1_ = positions_t0_;
  predicted_state_ = state_;
}

absl::StatusOr<RigidBody> RigidBody::Create(TriangleMesh mesh, double density_kg_per_m3,
                                            RigidBodyKind kind) {
  ASSIGN_OR_RETURN(const MassProperties props, ComputeMassProperties(mesh, density_kg_per_m3));
  return CreateWithMass(std::move(mesh), props.mass_kg, props.center_of_mass_m,
                        props.inertia_about_com_kg_m2, kind);
}

absl::StatusOr<RigidBody> RigidBody::CreateWithMass(TriangleMesh mesh, double mass_kg,
                                                    const Vec3& center_of_mass_m,
                                                    const Mat3& inertia_about_com_kg_m2,
                                                    RigidBodyKind kind) {
  RETURN_IF_ERROR(internal::CheckPositive(mass_kg, "mass_kg"));
  RETURN_IF_ERROR(internal::CheckFiniteVector(center_of_mass_m, "center_of_mass_m"));
  RETURN_IF_ERROR(CheckInertia(inertia_about_com_kg_m2));
  const Mat3 symmetric = 0.5 * (inertia_about_com_kg_m2 + inertia_about_com_kg_m2.transpose());
  return RigidBody(std::move(mesh), mass_kg, center_of_mass_m, symmetric, kind);
}

absl::StatusOr<RigidBody> RigidBody::CreateWithoutMass(TriangleMesh mesh, RigidBodyKind kind) {
  if (kind == RigidBodyKind::kDynamic) {
    return absl::InvalidArgumentError("kind: a body without mass cannot be dynamic");
  }
  return RigidBody(std::move(mesh), 0.0, Vec3::Zero(), Mat3::Zero(), kind);
}

absl::Status RigidBody::CheckBetweenSteps(const char* operation) const {
  if (predicted_) {
    return absl::FailedPreconditionError(
        absl::StrCat(operation, " called between Predict and Correct"));
  }
  return absl::OkStatus();
}

absl::Status RigidBody::SetKind(RigidBodyKind kind) {
  RETURN_IF_ERROR(CheckBetweenSteps("SetKind"));
  if (kind == RigidBodyKind::kDynamic && !(mass_kg_ > 0.0)) {
    return absl::FailedPreconditionError("kind: a body without mass cannot be dynamic");
  }
  kind_ = kind;
  return absl::OkStatus();
}

Mat3 RigidBody::InertiaWorld() const {
  const Mat3 r = state_.q_WB.toRotationMatrix();
  return r * inertia_body_ * r.transpose();
}

Mat3 RigidBody::InverseInertiaWorld() const {
  const Mat3 r = state_.q_WB.toRotationMatrix();
  return r * inverse_inertia_body_ * r.transpose();
}

absl::Status RigidBody::SetState(const RigidBodyState& state) {
  // The same checks in the same order as RestoreState, so errors do not depend on the path.
  RETURN_IF_ERROR(CheckBetweenSteps("SetState"));
  RETURN_IF_ERROR(internal::CheckFiniteVector(state.p_WB_m, "p_WB_m"));
  ASSIGN_OR_RETURN(const Eigen::Quaterniond q, CheckedUnitQuaternion(state.q_WB, "q_WB"));
  RigidBodyState normalized = state;
  normalized.q_WB = q;
  return RestoreState(normalized);
}

absl::Status RigidBody::RestoreState(const RigidBodyState& state) {
  RETURN_IF_ERROR(CheckBetweenSteps("RestoreState"));
  RETURN_IF_ERROR(internal::CheckFiniteVector(state.p_WB_m, "p_WB_m"));
  RETURN_IF_ERROR(CheckedUnitQuaternion(state.q_WB, "q_WB").status());
  RETURN_IF_ERROR(internal::CheckFiniteVector(state.v_WB_m_per_s, "v_WB_m_per_s"));
  RETURN_IF_ERROR(internal::CheckFiniteVector(state.w_WB_rad_per_s, "w_WB_rad_per_s"));
  state_ = state;
  if (kind_ == RigidBodyKind::kStatic) {
    state_.v_WB_m_per_s.setZero();
    state_.w_WB_rad_per_s.setZero();
  }
  WorldVertices(state_.p_WB_m, state_.q_WB, &positions_t0_);
  positions_t1_ = positions_t0_;
  return absl::OkStatus();
}

absl::Status RigidBody::FinishExternalStep(double dt_s, const RigidBodyState& next,
                                           const Vec3& received_impulse_n_s,
                                           const Vec3& received_angular_impulse_n_m_s) {
  RETURN_IF_ERROR(CheckBetweenSteps("FinishExternalStep"));
  RETURN_IF_ERROR(internal::CheckTimeStep(dt_s));
  switch (kind_) {
    case RigidBodyKind::kDynamic:
      RETURN_IF_ERROR(RestoreState(next));
      external_work_last_step_j_ =
          dt_s * (force_n_.dot(state_.v_WB_m_per_s) + torque_n_m_.dot(state_.w_WB_rad_per_s));
      break;
    case RigidBodyKind::kKinematic:
      RETURN_IF_ERROR(internal::CheckFiniteVector(received_impulse_n_s, "received_impulse_n_s"));
      RETURN_IF_ERROR(internal::CheckFiniteVector(received_angular_impulse_n_m_s,
                                                  "received_angular_impulse_n_m_s"));
      // Predict + Correct without impulses: the scripted motion, bit for bit.
      RETURN_IF_ERROR(Predict(dt_s, Vec3::Zero()));
      RETURN_IF_ERROR(Correct(dt_s));
      external_work_last_step_j_ = -(received_impulse_n_s.dot(state_.v_WB_m_per_s) +
                                     received_angular_impulse_n_m_s.dot(state_.w_WB_rad_per_s));
      break;
    case RigidBodyKind::kStatic:
      external_work_last_step_j_ = 0.0;
      break;
  }
  force_n_.setZero();
  torque_n_m_.setZero();
  impulse_n_s_.setZero();
  angular_impulse_n_m_s_.setZero();
  return absl::OkStatus();
}

absl::Status RigidBody::SetPose(const Vec3& p_WB_m, const Eigen::Quaterniond& q_WB) {
  RigidBodyState state = state_;
  state.p_WB_m = p_WB_m;
  state.q_WB = q_WB;
  return SetState(state);
}

absl::Status RigidBody::SetVelocity(const Vec3& v_WB_m_per_s, const Vec3& w_WB_rad_per_s) {
  RigidBodyState state = state_;
  state.v_WB_m_per_s = v_WB_m_per_s;
  state.w_WB_rad_per_s = w_WB_rad_per_s;
  return SetState(state);
}

absl::Status RigidBody::SetKinematicTarget(const Vec3& p_WB_t1_m, const Eigen::Quaterniond& q_WB_t1,
                                           double dt_s) {
  if (kind_ != RigidBodyKind::kKinematic) {
    return absl::FailedPreconditionError("SetKinematicTarget: the body is not kinematic");
  }
  RETURN_IF_ERROR(CheckBetweenSteps("SetKinematicTarget"));
  RETURN_IF_ERROR(internal::CheckTimeStep(dt_s));
  RETURN_IF_ERROR(internal::CheckFiniteVector(p_WB_t1_m, "p_WB_t1_m"));
  ASSIGN_OR_RETURN(const Eigen::Quaterniond q1, CheckedUnitQuaternion(q_WB_t1, "q_WB_t1"));
  Eigen::Quaterniond relative = q1 * state_.q_WB.conjugate();
  if (relative.w() < 0.0) relative.coeffs() = -relative.coeffs();  // shortest arc
  const Eigen::AngleAxisd angle_axis(relative);
  state_.v_WB_m_per_s = (p_WB_t1_m - state_.p_WB_m) / dt_s;
  state_.w_WB_rad_per_s = angle_axis.axis() * (angle_axis.angle() / dt_s);
  return absl::OkStatus();
}

absl::Status RigidBody::ApplyForce(const Vec3& force_n) {
  RETURN_IF_ERROR(CheckBetweenSteps("ApplyForce"));
  RETURN_IF_ERROR(internal::CheckFiniteVector(force_n, "force_n"));
  force_n_ += force_n;
  return absl::OkStatus();
}

absl::Status RigidBody::ApplyTorque(const Vec3& torque_n_m) {
  RETURN_IF_ERROR(CheckBetweenSteps("ApplyTorque"));
  RETURN_IF_ERROR(internal::CheckFiniteVector(torque_n_m, "torque_n_m"));
  torque_n_m_ += torque_n_m;
  return absl::OkStatus();
}

void RigidBody::AbandonStep() {
  force_n_.setZero();
  torque_n_m_.setZero();
  impulse_n_s_.setZero();
  angular_impulse_n_m_s_.setZero();
  predicted_ = false;
  predicted_state_ = state_;
  positions_t1_ = positions_t0_;
}

absl::Status RigidBody::ApplyForceAtPoint(const Vec3& force_n, const Vec3& point_W_m) {
  RETURN_IF_ERROR(CheckBetweenSteps("ApplyForceAtPoint"));
  RETURN_IF_ERROR(internal::CheckFiniteVector(force_n, "force_n"));
  RETURN_IF_ERROR(internal::CheckFiniteVector(point_W_m, "point_W_m"));
  force_n_ += force_n;
  torque_n_m_ += (point_W_m - state_.p_WB_m).cross(force_n);
  return absl::OkStatus();
}

absl::Status RigidBody::ApplyImpulseAtPoint(const Vec3& impulse_n_s, const Vec3& point_W_m) {
  RETURN_IF_ERROR(CheckBetweenSteps("ApplyImpulseAtPoint"));
  RETURN_IF_ERROR(internal::CheckFiniteVector(impulse_n_s, "impulse_n_s"));
  RETURN_IF_ERROR(internal::CheckFiniteVector(point_W_m, "point_W_m"));
  if (!is_dynamic()) return absl::OkStatus();
  state_.v_WB_m_per_s += impulse_n_s / mass_kg_;
  state_.w_WB_rad_per_s += InverseInertiaWorld() * (point_W_m - state_.p_WB_m).cross(impulse_n_s);
  return absl::OkStatus();
}

Vec3 RigidBody::VertexVelocity(int i) const {
  const Vec3 r = positions_t0_.row(i).transpose() - state_.p_WB_m;
  return state_.v_WB_m_per_s + state_.w_WB_rad_per_s.cross(r);
}

double RigidBody::InverseMass(int /*i*/) const { return is_dynamic() ? 1.0 / mass_kg_ : 0.0; }

double RigidBody::InverseMassAlong(int i, const Vec3& unit_direction) const {
  if (!is_dynamic()) return 0.0;
  const Vec3 r = positions_t0_.row(i).transpose() - state_.p_WB_m;
  const Vec3 r_cross_n = r.cross(unit_direction);
  return 1.0 / mass_kg_ + r_cross_n.dot(InverseInertiaWorld() * r_cross_n);
}

absl::Status RigidBody::AddVertexForce(int i, const Vec3& force_n) {
  RETURN_IF_ERROR(internal::CheckVertexIndex(i, num_vertices()));
  return ApplyForceAtPoint(force_n, positions_t0_.row(i).transpose());
}

absl::Status RigidBody::AddVertexImpulse(int i, const Vec3& impulse_n_s) {
  RETURN_IF_ERROR(internal::CheckVertexIndex(i, num_vertices()));
  RETURN_IF_ERROR(internal::CheckFiniteVector(impulse_n_s, "impulse_n_s"));
  // Lever arm at the start of the step, where I_W(R_t0) applies the angular impulse.
  const Vec3 r = positions_t0_.row(i).transpose() - state_.p_WB_m;
  impulse_n_s_ += impulse_n_s;
  angular_impulse_n_m_s_ += r.cross(impulse_n_s);
  return absl::OkStatus();
}

void RigidBody::FreeRotation(const Eigen::Quaterniond& q_WB, const Vec3& angular_momentum_W,
                             double dt_s, Eigen::Quaterniond* q_WB_t1, Vec3* w_WB_t1) const {
  Eigen::Quaterniond q_WP = q_WB * q_BP_;
  Vec3 l_P = q_WP.conjugate() * angular_momentum_W;
  // Exact flow of T_k = L_P,k^2 / (2 I_k) for time h: rotate P about its axis k by
  // theta = h L_P,k / I_k; L_P turns the opposite way so that R_WP L_P stays fixed.
  const auto axis_flow = [&](int k, double h) {
    const double theta = h * l_P[k] / principal_moments_kg_m2_[k];
    Vec3 half_axis = Vec3::Zero();
    half_axis[k] = std::sin(0.5 * theta);
    q_WP = q_WP *
           Eigen::Quaterniond(std::cos(0.5 * theta), half_axis.x(), half_axis.y(), half_axis.z());
    const int a = (k + 1) % 3, b = (k + 2) % 3;
    const double c = std::cos(theta), s = std::sin(theta);
    const double l_a = l_P[a], l_b = l_P[b];
    l_P[a] = c * l_a + s * l_b;
    l_P[b] = -s * l_a + c * l_b;
  };
  axis_flow(0, 0.5 * dt_s);
  axis_flow(1, 0.5 * dt_s);
  axis_flow(2, dt_s);
  axis_flow(1, 0.5 * dt_s);
  axis_flow(0, 0.5 * dt_s);
  q_WP.normalize();
  *q_WB_t1 = (q_WP * q_BP_.conjugate()).normalized();
  *w_WB_t1 = q_WP * Vec3(l_P.cwiseQuotient(principal_moments_kg_m2_));
}

void RigidBody::WorldVertices(const Vec3& p_WB, const Eigen::Quaterniond& q_WB,
                              Points3* out) const {
  const Mat3 r = q_WB.toRotationMatrix();
  // x_i = R r_i + p, each coordinate summed in the order k = 0, 1, 2 then plus p, as the matrix
  // product (body_vertices_ * R^T).rowwise() + p^T this replaces rounded it, so positions are
  // bit for bit the same; a loop because Eigen runs that product through its general matrix
  // multiply (dynamic rows), ~5x the instructions for a 3 x 3 right-hand side.
  const Eigen::Index n = body_vertices_.rows();
  out->resize(n, 3);
  const double* in = body_vertices_.data();
  double* x = out->data();
  for (Eigen::Index i = 0; i < n; ++i, in += 3, x += 3) {
    for (int j = 0; j < 3; ++j) {
      double sum = 0.0;
      sum += in[0] * r(j, 0);
      sum += in[1] * r(j, 1);
      sum += in[2] * r(j, 2);
      x[j] = sum + p_WB[j];
    }
  }
}

absl::Status RigidBody::Predict(double dt_s, const Vec3& gravity_m_per_s2) {
  RETURN_IF_ERROR(internal::CheckTimeStep(dt_s));
  RETURN_IF_ERROR(internal::CheckFiniteVector(gravity_m_per_s2, "gravity_m_per_s2"));
  predicted_state_ = state_;
  switch (kind_) {
    case RigidBodyKind::kStatic:
      break;
    case RigidBodyKind::kKinematic: {
      const Vec3& w = state_.w_WB_rad_per_s;
      const double angle = w.norm();
      const Eigen::Quaterniond turn =
          angle > 0.0 ? Eigen::Quaterniond(Eigen::AngleAxisd(angle * dt_s, w / angle))
                      : Eigen::Quaterniond::Identity();
      predicted_state_.p_WB_m = state_.p_WB_m + dt_s * state_.v_WB_m_per_s;
      predicted_state_.q_WB = (turn * state_.q_WB).normalized();
      break;
    }
    case RigidBodyKind::kDynamic:
      v_star_ = state_.v_WB_m_per_s + dt_s * (force_n_ / mass_kg_ + gravity_m_per_s2);
      angular_momentum_star_ = AngularMomentumAboutCom() + dt_s * torque_n_m_;
      predicted_state_.p_WB_m = state_.p_WB_m + dt_s * v_star_;
      predicted_state_.v_WB_m_per_s = v_star_;
      FreeRotation(state_.q_WB, angular_momentum_star_, dt_s, &predicted_state_.q_WB,
                   &predicted_state_.w_WB_rad_per_s);
      break;
  }
  WorldVertices(predicted_state_.p_WB_m, predicted_state_.q_WB, &positions_t1_);
  predicted_dt_s_ = dt_s;
  predicted_ = true;
  return absl::OkStatus();
}

absl::Status RigidBody::Correct(double dt_s) {
  if (!predicted_) {
    return absl::FailedPreconditionError("Correct called without a preceding Predict");
  }
  if (dt_s != predicted_dt_s_) {
    return absl::InvalidArgumentError(absl::StrCat("dt_s: ", dt_s, " differs from the dt_s ",
                                                   predicted_dt_s_, " of the preceding Predict"));
  }
  if (is_dynamic()) {
    RigidBodyState next = state_;
    next.v_WB_m_per_s = v_star_ + impulse_n_s_ / mass_kg_;
    next.p_WB_m = state_.p_WB_m + dt_s * next.v_WB_m_per_s;
    FreeRotation(state_.q_WB, angular_momentum_star_ + angular_impulse_n_m_s_, dt_s, &next.q_WB,
                 &next.w_WB_rad_per_s);
    external_work_last_step_j_ =
        dt_s * (force_n_.dot(next.v_WB_m_per_s) + torque_n_m_.dot(next.w_WB_rad_per_s));
    state_ = next;
  } else {
    // A kinematic body moves whatever it touches: the impulses it received (and ignores) are
    // minus those it gave, at the velocity it moves with. Static bodies have zero velocity.
    external_work_last_step_j_ = -(impulse_n_s_.dot(state_.v_WB_m_per_s) +
                                   angular_impulse_n_m_s_.dot(state_.w_WB_rad_per_s));
    state_ = predicted_state_;
  }
  WorldVertices(state_.p_WB_m, state_.q_WB, &positions_t0_);
  positions_t1_ = positions_t0_;
  force_n_.setZero();
  torque_n_m_.setZero();
  impulse_n_s_.setZero();
  angular_impulse_n_m_s_.setZero();
  predicted_ = false;
  return absl::OkStatus();
}

double RigidBody::KineticEnergy() const {
  if (!is_dynamic()) return 0.0;
  const Vec3& w = state_.w_WB_rad_per_s;
  return 0.5 * mass_kg_ * state_.v_WB_m_per_s.squaredNorm() + 0.5 * w.dot(InertiaWorld() * w);
}

double RigidBody::PotentialEnergy(const Vec3& gravity_m_per_s2) const {
  if (!is_dynamic()) return 0.0;
  return -mass_kg_ * gravity_m_per_s2.dot(state_.p_WB_m);
}

Vec3 RigidBody::LinearMomentum() const {
  if (!is_dynamic()) return Vec3::Zero();
  return mass_kg_ * state_.v_WB_m_per_s;
}

Vec3 RigidBody::AngularMomentumAboutCom() const {
  if (!is_dynamic()) return Vec3::Zero();
  return InertiaWorld() * state_.w_WB_rad_per_s;
}

Vec3 RigidBody::AngularMomentum() const {
  return state_.p_WB_m.cross(LinearMomentum()) + AngularMomentumAboutCom();
}

absl::Status RigidBody::CheckFinite() const {
  RETURN_IF_ERROR(CheckFiniteState(state_.p_WB_m, "p_WB_m"));
  RETURN_IF_ERROR(CheckFiniteState(state_.q_WB.vec(), "q_WB (x, y, z)"));
  if (!std::isfinite(state_.q_WB.w())) {
    return absl::FailedPreconditionError(absl::StrCat("q_WB: w is ", state_.q_WB.w()));
  }
  RETURN_IF_ERROR(CheckFiniteState(state_.v_WB_m_per_s, "v_WB_m_per_s"));
  RETURN_IF_ERROR(CheckFiniteState(state_.w_WB_rad_per_s, "w_WB_rad_per_s"));
  RETURN_IF_ERROR(internal::CheckFiniteRows(positions_t0_, "position"));
  return internal::CheckFiniteRows(positions_t1_, "predicted position");
}

double RigidBody::StableTimeStepEstimate() const { return std::numeric_limits<double>::infinity(); }

}  // namespace contactsim::core
