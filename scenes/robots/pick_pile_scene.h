// The pick-from-a-pile scene of issue 24 in a core World (rigid_lcp pipeline, docs/robots.md),
// shared by bench/robot_pile_bench and tests/physics/robot_pick_pile_test:
//   the repository's arm (scenes/robots/six_axis_arm.urdf, its text passed in) on a fixed base at
//   the origin; on the ground plane z = 0 in front of it (+x) a 40 mm target cube (0.1 kg) at
//   (0.42, 0) and a pile of `pile_parts` boxes and hexagonal prisms (seeded sizes, yaw and tilt,
//   1000 kg/m^3) dropped onto each other on a grid around it, clear of the open fingers;
//   a static open bin (five boxes) at (0, 0.45) to the arm's left.
// The scripted pick: the finger midpoint follows waypoints in cylindrical coordinates about the
// arm's axis (radius, azimuth, height), the six arm joints track it through the arm's closed-form
// inverse kinematics with the gripper pointing down, all under position (PD) motors, the gripper
// closing with 10 N and opening by a position motor: settle, approach, descend, close, lift,
// carry, release, retreat.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "core/common/eigen_types.h"
#include "core/sim/world.h"

namespace contactsim::scenes {

struct PickPileOptions {
  bool with_arm = true;  // false: the same pile, target and bin without the arm (a baseline)
  int pile_parts = 20;   // parts besides the target, in [0, 40]
  uint64_t seed = 1;
  double dt_s = 1e-3;  // 1 kHz, the controllers' rate
  double friction_coefficient = 0.5;
  // The contact patches' spin friction (docs/rigid_lcp.md): 5 mm holds a grasp without creep.
  double torsional_friction_radius_m = 0.005;
};

struct PickPileScene {
  explicit PickPileScene(core::World w) : world(std::move(w)) {}
  core::World world;
  int32_t robot_id = -1;                               // -1 without the arm
  int32_t target_id = -1;                              // the cube the script picks
  std::vector<int32_t> pile_ids;                       // the other parts
  std::vector<int32_t> bin_ids;                        // the bin's static boxes
  core::Vec3 bin_floor_center_m = core::Vec3::Zero();  // the centre of the bin floor's top face
  core::Vec3 bin_inner_half_m = core::Vec3::Zero();  // inside: half width, half depth, wall height
};

// InvalidArgument naming the option for one out of range; the World's and the loader's errors
// pass through.
absl::StatusOr<PickPileScene> BuildPickPileScene(std::string arm_urdf,
                                                 const PickPileOptions& options = {});

// A waypoint of the finger midpoint (between the two fingers' centres) in cylindrical coordinates
// about the arm's vertical axis, and the gripper command while moving to it.
struct PickWaypoint {
  const char* phase;    // the segment's name: "settle", "approach", ...
  double duration_s;    // time to move here from the previous waypoint
  double radius_m;      // horizontal distance from the arm's axis
  double azimuth_rad;   // about +z from +x
  double height_m;      // above the ground
  bool gripper_closed;  // the fingers close (10 N) or open during this segment
};

// The script for `scene` (the target's nominal place and the bin's), starting at t = 0.
std::vector<PickWaypoint> PickScript(const PickPileScene& scene);
double PickScriptDuration(const std::vector<PickWaypoint>& script);
// The index of the waypoint whose segment contains time t (the last one after the end).
int PickSegmentAt(const std::vector<PickWaypoint>& script, double t_s);

// The arm's joint positions [rad] (joint1..joint6) that put the finger midpoint at the given
// place with the gripper pointing straight down and the fingers closing across the radial
// direction (elbow up). InvalidArgument when the place is out of reach.
absl::StatusOr<std::array<double, 6>> ArmJointsFor(double radius_m, double azimuth_rad,
                                                   double height_m);

// The script's motors (CommandPick), for controllers that drive the arm alike through the
// service: position motors on joint1..joint6 (the PD that holds the bent arm within the static
// sag m g r / kp ~ 1.4e-3 rad in tests/core/sim/world_robot_test.cc); the left finger (the right
// one mimics it) closed past any part, so its motor squeezes at its 10 N cap, or open at 0.
inline constexpr std::array<const char*, 6> kPickArmJoints = {"joint1", "joint2", "joint3",
                                                              "joint4", "joint5", "joint6"};
inline constexpr const char* kPickFingerJoint = "finger_left_joint";
inline constexpr double kPickArmKp = 1e4, kPickArmKd = 200.0;       // [N m/rad], [N m s/rad]
inline constexpr double kPickFingerKp = 1e4, kPickFingerKd = 50.0;  // [N/m], [N s/m]
inline constexpr double kPickSqueezeN = 10.0, kPickFingerClosedM = 0.03;

// Sets the arm's motors for script time t: the six joints' position motors at the inverse
// kinematics of the interpolated waypoint (with its rate as the target velocity), the left finger
// (the right one mimics it) closed with at most 10 N or open.
absl::Status CommandPick(core::World& world, int32_t robot_id,
                         const std::vector<PickWaypoint>& script, double t_s);

}  // namespace contactsim::scenes
