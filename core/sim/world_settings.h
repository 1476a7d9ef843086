// WorldSettings: the parameters of a World — its step, gravity and divergence checks, which
// pipeline steps it (pipeline_table.h) and that pipeline's own settings (the penalty pipeline's
// contact model, stiffness and friction, Tang et al. 2012, Sec. 3.2-3.5; the local_global
// solver's options) — and their validation.
//
// One step of length dt [s] moves every vertex on the straight line x(t) = (1 - t) x_t0 + t x_t1,
// t in [0, 1] (body.h). A penetrating feature pair with depth delta [m] and unit normal n feels
// the penalty force F = k delta n [N]; the contact model says how its impulse over the step is
// formed:
//   kDpf           I = dt k delta(1) n(1), delta and n from the closest point at t = 1 and the
//                  face normal by winding (the discrete baseline, Eq. 1-3);
//   kDpfCcdNormal  I = dt k delta(1) n(1) with the collision points and normal tracked from the
//                  first time of contact found by CCD (paper Fig. 8b);
//   kCpf           I = k dt sum_i int_{t_a^i}^{t_b^i} delta(t) n(t) dt over the penetration
//                  intervals, n = m(t) / L_k (closed form, Eq. 8-17);
//   kCpfExact      the same integral with the exact unit normal m(t) / |m(t)| (quadrature);
//   kDpfProximity  I = dt k delta(1) n(1) from a discrete query at t = 1, no CCD, no tracking:
//                  every surface vertex inside another body, delta its distance to the closest
//                  point and n the direction to it (the paper's discrete baseline, SOFA's
//                  proximity detection; discrete_penetration.h). Friction: none or viscous
//                  (Yamane-Nakamura needs tracked anchors and is refused).
// Explicit stepping is stable for roughly dt < sqrt(2 m / k) (CPF, paper Sec. 3.6 and
// supplement C; m the mass behind one contact vertex); friction springs add the same kind of
// bound with k_FP.
//
// Divergence: a step is diverged when any state or energy is non-finite, or when the kinetic
// energy T exceeds energy_growth_factor * (max(E_ref - V, 0) + energy_floor_j), where E_ref =
// T_ref + V_ref is the total mechanical energy at the reference (the first step after the
// content last changed, see World) and V the potential energy now. A passive system has
// T <= E_ref - V (energy conservation with dissipation), so the factor is the tolerated gain.
// The work that user forces and kinematic bodies do is added to E_ref as it is done (World), so
// a pushed body's kinetic energy is matched by the work that pushed it.
#pragma once

#include <cstdint>

#include "absl/status/status.h"
#include "core/common/eigen_types.h"
#include "core/contact/friction/viscous_friction.h"
#include "core/contact/friction/yamane_nakamura.h"

namespace contactsim::core {

enum class ContactModel : uint8_t {
  kDpf = 0,
  kDpfCcdNormal = 1,
  kCpf = 2,
  kCpfExact = 3,
  kDpfProximity = 4,
};

// The stepping scheme of a World (docs/architecture.md): explicit penalty contact (Tang et al.
// 2012, penalty_pipeline.h), implicit hyperelastic local-global steps with non-smooth Newton
// frictional contact (Zeng et al. 2024, local_global_pipeline.h), or Stewart–Trinkle time
// stepping of rigid convex polytopes with the standard or the PEG contact model (Williams et al.
// 2016, rigid_lcp_pipeline.h).
enum class PipelineKind : uint8_t {
  kPenalty = 0,
  kLocalGlobal = 1,
  kRigidLcp = 2,
};

// Parameters of the local-global pipeline (ignored by the penalty pipeline). Each hyperelastic
// body is stepped by its own LocalGlobalSolver (local_global_solver.h) with these options.
struct LocalGlobalSettings {
  int32_t iterations = 10;  // local-global rounds per step, >= 1
  // A vertex (or edge, triangle) closer than this to an obstacle at the start of a step gets a
  // contact for the step [m], >= 0.
  double contact_proximity_m = 5e-3;
  // Coulomb coefficient of every contact (ground planes, static and kinematic bodies) [1], >= 0.
  double friction_coefficient = 0.3;
  int32_t cr_iterations = 24;  // Conjugate Residual iterations per Newton iteration, >= 1
};

// The contact constraints of the rigid_lcp pipeline (docs/rigid_lcp.md): kStandard, one
// unilateral constraint per applicable potential contact (over-constrains at corners, the paper's
// Figs. 2-3); kPeg, the polytope exact-geometry model's unilateral and intercontact constraints.
enum class RigidContactModel : uint8_t { kStandard = 0, kPeg = 1 };

// Parameters of the rigid_lcp pipeline (ignored by the others).
struct RigidLcpSettings {
  RigidContactModel contact_model = RigidContactModel::kPeg;
  // Coulomb coefficient of every contact [1], >= 0 (0: frictionless, no friction rows).
  double friction_coefficient = 0.5;
  // Edges of each contact's polyhedral friction cone, in [3, 64]: 8 keeps a slope test within
  // 1 - cos(pi / 8) = 7.6 % of the Coulomb cone at any yaw.
  int32_t friction_directions = 8;
  // Acceptance of an LCP answer: natural-map residual relative to the problem's scale (lcp.h), in
  // (0, 1e-3].
  double lcp_tolerance = 1e-10;
  // Potential contacts are sought within max(floor, the step's relative motion) [m], > 0.
  double contact_distance_floor_m = 1e-3;
  // Position projection passes after each step, in [0, 10] (polytope_stepper.h): 0 is the
  // paper's stepper; the default 2 removes the penetration its linearization leaves (docs).
  int32_t projection_passes = 2;
  // Islands whose LCP has more unknowns than this are solved by projected Gauss–Seidel on the
  // velocity form (spatial_contact_pgs.h), with pivoting as its fallback, in [0, 4000] (the
  // pivoting limit; 4000 and 0: every island within the limit pivots).
  int32_t direct_max_unknowns = 4000;
  int32_t iterative_max_sweeps = 2000;  // PGS sweeps per island, in [1, 10000]
  double iterative_tolerance_m = 1e-7;  // PGS convergence (velocity residual x h) [m], (0, 1e-3]
  // Spin friction of each contact patch: the radius r of a patch resisting spin about its normal
  // with up to mu r N [m], in [0, 1]; 0 (default): point contacts, which resist no spin (a
  // gripped part then turns slowly about the grip axis). Islands with it are solved by pivoting.
  double torsional_friction_radius_m = 0.0;
};

enum class FrictionModel : uint8_t {
  kNone = 0,
  kYamaneNakamura = 1,  // static spring-damper / dynamic Coulomb (yamane_nakamura.h)
  kViscous = 2,         // f = -c T v (viscous_friction.h)
};

struct FrictionSettings {
  FrictionModel model = FrictionModel::kNone;
  YamaneNakamuraParams yamane_nakamura;  // used when model == kYamaneNakamura
  ViscousFrictionParams viscous;         // used when model == kViscous
};

struct DivergenceSettings {
  // Tolerated growth of the kinetic energy over what the reference energy allows [1]: > 1, or
  // +infinity to turn the energy check off (non-finite states are always caught).
  double energy_growth_factor = 10.0;
  // Energy scale below which growth is not judged [J], > 0: a world at rest has no energy to
  // compare with, and penalty contacts trade some energy with the springs.
  double energy_floor_j = 1e-3;
};

struct WorldSettings {
  PipelineKind pipeline = PipelineKind::kPenalty;
  double dt_s = 1e-3;                             // step length dt [s], > 0
  Vec3 gravity_m_per_s2 = Vec3(0.0, 0.0, -9.81);  // g [m/s^2], finite
  ContactModel contact_model = ContactModel::kCpf;
  double stiffness_n_per_m = 1e4;  // penalty stiffness k [N/m], > 0
  // Normal contact damping as a coefficient of restitution e [1], in [0, 1]: each contact (pair,
  // plane or proximity contact) gets a dashpot c = DashpotCoefficient(e, k, m_eff, dt, scheme)
  // along its normal (contact_damping.h), m_eff its effective mass along the normal at the start
  // of the step. 1 (the default): no dashpot, the paper's undamped penalty contact, bit for bit.
  // The penalty pipeline only.
  double contact_restitution = 1.0;
  // CCD minimum separation d [m], >= 0: pairs closer than d are found as contacts.
  double min_separation_m = 0.0;
  double ccd_tolerance_m = 1e-6;         // CCD root finder length tolerance [m], > 0
  int32_t ccd_max_iterations = 100'000;  // CCD root finder budget, > 0
  // Relative tolerance of the kCpfExact quadrature [1], in (0, 1).
  double cpf_exact_relative_tolerance = 1e-10;
  FrictionSettings friction;
  // Contacts of a body with itself (for bodies whose CollisionFlags allow them; never rigid).
  bool self_collision = false;
  DivergenceSettings divergence;
  LocalGlobalSettings local_global;  // used when pipeline == kLocalGlobal
  RigidLcpSettings rigid_lcp;        // used when pipeline == kRigidLcp
};

// InvalidArgument naming the first bad field (e.g. "dt_s: must be finite and > 0, got 0",
// "friction.yamane_nakamura.mu_static must be finite and >= 0, got -1").
absl::Status ValidateWorldSettings(const WorldSettings& settings);
// The rigid_lcp part of ValidateWorldSettings ("rigid_lcp.friction_directions: ...").
absl::Status ValidateRigidLcpSettings(const RigidLcpSettings& settings);

const char* ContactModelName(ContactModel model);
const char* RigidContactModelName(RigidContactModel model);

}  // namespace contactsim::core
