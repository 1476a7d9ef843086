#include "scenes/testbeds/particle_on_plane.h"

#include <cmath>

#include "absl/strings/str_cat.h"
#include "core/collision/ccd/ccd_types.h"
#include "core/common/eigen_types.h"
#include "core/contact/penalty/dpf.h"
#include "core/contact/penalty/static_plane.h"

namespace contactsim::core {
namespace {

// The plane z = 0 as a static triangle for the DPF kernel: its corners a, b, c wind
// counter-clockwise seen from +z, so (b - a) x (c - a) = (0, 0, 4) gives the normal +z, and the
// collision point q = wa a + wb b + wc c with weights (1/4, 1/4, 1/2) is the origin, the foot of
// the particle at (0, 0, z). Swapping b and c (and their weights) flips the normal to -z.
const Vec3 kCornerA(-1.0, -1.0, 0.0);
const Vec3 kCornerB(1.0, -1.0, 0.0);
const Vec3 kCornerC(0.0, 1.0, 0.0);

// Impulse along +z of DPF against the half-space below z = 0 (normal +z) or, with `flipped`,
// above it (normal -z), for the particle moving p_t0 -> p_t1 (DPF reads t = 1 only).
struct Impulse {
  PenaltyStatus status = PenaltyStatus::kOk;
  double z_Ns = 0.0;
};

Impulse DpfImpulse(const Vec3& p_t0, const Vec3& p_t1, const PenaltyParams& params, bool flipped) {
  const Vec3& b = flipped ? kCornerC : kCornerB;
  const Vec3& c = flipped ? kCornerB : kCornerC;
  const Vec3 weights = flipped ? Vec3(0.25, 0.5, 0.25) : Vec3(0.25, 0.25, 0.5);
  const PairTrajectory trajectory{{p_t0, kCornerA, b, c}, {p_t1, kCornerA, b, c}};
  const DpfResult r = DpfVertexFace(trajectory, weights, params);
  return {r.status, r.impulses_Ns[0].z()};
}

Impulse CpfImpulse(const Vec3& p_t0, const Vec3& p_t1, const PenaltyParams& params, bool flipped) {
  const Vec3 normal(0.0, 0.0, flipped ? -1.0 : 1.0);
  const StaticPlaneResult r = CpfVertexStaticPlane(p_t0, p_t1, normal, 0.0, params);
  return {r.status, r.impulse_Ns.z()};
}

Impulse HalfSpaceImpulse(PlaneContactModel model, const Vec3& p, const Vec3& p_t1,
                         const PenaltyParams& params, bool flipped) {
  switch (model) {
    case PlaneContactModel::kDpfAtStart:
      return DpfImpulse(p, p, params, flipped);
    case PlaneContactModel::kDpfAtPredictedEnd:
      return DpfImpulse(p, p_t1, params, flipped);
    case PlaneContactModel::kCpf:
      return CpfImpulse(p, p_t1, params, flipped);
  }
  return {PenaltyStatus::kInvalidInput, 0.0};
}

}  // namespace

absl::Status ValidateParticleOnPlane(const ParticleOnPlane& setup) {
  if (!std::isfinite(setup.mass_kg) || setup.mass_kg <= 0.0) {
    return absl::InvalidArgumentError(
        absl::StrCat("mass_kg must be finite and > 0, got ", setup.mass_kg));
  }
  if (!std::isfinite(setup.gravity_m_per_s2)) {
    return absl::InvalidArgumentError(
        absl::StrCat("gravity_m_per_s2 must be finite, got ", setup.gravity_m_per_s2));
  }
  if (!std::isfinite(setup.dt_s) || setup.dt_s < 0.0) {
    return absl::InvalidArgumentError(
        absl::StrCat("dt_s must be finite and >= 0, got ", setup.dt_s));
  }
  switch (setup.model) {
    case PlaneContactModel::kDpfAtStart:
    case PlaneContactModel::kDpfAtPredictedEnd:
    case PlaneContactModel::kCpf:
      break;
    default:
      return absl::InvalidArgumentError(
          absl::StrCat("model is not a PlaneContactModel: ", static_cast<int>(setup.model)));
  }
  if (setup.sides != PlaneSides::kOneSided && setup.sides != PlaneSides::kTwoSided) {
    return absl::InvalidArgumentError(
        absl::StrCat("sides is not a PlaneSides: ", static_cast<int>(setup.sides)));
  }
  return absl::OkStatus();
}

ParticleStepResult StepParticleOnPlane(const ParticleOnPlane& setup, const ParticleState1d& state,
                                       double stiffness_n_per_m) {
  ParticleStepResult result;
  result.state = state;
  if (!std::isfinite(state.z_m) || !std::isfinite(state.v_m_per_s) ||
      !std::isfinite(stiffness_n_per_m) || stiffness_n_per_m < 0.0) {
    result.status = PenaltyStatus::kInvalidInput;
    return result;
  }
  const double dt = setup.dt_s;
  const double v_star = state.v_m_per_s - dt * setup.gravity_m_per_s2;
  const Vec3 p(0.0, 0.0, state.z_m);
  const Vec3 p_t1(0.0, 0.0, state.z_m + dt * v_star);
  const PenaltyParams params{stiffness_n_per_m, dt};

  Impulse impulse = HalfSpaceImpulse(setup.model, p, p_t1, params, /*flipped=*/false);
  if (impulse.status == PenaltyStatus::kOk && setup.sides == PlaneSides::kTwoSided) {
    const Impulse above = HalfSpaceImpulse(setup.model, p, p_t1, params, /*flipped=*/true);
    impulse.status = above.status;
    impulse.z_Ns += above.z_Ns;
  }
  if (impulse.status != PenaltyStatus::kOk) {
    result.status = impulse.status;
    return result;
  }
  const double v_next = v_star + impulse.z_Ns / setup.mass_kg;
  result.state = {state.z_m + dt * v_next, v_next};
  result.impulse_Ns = impulse.z_Ns;
  return result;
}

}  // namespace contactsim::core
