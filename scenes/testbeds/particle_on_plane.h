// One particle on a ground plane in 1D (Tang et al. 2012, Sec. 3.6 and supplementary C): the test
// bed of the paper's stability and robustness analysis of penalty contact, stepped with the
// library's own contact kernels (dpf.h for the discrete force, static_plane.h for CPF), so that
// the analysis validates the kernels rather than a copy of their formulas.
//
// The particle, of mass m [kg], is the vertex p = (0, 0, z) [m] with velocity (0, 0, v) [m/s];
// the plane is z = 0 with normal +z, so the penetration depth is delta = -z [m]; gravity is
// (0, 0, -g) with g [m/s^2]. A step of length dt [s] with penalty stiffness k [N/m] (an argument
// of every step, so a caller can vary it in time) is symplectic Euler in the predict/correct form
// of body.h and the paper's Eq. 7:
//   v* = v - dt g,   z_t1 = z + dt v*         prediction with all forces but contact
//   v+ = v* + I / m, z+ = z + dt v+           correction with the contact impulse I [N s] along +z
// and the impulse I by the contact model:
//   kDpfAtStart         I = dt k max(-z, 0): the discrete penalty force at the particle's position
//                       at the start of the step, held over the step. This is the "symplectic
//                       Euler" of supplementary C, Eq. 24-25 (force at x(t), i.e. DPF at t = 1 of
//                       the step just taken). DpfVertexFace on the particle at rest at p.
//   kDpfAtPredictedEnd  I = dt k max(-z_t1, 0): DPF at t = 1 of the predicted trajectory, as a
//                       pipeline that applies dpf.h to its CCD trajectories does (the kDpf ground
//                       planes of penalty_pipeline.h). DpfVertexFace on the trajectory p -> p_t1.
//   kCpf                I = k dt int_0^1 max(-(1 - t) z - t z_t1, 0) dt: the continuous penalty
//                       impulse along the predicted trajectory (Eq. 7, supplementary Eq. 27-29).
//                       CpfVertexStaticPlane on p -> p_t1.
// Two-sided (PlaneSides::kTwoSided) adds the same kernel against the coincident half-space with
// normal -z (penetrated where z > 0). Because max(-z, 0) - max(z, 0) = -z, the two impulses sum
// to that of the two-sided linear spring F = -k z "centred at x = 0" of supplementary Eq. 22,
// for every state: the step is then exactly the linear update the paper analyses, also where the
// particle would leave a one-sided plane.
//
// Linear regime (two-sided, or one-sided with delta > 0 at both ends of every step), g = 0,
// omega^2 = k / m, s = (omega dt)^2: (z+, v+) = A (z, v) with
//   kDpfAtStart         A = [1 - s, dt;            -omega^2 dt, 1      ]   (suppl. Eq. 26)
//   kDpfAtPredictedEnd  A = [1 - s, dt (1 - s);    -omega^2 dt, 1 - s  ]
//   kCpf                A = [1 - s, dt (1 - s/2);  -omega^2 dt, 1 - s/2]   (suppl. Eq. 30)
// with det A = 1, 1 - s, 1 - s/2 and tr A = 2 - s, 2 - 2 s, 2 - 3 s / 2. Both eigenvalues lie in
// the closed unit disc iff |det A| <= 1 and |tr A| <= 1 + det A, i.e. for
//   kDpfAtStart         dt <= 2 sqrt(m / k)        (|lambda| = 1: critically stable, undamped)
//   kDpfAtPredictedEnd  dt <= 2 sqrt(m / (3 k))    (|lambda|^2 = 1 - s while complex: damped)
//   kCpf                dt <= sqrt(2 m / k)        (|lambda|^2 = 1 - s / 2 while complex: damped)
// (tests/physics/ checks these bounds and the paper's perturbation experiment with this file).
#pragma once

#include <cstdint>

#include "absl/status/status.h"
#include "core/contact/penalty/penalty_types.h"

namespace contactsim::core {

enum class PlaneContactModel : uint8_t {
  kDpfAtStart = 0,
  kDpfAtPredictedEnd = 1,
  kCpf = 2,
};

enum class PlaneSides : uint8_t {
  kOneSided = 0,  // the ground plane: force only while z < 0
  kTwoSided = 1,  // the linear spring -k z of supplementary Eq. 22 on both sides of z = 0
};

struct ParticleOnPlane {
  double mass_kg = 1.0;            // m [kg], > 0
  double gravity_m_per_s2 = 9.81;  // g [m/s^2], acting along -z; finite, any sign
  double dt_s = 0.0;               // dt [s], >= 0
  PlaneContactModel model = PlaneContactModel::kCpf;
  PlaneSides sides = PlaneSides::kOneSided;
};

// InvalidArgument (naming the field) unless mass_kg is finite and > 0, gravity_m_per_s2 finite,
// dt_s finite and >= 0, and model and sides are enumerators. Call once per setup; the step then
// trusts it.
absl::Status ValidateParticleOnPlane(const ParticleOnPlane& setup);

struct ParticleState1d {
  double z_m = 0.0;        // height above the plane [m]; < 0 below it
  double v_m_per_s = 0.0;  // velocity along +z [m/s]
};

struct ParticleStepResult {
  // kInvalidInput for a non-finite state or a non-finite or negative stiffness; the state is then
  // returned unchanged and the impulse is 0.
  PenaltyStatus status = PenaltyStatus::kOk;
  ParticleState1d state;    // after the step
  double impulse_Ns = 0.0;  // I, the contact impulse on the particle along +z over the step [N s]
};

// One step of `setup` (validated) from `state` with stiffness k = stiffness_n_per_m [N/m].
ParticleStepResult StepParticleOnPlane(const ParticleOnPlane& setup, const ParticleState1d& state,
                                       double stiffness_n_per_m);

}  // namespace contactsim::core
