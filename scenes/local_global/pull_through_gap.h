// Scene of Zeng et al. 2024, Sec. 7 ("Pulling Wooper", Fig. 3; "Crossing Gingerbread Man",
// Fig. 1): a stiff elastic body pulled through a narrowing gap by a moving positional constraint.
// The paper's obstacles are meshes (two cylinders); the local-global step has half-spaces only so
// far, so the gap here is the wedge between two planes:
//
//   floor    z >= 0 (normal +z), friction mu
//   ceiling  z <= c0 - s x (a plane tilted down along +x with slope s), friction mu
//
// A bar (length L along x, width W, height H, resting on the floor with its front face at
// x = 0) is grabbed by a compliant target on its front-face vertices (compliance alpha each) that
// moves along +x at speed V for distance D, then holds. c0 is chosen so that the ceiling height
// at the front face's final position is `final_gap_m` (< H: the bar is squeezed there); at the
// start the ceiling is final_gap_m + s D above the front face. So the bar slides freely first
// (pulled against floor friction, mu m g at constant speed), then is squeezed into the gap and
// deforms to fit it. All quantities in SI units; gravity -9.81 m/s^2 along z.
#pragma once

#include <memory>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "core/dynamics/fem/material.h"
#include "core/dynamics/local_global/local_global_solver.h"
#include "core/geometry/tet_mesh.h"

namespace contactsim::core {

struct PullThroughGapParams {
  double length_m = 0.6, width_m = 0.1, height_m = 0.1;
  int cells_x = 12, cells_y = 2, cells_z = 2;
  MaterialModel model = MaterialModel::kArap;
  MaterialParameters material{1.0e6, 0.3, 1000.0};  // E [Pa], nu, rho [kg/m^3]
  double friction_coefficient = 0.2;                // both planes
  double ceiling_slope = 0.1;                       // s = -dc/dx [-], > 0
  double final_gap_m = 0.08;                        // ceiling height at the pull's end, > 0
  double pull_speed_mps = 0.2;                      // V > 0
  double pull_distance_m = 0.4;                     // D > 0
  double compliance_m_per_n = 1.0e-5;               // per grabbed vertex
  double hold_s = 0.5;                              // after the pull
  double time_step_s = 1.0 / 60.0;
  int iterations = 10;  // local-global rounds per step
};

struct PullThroughGapScene {
  explicit PullThroughGapScene(TetMesh bar) : mesh(std::move(bar)) {}
  TetMesh mesh;
  std::vector<int32_t> grabbed;              // front-face vertices (the target's vertex set)
  std::vector<HalfSpaceObstacle> obstacles;  // floor, ceiling
  Points3 gravity_n;                         // external force per vertex [N]
  LocalGlobalState state;                    // at rest on the floor, time 0
  double pull_end_s = 0.0;                   // D / V
  double duration_s = 0.0;                   // pull_end_s + hold_s
  double bar_mass_kg = 0.0;
  std::unique_ptr<LocalGlobalSolver> solver;  // options: the target (constraint 0), obstacles

  // Ceiling height above x [m] and the signed distance of p to either plane (> 0 free) [m].
  double CeilingHeight(double x_m) const;
  double MinGap(const Points3& x_m) const;
};

// InvalidArgument naming the parameter for non-positive sizes, cells, speed, distance, slope,
// gap or compliance, a gap not below the bar's height, a negative friction coefficient or hold;
// material and solver errors are passed through.
absl::StatusOr<PullThroughGapScene> BuildPullThroughGap(const PullThroughGapParams& params);

}  // namespace contactsim::core
