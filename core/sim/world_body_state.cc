// World::SetBodyState: a body's state replaced by hand between steps (body_state_update.h).
#include <cmath>
#include <string>

#include "absl/strings/str_cat.h"
#include "core/common/status_macros.h"
#include "core/dynamics/local_global/hyperelastic_body.h"
#include "core/dynamics/particle_body.h"
#include "core/dynamics/rigid_body.h"
#include "core/sim/world.h"

namespace contactsim::core {
namespace {

constexpr char kAxes[] = "xyz";

// |norm - 1| of a quaternion normalized in double precision is a few ulp (2.2e-16 each).
constexpr double kKeptQuaternionNormError = 1e-14;

// n rows of finite values: InvalidArgument naming the field, the row and the axis.
absl::Status CheckRows(const Points3& values, int num_vertices, const char* field) {
  if (values.rows() != num_vertices) {
    return absl::InvalidArgumentError(absl::StrCat(
        field, ": has ", values.rows(), " rows, the body has ", num_vertices, " vertices"));
  }
  for (Eigen::Index i = 0; i < values.rows(); ++i) {
    for (int k = 0; k < 3; ++k) {
      if (!std::isfinite(values(i, k))) {
        return absl::InvalidArgumentError(absl::StrCat(field, ": vertex ", i, " ",
                                                       std::string(1, kAxes[k]), " is ",
                                                       values(i, k), ", must be finite"));
      }
    }
  }
  return absl::OkStatus();
}

absl::Status SetRigidState(const BodyStateUpdate& update, RigidBody* rigid) {
  if (update.positions_m || update.velocities_m_per_s) {
    return absl::InvalidArgumentError(
        "positions_m: a rigid body takes a pose and velocities (rigid), not vertex arrays");
  }
  if (!update.rigid) {
    return absl::InvalidArgumentError("rigid: required for a rigid body (pose and velocities)");
  }
  const RigidBodyState& state = *update.rigid;
  if (rigid->kind() == RigidBodyKind::kStatic &&
      (state.v_WB_m_per_s != Vec3::Zero() || state.w_WB_rad_per_s != Vec3::Zero())) {
    return absl::InvalidArgumentError(
        "rigid.v_WB_m_per_s: a static body does not move; its velocities must be zero");
  }
  // Both check everything (finite, unit quaternion) before they change anything. A quaternion
  // unit to round-off is kept bit for bit, so that a state read back from the World (a reply)
  // sets the very same state; one further off (within the tolerance) is normalized.
  const double norm_error = std::abs(state.q_WB.norm() - 1.0);
  const absl::Status status =
      norm_error <= kKeptQuaternionNormError ? rigid->RestoreState(state) : rigid->SetState(state);
  if (!status.ok()) {
    return absl::Status(status.code(), absl::StrCat("rigid.", status.message()));
  }
  return absl::OkStatus();
}

absl::Status SetParticleState(const BodyStateUpdate& update, ParticleBody* particles) {
  if (update.rigid) {
    return absl::InvalidArgumentError(
        "rigid: the body is deformable; give positions_m and velocities_m_per_s");
  }
  if (!update.positions_m) return absl::InvalidArgumentError("positions_m: required");
  const int n = particles->num_vertices();
  RETURN_IF_ERROR(CheckRows(*update.positions_m, n, "positions_m"));
  const Points3 zero = Points3::Zero(n, 3);
  const Points3& velocities = update.velocities_m_per_s ? *update.velocities_m_per_s : zero;
  RETURN_IF_ERROR(CheckRows(velocities, n, "velocities_m_per_s"));
  // Checked above: neither can fail now, so the body never ends half set.
  RETURN_IF_ERROR(particles->SetPositions(*update.positions_m));
  RETURN_IF_ERROR(particles->SetVelocities(velocities));
  return absl::OkStatus();
}

}  // namespace

absl::Status World::SetBodyState(int32_t id, const BodyStateUpdate& update) {
  const int index = BodyIndex(id);
  if (index < 0) return absl::NotFoundError(absl::StrCat("body_id: no body ", id));
  Body& body = *bodies_[index].body;
  if (body.type() == BodyType::kRigid) {
    RETURN_IF_ERROR(SetRigidState(update, static_cast<RigidBody*>(&body)));
  } else {
    auto* particles = static_cast<ParticleBody*>(&body);
    RETURN_IF_ERROR(SetParticleState(update, particles));
    if (body.type() == BodyType::kHyperelastic) {
      // Its warm start (the previous step's contacts and multipliers) belongs to the old state;
      // the solver's clock is kept.
      auto* hyperelastic = static_cast<HyperelasticBody*>(particles);
      RETURN_IF_ERROR(
          hyperelastic->RestoreSolverState(hyperelastic->solver_time_s(), {}, Eigen::VectorXd()));
    }
  }
  pipeline_->ForgetBody(id);
  energy_reference_j_.reset();
  return absl::OkStatus();
}

}  // namespace contactsim::core
