#include "core/dynamics/corotational_fem.h"

#include <Eigen/Geometry>
#include <Eigen/LU>
#include <algorithm>
#include <cmath>
#include <limits>
#include <utility>

#include "absl/strings/str_cat.h"
#include "core/common/parallel_for.h"
#include "core/common/status_macros.h"
#include "core/dynamics/dynamics_checks.h"
#include "core/dynamics/polar_decomposition.h"
#include "core/dynamics/stable_time_step.h"
#include "oneapi/tbb/blocked_range.h"

namespace contactsim::core {
namespace {

absl::Status CheckParams(const CorotationalFemParams& p) {
  RETURN_IF_ERROR(internal::CheckPositive(p.youngs_modulus_pa, "youngs_modulus_pa"));
  if (!std::isfinite(p.poisson_ratio) || !(p.poisson_ratio > -1.0) || !(p.poisson_ratio < 0.5)) {
    return absl::InvalidArgumentError(
        absl::StrCat("poisson_ratio: must lie in (-1, 0.5), got ", p.poisson_ratio));
  }
  RETURN_IF_ERROR(internal::CheckPositive(p.density_kg_per_m3, "density_kg_per_m3"));
  RETURN_IF_ERROR(internal::CheckFiniteAtLeast(p.mass_damping_per_s, 0.0, "mass_damping_per_s"));
  return internal::CheckFiniteAtLeast(p.stiffness_damping_s, 0.0, "stiffness_damping_s");
}

// 3 V / (largest face area): the smallest of the tet's four altitudes [m].
double MinAltitude(const Vec3& x0, const Vec3& x1, const Vec3& x2, const Vec3& x3,
                   double volume_m3) {
  const double largest_face_area =
      0.5 * std::max({(x1 - x0).cross(x2 - x0).norm(), (x1 - x0).cross(x3 - x0).norm(),
                      (x2 - x0).cross(x3 - x0).norm(), (x2 - x1).cross(x3 - x1).norm()});
  return 3.0 * volume_m3 / largest_face_area;
}

// Isotropic linear-elastic stress 2 mu e + lambda tr(e) I for a symmetric strain (or rate) e.
Mat3 IsotropicStress(const Mat3& e, double mu, double lambda) {
  return 2.0 * mu * e + lambda * e.trace() * Mat3::Identity();
}

}  // namespace

absl::StatusOr<CorotationalFem> CorotationalFem::Create(TetMesh mesh,
                                                        const CorotationalFemParams& params,
                                                        const std::vector<int>& pinned_vertices) {
  RETURN_IF_ERROR(CheckParams(params));
  const Points3& x = mesh.vertices();
  const IndexQuads& tets = mesh.tets();
  Eigen::VectorXd masses = Eigen::VectorXd::Zero(mesh.num_vertices());
  std::vector<TetRest> rest(mesh.num_tets());
  double min_altitude_m = std::numeric_limits<double>::infinity();
  for (int t = 0; t < mesh.num_tets(); ++t) {
    const Vec3 x0 = x.row(tets(t, 0)), x1 = x.row(tets(t, 1)), x2 = x.row(tets(t, 2)),
               x3 = x.row(tets(t, 3));
    Mat3 dm;
    dm << x1 - x0, x2 - x0, x3 - x0;
    // TetMesh::Create rejects degenerate and inverted tets, so D_m is invertible and V > 0.
    rest[t].dm_inverse = dm.inverse();
    rest[t].volume_m3 = dm.determinant() / 6.0;
    min_altitude_m = std::min(min_altitude_m, MinAltitude(x0, x1, x2, x3, rest[t].volume_m3));
    for (int k = 0; k < 4; ++k) {
      masses[tets(t, k)] += params.density_kg_per_m3 * rest[t].volume_m3 / 4.0;
    }
  }
  RETURN_IF_ERROR(CheckMassesAndPins(masses, pinned_vertices));
  return CorotationalFem(std::move(mesh), params, std::move(masses), pinned_vertices,
                         std::move(rest), min_altitude_m);
}

CorotationalFem::CorotationalFem(TetMesh mesh, const CorotationalFemParams& params,
                                 Eigen::VectorXd masses_kg, const std::vector<int>& pinned,
                                 std::vector<TetRest> rest, double min_altitude_m)
    : ParticleBody(mesh.vertices(), std::move(masses_kg), pinned, params.mass_damping_per_s),
      mesh_(std::move(mesh)),
      params_(params),
      rest_(std::move(rest)),
      mu_pa_(params.youngs_modulus_pa / (2.0 * (1.0 + params.poisson_ratio))),
      lambda_pa_(params.youngs_modulus_pa * params.poisson_ratio /
                 ((1.0 + params.poisson_ratio) * (1.0 - 2.0 * params.poisson_ratio))),
      min_altitude_m_(min_altitude_m) {
  // Vertex -> (tet, corner) incidence, each vertex's entries in increasing tet order.
  const IndexQuads& tets = mesh_.tets();
  vertex_corner_begin_.assign(mesh_.num_vertices() + 1, 0);
  for (int t = 0; t < mesh_.num_tets(); ++t) {
    for (int k = 0; k < 4; ++k) ++vertex_corner_begin_[tets(t, k) + 1];
  }
  for (int i = 0; i < mesh_.num_vertices(); ++i) {
    vertex_corner_begin_[i + 1] += vertex_corner_begin_[i];
  }
  vertex_corners_.resize(4 * static_cast<size_t>(mesh_.num_tets()));
  std::vector<int> next(vertex_corner_begin_.begin(), vertex_corner_begin_.end() - 1);
  for (int t = 0; t < mesh_.num_tets(); ++t) {
    for (int k = 0; k < 4; ++k) vertex_corners_[next[tets(t, k)]++] = 4 * t + k;
  }
  elastic_energy_j_ = RotationsAndEnergy(positions_t0(), &rotations_);
}

void CorotationalFem::OnPositionsChanged() {
  elastic_energy_j_ = RotationsAndEnergy(positions_t0(), &rotations_);
}

double CorotationalFem::RotationsAndEnergy(const Points3& x, std::vector<Mat3>* rotations) const {
  // Per tet in parallel, summed in tet order: the same bits for any thread count.
  std::vector<double> energies(mesh_.num_tets());
  if (rotations != nullptr) rotations->resize(mesh_.num_tets());
  ParallelFor(tbb::blocked_range<int>(0, mesh_.num_tets(), kTetGrain),
              [&](const tbb::blocked_range<int>& range) {
                for (int t = range.begin(); t < range.end(); ++t) {
                  const Mat3 f = EdgeMatrix(x, t) * rest_[t].dm_inverse;
                  const Mat3 rotation = PolarDecomposeRotation(f).rotation;
                  if (rotations != nullptr) (*rotations)[t] = rotation;
                  const Mat3 rotated = rotation.transpose() * f;
                  const Mat3 strain = 0.5 * (rotated + rotated.transpose()) - Mat3::Identity();
                  const double trace = strain.trace();
                  energies[t] = rest_[t].volume_m3 *
                                (mu_pa_ * strain.squaredNorm() + 0.5 * lambda_pa_ * trace * trace);
                }
              });
  double energy = 0.0;
  for (const double e : energies) energy += e;
  return energy;
}

Mat3 CorotationalFem::EdgeMatrix(const Points3& values, int t) const {
  const IndexQuads& tets = mesh_.tets();
  const Vec3 v0 = values.row(tets(t, 0));
  Mat3 edges;
  edges << values.row(tets(t, 1)).transpose() - v0, values.row(tets(t, 2)).transpose() - v0,
      values.row(tets(t, 3)).transpose() - v0;
  return edges;
}

void CorotationalFem::AddInternalForces(const Points3& x, const Points3& v, Points3* forces) const {
  const double beta = params_.stiffness_damping_s;
  const bool at_t0 = &x == &positions_t0();  // the rotations are known (OnPositionsChanged)
  // Per tet in parallel into per-tet slots, then gathered per vertex in tet order (the order a
  // serial scatter would add them in): the same bits for any thread count.
  std::vector<Mat3> tet_forces(mesh_.num_tets());  // columns: f_1, f_2, f_3 of each tet
  ParallelFor(tbb::blocked_range<int>(0, mesh_.num_tets(), kTetGrain),
              [&](const tbb::blocked_range<int>& range) {
                for (int t = range.begin(); t < range.end(); ++t) {
                  const TetRest& r = rest_[t];
                  const Mat3 f = EdgeMatrix(x, t) * r.dm_inverse;
                  const Mat3 rotation = at_t0 ? rotations_[t] : PolarDecomposeRotation(f).rotation;
                  const Mat3 rotated = rotation.transpose() * f;
                  const Mat3 strain = 0.5 * (rotated + rotated.transpose()) - Mat3::Identity();
                  // First Piola-Kirchhoff stress.
                  Mat3 stress = rotation * IsotropicStress(strain, mu_pa_, lambda_pa_);
                  if (beta > 0.0) {
                    const Mat3 f_dot = EdgeMatrix(v, t) * r.dm_inverse;
                    const Mat3 green_rate = f.transpose() * f_dot;
                    stress +=
                        f * (beta * IsotropicStress(0.5 * (green_rate + green_rate.transpose()),
                                                    mu_pa_, lambda_pa_));
                  }
                  tet_forces[t] = -r.volume_m3 * stress * r.dm_inverse.transpose();
                }
              });
  ParallelFor(tbb::blocked_range<int>(0, num_vertices(), kVertexGrain),
              [&](const tbb::blocked_range<int>& range) {
                for (int i = range.begin(); i < range.end(); ++i) {
                  for (int e = vertex_corner_begin_[i]; e < vertex_corner_begin_[i + 1]; ++e) {
                    const int t = vertex_corners_[e] / 4;
                    const int k = vertex_corners_[e] % 4;
                    if (k == 0) {
                      forces->row(i) -= tet_forces[t].rowwise().sum().transpose();
                    } else {
                      forces->row(i) += tet_forces[t].col(k - 1).transpose();
                    }
                  }
                }
              });
}

double CorotationalFem::ElasticEnergyAt(const Points3& x) const {
  return &x == &positions_t0() ? elastic_energy_j_ : RotationsAndEnergy(x, nullptr);
}

double CorotationalFem::StableTimeStepEstimate() const {
  const double wave_speed_m_per_s =
      std::sqrt((lambda_pa_ + 2.0 * mu_pa_) / params_.density_kg_per_m3);
  const double omega_max = 2.0 * wave_speed_m_per_s / (kCflSafety * min_altitude_m_);
  const double damping =
      params_.mass_damping_per_s + params_.stiffness_damping_s * omega_max * omega_max;
  return CriticalTimeStep(omega_max, damping);
}

}  // namespace contactsim::core
