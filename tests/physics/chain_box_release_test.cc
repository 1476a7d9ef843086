// Chain benchmark, "no link stuck in the box" (Tang et al. 2012, Sec. 5; issue 23, part 1b): with
// CPF no link of the chain stays in the box once the chain's load is gone.
//
// Protocol (docs/validation.md, chain benchmark, "Not reproduced: no sticking with CPF"; the same
// as bench/chain_box_release --damping 3): MakeChainScene (penalty_scenes.h), CPF, 3 s with
// gravity, then 2 s with gravity cancelled on every link (a force -m g) and the links' motion
// damped (force -c m v, torque -c I w, c = 3 /s: the motion decays within about a second), so a
// link still inside at the end is held there, not bouncing. A link's depth in the box is the
// largest distance of one of its vertices inside the box's axis-aligned bounds.
//
// Step: dt = 2.5 ms, k = 1e3 N/m x (0.02 s / dt)^2 = 6.4e4 N/m, so k dt^2 / m is the paper
// scene's at 0.02 s. At the paper's dt = 0.02 s the criterion is not met (links stay up to 12 cm
// inside, held by the link-link interpenetration that carries the swinging chain's load; the
// cause is in docs/validation.md), and the depth falls with dt^2: the quarter tube radius is met
// by every configuration of the dt sweep at 2.5 ms and missed at 5 ms.
//
// Asserted per configuration (the sweep's six, in the scene's 0.6 m box and in a 1.8 m x 1.2 m box
// that no link can encircle): every link's depth after the weightless phase is at most
//   * the spec bound, a quarter of the tube radius r = 0.1 m: 2.5 cm, and
//   * a tight bound, max(the deepest link measured when this test was written, 0) + 0.5 cm, so a
//     regression shows long before the spec bound fails. The step is deterministic, but the swing
//     is chaotic: a legitimate change of the pipeline's rounding moves where the links land, hence
//     the margin, and "all out" is kept as "none deeper than 0.5 cm". Measured (2026-11-28,
//     Release, GCC): deepest 0.83 cm in the 0.6 m box, 1.63 cm in the wide one (the per-run
//     values beside the table below).
// Run time: 10-20 s for the 12 configurations on one core (Release, 2026-11-28, loaded machine).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "core/dynamics/rigid_body.h"
#include "scenes/penalty/penalty_scenes.h"

namespace contactsim::core {
namespace {

constexpr double kDtS = 2.5e-3;
constexpr double kStiffnessNPerM = 1e3 * (0.02 / kDtS) * (0.02 / kDtS);  // k dt^2 as at 0.02 s
constexpr int kStepsWithGravity = 1200;                                  // 3 s
constexpr int kWeightlessSteps = 800;                                    // 2 s
constexpr double kDampingPerS = 3.0;
constexpr double kSpecBoundM = 0.025;  // a quarter of the tube radius 0.1 m

struct Configuration {
  const char* name;
  double box_depth_fraction;
  double resolution;
  int links;
  bool wide_box;         // 1.8 m x 1.2 m instead of the scene's 0.6 m wide box
  double tight_bound_m;  // max(measured deepest link, 0) + 0.5 cm, rounded up to the mm [m]
};

// Largest distance of a vertex of the body inside the box [lo, hi] (> 0 inside) [m].
double DepthInBox(const Body& body, const Vec3& lo, const Vec3& hi) {
  double deepest = -1e300;
  const Points3& x = body.positions_t0();
  for (int v = 0; v < x.rows(); ++v) {
    const Vec3 p = x.row(v).transpose();
    deepest = std::max(deepest, std::min((p - lo).minCoeff(), (hi - p).minCoeff()));
  }
  return deepest;
}

// The deepest link (the first, static link excluded) after the weightless phase [m].
double DeepestLinkAfterRelease(const Configuration& c) {
  PenaltySceneOptions options;
  options.contact_model = ContactModel::kCpf;
  options.resolution = c.resolution;
  options.count = c.links;
  options.stiffness_n_per_m = kStiffnessNPerM;
  options.dt_s = kDtS;
  ChainSceneParams params;
  params.box_depth_fraction = c.box_depth_fraction;
  if (c.wide_box) {
    params.box_half_width_m = 0.9;
    params.box_min_half_height_m = 0.6;
  }
  absl::StatusOr<PenaltyScene> scene = MakeChainScene(options, params);
  EXPECT_TRUE(scene.ok()) << scene.status();
  if (!scene.ok()) return 1e300;
  World& world = scene->world;
  std::vector<RigidBody*> links;
  for (int i = 1; i < c.links; ++i) {
    absl::StatusOr<int32_t> id = world.FindBody("link" + std::to_string(i));
    EXPECT_TRUE(id.ok()) << id.status();
    if (!id.ok()) return 1e300;
    links.push_back(static_cast<RigidBody*>(world.body(*id)));
  }
  const Points3& box_x = world.body(scene->force_against.front())->positions_t0();
  const Vec3 lo = box_x.colwise().minCoeff().transpose();
  const Vec3 hi = box_x.colwise().maxCoeff().transpose();
  for (int step = 0; step < kStepsWithGravity + kWeightlessSteps; ++step) {
    if (step >= kStepsWithGravity) {
      for (RigidBody* link : links) {
        const RigidBodyState& state = link->state();
        EXPECT_TRUE(link->ApplyForce(-link->mass_kg() * (world.settings().gravity_m_per_s2 +
                                                         kDampingPerS * state.v_WB_m_per_s))
                        .ok());
        EXPECT_TRUE(
            link->ApplyTorque(-kDampingPerS * (link->InertiaWorld() * state.w_WB_rad_per_s)).ok());
      }
    }
    const absl::Status status = world.Step(1);
    EXPECT_TRUE(status.ok()) << c.name << ", step " << step << ": " << status;
    if (!status.ok()) return 1e300;
  }
  double deepest = -1e300;
  std::printf("%-40s", c.name);
  for (const RigidBody* link : links) {
    const double depth = DepthInBox(*link, lo, hi);
    std::printf(" %+.4f", depth);
    deepest = std::max(deepest, depth);
  }
  std::printf("  [m in the box]\n");
  return deepest;
}

TEST(ChainBoxReleaseTest, NoLinkStaysDeeperThanAQuarterTubeRadiusAtDt2p5ms) {
  // The dt sweep's configurations (docs/validation.md) in both boxes.
  const Configuration configurations[] = {
      // name, box depth [L], resolution, links, wide box, tight bound [m] (measured deepest link)
      {"6 links, res 0.5, box 0.35 L", 0.35, 0.5, 6, false, 0.005},           // -0.0082
      {"7 links, res 0.6, box 0.75 L", 0.75, 0.6, 7, false, 0.014},           // +0.0083
      {"6 links, res 0.5, box 0.6 L", 0.6, 0.5, 6, false, 0.005},             // -0.2005
      {"5 links, res 0.4, box 0.75 L", 0.75, 0.4, 5, false, 0.009},           // +0.0038
      {"4 links, res 0.5, box 0.5 L", 0.5, 0.5, 4, false, 0.006},             // +0.0008
      {"6 links, res 0.5, box 0.75 L", 0.75, 0.5, 6, false, 0.005},           // -0.1962
      {"wide box: 6 links, res 0.5, box 0.35 L", 0.35, 0.5, 6, true, 0.009},  // +0.0039
      {"wide box: 7 links, res 0.6, box 0.75 L", 0.75, 0.6, 7, true, 0.007},  // +0.0018
      {"wide box: 6 links, res 0.5, box 0.6 L", 0.6, 0.5, 6, true, 0.005},    // -0.0033
      {"wide box: 5 links, res 0.4, box 0.75 L", 0.75, 0.4, 5, true, 0.006},  // +0.0010
      {"wide box: 4 links, res 0.5, box 0.5 L", 0.5, 0.5, 4, true, 0.005},    // -0.0001
      {"wide box: 6 links, res 0.5, box 0.75 L", 0.75, 0.5, 6, true, 0.022},  // +0.0163
  };
  for (const Configuration& c : configurations) {
    const double deepest = DeepestLinkAfterRelease(c);
    EXPECT_LE(deepest, kSpecBoundM) << c.name;
    EXPECT_LE(deepest, c.tight_bound_m) << c.name << " (tight bound: measured + 0.5 cm)";
  }
}

}  // namespace
}  // namespace contactsim::core
