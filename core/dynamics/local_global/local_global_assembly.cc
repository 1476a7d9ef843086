#include "core/dynamics/local_global/local_global_assembly.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "core/common/status_macros.h"
#include "core/dynamics/local_global/cloth_bending.h"
#include "core/dynamics/local_global/local_global_solver.h"

namespace contactsim::core {
namespace {

double DefaultAdmmStiffness(const Material& material) {
  // The stiffness of Psi at rest along a stretch: 2 mu for ARAP (no volume term), 2 mu + lambda
  // otherwise. A weight of that size balances the proximal term against the energy.
  return material.model == MaterialModel::kArap ? 2.0 * material.mu
                                                : 2.0 * material.mu + material.lambda;
}

double AdmmStiffness(const Material& material, const LocalGlobalOptions& options) {
  return options.admm_stiffness_pa > 0.0 ? options.admm_stiffness_pa
                                         : DefaultAdmmStiffness(material);
}

template <typename Indices>
LocalGlobalElementIndices ElementArray(const Indices& indices) {
  return indices.template cast<int32_t>();
}

absl::Status ValidateMaterial(const Material& material) {
  if (!(std::isfinite(material.mu) && material.mu > 0.0)) {
    return absl::InvalidArgumentError("material.mu must be finite and > 0");
  }
  if (!(std::isfinite(material.lambda) && material.lambda >= 0.0)) {
    return absl::InvalidArgumentError("material.lambda must be finite and >= 0");
  }
  if (!(std::isfinite(material.density) && material.density > 0.0)) {
    return absl::InvalidArgumentError("material.density must be finite and > 0");
  }
  return absl::OkStatus();
}

}  // namespace

// Checks shared by the tet and the triangle entry points.
absl::Status ValidateLocalGlobalSettings(const Material& material, double time_step_s,
                                         const LocalGlobalOptions& options) {
  if (!(std::isfinite(time_step_s) && time_step_s > 0.0)) {
    return absl::InvalidArgumentError("time_step_s must be finite and > 0");
  }
  if (options.iterations < 1) {
    return absl::InvalidArgumentError("options.iterations must be >= 1");
  }
  if (!(std::isfinite(options.admm_stiffness_pa) && options.admm_stiffness_pa >= 0.0)) {
    return absl::InvalidArgumentError("options.admm_stiffness_pa must be finite and >= 0");
  }
  RETURN_IF_ERROR(ValidateMaterial(material));
  if (!options.obstacles.empty() || !options.mesh_obstacles.empty() ||
      options.body_contact.enabled) {
    if (absl::Status s = ValidateObstacles(options.obstacles); !s.ok()) {
      return absl::InvalidArgumentError(absl::StrCat("options.", s.message()));
    }
    if (options.global_step != GlobalStepKind::kSparseInverse) {
      const char* field = !options.obstacles.empty()        ? "options.obstacles"
                          : !options.mesh_obstacles.empty() ? "options.mesh_obstacles"
                                                            : "options.body_contact";
      return absl::InvalidArgumentError(
          absl::StrCat(field, ": contact needs global_step kSparseInverse (W is formed from S)"));
    }
    if (!(std::isfinite(options.contact_proximity_m) && options.contact_proximity_m >= 0.0)) {
      return absl::InvalidArgumentError("options.contact_proximity_m must be finite and >= 0");
    }
    if (options.contact.newton_iterations < 1 || options.contact.cr_iterations < 1) {
      return absl::InvalidArgumentError(
          "options.contact: newton_iterations and cr_iterations must be >= 1");
    }
    for (const double ratio :
         {options.contact.normal_compliance_ratio, options.contact.friction_compliance_ratio}) {
      if (!(std::isfinite(ratio) && ratio >= 0.0)) {
        return absl::InvalidArgumentError(absl::StrCat(
            "options.contact: normal_compliance_ratio and friction_compliance_ratio must be "
            "finite and >= 0, got ",
            ratio));
      }
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<LocalGlobalAssembly> AssembleTetBody(const TetMesh& mesh, const Material& material,
                                                    double time_step_s,
                                                    const LocalGlobalOptions& options) {
  RETURN_IF_ERROR(ValidateLocalGlobalSettings(material, time_step_s, options));
  if (mesh.num_vertices() == 0 || mesh.num_tets() == 0) {
    return absl::InvalidArgumentError("mesh is empty");
  }
  if (options.bending_stiffness_j != 0.0) {
    return absl::InvalidArgumentError("options.bending_stiffness_j: only for cloth (triangles)");
  }
  const double k = AdmmStiffness(material, options);
  auto system = AssembleSystemMatrix(mesh, {material.density, k, time_step_s});
  if (!system.ok()) return system.status();
  LocalGlobalAssembly out;
  out.system = *std::move(system);
  out.elements = ElementArray(mesh.tets());
  out.columns = 3;
  out.surface = mesh.surface();
  out.groups = {{0, mesh.num_tets(), material, k}};
  out.vertex_body = std::vector<int32_t>(mesh.num_vertices(), 0);
  out.body_vertex_offset = {0, mesh.num_vertices()};
  return out;
}

absl::StatusOr<LocalGlobalAssembly> AssembleTetBodies(const std::vector<LocalGlobalBody>& bodies,
                                                      double time_step_s,
                                                      const LocalGlobalOptions& options) {
  if (bodies.empty()) return absl::InvalidArgumentError("bodies: empty");
  if (options.bending_stiffness_j != 0.0) {
    return absl::InvalidArgumentError("options.bending_stiffness_j: only for cloth (triangles)");
  }
  // Concatenate: vertices of body b after those of 0..b-1; Abar block diagonal.
  for (size_t b = 0; b < bodies.size(); ++b) {
    if (absl::Status s = ValidateMaterial(bodies[b].material); !s.ok()) {
      return absl::InvalidArgumentError(absl::StrCat("bodies[", b, "].", s.message()));
    }
  }
  RETURN_IF_ERROR(ValidateLocalGlobalSettings(bodies[0].material, time_step_s, options));
  int32_t n = 0, m = 0;
  std::vector<int32_t> vertex_offset = {0};
  for (size_t b = 0; b < bodies.size(); ++b) {
    const std::string field = absl::StrCat("bodies[", b, "]");
    if (bodies[b].mesh.num_vertices() == 0 || bodies[b].mesh.num_tets() == 0) {
      return absl::InvalidArgumentError(absl::StrCat(field, ".mesh: empty"));
    }
    n += bodies[b].mesh.num_vertices();
    m += bodies[b].mesh.num_tets();
    vertex_offset.push_back(n);
  }
  Points3 vertices(n, 3);
  IndexQuads tets(m, 4);
  SystemMatrix system;
  system.lumped_mass_kg.resize(n);
  std::vector<Eigen::Triplet<double, int32_t>> triplets;
  std::vector<LocalGlobalElementGroup> groups;
  std::vector<int32_t> vertex_body(n);
  int32_t element_offset = 0;
  for (size_t b = 0; b < bodies.size(); ++b) {
    const TetMesh& mesh = bodies[b].mesh;
    const int32_t v0 = vertex_offset[b];
    const double k = AdmmStiffness(bodies[b].material, options);
    auto part = AssembleSystemMatrix(mesh, {bodies[b].material.density, k, time_step_s});
    if (!part.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat("bodies[", b, "].mesh: ", part.status().message()));
    }
    vertices.middleRows(v0, mesh.num_vertices()) = mesh.vertices();
    tets.middleRows(element_offset, mesh.num_tets()) = mesh.tets().array() + v0;
    system.lumped_mass_kg.segment(v0, mesh.num_vertices()) = part->lumped_mass_kg;
    for (int col = 0; col < part->a_bar.outerSize(); ++col) {
      for (OrderedCholesky::ColMajorSparse::InnerIterator it(part->a_bar, col); it; ++it) {
        triplets.emplace_back(v0 + it.row(), v0 + col, it.value());
      }
    }
    system.element_b.insert(system.element_b.end(), part->element_b.begin(), part->element_b.end());
    system.element_weight.insert(system.element_weight.end(), part->element_weight.begin(),
                                 part->element_weight.end());
    groups.push_back({element_offset, element_offset + mesh.num_tets(), bodies[b].material, k});
    std::fill(vertex_body.begin() + v0, vertex_body.begin() + v0 + mesh.num_vertices(),
              static_cast<int32_t>(b));
    element_offset += mesh.num_tets();
  }
  system.a_bar.resize(n, n);
  system.a_bar.setFromTriplets(triplets.begin(), triplets.end());
  // The union of closed, vertex-disjoint surfaces is closed: TetMesh::Create extracts it.
  auto joined = TetMesh::Create(std::move(vertices), std::move(tets));
  if (!joined.ok()) {
    return absl::InvalidArgumentError(absl::StrCat("bodies: ", joined.status().message()));
  }
  LocalGlobalAssembly out;
  out.system = std::move(system);
  out.elements = ElementArray(joined->tets());
  out.columns = 3;
  out.surface = joined->surface();
  out.groups = std::move(groups);
  out.vertex_body = std::move(vertex_body);
  out.body_vertex_offset = std::move(vertex_offset);
  return out;
}

absl::StatusOr<LocalGlobalAssembly> AssembleCloth(const TriangleMesh& mesh, double thickness_m,
                                                  const Material& material, double time_step_s,
                                                  const LocalGlobalOptions& options) {
  RETURN_IF_ERROR(ValidateLocalGlobalSettings(material, time_step_s, options));
  if (!(std::isfinite(thickness_m) && thickness_m > 0.0)) {
    return absl::InvalidArgumentError("thickness_m must be finite and > 0");
  }
  if (mesh.num_vertices() == 0 || mesh.num_faces() == 0) {
    return absl::InvalidArgumentError("mesh is empty");
  }
  // A membrane of thickness t: areal density rho t [kg/m^2], weight k t a = k V (V = a t).
  const double k = AdmmStiffness(material, options);
  auto system =
      AssembleSystemMatrix(mesh, {material.density * thickness_m, k * thickness_m, time_step_s});
  if (!system.ok()) return system.status();
  auto bending = IsometricBendingTriplets(mesh, options.bending_stiffness_j, 1.0);
  if (!bending.ok()) {
    return absl::InvalidArgumentError(absl::StrCat("options.", bending.status().message()));
  }
  const int n = mesh.num_vertices();
  Eigen::SparseMatrix<double, Eigen::ColMajor, int32_t> q(n, n);
  q.setFromTriplets(bending->begin(), bending->end());
  if (!bending->empty()) system->a_bar += (time_step_s * time_step_s) * q;  // implicit bending
  LocalGlobalAssembly out;
  out.system = *std::move(system);
  out.elements = ElementArray(mesh.faces());
  out.columns = 2;
  out.surface = mesh;
  out.groups = {{0, mesh.num_faces(), material, k}};
  out.vertex_body = std::vector<int32_t>(mesh.num_vertices(), 0);
  out.body_vertex_offset = {0, mesh.num_vertices()};
  if (!bending->empty()) out.bending_q = std::move(q);
  return out;
}

}  // namespace contactsim::core
