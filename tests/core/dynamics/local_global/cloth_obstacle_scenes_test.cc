// The cloth scenes of Zeng et al. 2024, Sec. 7 (Fig. 8 "Cloth on Knives", Fig. 6 "Sharp
// Corner"), coarse versions (1 m cloth, 16 x 16 cells, 289 vertices, 1 kg; Table 3's material
// and solver settings: h = 0.01 s, 5 local-global iterations, 10 CR iterations).
//
// What is checked, and the bounds:
// - nothing non-finite, every step;
// - the cloth never passes through an obstacle: the blades' mid-planes (the cloth must not
//   reach them: contacts keep it the blades' half thickness, 1 mm, away; asserted with 0.1 mm of
//   that to spare) and the cube shrunk by a tolerance (vertices, edges and the corners' piercing
//   of cloth triangles; cube_on_sharp_corner.h);
// - at rest the contact forces carry the weight: the total contact force's z component, summed
//   over the contacts of the step (normal and friction parts), equals m g up to m dv_z / h
//   (exact momentum balance of the global step, elastic forces sum to zero), averaged over the
//   last 0.5 s within 1% while the largest vertex speed is below 0.1 m/s;
// - the NCP residual ||F|| after each step's last correction stays below 50 (rows in m and m/s;
//   with the friction compliance cap of 100 r_f the friction rows are |v_f| + E_f |lambda_f|
//   with E_f bounded; measured max 10.8 / 2.0 below; without the cap: 1e8-1e14).
#include <algorithm>
#include <cmath>
#include <iostream>

#include "gtest/gtest.h"
#include "scenes/local_global/cloth_on_knives.h"
#include "scenes/local_global/cloth_on_sharp_corner.h"

namespace contactsim::core {
namespace {

constexpr double kGravity = 9.81;

// Total contact force on the cloth [N]: sum of lambda_n n + lambda_1 t1 + lambda_2 t2.
Vec3 TotalContactForce(const LocalGlobalStepStats& stats) {
  Vec3 total = Vec3::Zero();
  for (size_t j = 0; j < stats.contacts.size(); ++j) {
    const VertexContact& c = stats.contacts[j];
    total += stats.contact_force_n[3 * j] * c.normal +
             stats.contact_force_n[3 * j + 1] * c.tangent1 +
             stats.contact_force_n[3 * j + 2] * c.tangent2;
  }
  return total;
}

double MaxSpeed(const Points3& v) { return v.rowwise().norm().maxCoeff(); }

// Per-run measures of a dropped cloth.
struct DropRecord {
  double worst_end_residual = 0.0;
  double mean_force_ratio_tail = 0.0;  // mean F_z / (m g) over the tail steps
  double final_max_speed = 0.0;
  double final_rms_speed = 0.0;  // sqrt(2 kinetic energy / m) [m/s]
  bool all_finite = true;
};

template <typename PerStep>
DropRecord RunDrop(ClothDrop& cloth, int steps, int tail_steps, PerStep per_step) {
  DropRecord record;
  LocalGlobalStepStats stats;
  for (int s = 1; s <= steps; ++s) {
    EXPECT_TRUE(cloth.solver->Step(cloth.gravity_n, &cloth.state, nullptr, &stats).ok());
    record.all_finite = record.all_finite && cloth.state.x_m.allFinite() &&
                        cloth.state.v_mps.allFinite() && stats.contact_force_n.allFinite();
    if (!record.all_finite) return record;
    if (!stats.contact_residual.empty()) {
      record.worst_end_residual =
          std::max(record.worst_end_residual, stats.contact_residual.back());
    }
    if (s > steps - tail_steps) {
      record.mean_force_ratio_tail +=
          TotalContactForce(stats).z() / (kGravity * cloth.mass_kg) / tail_steps;
    }
    per_step(s);
  }
  record.final_max_speed = MaxSpeed(cloth.state.v_mps);
  const Eigen::VectorXd speed2 = cloth.state.v_mps.rowwise().squaredNorm();
  record.final_rms_speed = std::sqrt(cloth.solver->lumped_mass_kg().dot(speed2) / cloth.mass_kg);
  return record;
}

TEST(ClothOnKnivesTest, RejectsParametersNamingTheField) {
  ClothOnKnivesParams params;
  params.blades = 0;
  auto status = BuildClothOnKnives(params).status();
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(status.message().rfind("params.blades", 0), 0u) << status;
  params = {};
  params.cloth.cells = 0;
  status = BuildClothOnKnives(params).status();
  EXPECT_EQ(status.message().rfind("params.cloth.cells", 0), 0u) << status;
}

// Four blades 0.23 m apart (0.3 m high, 2 mm contact thickness, mu 0.3), the cloth dropped from
// 5 mm above them; 2 s.
TEST(ClothOnKnivesTest, ClothDrapesOverTheBladesWithoutPassingThrough) {
  auto built = BuildClothOnKnives(ClothOnKnivesParams{});
  ASSERT_TRUE(built.ok()) << built.status();
  ClothOnKnivesScene& scene = *built;
  ASSERT_NEAR(scene.cloth.mass_kg, 1.0, 1e-9);  // 1 m^2 x 1 mm x 1000 kg/m^3
  int first_through = -1;
  const DropRecord r = RunDrop(scene.cloth, 200, 50, [&](int step) {
    if (first_through < 0 && scene.PassesThroughBlade(scene.cloth.state.x_m, 1e-4)) {
      first_through = step;
    }
  });
  const double depth = scene.BladePenetrationDepth(scene.cloth.state.x_m);
  const double lowest = scene.cloth.state.x_m.col(2).minCoeff();
  std::cout << "knives: worst end residual " << r.worst_end_residual << ", F_z / m g (last 0.5 s) "
            << r.mean_force_ratio_tail << ", final max speed " << r.final_max_speed << " m/s (RMS "
            << r.final_rms_speed << "), lowest vertex " << lowest << " m, final depth " << depth
            << " m\n";
  ASSERT_TRUE(r.all_finite);
  EXPECT_EQ(first_through, -1) << "the cloth passed through a blade at step " << first_through;
  EXPECT_NEAR(r.mean_force_ratio_tail, 1.0, 0.01);
  EXPECT_LT(r.final_max_speed, 0.1);
  EXPECT_LT(r.worst_end_residual, 50.0);
  // Draped: held by the blades (0.3 m high), not fallen to the floor, sagging between them.
  EXPECT_GT(lowest, 0.1);
  EXPECT_LT(scene.cloth.state.x_m.col(2).maxCoeff(), scene.blade_top_m + 0.01);
}

TEST(ClothOnSharpCornerTest, RejectsParametersNamingTheField) {
  ClothOnSharpCornerParams params;
  params.cube_edge_m = -1.0;
  auto status = BuildClothOnSharpCorner(params).status();
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(status.message().rfind("params.cube_edge_m", 0), 0u) << status;
}

// A 0.3 m cube on the floor (turned 20 degrees, mu 0.3), the cloth dropped from 5 mm above its
// top face; 3 s. Penetration of the cube (shrunk by the depth, its bottom raised by it: cloth
// on the floor at the cube's foot does not count) after every step: transients up to 1.7 mm
// (measured; steps where the cloth folds over a corner: the contacts are linearized at the step
// start), pushed back out within a few steps, 2e-5 m at the end; asserted below 5 mm at every
// step, 1 mm on more than 2% of the steps, 0.1 mm at the end. This fails with the closed-body
// orientation of the corner contacts (minus the cloth triangle's normal: 5.3 mm, 57 steps over
// 1 mm) and with the triangle's side at the step start (4.7 mm, 36 steps; mesh_contact.h).
// Rest: the flaps of a membrane without bending swing slowly (~1 Hz, a flap vertex at 0.13 m/s
// after 3 s; implicit Euler damps little at omega h = 0.06), so rest is asserted on the RMS
// speed sqrt(2 KE / m) < 0.05 m/s (measured 0.011).
TEST(ClothOnSharpCornerTest, ClothDrapesOverTheCornersWithoutPassingThrough) {
  auto built = BuildClothOnSharpCorner(ClothOnSharpCornerParams{});
  ASSERT_TRUE(built.ok()) << built.status();
  ClothOnSharpCornerScene& scene = *built;
  double worst_depth = 0.0;
  int steps_over_1mm = 0;
  const int steps = 300;
  const DropRecord r = RunDrop(scene.cloth, steps, 50, [&](int step) {
    const double depth = scene.CubePenetrationDepth(scene.cloth.state.x_m);
    worst_depth = std::max(worst_depth, depth);
    if (depth > 1e-3) ++steps_over_1mm;
  });
  const double final_depth = scene.CubePenetrationDepth(scene.cloth.state.x_m);
  std::cout << "corner: worst end residual " << r.worst_end_residual << ", F_z / m g (last 0.5 s) "
            << r.mean_force_ratio_tail << ", final max speed " << r.final_max_speed << " m/s (RMS "
            << r.final_rms_speed << "), depth worst " << worst_depth << " m (" << steps_over_1mm
            << " steps over 1 mm), final " << final_depth << " m, lowest vertex "
            << scene.cloth.state.x_m.col(2).minCoeff() << " m\n";
  ASSERT_TRUE(r.all_finite);
  EXPECT_LT(worst_depth, 5e-3);
  EXPECT_LE(steps_over_1mm, steps / 50);
  EXPECT_LT(final_depth, 1e-4);
  EXPECT_NEAR(r.mean_force_ratio_tail, 1.0, 0.01);
  EXPECT_LT(r.final_rms_speed, 0.05);
  EXPECT_LT(r.worst_end_residual, 50.0);
  // Draped: on the top face (0.3 m) and down to the floor.
  EXPECT_LT(scene.cloth.state.x_m.col(2).minCoeff(), 0.01);
  EXPECT_GT(scene.cloth.state.x_m.col(2).maxCoeff(), 0.3);
}

}  // namespace
}  // namespace contactsim::core
