// Scene (Zeng et al. 2024, Sec. 7.8): a two-finger cable-driven soft gripper lifts a soft object
// (soft_gripper.h): three bodies in one system, contact between them and with the floor.
#include "scenes/local_global/soft_gripper.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <vector>

#include "gtest/gtest.h"

namespace contactsim::core {
namespace {

struct GripperRun {
  double object_mass_kg = 0.0;
  double lift_m = 0.0;            // object centre height gained, end of the run
  double lowest_z_m = 0.0;        // lowest object vertex, end of the run
  double drop_in_hold_m = 0.0;    // object centre height lost between rise end and run end
  double finger_force_z_n = 0.0;  // vertical force of the fingers on the object, last step
  double tip_inward_m = 0.0;      // mean inward motion of the fingers' tips when the rise starts
};

GripperRun RunGripper(const SoftGripperParams& params) {
  GripperRun out;
  auto scene = BuildSoftGripper(params);
  EXPECT_TRUE(scene.ok()) << scene.status();
  if (!scene.ok()) return out;
  const Eigen::VectorXd& mass = scene->solver->lumped_mass_kg();
  const int32_t b = scene->object_begin, e = scene->object_end;
  const int n = scene->solver->num_vertices();
  out.object_mass_kg = scene->object_mass_kg;
  auto object_centre_z = [&](const Points3& x) {
    return mass.segment(b, e - b).dot(x.middleRows(b, e - b).col(2)) / scene->object_mass_kg;
  };
  // Finger tips: the lowest vertices of each finger; inward = towards x = 0.
  const Points3 x0 = scene->state.x_m;
  const double tip_z = x0.middleRows(e, n - e).col(2).minCoeff();
  std::vector<int32_t> tips;
  for (int v = e; v < n; ++v) {
    if (std::abs(x0(v, 2) - tip_z) < 1e-9) tips.push_back(v);
  }
  auto tip_inward = [&](const Points3& x) {
    double sum = 0.0;
    for (int32_t v : tips) sum += std::abs(x0(v, 0)) - std::abs(x(v, 0));
    return sum / static_cast<double>(tips.size());
  };
  const double z0 = object_centre_z(x0);
  const double h = params.time_step_s;
  const int steps = static_cast<int>(std::lround(scene->duration_s / h));
  double z_at_rise_end = z0;
  for (int step = 0; step < steps; ++step) {
    const Points3 targets = scene->PinnedTargets(scene->state.time_s + h);
    LocalGlobalStepStats stats;
    const absl::Status status =
        scene->solver->Step(scene->gravity_n, &scene->state, &targets, &stats);
    EXPECT_TRUE(status.ok()) << status;
    if (!status.ok()) return out;
    out.finger_force_z_n = 0.0;
    for (size_t j = 0; j < stats.contacts.size(); ++j) {
      const VertexContact& c = stats.contacts[j];
      if (c.kind != ContactKind::kBodyVertexTriangle && c.kind != ContactKind::kBodyEdgeEdge) {
        continue;
      }
      const Vec3 force = stats.contact_force_n[3 * j] * c.normal +
                         stats.contact_force_n[3 * j + 1] * c.tangent1 +
                         stats.contact_force_n[3 * j + 2] * c.tangent2;
      double share = c.vertex >= b && c.vertex < e ? c.weight : 0.0;
      for (int k = 0; k < kMaxExtraContactVertices; ++k) {
        const int32_t v = c.extra_vertices[k];
        if (v >= b && v < e) share += c.extra_weights[k];
      }
      out.finger_force_z_n += share * force.z();
    }
    if (std::abs(scene->state.time_s - scene->rise_start_s) < 0.5 * h) {
      out.tip_inward_m = tip_inward(scene->state.x_m);
    }
    if (std::abs(scene->state.time_s - scene->rise_end_s) < 0.5 * h) {
      z_at_rise_end = object_centre_z(scene->state.x_m);
    }
  }
  out.lift_m = object_centre_z(scene->state.x_m) - z0;
  out.lowest_z_m = scene->state.x_m.middleRows(b, e - b).col(2).minCoeff();
  out.drop_in_hold_m = z_at_rise_end - object_centre_z(scene->state.x_m);
  std::printf(
      "shortening %.2f: lift %.5f m, lowest %.5f m, hold drop %.2e m, tips inward %.5f m, "
      "finger force %.6e N, weight %.6e N\n",
      params.cable_shortening, out.lift_m, out.lowest_z_m, out.drop_in_hold_m, out.tip_inward_m,
      out.finger_force_z_n, 9.81 * out.object_mass_kg);
  return out;
}

// Default scene (226 vertices: a 3^3-cell cube of 2.16 g between two 2 x 2 x 8-cell fingers), 90
// steps of 1/60 s: cables shortened by 8% over 0.5 s, settle 0.25 s, base up 4 cm at 8 cm/s,
// hold 0.25 s. Criteria: the cables curl the fingers (their tips move inward by more than half
// the 4 mm clearance before the rise; measured 4.05 mm: they close on the object), the object is
// lifted by at least 80% of the base's rise (measured 97%:
// the soft fingers and object stretch a little under its weight), its lowest vertex is off the
// floor by more than half the rise, it does not slip down during the hold (less than 1 mm), and
// at the end the fingers carry its weight: the vertical contact force on the object from the
// fingers equals m g to 2% (it hangs at rest, so the force is m g minus m dv/h; the object's 2 g
// make the tolerance an acceleration of 0.2 m/s^2, far above what a held object shows).
TEST(SoftGripperTest, LiftsTheObjectByFriction) {
  SoftGripperParams params;
  const GripperRun run = RunGripper(params);
  EXPECT_GT(run.tip_inward_m, params.clearance_m / 2);  // the cables curled the fingers
  EXPECT_GT(run.lift_m, 0.8 * params.rise_m);
  EXPECT_GT(run.lowest_z_m, 0.5 * params.rise_m);
  EXPECT_LT(run.drop_in_hold_m, 1e-3);
  const double weight_n = 9.81 * run.object_mass_kg;
  EXPECT_NEAR(run.finger_force_z_n, weight_n, 0.02 * weight_n);
}

// Control: the same run with the cables never pulled. The fingers hang 4 mm from the object and
// rise past it: nothing may lift it (no spurious contact force), it stays on the floor (within
// 0.1 mm) and the fingers carry none of its weight.
TEST(SoftGripperTest, WithoutTheCablePullTheObjectStaysOnTheFloor) {
  SoftGripperParams params;
  params.cable_shortening = 0.0;
  const GripperRun run = RunGripper(params);
  EXPECT_LT(std::abs(run.tip_inward_m), params.clearance_m / 2);
  EXPECT_LT(std::abs(run.lift_m), 1e-4);
  EXPECT_LT(std::abs(run.finger_force_z_n), 1e-3 * 9.81 * run.object_mass_kg);
}

}  // namespace
}  // namespace contactsim::core
