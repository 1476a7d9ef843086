#include "core/geometry/mass_properties.h"

#include <Eigen/Geometry>
#include <cmath>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "core/common/status_macros.h"

namespace contactsim::core {
namespace {

// Running integrals over signed tetrahedra, positions relative to a reference point o near the
// mesh (so far-away meshes do not lose digits):
//   V = sum V_t,  S1 = \int r dV,  S2 = \int r r^T dV   (r = x - o).
// For a tet with corners p0..p3 and signed volume V_t (exact for linear tets):
//   \int r dV = V_t (p0 + p1 + p2 + p3) / 4,
//   \int r r^T dV = V_t / 20 (sum_i p_i p_i^T + (sum_i p_i)(sum_i p_i)^T).
struct Moments {
  double volume = 0.0;
  Vec3 first = Vec3::Zero();
  Mat3 second = Mat3::Zero();

  void AddTet(const Vec3& p0, const Vec3& p1, const Vec3& p2, const Vec3& p3) {
    const double v = (p1 - p0).dot((p2 - p0).cross(p3 - p0)) / 6.0;
    const Vec3 sum = p0 + p1 + p2 + p3;
    volume += v;
    first += v * sum / 4.0;
    second += v / 20.0 *
              (p0 * p0.transpose() + p1 * p1.transpose() + p2 * p2.transpose() +
               p3 * p3.transpose() + sum * sum.transpose());
  }
};

absl::Status CheckDensity(double density_kg_per_m3) {
  if (!std::isfinite(density_kg_per_m3) || density_kg_per_m3 <= 0.0) {
    return absl::InvalidArgumentError(
        absl::StrCat("density_kg_per_m3: must be positive and finite, got ", density_kg_per_m3));
  }
  return absl::OkStatus();
}

absl::StatusOr<MassProperties> FromMoments(const Moments& m, const Vec3& origin,
                                           double density_kg_per_m3) {
  if (!(m.volume > 0.0)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "enclosed volume is ", m.volume, " m^3, not positive (are the faces oriented inward?)"));
  }
  MassProperties out;
  out.volume_m3 = m.volume;
  out.mass_kg = density_kg_per_m3 * m.volume;
  const Vec3 d = m.first / m.volume;  // centre of mass relative to origin
  out.center_of_mass_m = origin + d;
  // Second moment about the centre of mass (parallel-axis shift), then I = rho (tr(C) 1 - C).
  Mat3 c = m.second - m.volume * d * d.transpose();
  c = 0.5 * (c + c.transpose());
  out.inertia_about_com_kg_m2 = density_kg_per_m3 * (c.trace() * Mat3::Identity() - c);
  return out;
}

}  // namespace

absl::StatusOr<MassProperties> ComputeMassProperties(const TriangleMesh& mesh,
                                                     double density_kg_per_m3) {
  RETURN_IF_ERROR(CheckDensity(density_kg_per_m3));
  if (!mesh.is_closed()) {
    return absl::FailedPreconditionError(
        "mass properties need a closed, consistently oriented surface; this mesh is open");
  }
  const Points3& x = mesh.vertices();
  const IndexTriples& faces = mesh.faces();
  // Reference point: the mean of the face corners (only vertices of the surface matter).
  Vec3 origin = Vec3::Zero();
  for (int f = 0; f < mesh.num_faces(); ++f) {
    for (int k = 0; k < 3; ++k) origin += x.row(faces(f, k)).transpose();
  }
  origin /= 3.0 * mesh.num_faces();
  // Divergence theorem: the solid is the signed sum of tets (o, x0, x1, x2) over the faces.
  Moments m;
  for (int f = 0; f < mesh.num_faces(); ++f) {
    m.AddTet(Vec3::Zero(), x.row(faces(f, 0)).transpose() - origin,
             x.row(faces(f, 1)).transpose() - origin, x.row(faces(f, 2)).transpose() - origin);
  }
  return FromMoments(m, origin, density_kg_per_m3);
}

absl::StatusOr<MassProperties> ComputeMassProperties(const TetMesh& mesh,
                                                     double density_kg_per_m3) {
  RETURN_IF_ERROR(CheckDensity(density_kg_per_m3));
  const Points3& x = mesh.vertices();
  const IndexQuads& tets = mesh.tets();
  Vec3 origin = Vec3::Zero();
  for (int t = 0; t < mesh.num_tets(); ++t) {
    for (int k = 0; k < 4; ++k) origin += x.row(tets(t, k)).transpose();
  }
  origin /= 4.0 * mesh.num_tets();
  Moments m;
  for (int t = 0; t < mesh.num_tets(); ++t) {
    m.AddTet(x.row(tets(t, 0)).transpose() - origin, x.row(tets(t, 1)).transpose() - origin,
             x.row(tets(t, 2)).transpose() - origin, x.row(tets(t, 3)).transpose() - origin);
  }
  return FromMoments(m, origin, density_kg_per_m3);
}

}  // namespace contactsim::core
