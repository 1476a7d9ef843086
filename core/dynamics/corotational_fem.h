// CorotationalFem: a linear-elastic solid on a tetrahedral mesh with per-element rotations
// (linear corotational FEM), stepped by the predict/correct symplectic Euler of particle_body.h.
//
// Per tet with rest corners X_0..X_3, rest volume V [m^3], D_m = [X_1 - X_0, X_2 - X_0, X_3 - X_0]
// and current corners x_0..x_3, D_s likewise: the deformation gradient F = D_s D_m^-1, its rotation
// R from the polar decomposition F = R S (polar_decomposition.h; inverted tets handled there), and
//   small strain in the rotated frame  eps = sym(R^T F) - I,
//   stress                             sigma = 2 mu eps + lambda tr(eps) I,
//   energy                             W = V (mu eps : eps + lambda tr(eps)^2 / 2),
//   nodal forces                       f_i = -V R sigma g_i,   [g_1 g_2 g_3] = D_m^-T,
//                                      f_0 = -(f_1 + f_2 + f_3),
// which is f = -R K_e (R^T x - X) with K_e the linear-elasticity stiffness of the tet. Lame
// parameters from Young's modulus E [Pa] and Poisson ratio nu:
//   mu = E / (2 (1 + nu)),   lambda = E nu / ((1 + nu) (1 - 2 nu)).
// These forces sum to zero per tet, and (because sigma commutes with S) exert no net torque.
//
// Mass: lumped, each tet gives rho V / 4 [kg] to each corner (rho [kg/m^3]).
// Damping, Rayleigh C = alpha M + beta K: alpha [1/s] in particle_body.h; the stiffness part
// [s] adds the viscous stress
//   P_d = F beta (2 mu E' + lambda tr(E') I),   E' = sym(F^T F'),   F' = V_s D_m^-1
// (V_s the corner velocity differences), forces f_i = -V P_d g_i. E' is the rate of the Green
// strain: for small strain this is beta R K_e R^T v, but it vanishes exactly for any rigid motion
// of a strained element, exerts no net torque and always dissipates (power V E' : C E' >= 0),
// where beta R K_e R^T v would brake the spin of a strained element.
//
// Cost: the polar decomposition dominates. World::Step needs the energy at the end of a step (its
// divergence check) and the forces at the same positions at the start of the next, so the tets'
// rotations and the elastic energy at positions_t0() are computed once, whenever those positions
// change (Correct, SetPositions), and kept; forces and energy at those positions reuse them. R is
// a function of the positions alone, so this changes no result.
// Parallel: rotations, energies and forces are computed per tet with ParallelFor
// (core/common/parallel_for.h) into per-tet slots, then summed per vertex (forces) or over tets
// (energy) in tet order, so the result has the same bits for any thread count.
#pragma once

#include <vector>

#include "absl/status/statusor.h"
#include "core/common/eigen_types.h"
#include "core/dynamics/particle_body.h"
#include "core/geometry/tet_mesh.h"

namespace contactsim::core {

struct CorotationalFemParams {
  double youngs_modulus_pa = 0.0;    // E > 0
  double poisson_ratio = 0.0;        // nu in (-1, 0.5)
  double density_kg_per_m3 = 0.0;    // rho > 0
  double mass_damping_per_s = 0.0;   // Rayleigh alpha >= 0
  double stiffness_damping_s = 0.0;  // Rayleigh beta >= 0
};

class CorotationalFem final : public ParticleBody {
 public:
  // Vertices start at rest at the mesh's positions. InvalidArgument naming the field for a bad
  // parameter or pinned index, or for a vertex in no tet that is not pinned (it has no mass).
  static absl::StatusOr<CorotationalFem> Create(TetMesh mesh, const CorotationalFemParams& params,
                                                const std::vector<int>& pinned_vertices = {});

  BodyType type() const override { return BodyType::kCorotationalFem; }
  // The boundary of the tet mesh, over the same vertex indices.
  const TriangleMesh& surface() const override { return mesh_.surface(); }
  const TetMesh& mesh() const { return mesh_; }
  const CorotationalFemParams& params() const { return params_; }
  double lame_mu_pa() const { return mu_pa_; }
  double lame_lambda_pa() const { return lambda_pa_; }

  // Smallest tet altitude of the rest mesh, min over tets of 3 V / (largest face area) [m].
  double min_altitude_m() const { return min_altitude_m_; }
  // CFL-like estimate: the dilatational wave speed c_p = sqrt((lambda + 2 mu) / rho) [m/s] must
  // not cross the thinnest element in one step, dt_0 = kCflSafety h_min / c_p; the highest mode is
  // taken as omega_max = 2 / dt_0 and the Rayleigh damping at that mode, alpha + beta omega_max^2,
  // shortens the step by CriticalTimeStep (stable_time_step.h).
  double StableTimeStepEstimate() const override;
  // With lumped masses the highest mode of linear tets reaches omega_max = (1.8 to 2.3) c_p / h_min
  // on grid and ball meshes (tests/core/dynamics compare with the assembled highest mode), so
  // kCflSafety h_min / c_p = 2 / (4 c_p / h_min) is about half the critical step 2 / omega_max.
  static constexpr double kCflSafety = 0.5;

 private:
  struct TetRest {
    Mat3 dm_inverse = Mat3::Identity();  // D_m^-1 [1/m]
    double volume_m3 = 0.0;
  };

  CorotationalFem(TetMesh mesh, const CorotationalFemParams& params, Eigen::VectorXd masses_kg,
                  const std::vector<int>& pinned, std::vector<TetRest> rest, double min_altitude_m);

  void AddInternalForces(const Points3& x, const Points3& v, Points3* forces) const override;
  double ElasticEnergyAt(const Points3& x) const override;
  void OnPositionsChanged() override;
  // The tets' rotations at x into `rotations` (when not null) and the elastic energy at x [J].
  double RotationsAndEnergy(const Points3& x, std::vector<Mat3>* rotations) const;
  // D_s (or V_s for velocities) of tet t: columns are corners 1..3 minus corner 0.
  Mat3 EdgeMatrix(const Points3& values, int t) const;

  // Tets and vertices per parallel task: a tet costs ~0.2-0.6 us, so a task of 256 outweighs
  // TBB's scheduling, and a ball of ~1,300 tets still splits into several.
  static constexpr int kTetGrain = 256;
  static constexpr int kVertexGrain = 512;

  TetMesh mesh_;
  CorotationalFemParams params_;
  std::vector<TetRest> rest_;
  // Vertex i's (tet, corner) entries, 4 t + k, are vertex_corners_[vertex_corner_begin_[i] ..
  // vertex_corner_begin_[i + 1]) in increasing t: the internal forces are gathered in tet order.
  std::vector<int> vertex_corner_begin_;
  std::vector<int> vertex_corners_;
  // At positions_t0() (OnPositionsChanged): each tet's rotation R and the elastic energy [J].
  std::vector<Mat3> rotations_;
  double elastic_energy_j_ = 0.0;
  double mu_pa_ = 0.0;
  double lambda_pa_ = 0.0;
  double min_altitude_m_ = 0.0;
};

}  // namespace contactsim::core
