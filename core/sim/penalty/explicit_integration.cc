#include "core/sim/penalty/explicit_integration.h"

#include "absl/strings/str_cat.h"
#include "core/common/status_macros.h"
#include "core/dynamics/particle_body.h"
#include "core/sim/constraints.h"

namespace contactsim::core {

absl::Status PredictBodies(const WorldSettings& settings, const StepInput& input,
                           StepDiagnostics* diagnostics) {
  const double dt = settings.dt_s;
  // Bodies predict independently, so the order changes no result; constraints (constraints.h)
  // need deformables first, whose held vertices' forces go to the rigid bodies they are attached
  // to before those predict, and then drive the attached vertices to the rigid bodies' predicted
  // poses.
  ConstraintSet* constraints = input.constraints;
  if (constraints != nullptr) {
    RETURN_IF_ERROR(constraints->ApplyTargetForces(input.bodies));
  }
  for (const bool rigid_pass : {false, true}) {
    for (SimBody& sim_body : input.bodies) {
      if ((sim_body.body->type() == BodyType::kRigid) != rigid_pass) continue;
      if (absl::Status s = sim_body.body->Predict(dt, settings.gravity_m_per_s2); !s.ok()) {
        return absl::Status(s.code(), absl::StrCat("body ", sim_body.id, ": ", s.message()));
      }
    }
    if (constraints != nullptr && !rigid_pass) {
      RETURN_IF_ERROR(constraints->ApplyAttachmentReactions(input.bodies));
      // A held vertex's holder takes up the force Predict evaluated on it (and its weight).
      constraints->RecordHoldReactions(
          input.bodies, settings.gravity_m_per_s2, [](const SimBody& held, int32_t v) {
            const auto* particles = dynamic_cast<const ParticleBody*>(held.body.get());
            return particles == nullptr ? Vec3::Zero() : particles->PredictedVertexForce(v);
          });
    }
  }
  if (constraints != nullptr) {
    RETURN_IF_ERROR(constraints->DriveAttachedVertices(input.bodies));
  }
  for (const SimBody& sim_body : input.bodies) {
    if (!sim_body.body->positions_t1().allFinite()) {
      diagnostics->divergence = DivergenceKind::kNonFinite;
      diagnostics->divergence_message = absl::StrCat("body ", sim_body.id, " '", sim_body.name,
                                                     "': predicted positions are not finite");
      return absl::FailedPreconditionError(diagnostics->divergence_message);
    }
  }
  return absl::OkStatus();
}

absl::Status CorrectBodies(double dt_s, const StepInput& input) {
  for (SimBody& sim_body : input.bodies) {
    if (absl::Status s = sim_body.body->Correct(dt_s); !s.ok()) {
      return absl::Status(s.code(), absl::StrCat("body ", sim_body.id, ": ", s.message()));
    }
  }
  return absl::OkStatus();
}

}  // namespace contactsim::core
