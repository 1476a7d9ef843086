#include "core/dynamics/particle_body.h"

#include <Eigen/Geometry>
#include <utility>

#include "absl/strings/str_cat.h"
#include "core/common/status_macros.h"
#include "core/dynamics/dynamics_checks.h"

namespace contactsim::core {

ParticleBody::ParticleBody(const Points3& rest_positions_m, Eigen::VectorXd masses_kg,
                           const std::vector<int>& pinned, double mass_damping_per_s)
    : positions_t0_(rest_positions_m),
      positions_t1_(rest_positions_m),
      velocities_(Points3::Zero(rest_positions_m.rows(), 3)),
      predicted_velocities_(Points3::Zero(rest_positions_m.rows(), 3)),
      external_forces_(Points3::Zero(rest_positions_m.rows(), 3)),
      impulses_(Points3::Zero(rest_positions_m.rows(), 3)),
      force_scratch_(Points3::Zero(rest_positions_m.rows(), 3)),
      masses_(std::move(masses_kg)),
      mass_damping_per_s_(mass_damping_per_s) {
  inverse_masses_ = masses_.cwiseInverse();
  free_masses_ = masses_;
  pinned_.assign(masses_.size(), 0);
  held_.assign(masses_.size(), 0);
  for (int i : pinned) {
    inverse_masses_[i] = 0.0;
    free_masses_[i] = 0.0;
    pinned_[i] = 1;
  }
}

absl::Status ParticleBody::SetVertexHeld(int i, bool held) {
  if (predicted_) {
    return absl::FailedPreconditionError("SetVertexHeld called between Predict and Correct");
  }
  RETURN_IF_ERROR(internal::CheckVertexIndex(i, num_vertices()));
  held_[i] = held ? 1 : 0;
  const bool immovable = held || pinned_[i] != 0;
  inverse_masses_[i] = immovable ? 0.0 : 1.0 / masses_[i];
  free_masses_[i] = immovable ? 0.0 : masses_[i];
  if (held || pinned_[i] != 0) velocities_.row(i).setZero();
  return absl::OkStatus();
}

absl::Status ParticleBody::DriveHeldVertex(int i, const Vec3& x_t1_m) {
  if (!predicted_) {
    return absl::FailedPreconditionError("DriveHeldVertex called outside Predict and Correct");
  }
  RETURN_IF_ERROR(internal::CheckVertexIndex(i, num_vertices()));
  if (held_[i] == 0) {
    return absl::FailedPreconditionError(
        absl::StrCat("DriveHeldVertex: vertex ", i, " is not held"));
  }
  RETURN_IF_ERROR(internal::CheckFiniteVector(x_t1_m, "x_t1_m"));
  positions_t1_.row(i) = x_t1_m.transpose();
  predicted_velocities_.row(i) = (x_t1_m.transpose() - positions_t0_.row(i)) / predicted_dt_s_;
  return absl::OkStatus();
}

absl::Status ParticleBody::SetHeldVertexVelocity(int i, const Vec3& velocity_m_per_s) {
  if (predicted_) {
    return absl::FailedPreconditionError(
        "SetHeldVertexVelocity called between Predict and Correct");
  }
  RETURN_IF_ERROR(internal::CheckVertexIndex(i, num_vertices()));
  if (held_[i] == 0) {
    return absl::FailedPreconditionError(
        absl::StrCat("SetHeldVertexVelocity: vertex ", i, " is not held"));
  }
  RETURN_IF_ERROR(internal::CheckFiniteVector(velocity_m_per_s, "velocity_m_per_s"));
  velocities_.row(i) = velocity_m_per_s.transpose();
  return absl::OkStatus();
}

absl::Status ParticleBody::CheckMassesAndPins(const Eigen::VectorXd& masses_kg,
                                              const std::vector<int>& pinned) {
  const int n = static_cast<int>(masses_kg.size());
  std::vector<bool> is_pinned(n, false);
  for (int i : pinned) {
    if (i < 0 || i >= n) {
      return absl::InvalidArgumentError(
          absl::StrCat("pinned_vertices: vertex ", i, " out of range [0, ", n, ")"));
    }
    is_pinned[i] = true;
  }
  for (int i = 0; i < n; ++i) {
    if (!is_pinned[i] && !(masses_kg[i] > 0.0)) {
      return absl::InvalidArgumentError(
          absl::StrCat("vertex ", i, ": belongs to no element, so it has no mass; pin it or ",
                       "remove it from the mesh"));
    }
  }
  return absl::OkStatus();
}

absl::Status ParticleBody::AddVertexForce(int i, const Vec3& force_n) {
  if (predicted_) {
    return absl::FailedPreconditionError("AddVertexForce called between Predict and Correct");
  }
  RETURN_IF_ERROR(internal::CheckVertexIndex(i, num_vertices()));
  RETURN_IF_ERROR(internal::CheckFiniteVector(force_n, "force_n"));
  external_forces_.row(i) += force_n.transpose();
  return absl::OkStatus();
}

absl::Status ParticleBody::AddVertexImpulse(int i, const Vec3& impulse_n_s) {
  RETURN_IF_ERROR(internal::CheckVertexIndex(i, num_vertices()));
  RETURN_IF_ERROR(internal::CheckFiniteVector(impulse_n_s, "impulse_n_s"));
  impulses_.row(i) += impulse_n_s.transpose();
  return absl::OkStatus();
}

absl::Status ParticleBody::Predict(double dt_s, const Vec3& gravity_m_per_s2) {
  RETURN_IF_ERROR(internal::CheckTimeStep(dt_s));
  RETURN_IF_ERROR(internal::CheckFiniteVector(gravity_m_per_s2, "gravity_m_per_s2"));
  force_scratch_ = external_forces_;
  AddInternalForces(positions_t0_, velocities_, &force_scratch_);
  for (int i = 0; i < num_vertices(); ++i) {
    if (inverse_masses_[i] == 0.0) {
      predicted_velocities_.row(i).setZero();
      positions_t1_.row(i) = positions_t0_.row(i);
      continue;
    }
    const Vec3 acceleration = inverse_masses_[i] * force_scratch_.row(i).transpose() +
                              gravity_m_per_s2 -
                              mass_damping_per_s_ * velocities_.row(i).transpose();
    predicted_velocities_.row(i) = velocities_.row(i) + dt_s * acceleration.transpose();
    positions_t1_.row(i) = positions_t0_.row(i) + dt_s * predicted_velocities_.row(i);
  }
  predicted_dt_s_ = dt_s;
  predicted_ = true;
  return absl::OkStatus();
}

absl::Status ParticleBody::Correct(double dt_s) {
  if (!predicted_) {
    return absl::FailedPreconditionError("Correct called without a preceding Predict");
  }
  if (dt_s != predicted_dt_s_) {
    return absl::InvalidArgumentError(absl::StrCat("dt_s: ", dt_s, " differs from the dt_s ",
                                                   predicted_dt_s_, " of the preceding Predict"));
  }
  external_work_last_step_j_ = 0.0;
  for (int i = 0; i < num_vertices(); ++i) {
    if (inverse_masses_[i] == 0.0) {
      // Pinned: v* = 0 and x_t1 = x_t0 from Predict; held: as driven (DriveHeldVertex).
      velocities_.row(i) = predicted_velocities_.row(i);
      positions_t0_.row(i) = positions_t1_.row(i);
      continue;
    }
    velocities_.row(i) = predicted_velocities_.row(i) + inverse_masses_[i] * impulses_.row(i);
    positions_t0_.row(i) += dt_s * velocities_.row(i);
    external_work_last_step_j_ += dt_s * external_forces_.row(i).dot(velocities_.row(i));
  }
  positions_t1_ = positions_t0_;
  external_forces_.setZero();
  impulses_.setZero();
  predicted_ = false;
  OnPositionsChanged();
  return absl::OkStatus();
}

void ParticleBody::AbandonStep() {
  positions_t1_ = positions_t0_;
  external_forces_.setZero();
  impulses_.setZero();
  predicted_ = false;
}

absl::Status ParticleBody::FinishImplicitStep(const Points3& x_end_m, const Points3& v_end_mps,
                                              std::span<const int32_t> driven,
                                              double driver_work_j) {
  if (predicted_) {
    return absl::FailedPreconditionError("FinishImplicitStep between Predict and Correct");
  }
  if (x_end_m.rows() != num_vertices() || v_end_mps.rows() != num_vertices()) {
    return absl::InvalidArgumentError(absl::StrCat("FinishImplicitStep: ", x_end_m.rows(), " and ",
                                                   v_end_mps.rows(), " rows for ", num_vertices(),
                                                   " vertices"));
  }
  for (int32_t i : driven) {
    RETURN_IF_ERROR(internal::CheckVertexIndex(i, num_vertices()));
    if (held_[i] == 0) {
      return absl::FailedPreconditionError(
          absl::StrCat("FinishImplicitStep: driven vertex ", i, " is not held"));
    }
  }
  external_work_last_step_j_ = driver_work_j;
  for (int i = 0; i < num_vertices(); ++i) {
    if (inverse_masses_[i] == 0.0) continue;
    external_work_last_step_j_ +=
        external_forces_.row(i).dot(x_end_m.row(i) - positions_t0_.row(i));
    positions_t0_.row(i) = x_end_m.row(i);
    velocities_.row(i) = v_end_mps.row(i);
  }
  for (int32_t i : driven) {
    positions_t0_.row(i) = x_end_m.row(i);
    velocities_.row(i) = v_end_mps.row(i);
  }
  positions_t1_ = positions_t0_;
  external_forces_.setZero();
  impulses_.setZero();
  OnPositionsChanged();
  return absl::OkStatus();
}

double ParticleBody::KineticEnergy() const {
  return 0.5 * velocities_.rowwise().squaredNorm().dot(free_masses_);
}

double ParticleBody::PotentialEnergy(const Vec3& gravity_m_per_s2) const {
  double gravitational = 0.0;
  for (int i = 0; i < num_vertices(); ++i) {
    if (inverse_masses_[i] == 0.0) continue;
    gravitational -= masses_[i] * gravity_m_per_s2.dot(positions_t0_.row(i).transpose());
  }
  return ElasticEnergyAt(positions_t0_) + gravitational;
}

Vec3 ParticleBody::LinearMomentum() const {
  return (velocities_.transpose() * free_masses_).eval();
}

Vec3 ParticleBody::AngularMomentum() const {
  Vec3 angular = Vec3::Zero();
  for (int i = 0; i < num_vertices(); ++i) {
    if (inverse_masses_[i] == 0.0) continue;  // pinned or held: v = 0 or a driver's
    angular += masses_[i] * positions_t0_.row(i).transpose().cross(velocities_.row(i).transpose());
  }
  return angular;
}

absl::Status ParticleBody::CheckFinite() const {
  RETURN_IF_ERROR(internal::CheckFiniteRows(positions_t0_, "position"));
  RETURN_IF_ERROR(internal::CheckFiniteRows(positions_t1_, "predicted position"));
  return internal::CheckFiniteRows(velocities_, "velocity");
}

Points3 ParticleBody::InternalForces() const {
  Points3 forces = Points3::Zero(num_vertices(), 3);
  AddInternalForces(positions_t0_, velocities_, &forces);
  return forces;
}

absl::Status ParticleBody::SetPositions(const Points3& positions_m) {
  if (predicted_) {
    return absl::FailedPreconditionError("SetPositions called between Predict and Correct");
  }
  if (positions_m.rows() != num_vertices()) {
    return absl::InvalidArgumentError(absl::StrCat("positions_m: has ", positions_m.rows(),
                                                   " rows, the body has ", num_vertices(),
                                                   " vertices"));
  }
  if (absl::Status s = internal::CheckFiniteRows(positions_m, "position"); !s.ok()) {
    return absl::InvalidArgumentError(absl::StrCat("positions_m: ", s.message()));
  }
  positions_t0_ = positions_m;
  positions_t1_ = positions_m;
  OnPositionsChanged();
  return absl::OkStatus();
}

absl::Status ParticleBody::SetVelocities(const Points3& velocities_m_per_s) {
  if (predicted_) {
    return absl::FailedPreconditionError("SetVelocities called between Predict and Correct");
  }
  if (velocities_m_per_s.rows() != num_vertices()) {
    return absl::InvalidArgumentError(
        absl::StrCat("velocities_m_per_s: has ", velocities_m_per_s.rows(), " rows, the body has ",
                     num_vertices(), " vertices"));
  }
  if (absl::Status s = internal::CheckFiniteRows(velocities_m_per_s, "velocity"); !s.ok()) {
    return absl::InvalidArgumentError(absl::StrCat("velocities_m_per_s: ", s.message()));
  }
  velocities_ = velocities_m_per_s;
  for (int i = 0; i < num_vertices(); ++i) {
    if (inverse_masses_[i] == 0.0) velocities_.row(i).setZero();  // pinned or held
  }
  return absl::OkStatus();
}

}  // namespace contactsim::core
