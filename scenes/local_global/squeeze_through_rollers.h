// Scene of Zeng et al. 2024, Sec. 7, Fig. 5 ("Squeezing Ball", after Li et al. 2020): a soft
// Neo-Hookean ball dropped onto two counter-rotating cylinders whose gap is narrower than the
// ball; friction at the rolling surfaces (mu 0.5) pulls the ball into the gap, squeezes it
// through and lets it fall out below, where it regains its shape.
//
//   rollers   two closed cylinders (MakeCylinder, `roller_segments` facets) of radius r and
//             length L along y, axes at x = -+(r + gap / 2), z = 0 (the "axis plane" z = 0);
//             triangle-mesh obstacles rotating about their own axes at w = s / r (s the surface
//             speed), inward: the left one at +w y, the right one at -w y, so their surfaces
//             move down (-z) where they face each other. The facet vertices lie on radius r:
//             the narrowest gap is `gap_m` between vertices and up to 2 r (1 - cos(pi / N))
//             wider across two facets.
//   ball      MakeTetSphere(R, resolution) ((resolution + 1)^3 vertices, 6 resolution^3 tets),
//             centred at x = y = 0 and `drop_clearance_m` above the rollers' surfaces, at rest;
//             gravity -9.81 m/s^2 along z.
// Defaults: the paper's ball material (rho 1000 kg/m^3, E 1e4 Pa, nu 0.4), Table 3's solver
// settings (h = 0.01 s, 5 local-global iterations, 10 CR iterations), a coarse ball (4 cells
// across: 125 vertices) for tests; resolutions 18 (6,859 vertices, 34,992 tets) and 24
// (15,625 / 82,944) stand for the paper's 7.1k / 37.5k and 14.7k / 81.7k meshes.
#pragma once

#include <memory>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "core/dynamics/fem/material.h"
#include "core/dynamics/local_global/local_global_solver.h"
#include "core/dynamics/local_global/mesh_contact.h"
#include "core/geometry/tet_mesh.h"

namespace contactsim::core {

struct SqueezeThroughRollersParams {
  double ball_radius_m = 0.1;
  int ball_resolution = 4;  // MakeTetSphere cells across
  MaterialModel model = MaterialModel::kNeoHookean;
  MaterialParameters material{1.0e4, 0.4, 1000.0};  // E [Pa], nu, rho [kg/m^3]
  double roller_radius_m = 0.2;
  double roller_length_m = 0.5;
  int roller_segments = 64;
  double gap_m = 0.1;                     // < 2 R: the ball is squeezed (here to half)
  double roller_surface_speed_mps = 0.4;  // s = w r: > 0 rolls inward, < 0 outward, 0 still
  double friction_coefficient = 0.5;      // both rollers
  double drop_clearance_m = 0.005;        // ball surface to roller surface at the start
  double time_step_s = 0.01;
  int iterations = 5;      // local-global rounds per step
  int cr_iterations = 10;  // per Newton iteration of the contact solve
  double contact_proximity_m = 0.01;
};

struct SqueezeThroughRollersScene {
  explicit SqueezeThroughRollersScene(TetMesh ball) : mesh(std::move(ball)) {}
  TetMesh mesh;
  std::vector<TriangleMeshObstacle> rollers;  // left (x < 0), right
  Points3 gravity_n;                          // external force per vertex [N]
  LocalGlobalState state;                     // at rest above the gap, time 0
  double ball_mass_kg = 0.0;
  double roller_angular_speed_radps = 0.0;    // w = s / r
  std::unique_ptr<LocalGlobalSolver> solver;  // options: rollers as mesh obstacles

  // Depth of the deepest vertex inside either roller at time_s (0 if none) [m]: the rollers are
  // convex, so a point's depth is -max over the posed faces of n . (p - a).
  double MaxRollerPenetration(const Points3& x_m, double time_s) const;
  // Mass-weighted centre of the ball [m].
  Vec3 Centre(const Points3& x_m) const;
};

// InvalidArgument naming the parameter ("params.gap_m: ...") for non-positive sizes, a
// non-finite speed, a gap not below the ball's diameter, fewer than 8 segments, a resolution or
// iteration count below 1, a negative friction coefficient or clearance; mesh, material and
// solver errors are passed through.
absl::StatusOr<SqueezeThroughRollersScene> BuildSqueezeThroughRollers(
    const SqueezeThroughRollersParams& params);

}  // namespace contactsim::core
