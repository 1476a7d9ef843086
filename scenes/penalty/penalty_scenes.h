// Penalty-pipeline scenes: builders for the benchmarks of Tang et al. 2012 ("Continuous Penalty
// Forces", Sec. 4), each returning a configured World (penalty_pipeline.h) with the contact model
// asked for, plus a box dropped on a plane (the supplementary video's jitter example).
//
// Sizes: `resolution` in (0, 1] scales every mesh's segment counts (1 gives the paper's triangle
// counts, smaller values coarse meshes for quick tests); `count` (links, rings, tori, balls; <= 0:
// the full size) sets how many repeated bodies there are. The paper gives dt and k only for the
// chain (dt 0.02 s, k 10 "N/m" in SOFA's units) and the cloth; the other values below are ours,
// chosen so explicit stepping is stable for CPF at the scene's dt (dt < sqrt(2 m / k),
// world_settings.h) and are stated per scene. Friction is off unless stated (the paper's figures
// are about the normal force).
//
//   chain   a chain of rigid torus links (R 0.5 m, r 0.1 m, 1000 kg/m^3: 98.7 kg per link,
//           40 x 15 segments, 12 links: 14,400 + 12 = 14.4k triangles at full size), the first
//           link static, laid out horizontally so the chain swings down onto a static box;
//           dt 0.02 s (paper), k 1e3 N/m (ours, see MakeChainScene: a link interface carries
//           ~100 pairs, so larger k diverges at this dt). Links still sink deep into each other
//           under the chain's weight (the runner reports the depth). ChainSceneParams moves
//           and narrows the box and sets the links' density (tests/physics/chain_benchmark_test).
//   stick   a rigid ball (r 0.1 m, 500 kg/m^3: 2.1 kg; icosphere with 4 subdivisions, 5,120
//           triangles, 3 below resolution 1, 2 below 0.5) flying horizontally at 2 m/s into a
//           free stick (box 1.0 x 0.05 x 0.05 m, 5 kg) spinning at 6 rad/s about y, no gravity;
//           k 200 N/m (up to ~90 pairs act at once: 1e3 N/m diverged with CPF at full
//           resolution), dt 0.01 s (StickSceneParams). The paper's Fig. 9 gives only the outcome
//           (CPF: the ball leaves upwards; DPF: horizontally). Against the discrete proximity
//           baseline (kDpfProximity) the outcome is systematic for start angles 0-0.2 rad
//           (tests/physics/stick_benchmark_test.cc, docs/validation.md); against the CCD-based
//           kDpf it is not.
//   rings   rigid tori (R 0.08 m, r 0.012 m, 2000 kg/m^3, 32 x 12 segments) falling onto thin
//           static pins (cylinders r 0.01 m, 16 segments) on a static base; 9 rings and 9 pins:
//           7.5k triangles; k 5e3 N/m, dt 1 ms (the paper's Fig. 15/16 vary both). Each ring
//           starts 0.03 m off its pin's axis (the pin drops through the hole);
//           RingsSceneParams::ring_offset_m near 0.08 m lands the tube on the pin's top
//           (tests/physics/rings_benchmark_test.cc).
//   blob, tori_cloth, bucket: deformable scenes, deformable_scenes.h.
//   box     a 1 kg cube (half size 0.1 m) dropped tilted from 1 cm onto the plane z = 0;
//           k 2500 N/m, dt 0.01 s (see tests/physics/box_rest_jitter_test.cc for why).
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "core/sim/world.h"
#include "core/sim/world_settings.h"

namespace contactsim::core {

struct PenaltySceneOptions {
  ContactModel contact_model = ContactModel::kCpf;
  double resolution = 1.0;  // (0, 1]: mesh segment counts scaled by it (with minimums)
  int count = 0;            // links, rings, tori or balls; <= 0 for the full size
  // > 0: replaces the scene's penalty stiffness k [N/m] (the stick scene: StickSceneParams).
  double stiffness_n_per_m = 0.0;
  // > 0: replaces the scene's time step dt [s] (any scene), e.g. the paper's 1/30 s for the
  // rings (Fig. 15). Stability is the caller's: with n pairs on a mass m, explicit penalty
  // contact needs about n k dt^2 / m < 2 (CPF; world_settings.h), else the run diverges.
  double dt_s = 0.0;
};

struct PenaltyScene {
  std::string name;
  World world;
  int num_triangles = 0;  // surface triangles of all bodies
  // The bodies whose contact force against everything else (static geometry, other bodies) a
  // runner plots, like the paper's Fig. 8/11 (chain: the links; stick: the ball; rings: the
  // rings; box: the box). Contacts among them are not counted.
  std::vector<int32_t> force_bodies;
  // When not empty, only contacts of the force bodies with these bodies count (chain: the box,
  // not the static anchor link that carries the chain's weight).
  std::vector<int32_t> force_against;
  std::string description;  // one line: what the scene is, with its sizes
  // Deformable scenes (deformable_scenes.h): OK while no body has passed through the container
  // or cloth it falls into, else FailedPrecondition naming the body, vertex and how far; empty
  // for the rigid scenes.
  std::function<absl::Status(const World&)> check_containment;
};

// The scene names MakePenaltyScene accepts.
std::vector<std::string> PenaltySceneNames();

// InvalidArgument for an unknown name or resolution outside (0, 1].
absl::StatusOr<PenaltyScene> MakePenaltyScene(std::string_view name,
                                              const PenaltySceneOptions& options);

// The chain scene's free parameters (defaults: the scene above).
struct ChainSceneParams {
  double box_half_width_m = 0.3;  // the box's half size across the swing plane (y) [m]
  // The box's half height is max(0.1 L + 0.05 m, this) [m].
  double box_min_half_height_m = 0.0;
  // The box's centre below the anchor, as a fraction of the chain's length L [1]; its top is its
  // half height above that ((box_depth_fraction - 0.1) L - 0.05 m below the anchor by default).
  double box_depth_fraction = 0.75;
  double link_density_kg_per_m3 = 1000.0;  // 98.7 kg per link at 1000
  double tube_radius_m = 0.1;              // r, the links' tube radius [m], < R
  double major_radius_m = 0.5;             // R, the links' ring radius [m]
};
// InvalidArgument naming the field for a bad option or parameter (e.g. "tube_radius_m: must be <
// major_radius_m (0.5), got 0.6").
absl::StatusOr<PenaltyScene> MakeChainScene(const PenaltySceneOptions& options,
                                            const ChainSceneParams& params = {});
// The stick scene's free parameters (defaults: the scene above).
struct StickSceneParams {
  Vec3 ball_position_m = Vec3(0.55, 0.0, 0.35);       // the ball's centre at t = 0 [m]
  Vec3 ball_velocity_m_per_s = Vec3(-2.0, 0.0, 0.0);  // [m/s]
  double spin_rad_per_s = -6.0;    // stick spin about -y [rad/s] (< 0: the +x end sinks)
  double initial_angle_rad = 0.6;  // the +x end's angle above the horizontal at t = 0 [rad]
  // > 0: a free (dynamic) stick of this density [kg/m^3] (2000: 5 kg); 0: a kinematic stick
  // spinning at a constant rate (it does unbounded work on the ball).
  double stick_density_kg_per_m3 = 2000.0;
  double dt_s = 0.01;
  double stiffness_n_per_m = 200.0;
};
absl::StatusOr<PenaltyScene> MakeStickScene(const PenaltySceneOptions& options,
                                            const StickSceneParams& params = {});
// The rings scene's free parameters (defaults: the scene above).
struct RingsSceneParams {
  // The ring centre's offset from its pin's axis along x [m]: 0.03 drops the pin through the
  // hole (hole radius 0.068 m); near the major radius 0.08 the tube lands on the pin's top.
  double ring_offset_m = 0.03;
  double drop_height_m = 0.2;  // the ring centre's height above the pins' tops at t = 0 [m]
  double tilt_rad = 0.3;       // ring i is tilted by tilt_rad + 0.05 i about (1, 0.5, 0)
};
absl::StatusOr<PenaltyScene> MakeRingsScene(const PenaltySceneOptions& options,
                                            const RingsSceneParams& params = {});
absl::StatusOr<PenaltyScene> MakeBoxScene(const PenaltySceneOptions& options);

}  // namespace contactsim::core
