// Shared part of the cloth scenes of Zeng et al. 2024, Sec. 7 ("Cloth on Knives", Fig. 8;
// "Sharp Corner", Fig. 6; Table 3): a flat square Neo-Hookean membrane (MakeClothGrid, cells x
// cells, no bending unless asked), held horizontally at a given height and released under
// gravity onto obstacles, and the geometric checks the scenes' tests use.
//
// Table 3's cloth rows: rho 1000 kg/m^3, E 1e5 Pa, nu 0.4, h = 0.01 s, 5 local-global
// iterations, 10 CR iterations; thickness 1 mm as the repo's other cloth cases (the paper does
// not state one). Plane stress: lambda = PlaneStressLambda(mu, lambda). The cloth is an open,
// two-sided surface for contact (mesh_contact.h, BodySurfaceKind::kOpenTwoSided).
#pragma once

#include <memory>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "core/common/eigen_types.h"
#include "core/dynamics/fem/material.h"
#include "core/dynamics/local_global/local_global_solver.h"
#include "core/geometry/triangle_mesh.h"

namespace contactsim::core {

struct ClothDropParams {
  double size_m = 1.0;  // square side
  int cells = 16;       // per side: (cells + 1)^2 vertices, 2 cells^2 triangles
  double thickness_m = 1.0e-3;
  MaterialParameters material{1.0e5, 0.4, 1000.0};  // E [Pa], nu, rho [kg/m^3] (Table 3)
  double bending_stiffness_j = 0.0;                 // isometric bending k_b (0: membrane only)
  double time_step_s = 0.01;                        // Table 3
  int iterations = 5;                               // local-global rounds per step (Table 3)
  int cr_iterations = 10;                           // CR iterations per Newton step (Table 3)
  double contact_proximity_m = 0.01;
  // NonsmoothNewtonOptions::friction_compliance_cap: bounds the NCP residual of nearly released
  // friction rows (docs/local_global.md, "Cloth on Knives"); 0: the paper's uncapped E_f.
  double friction_compliance_cap = 100.0;
};

struct ClothDrop {
  explicit ClothDrop(TriangleMesh cloth) : mesh(std::move(cloth)) {}
  TriangleMesh mesh;
  Points3 gravity_n;       // external force per vertex [N], -9.81 m/s^2 along z
  LocalGlobalState state;  // flat at the drop height, at rest, time 0
  double mass_kg = 0.0;
  std::unique_ptr<LocalGlobalSolver> solver;
};

// The cloth centred at (centre.x, centre.y) in the plane z = centre.z, with `options`' obstacles
// (its iterations, proximity, CR count and bending are set from params). InvalidArgument naming
// the parameter for a non-positive size, thickness or time step, cells < 1; material and solver
// errors are passed through.
absl::StatusOr<ClothDrop> BuildClothDrop(const ClothDropParams& params, const Vec3& centre_m,
                                         LocalGlobalOptions options);

// Whether segment (p0, p1) crosses triangle (a, b, c) (closed test: touching counts).
bool SegmentCrossesTriangle(const Vec3& p0, const Vec3& p1, const Vec3& a, const Vec3& b,
                            const Vec3& c);

}  // namespace contactsim::core
