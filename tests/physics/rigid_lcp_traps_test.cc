// The standard-model traps of Williams, Lu & Trinkle 2016 (§2, Figs. 2–3) stepped by the rigid_lcp
// stepper (core/dynamics/rigid_lcp/polytope_stepper.h), frictionless as the paper: the standard
// model over-constrains (the body stops on a plane that is not there), PEG lets it pass.
#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <utility>
#include <vector>

#include "core/dynamics/rigid_lcp/polytope_stepper.h"
#include "core/geometry/polytope_mass_properties.h"
#include "scenes/rigid_lcp/trap_scenes.h"

namespace contactsim::core {
namespace {

struct TrapRun {
  // Per step, the lowest world height of the trapped vertices of body 1 at the step's end [m].
  std::vector<double> trapped_vertex_z;
  Vec3 start = Vec3::Zero();
  Vec3 end = Vec3::Zero();
  Vec3 end_velocity = Vec3::Zero();
  double duration_s = 0.0;
};

TrapRun RunTrap(const scenes::TrapScene& scene, PolytopeContactModel model, int steps) {
  std::vector<std::unique_ptr<PolytopeUnion>> shapes;
  std::vector<PolytopeBodyInput> bodies;
  for (const scenes::TrapSceneBody& b : scene.bodies) {
    std::vector<ConvexPolytope> pieces = {b.shape};
    absl::StatusOr<PolytopeUnion> shape = PolytopeUnion::Create(std::move(pieces));
    EXPECT_TRUE(shape.ok()) << shape.status();
    shapes.push_back(std::make_unique<PolytopeUnion>(*std::move(shape)));
    PolytopeBodyInput input;
    input.shape = shapes.back().get();
    input.kind = b.dynamic ? RigidBodyKind::kDynamic : RigidBodyKind::kStatic;
    if (b.dynamic) {
      absl::StatusOr<MassProperties> mass = ComputeMassPropertiesForMass(b.shape, b.mass_kg);
      EXPECT_TRUE(mass.ok()) << mass.status();
      // The primitives are centred on their centre of mass.
      EXPECT_LE(mass->center_of_mass_m.norm(), 1e-12);
      input.mass_kg = b.mass_kg;
      input.inertia_body_kg_m2 = mass->inertia_about_com_kg_m2;
    }
    input.state.p_WB_m = b.p_WB;
    input.state.q_WB = Eigen::Quaterniond(b.R_WB);
    input.state.v_WB_m_per_s = b.velocity_W;
    input.state.w_WB_rad_per_s = b.angular_velocity_W;
    bodies.push_back(input);
  }
  PolytopeStepSettings settings;
  settings.dt_s = scene.step_s;
  settings.gravity_m_per_s2 = scene.gravity_W;
  settings.model = model;
  settings.friction_coefficient = 0.0;
  TrapRun run;
  run.start = bodies[1].state.p_WB_m;
  for (int step = 0; step < steps; ++step) {
    PolytopeStepResult result;
    const absl::Status status = StepPolytopes(bodies, {}, settings, &result);
    EXPECT_TRUE(status.ok()) << status;
    if (!status.ok()) break;
    for (size_t b = 0; b < bodies.size(); ++b) bodies[b].state = result.next[b];
    const RigidBodyState& state = bodies[1].state;
    double lowest = 1e300;
    for (const int v : scene.trapped_vertices) {
      const Vec3 x =
          state.p_WB_m + state.q_WB * scene.bodies[1].shape.vertices().row(v).transpose();
      lowest = std::min(lowest, x.z());
    }
    run.trapped_vertex_z.push_back(lowest);
  }
  run.end = bodies[1].state.p_WB_m;
  run.end_velocity = bodies[1].state.v_WB_m_per_s;
  run.duration_s = steps * scene.step_s;
  return run;
}

// Fig. 2: a vertex falling past a cube's side face, 0.5 mm out from the top edge on the bisector,
// so within the 1 mm contact distance of both faces (contact_distance_floor_m; a vertex farther
// out than the feasibility distance is no candidate of either model). Free fall over 0.1 s from
// 0.5 m/s drops 0.099 m; PEG lets it fall as if nothing were there (the side face's gap keeps
// max(psi_top, psi_side) >= 0), the standard model stops it on the top face's plane.
TEST(RigidLcpTrapsTest, VertexPassesTheCornerWithPegAndIsStoppedByTheStandardModel) {
  const scenes::TrapScene scene = scenes::VertexEnteringCornerScene(/*gap_m=*/0.0005);
  const int steps = 10;
  const TrapRun peg = RunTrap(scene, PolytopeContactModel::kPeg, steps);
  const TrapRun standard = RunTrap(scene, PolytopeContactModel::kStandard, steps);
  const double t = peg.duration_s;
  const double free_drop = 0.5 * t + 0.5 * 9.81 * t * t;
  // Semi-implicit Euler drops h^2 g / 2 per step more than the exact parabola over the run:
  // 0.5 * 9.81 * 0.01 * 0.1 = 4.9 mm; 6 mm bounds it.
  EXPECT_NEAR(peg.start.z() - peg.end.z(), free_drop, 6e-3);
  // The standard model: the vertex lands on the top face's plane (z = 0.5) after its 0.5 mm gap
  // and is held there (to the LCP's round-off) while it is within the contact distance; the body
  // then tips off sideways, which PEG's vertex never needed.
  ASSERT_GE(standard.trapped_vertex_z.size(), 3u);
  for (int step = 0; step < 3; ++step) {
    EXPECT_GE(standard.trapped_vertex_z[step], 0.5 - 1e-9) << "step " << step;
    EXPECT_LT(peg.trapped_vertex_z[step], 0.5 - 1e-3) << "step " << step;
  }
}

// Fig. 3: a cube past a table's edge by 0.5 mm (within the 1 mm contact distance), moving away
// from it: PEG lets it fall with g; the
// standard model keeps its trailing vertices on the table's plane (a shelf that is not there).
TEST(RigidLcpTrapsTest, BoxFallsOffTheEdgeWithPegAndHangsOnTheStandardShelf) {
  const scenes::TrapScene scene =
      scenes::BoxOffAnEdgeScene(/*overhang_m=*/0.0005, /*speed_m_per_s=*/0.0);
  const int steps = 10;
  const TrapRun peg = RunTrap(scene, PolytopeContactModel::kPeg, steps);
  const TrapRun standard = RunTrap(scene, PolytopeContactModel::kStandard, steps);
  // Free fall: v_z = -g t exactly after n semi-implicit steps (1e-9 relative for rounding).
  EXPECT_NEAR(peg.end_velocity.z(), -9.81 * peg.duration_s, 1e-9 * 9.81 * peg.duration_s);
  // The standard model holds the trailing vertices on the table's plane (z = 0, to the LCP's
  // round-off), a shelf that is not there: the cube pivots about them instead of falling; PEG's
  // vertices fall with it.
  ASSERT_EQ(standard.trapped_vertex_z.size(), static_cast<size_t>(steps));
  for (int step = 0; step < 3; ++step) {
    EXPECT_GE(standard.trapped_vertex_z[step], -1e-9) << "step " << step;
    EXPECT_LT(peg.trapped_vertex_z[step], -1e-4) << "step " << step;
  }
  EXPECT_GT(standard.end_velocity.z(), -9.81 * peg.duration_s * 0.9);
}

}  // namespace
}  // namespace contactsim::core
