#include "core/geometry/polytope_mass_properties.h"

#include <cmath>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "core/common/status_macros.h"
#include "core/geometry/triangle_mesh.h"

namespace contactsim::core {
namespace {

// Face fans: a convex polygon (v0, v1, ..., vk) becomes (v0, vi, vi+1), counter-clockwise still.
absl::StatusOr<TriangleMesh> FanTriangulation(const ConvexPolytope& polytope) {
  int triangles = 0;
  for (int f = 0; f < polytope.num_faces(); ++f) {
    triangles += static_cast<int>(polytope.face_vertices(f).size()) - 2;
  }
  IndexTriples faces(triangles, 3);
  int t = 0;
  for (int f = 0; f < polytope.num_faces(); ++f) {
    const auto loop = polytope.face_vertices(f);
    for (size_t k = 1; k + 1 < loop.size(); ++k) faces.row(t++) << loop[0], loop[k], loop[k + 1];
  }
  MeshOptions options;
  options.require_closed = true;
  return TriangleMesh::Create(polytope.vertices(), std::move(faces), options);
}

absl::StatusOr<double> CheckMass(double mass_kg) {
  if (!std::isfinite(mass_kg) || mass_kg <= 0.0) {
    return absl::InvalidArgumentError(
        absl::StrCat("mass_kg: must be positive and finite, got ", mass_kg));
  }
  return mass_kg;
}

}  // namespace

absl::StatusOr<MassProperties> ComputeMassProperties(const ConvexPolytope& polytope,
                                                     double density_kg_per_m3) {
  ASSIGN_OR_RETURN(const TriangleMesh mesh, FanTriangulation(polytope));
  return ComputeMassProperties(mesh, density_kg_per_m3);
}

absl::StatusOr<MassProperties> ComputeMassProperties(const PolytopeUnion& body,
                                                     double density_kg_per_m3) {
  MassProperties total;
  std::vector<MassProperties> parts;
  for (const ConvexPolytope& piece : body.pieces()) {
    ASSIGN_OR_RETURN(MassProperties part, ComputeMassProperties(piece, density_kg_per_m3));
    total.volume_m3 += part.volume_m3;
    total.mass_kg += part.mass_kg;
    total.center_of_mass_m += part.mass_kg * part.center_of_mass_m;
    parts.push_back(std::move(part));
  }
  total.center_of_mass_m /= total.mass_kg;
  for (const MassProperties& part : parts) {
    const Vec3 r = part.center_of_mass_m - total.center_of_mass_m;
    total.inertia_about_com_kg_m2 +=
        part.inertia_about_com_kg_m2 +
        part.mass_kg * (r.squaredNorm() * Mat3::Identity() - r * r.transpose());
  }
  return total;
}

absl::StatusOr<MassProperties> ComputeMassPropertiesForMass(const ConvexPolytope& polytope,
                                                            double mass_kg) {
  ASSIGN_OR_RETURN(const double mass, CheckMass(mass_kg));
  ASSIGN_OR_RETURN(const MassProperties unit, ComputeMassProperties(polytope, 1.0));
  return ComputeMassProperties(polytope, mass / unit.volume_m3);
}

absl::StatusOr<MassProperties> ComputeMassPropertiesForMass(const PolytopeUnion& body,
                                                            double mass_kg) {
  ASSIGN_OR_RETURN(const double mass, CheckMass(mass_kg));
  ASSIGN_OR_RETURN(const MassProperties unit, ComputeMassProperties(body, 1.0));
  return ComputeMassProperties(body, mass / unit.volume_m3);
}

}  // namespace contactsim::core
