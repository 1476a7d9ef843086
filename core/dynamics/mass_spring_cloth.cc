#include "core/dynamics/mass_spring_cloth.h"

#include <Eigen/Geometry>
#include <algorithm>
#include <cmath>
#include <utility>

#include "absl/strings/str_cat.h"
#include "core/common/status_macros.h"
#include "core/dynamics/dynamics_checks.h"
#include "core/dynamics/stable_time_step.h"

namespace contactsim::core {
namespace {

absl::Status CheckParams(const MassSpringClothParams& p) {
  RETURN_IF_ERROR(internal::CheckPositive(p.area_density_kg_per_m2, "area_density_kg_per_m2"));
  RETURN_IF_ERROR(
      internal::CheckPositive(p.stretch_stiffness_n_per_m, "stretch_stiffness_n_per_m"));
  RETURN_IF_ERROR(
      internal::CheckFiniteAtLeast(p.bend_stiffness_n_per_m, 0.0, "bend_stiffness_n_per_m"));
  RETURN_IF_ERROR(
      internal::CheckFiniteAtLeast(p.spring_damping_n_s_per_m, 0.0, "spring_damping_n_s_per_m"));
  return internal::CheckFiniteAtLeast(p.mass_damping_per_s, 0.0, "mass_damping_per_s");
}

// The vertex of face f that is not on edge (a, b).
int32_t OppositeVertex(const IndexTriples& faces, int f, int32_t a, int32_t b) {
  for (int k = 0; k < 3; ++k) {
    const int32_t v = faces(f, k);
    if (v != a && v != b) return v;
  }
  return faces(f, 0);  // unreachable for a valid mesh (distinct face indices)
}

ClothSpring MakeSpring(const Points3& x, int32_t i, int32_t j, double stiffness_n_per_m) {
  return ClothSpring{i, j, (x.row(j) - x.row(i)).norm(), stiffness_n_per_m};
}

}  // namespace

absl::StatusOr<MassSpringCloth> MassSpringCloth::Create(TriangleMesh mesh,
                                                        const MassSpringClothParams& params,
                                                        const std::vector<int>& pinned_vertices) {
  RETURN_IF_ERROR(CheckParams(params));
  const Points3& x = mesh.vertices();
  const IndexTriples& faces = mesh.faces();

  Eigen::VectorXd masses = Eigen::VectorXd::Zero(mesh.num_vertices());
  for (int f = 0; f < mesh.num_faces(); ++f) {
    const Vec3 x0 = x.row(faces(f, 0)), x1 = x.row(faces(f, 1)), x2 = x.row(faces(f, 2));
    const double area_m2 = 0.5 * (x1 - x0).cross(x2 - x0).norm();
    for (int k = 0; k < 3; ++k) masses[faces(f, k)] += params.area_density_kg_per_m2 * area_m2 / 3;
  }
  RETURN_IF_ERROR(CheckMassesAndPins(masses, pinned_vertices));

  std::vector<ClothSpring> springs;
  springs.reserve(2 * mesh.num_edges());
  for (int e = 0; e < mesh.num_edges(); ++e) {
    springs.push_back(
        MakeSpring(x, mesh.edges()(e, 0), mesh.edges()(e, 1), params.stretch_stiffness_n_per_m));
  }
  const int num_stretch = static_cast<int>(springs.size());
  if (params.bend_stiffness_n_per_m > 0.0) {
    for (int e = 0; e < mesh.num_edges(); ++e) {
      if (mesh.edge_face_count(e) != 2) continue;  // boundary or non-manifold: no bending pair
      const int32_t a = mesh.edges()(e, 0), b = mesh.edges()(e, 1);
      const int32_t* adjacent = mesh.edge_faces_begin(e);
      const int32_t p = OppositeVertex(faces, adjacent[0], a, b);
      const int32_t q = OppositeVertex(faces, adjacent[1], a, b);
      springs.push_back(MakeSpring(x, p, q, params.bend_stiffness_n_per_m));
    }
  }
  return MassSpringCloth(std::move(mesh), params, std::move(masses), pinned_vertices,
                         std::move(springs), num_stretch);
}

MassSpringCloth::MassSpringCloth(TriangleMesh mesh, const MassSpringClothParams& params,
                                 Eigen::VectorXd masses_kg, const std::vector<int>& pinned,
                                 std::vector<ClothSpring> springs, int num_stretch_springs)
    : ParticleBody(mesh.vertices(), std::move(masses_kg), pinned, params.mass_damping_per_s),
      mesh_(std::move(mesh)),
      params_(params),
      springs_(std::move(springs)),
      num_stretch_springs_(num_stretch_springs) {}

void MassSpringCloth::AddInternalForces(const Points3& x, const Points3& v, Points3* forces) const {
  const double c = params_.spring_damping_n_s_per_m;
  for (const ClothSpring& s : springs_) {
    const Vec3 d = x.row(s.j) - x.row(s.i);
    const double length = d.norm();
    if (!(length > 0.0)) continue;
    const Vec3 u = d / length;
    const double relative_speed = (v.row(s.j) - v.row(s.i)).dot(u.transpose());
    const Vec3 f = (s.stiffness_n_per_m * (length - s.rest_length_m) + c * relative_speed) * u;
    forces->row(s.i) += f.transpose();
    forces->row(s.j) -= f.transpose();
  }
}

double MassSpringCloth::ElasticEnergyAt(const Points3& x) const {
  double energy = 0.0;
  for (const ClothSpring& s : springs_) {
    const double stretch = (x.row(s.j) - x.row(s.i)).norm() - s.rest_length_m;
    energy += 0.5 * s.stiffness_n_per_m * stretch * stretch;
  }
  return energy;
}

double MassSpringCloth::StableTimeStepEstimate() const {
  // Per-vertex Gershgorin sums of M^-1/2 K M^-1/2, for stiffness and for damping (c per spring).
  const int n = num_vertices();
  Eigen::VectorXd stiffness_sum = Eigen::VectorXd::Zero(n);
  Eigen::VectorXd damping_sum = Eigen::VectorXd::Zero(n);
  const double c = params_.spring_damping_n_s_per_m;
  for (const ClothSpring& s : springs_) {
    const bool free_i = !is_pinned(s.i), free_j = !is_pinned(s.j);
    const double off_diagonal =
        free_i && free_j ? 1.0 / std::sqrt(masses()[s.i] * masses()[s.j]) : 0.0;
    if (free_i) {
      stiffness_sum[s.i] += s.stiffness_n_per_m * (1.0 / masses()[s.i] + off_diagonal);
      damping_sum[s.i] += c * (1.0 / masses()[s.i] + off_diagonal);
    }
    if (free_j) {
      stiffness_sum[s.j] += s.stiffness_n_per_m * (1.0 / masses()[s.j] + off_diagonal);
      damping_sum[s.j] += c * (1.0 / masses()[s.j] + off_diagonal);
    }
  }
  const double omega_max = std::sqrt(stiffness_sum.size() > 0 ? stiffness_sum.maxCoeff() : 0.0);
  const double damping_max =
      mass_damping_per_s() + (damping_sum.size() > 0 ? damping_sum.maxCoeff() : 0.0);
  return CriticalTimeStep(omega_max, damping_max);
}

}  // namespace contactsim::core
