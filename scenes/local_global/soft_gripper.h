// Scene of Zeng et al. 2024, Sec. 7.8 ("Grabbing Raptor", Fig. 11): a two-finger cable-driven soft
// gripper lifts a soft object by friction. Three deformable bodies in ONE local-global system
// (LocalGlobalSolver::Create with bodies; contacts between them from body_contact.h):
//
//   object   a soft cube (side a, Table 3's material: rho 10 kg/m^3, E 2e4 Pa, nu 0.1) resting on
//            the floor half-space z >= 0 (friction mu_floor); the paper's raptor mesh is not
//            reproduced.
//   fingers  two tet bars (thickness t along x, width w along y, length l along z) hanging on
//            either side of the object (inner faces `clearance_m` from it, bottoms
//            `finger_floor_gap_m` above the floor); their top-face vertices are hard-pinned to the
//            base, which is kinematic: it holds, then rises by `rise_m` at `rise_speed_mps` (the
//            pinned targets of LocalGlobalSolver::Step, PinnedTargets below).
//   cables   one unilateral cable per finger (constraint_terms.h) routed through the vertices of
//            the finger's inner face along its middle line, from the top (pinned) to the tip. Its
//            length is shortened from the rest length l by `cable_shortening` * l over
//            `grasp_s`, which compresses the inner side and curls the finger inward onto the
//            object; then the base rises and the object is lifted by friction (mu_body between
//            the fingers and the object).
// Timeline: [0, grasp_s] cables shorten, [grasp_s, grasp_s + settle_s] hold,
// then the base rises rise_m at rise_speed_mps, then holds for hold_s.
// All quantities in SI units; gravity -9.81 m/s^2 along z.
#pragma once

#include <memory>
#include <vector>

#include "absl/status/statusor.h"
#include "core/dynamics/fem/material.h"
#include "core/dynamics/local_global/local_global_solver.h"

namespace contactsim::core {

struct SoftGripperParams {
  double object_size_m = 0.06;                           // a
  int object_cells = 3;                                  // per side
  MaterialParameters object_material{2.0e4, 0.1, 10.0};  // Table 3, "Grabbing Raptor"
  double finger_thickness_m = 0.02, finger_width_m = 0.04, finger_length_m = 0.12;
  int finger_cells_x = 2, finger_cells_y = 2, finger_cells_z = 8;
  MaterialParameters finger_material{3.0e5, 0.3, 1000.0};
  double clearance_m = 0.004;        // object side to finger inner face at rest
  double finger_floor_gap_m = 0.01;  // finger bottom above the floor
  double cable_shortening = 0.08;    // fraction of the finger length pulled in
  double cable_compliance_m_per_n = 1e-3;
  double grasp_s = 0.5, settle_s = 0.25;
  double rise_m = 0.04, rise_speed_mps = 0.08, hold_s = 0.25;
  double floor_friction = 0.5, body_friction = 0.8;
  double time_step_s = 1.0 / 60.0;
  int iterations = 10;
};

struct SoftGripperScene {
  std::unique_ptr<LocalGlobalSolver> solver;
  LocalGlobalState state;  // at rest, time 0
  Points3 gravity_n;       // external force per vertex [N]
  Points3 pinned_rest_m;   // rest positions of the pinned (base) vertices, options order
  int32_t object_begin = 0, object_end = 0;  // object vertex range (body 0)
  double object_mass_kg = 0.0;
  double rise_start_s = 0.0;  // grasp_s + settle_s
  double rise_end_s = 0.0;    // rise_start_s + rise_m / rise_speed_mps
  double duration_s = 0.0;    // rise_end_s + hold_s
  double rise_speed_mps = 0.0;
  double rise_m = 0.0;

  // The base's height above its rest position at time t [m] and the pinned targets there.
  double BaseHeight(double time_s) const;
  Points3 PinnedTargets(double time_s) const;
};

// InvalidArgument naming the parameter for non-positive sizes, cells, times, speeds or
// compliance, a shortening outside [0, 0.5) (0: the fingers never close), negative friction;
// material and solver errors are passed through.
absl::StatusOr<SoftGripperScene> BuildSoftGripper(const SoftGripperParams& params);

}  // namespace contactsim::core
