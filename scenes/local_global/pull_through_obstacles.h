// Scene of Zeng et al. 2024, Sec. 7, Fig. 1 and Table 3 ("Crossing Gingerbread Man"): a stiff
// elastic body pulled through thin obstacles by a moving positional constraint. The paper's body
// is a character mesh; here it is a tet box (length L along x, width W along y, height H), so
// that "squeezed" and "back to its rest shape" are measured on well-defined extents. It rests on
// a frictional floor z >= 0 (half-space) with its front face at x = 0 and |y| <= W / 2.
//
// Obstacles: `gates` gates along x, gate g starting at x_g = first_gate_x_m + g gate_spacing_m.
// Each gate is two thin plates, mirror images in y = 0, each a two-sided sheet
// (TriangleMeshObstacle::two_sided, contact thickness plate_thickness_m) of two vertical quads:
//   funnel   from (x_g, +-mouth_width_m / 2) to (x_g + funnel_length_m, +-slot_width_m / 2)
//   slot     from there to (x_g + funnel_length_m + slot_length_m, +-slot_width_m / 2)
// spanning z in [-plate_below_floor_m, plate_top_m]. Widths are between the plates' mid-planes;
// slot_width_m < W, so the body must be squeezed to slot_width_m - plate_thickness_m to pass.
//
// The body is pulled by a compliant target (compliance_m_per_n per vertex) on its front-face
// vertices with |y| <= grab_half_width_m (inside the slot, so the handle does not hold the front
// corners against the funnel): it moves along +x at pull_speed_mps for pull_distance_m, then
// holds for hold_s. Gravity -9.81 m/s^2 along z. The default is the coarse test size; Table 3's
// sizes (bench `obstacles11k`, `obstacles19k`) are 48 x 14 x 14 cells (11,025 vertices, 56,448
// tets; paper 11.1k / 48.2k) and 59 x 17 x 17 (19,440 / 102,306; paper 19.5k / 93.6k).
#pragma once

#include <memory>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "core/dynamics/fem/material.h"
#include "core/dynamics/local_global/local_global_solver.h"
#include "core/geometry/tet_mesh.h"

namespace contactsim::core {

struct PullThroughObstaclesParams {
  double length_m = 0.3, width_m = 0.1, height_m = 0.1;
  int cells_x = 6, cells_y = 4, cells_z = 2;
  MaterialModel model = MaterialModel::kNeoHookean;
  MaterialParameters material{1.0e6, 0.3, 1000.0};  // Table 3's Gingerbread Man: E, nu, rho
  double friction_coefficient = 0.2;                // floor and plates
  int gates = 2;
  double first_gate_x_m = 0.15;  // > 0: the body slides freely before the first funnel
  double gate_spacing_m = 0.3;   // >= funnel + slot length (gates do not overlap)
  double mouth_width_m = 0.14;   // > width_m + plate_thickness_m: the body starts inside
  double slot_width_m = 0.08;    // < width_m: squeezed
  double funnel_length_m = 0.06;
  double slot_length_m = 0.06;
  double plate_thickness_m = 2e-3;  // contact thickness of the two-sided plates
  double plate_below_floor_m = 0.02;
  double plate_top_m = 0.2;         // > height_m
  double grab_half_width_m = 0.03;  // < (slot_width_m - plate_thickness_m) / 2
  double pull_speed_mps = 0.5;
  double pull_distance_m = 1.0;  // must carry the back past the last gate
  double compliance_m_per_n = 1.0e-5;
  double hold_s = 0.4;
  double time_step_s = 0.01;
  int iterations = 5;      // local-global rounds per step (Table 3)
  int cr_iterations = 10;  // per Newton iteration of the contact solve (Table 3)
  double contact_proximity_m = 0.01;
};

struct PullThroughObstaclesScene {
  explicit PullThroughObstaclesScene(TetMesh body) : mesh(std::move(body)) {}
  TetMesh mesh;
  std::vector<int32_t> grabbed;              // the target's vertices
  std::vector<TriangleMeshObstacle> plates;  // 2 per gate (y > 0 first)
  std::vector<double> gate_x_m;              // mouth of each gate
  double slot_start_offset_m = 0.0;          // funnel_length_m: slot begins at gate_x + this
  double slot_end_offset_m = 0.0;            // funnel + slot length: the gate's exit
  double slot_width_m = 0.0, plate_thickness_m = 0.0, plate_top_m = 0.0, plate_bottom_m = 0.0;
  Points3 gravity_n;        // external force per vertex [N]
  LocalGlobalState state;   // at rest on the floor, time 0
  double pull_end_s = 0.0;  // D / V
  double duration_s = 0.0;  // pull_end_s + hold_s
  double body_mass_kg = 0.0;
  std::unique_ptr<LocalGlobalSolver> solver;  // options: the target (constraint 0), obstacles

  // x of the last gate's exit [m].
  double LastExitX() const { return gate_x_m.back() + slot_end_offset_m; }
  // Deepest a vertex reaches into a plate's contact slab [m] (<= 0: none inside): for each plate
  // quad and each vertex whose projection falls on the quad, half the thickness minus the
  // signed distance towards the channel's side (a vertex through the plate counts with its full
  // depth). Vertices only: a plate edge poking into a body face is not measured.
  double MaxPlatePenetration(const Points3& x_m) const;
  // Extent along y [m] of the vertices with x in [x_lo, x_hi] (0 when there are none), and how
  // many there are.
  double WidthBetween(const Points3& x_m, double x_lo, double x_hi, int* count = nullptr) const;
};

// InvalidArgument naming the parameter for non-positive sizes, cells, counts, speed, distance,
// compliance or step; a slot not narrower than the body, a mouth the body does not fit in, gates
// that overlap, plates lower than the body, a grab wider than the slot, a pull that does not
// carry the body's back past the last gate, a negative friction coefficient or hold; material
// and solver errors are passed through.
absl::StatusOr<PullThroughObstaclesScene> BuildPullThroughObstacles(
    const PullThroughObstaclesParams& params);

// The gates' plates of the scene as obstacles (two two-sided sheets of two quads per gate).
std::vector<TriangleMeshObstacle> GatePlates(const PullThroughObstaclesParams& params);

}  // namespace contactsim::core
