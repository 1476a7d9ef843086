// MassSpringCloth: a cloth (or any open or closed surface) as lumped masses joined by springs,
// stepped by the predict/correct symplectic Euler of particle_body.h.
//
// Mass: each triangle of area A_f spreads rho_A A_f / 3 [kg] to each of its corners
// (rho_A [kg/m^2] the area density).
// Springs: a stretch spring on every mesh edge, and a shear/bending spring across every interior
// edge (an edge with exactly two faces) joining the two vertices opposite it. A spring (i, j) of
// stiffness k [N/m], rest length L_0 [m] (from the rest mesh) and damping c [N s/m] pulls on i with
//   f_i = k (l - L_0) u + c ((v_j - v_i) . u) u,   d = x_j - x_i, l = |d|, u = d / l,
// and on j with f_j = -f_i (so the spring forces conserve linear and angular momentum); its energy
// is k (l - L_0)^2 / 2. A spring squeezed to l = 0 exerts no force (its direction is undefined).
// Rayleigh mass damping alpha [1/s] (particle_body.h) damps every vertex velocity.
#pragma once

#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"
#include "core/common/eigen_types.h"
#include "core/dynamics/particle_body.h"
#include "core/geometry/triangle_mesh.h"

namespace contactsim::core {

struct MassSpringClothParams {
  double area_density_kg_per_m2 = 0.0;     // rho_A > 0
  double stretch_stiffness_n_per_m = 0.0;  // k on mesh edges, > 0
  double bend_stiffness_n_per_m = 0.0;     // k across interior edges, >= 0 (0: no such springs)
  double spring_damping_n_s_per_m = 0.0;   // c along every spring, >= 0
  double mass_damping_per_s = 0.0;         // alpha, >= 0
};

struct ClothSpring {
  int32_t i = 0;
  int32_t j = 0;
  double rest_length_m = 0.0;
  double stiffness_n_per_m = 0.0;
};

class MassSpringCloth final : public ParticleBody {
 public:
  // Vertices start at rest at the mesh's positions. InvalidArgument naming the field for a bad
  // parameter or pinned index, or for a vertex in no face that is not pinned (it has no mass).
  static absl::StatusOr<MassSpringCloth> Create(TriangleMesh mesh,
                                                const MassSpringClothParams& params,
                                                const std::vector<int>& pinned_vertices = {});

  BodyType type() const override { return BodyType::kMassSpringCloth; }
  const TriangleMesh& surface() const override { return mesh_; }
  const MassSpringClothParams& params() const { return params_; }

  // Stretch springs first (one per mesh edge, in edge order), then the bending springs.
  const std::vector<ClothSpring>& springs() const { return springs_; }
  int num_stretch_springs() const { return num_stretch_springs_; }

  // CriticalTimeStep (stable_time_step.h) with a bound on the highest mode at rest: by block
  // Gershgorin on M^-1/2 K M^-1/2 (each spring block k u u^T has norm k; pinned vertices removed),
  //   omega_max^2 <= max_i sum_{springs s at i} k_s (1 / m_i + 1 / sqrt(m_i m_j) [j free]),
  // and the same bound with c for the spring damping, plus alpha.
  double StableTimeStepEstimate() const override;

 private:
  MassSpringCloth(TriangleMesh mesh, const MassSpringClothParams& params, Eigen::VectorXd masses_kg,
                  const std::vector<int>& pinned, std::vector<ClothSpring> springs,
                  int num_stretch_springs);

  void AddInternalForces(const Points3& x, const Points3& v, Points3* forces) const override;
  double ElasticEnergyAt(const Points3& x) const override;

  TriangleMesh mesh_;
  MassSpringClothParams params_;
  std::vector<ClothSpring> springs_;
  int num_stretch_springs_ = 0;
};

}  // namespace contactsim::core
