// What the pull-through scenes share (Zeng et al. 2024, Sec. 7): the pulled tet box, lying on the
// floor z = 0 with its front face at x = 0 and centred on y = 0, and its "grab and pull" handle, a
// compliant position target on the grabbed vertices whose points start where the vertices are and
// move distance_m along +x at constant speed until end_s, then hold.
#pragma once

#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "core/common/eigen_types.h"
#include "core/dynamics/local_global/constraint_terms.h"
#include "core/dynamics/local_global/local_global_solver.h"
#include "core/geometry/generators.h"
#include "core/geometry/tet_mesh.h"
#include "scenes/local_global/scene_backend.h"

namespace contactsim::core {

// A length x width x height box of cells_x x cells_y x cells_z cells (MakeTetBox's tets).
inline absl::StatusOr<TetMesh> PulledBox(double length_m, double width_m, double height_m,
                                         int cells_x, int cells_y, int cells_z) {
  auto box =
      MakeTetBox(Vec3(0.5 * length_m, 0.5 * width_m, 0.5 * height_m), cells_x, cells_y, cells_z);
  if (!box.ok()) return box.status();
  Points3 vertices = box->vertices();
  vertices.col(0).array() -= 0.5 * length_m;
  vertices.col(2).array() += 0.5 * height_m;
  return TetMesh::Create(vertices, box->tets());
}

inline PositionTarget LinearPull(const Points3& vertices_m, const std::vector<int32_t>& grabbed,
                                 double end_s, double distance_m, double compliance_m_per_n) {
  PositionTarget pull;
  pull.vertices = grabbed;
  pull.anchors_m.resize(static_cast<Eigen::Index>(grabbed.size()), 3);
  for (size_t i = 0; i < grabbed.size(); ++i) {
    pull.anchors_m.row(static_cast<Eigen::Index>(i)) = vertices_m.row(grabbed[i]);
  }
  pull.path = {{0.0, end_s}, {Vec3::Zero(), Vec3(distance_m, 0.0, 0.0)}};
  pull.compliance_m_per_n = compliance_m_per_n;
  return pull;
}

// The pulled body's solver, its mass [kg], gravity per vertex [N] and its state at rest at t = 0.
struct PulledBodySolver {
  std::unique_ptr<LocalGlobalSolver> solver;
  double mass_kg = 0.0;
  Points3 gravity_n;
  LocalGlobalState state;
};

inline absl::StatusOr<PulledBodySolver> MakePulledBodySolver(const TetMesh& mesh,
                                                             const Material& material,
                                                             double time_step_s,
                                                             const LocalGlobalOptions& options) {
  auto solver = LocalGlobalSolver::Create(mesh, material, time_step_s, options, SceneBackend());
  if (!solver.ok()) return solver.status();
  PulledBodySolver out;
  out.solver = *std::move(solver);
  const Eigen::VectorXd& mass = out.solver->lumped_mass_kg();
  out.mass_kg = mass.sum();
  out.gravity_n = Points3::Zero(mesh.num_vertices(), 3);
  out.gravity_n.col(2) = -9.81 * mass;
  out.state = {mesh.vertices(), Points3::Zero(mesh.num_vertices(), 3), 0.0};
  return out;
}

}  // namespace contactsim::core
