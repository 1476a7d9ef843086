// Mass properties of a closed, outward-oriented triangle mesh filled with uniform density rho:
//   V = \int_Omega dV,  m = rho V,  c = (1/V) \int_Omega x dV,
//   I_c = rho \int_Omega (|r|^2 I - r r^T) dV with r = x - c,
// computed exactly by the divergence theorem over signed tetrahedra (origin, x0, x1, x2).
#pragma once

#include "absl/status/statusor.h"
#include "core/common/eigen_types.h"
#include "core/geometry/tet_mesh.h"
#include "core/geometry/triangle_mesh.h"

namespace contactsim::core {

struct MassProperties {
  double volume_m3 = 0.0;
  double mass_kg = 0.0;
  Vec3 center_of_mass_m = Vec3::Zero();
  Mat3 inertia_about_com_kg_m2 = Mat3::Zero();  // symmetric positive definite
};

// FailedPrecondition if the mesh is not closed, InvalidArgument for density <= 0 or non-finite,
// or if the enclosed volume is not positive (inward-oriented faces).
absl::StatusOr<MassProperties> ComputeMassProperties(const TriangleMesh& mesh,
                                                     double density_kg_per_m3);
absl::StatusOr<MassProperties> ComputeMassProperties(const TetMesh& mesh, double density_kg_per_m3);

}  // namespace contactsim::core
