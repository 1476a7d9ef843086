// What LocalGlobalSolver::Create builds every solver from, whatever the model: the system matrix
// Abar with the lumped masses and element operators (system_matrix.h), the elements, the body's
// surface, the element groups (one material and ADMM stiffness each), the body of each vertex,
// and the cloth's bending Q. One assembler per model: a tet body, several tet bodies
// concatenated into one system (local_global_solver.h, "Several bodies"), a cloth membrane.
// Each validates its inputs and the settings (errors as LocalGlobalSolver::Create's).
#pragma once

#include <Eigen/SparseCore>
#include <cstdint>
#include <optional>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "core/dynamics/fem/material.h"
#include "core/dynamics/local_global/system_matrix.h"
#include "core/geometry/tet_mesh.h"
#include "core/geometry/triangle_mesh.h"

namespace contactsim::core {

struct LocalGlobalOptions;
struct LocalGlobalBody;

// Element vertex indices, one element per row (4 per tet, 3 per triangle).
using LocalGlobalElementIndices =
    Eigen::Matrix<int32_t, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

// A contiguous range of elements [begin, end) of one material and ADMM stiffness k [Pa].
struct LocalGlobalElementGroup {
  int32_t begin = 0;
  int32_t end = 0;
  Material material;
  double k = 0.0;
};

struct LocalGlobalAssembly {
  SystemMatrix system;
  LocalGlobalElementIndices elements;
  int columns = 3;                              // of F_e: 3 for tets, 2 for membrane triangles
  std::optional<TriangleMesh> surface;          // what contact detects against
  std::vector<LocalGlobalElementGroup> groups;  // cover the elements in order
  std::vector<int32_t> vertex_body;             // body id per vertex
  std::vector<int32_t> body_vertex_offset;      // num_bodies + 1 entries
  // Q of the cloth's bending energy (1/2) sum_c x_c^T Q x_c (empty: none).
  Eigen::SparseMatrix<double, Eigen::ColMajor, int32_t> bending_q;
};

// Checks of the time step, options and material shared by every model (and SetObstacles).
absl::Status ValidateLocalGlobalSettings(const Material& material, double time_step_s,
                                         const LocalGlobalOptions& options);

absl::StatusOr<LocalGlobalAssembly> AssembleTetBody(const TetMesh& mesh, const Material& material,
                                                    double time_step_s,
                                                    const LocalGlobalOptions& options);
absl::StatusOr<LocalGlobalAssembly> AssembleTetBodies(const std::vector<LocalGlobalBody>& bodies,
                                                      double time_step_s,
                                                      const LocalGlobalOptions& options);
// A membrane of thickness t: areal density rho t, weight k t a = k V (V = a t), and the implicit
// bending h^2 Q joined to Abar.
absl::StatusOr<LocalGlobalAssembly> AssembleCloth(const TriangleMesh& mesh, double thickness_m,
                                                  const Material& material, double time_step_s,
                                                  const LocalGlobalOptions& options);

}  // namespace contactsim::core
