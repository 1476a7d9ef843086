#include "scenes/local_global/cloth_drop.h"

#include <Eigen/Geometry>
#include <cmath>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "core/geometry/generators.h"
#include "scenes/local_global/scene_backend.h"

namespace contactsim::core {

absl::StatusOr<ClothDrop> BuildClothDrop(const ClothDropParams& p, const Vec3& centre_m,
                                         LocalGlobalOptions options) {
  for (const auto& [value, field] :
       {std::pair{p.size_m, "cloth.size_m"}, std::pair{p.thickness_m, "cloth.thickness_m"},
        std::pair{p.time_step_s, "cloth.time_step_s"}}) {
    if (!(std::isfinite(value) && value > 0.0)) {
      return absl::InvalidArgumentError(
          absl::StrCat("params.", field, ": must be finite and > 0, got ", value));
    }
  }
  if (p.cells < 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("params.cloth.cells: must be >= 1, got ", p.cells));
  }
  auto material = MakeMaterial(MaterialModel::kNeoHookean, p.material);
  if (!material.ok()) return material.status();
  material->lambda = PlaneStressLambda(material->mu, material->lambda);
  auto grid = MakeClothGrid(p.size_m, p.size_m, p.cells, p.cells);
  if (!grid.ok()) return grid.status();
  Points3 x = grid->vertices();
  x.rowwise() += centre_m.transpose();
  auto mesh = TriangleMesh::Create(x, grid->faces());
  if (!mesh.ok()) return mesh.status();
  ClothDrop drop(*std::move(mesh));
  options.iterations = p.iterations;
  options.contact.cr_iterations = p.cr_iterations;
  options.contact.friction_compliance_cap = p.friction_compliance_cap;
  options.contact_proximity_m = p.contact_proximity_m;
  options.bending_stiffness_j = p.bending_stiffness_j;
  auto solver = LocalGlobalSolver::Create(drop.mesh, p.thickness_m, *material, p.time_step_s,
                                          options, SceneBackend());
  if (!solver.ok()) return solver.status();
  drop.solver = *std::move(solver);
  const int n = drop.mesh.num_vertices();
  drop.mass_kg = drop.solver->lumped_mass_kg().sum();
  drop.gravity_n = Points3::Zero(n, 3);
  drop.gravity_n.col(2) = -9.81 * drop.solver->lumped_mass_kg();
  drop.state = {drop.mesh.vertices(), Points3::Zero(n, 3), 0.0};
  return drop;
}

bool SegmentCrossesTriangle(const Vec3& p0, const Vec3& p1, const Vec3& a, const Vec3& b,
                            const Vec3& c) {
  // Signed volumes: the segment's ends on opposite sides of the plane (or on it), and the line
  // passing inside the triangle (the three edge volumes of one sign).
  const Vec3 n = (b - a).cross(c - a);
  const double s0 = n.dot(p0 - a), s1 = n.dot(p1 - a);
  if ((s0 > 0.0 && s1 > 0.0) || (s0 < 0.0 && s1 < 0.0) || (s0 == 0.0 && s1 == 0.0)) return false;
  const Vec3 d = p1 - p0;
  const double va = d.dot((b - p0).cross(c - p0));
  const double vb = d.dot((c - p0).cross(a - p0));
  const double vc = d.dot((a - p0).cross(b - p0));
  return (va >= 0.0 && vb >= 0.0 && vc >= 0.0) || (va <= 0.0 && vb <= 0.0 && vc <= 0.0);
}

}  // namespace contactsim::core
