#include "scenes/robots/pick_pile_scene.h"

#include <Eigen/Geometry>
#include <algorithm>
#include <cmath>
#include <memory>
#include <random>
#include <utility>

#include "absl/strings/str_cat.h"
#include "core/common/status_macros.h"
#include "core/dynamics/rigid_body.h"
#include "core/geometry/generators.h"

namespace contactsim::scenes {
namespace {

using core::Vec3;

// The arm's geometry along its pitch chain (scenes/robots/six_axis_arm.urdf): joint2 (the
// shoulder) 0.1 + 0.1 m above the base; joint2 -> joint3 0.3 m; joint3 -> joint5 0.25 + 0.06 m
// (joint4 turns about that line); joint5 -> the fingers' centres 0.06 + 0.02 (joint6, the hand's
// fixed mount) + 0.03 (finger origins) + 0.03 (the fingers' centres of 6 cm fingers).
constexpr double kShoulderHeight = 0.2;
constexpr double kUpperArm = 0.3;
constexpr double kForearm = 0.31;
constexpr double kWristToFingers = 0.14;
// The URDF's limits of the pitch joints (joint2, joint3, joint5).
constexpr double kPitchLimit[3] = {2.0, 2.5, 2.0};

constexpr double kTargetHalf = 0.02;  // the 40 mm cube, 0.1 kg
constexpr double kTargetDensity = 0.1 / (0.04 * 0.04 * 0.04);
constexpr double kPartDensity = 1000.0;
constexpr double kTargetRadius = 0.42;  // on +x
// Bin: inside 0.2 x 0.2 m, walls 0.08 m above a 0.02 m floor, 2 cm thick, centred at (0, 0.45).
constexpr double kBinY = 0.45, kBinInnerHalf = 0.10, kBinWall = 0.02, kBinFloor = 0.02;
constexpr double kBinWallHeight = 0.08;

double Uniform(std::mt19937_64& rng, double lo, double hi) {
  // The top 53 bits as a double in [0, 1): the same sequence on every platform.
  return lo + (hi - lo) * static_cast<double>(rng() >> 11) * 0x1.0p-53;
}

core::BodyOptions Named(std::string name) {
  core::BodyOptions options;
  options.name = std::move(name);
  return options;
}

// `mesh` (about its own origin) turned by `rotation`, lifted so its lowest vertex is at
// `bottom_z`, at (x, y).
absl::StatusOr<core::TriangleMesh> Placed(const core::TriangleMesh& mesh,
                                          const Eigen::Matrix3d& rotation, double x, double y,
                                          double bottom_z) {
  core::Points3 v = mesh.vertices() * rotation.transpose();
  const double lift = bottom_z - v.col(2).minCoeff();
  v.col(0).array() += x;
  v.col(1).array() += y;
  v.col(2).array() += lift;
  return core::TriangleMesh::Create(v, mesh.faces());
}

absl::StatusOr<int32_t> AddStaticBox(core::World& world, const std::string& name, const Vec3& half,
                                     const Vec3& center) {
  ASSIGN_OR_RETURN(core::TriangleMesh box, core::MakeBox(half));
  ASSIGN_OR_RETURN(core::TriangleMesh placed, Placed(box, Eigen::Matrix3d::Identity(), center.x(),
                                                     center.y(), center.z() - half.z()));
  ASSIGN_OR_RETURN(core::RigidBody body, core::RigidBody::CreateWithoutMass(
                                             std::move(placed), core::RigidBodyKind::kStatic));
  return world.AddBody(std::make_unique<core::RigidBody>(std::move(body)), Named(name));
}

// The pile's cells, 7 cm apart along x and 6.5 cm along y beside the target (|y| >= 0.11, so the
// open fingers at |y| <= 0.045 pass) and one before and one behind it; parts fill them in turn.
std::vector<std::pair<double, double>> PileCells() {
  std::vector<std::pair<double, double>> cells;
  for (const double x : {0.34, 0.41, 0.48}) {
    for (const double y : {-0.175, -0.11, 0.11, 0.175}) cells.emplace_back(x, y);
  }
  cells.emplace_back(0.32, 0.0);
  cells.emplace_back(0.52, 0.0);
  return cells;
}

// Whether two boxes' projections on the ground overlap.
bool FootprintsMeet(const Eigen::AlignedBox3d& a, const Eigen::AlignedBox3d& b) {
  return a.min().x() <= b.max().x() && b.min().x() <= a.max().x() && a.min().y() <= b.max().y() &&
         b.min().y() <= a.max().y();
}

double Smoothstep(double u) { return u * u * (3.0 - 2.0 * u); }

struct CylindricalPoint {
  double radius_m, azimuth_rad, height_m;
};

// The finger midpoint the script asks for at time t.
CylindricalPoint ScriptPoint(const std::vector<PickWaypoint>& script, double t_s) {
  double start = 0.0;
  for (size_t i = 0; i < script.size(); ++i) {
    const PickWaypoint& w = script[i];
    if (t_s < start + w.duration_s || i + 1 == script.size()) {
      const PickWaypoint& from = script[i == 0 ? 0 : i - 1];
      const double u =
          w.duration_s > 0.0 ? std::clamp((t_s - start) / w.duration_s, 0.0, 1.0) : 1.0;
      const double s = Smoothstep(u);
      return {from.radius_m + s * (w.radius_m - from.radius_m),
              from.azimuth_rad + s * (w.azimuth_rad - from.azimuth_rad),
              from.height_m + s * (w.height_m - from.height_m)};
    }
    start += w.duration_s;
  }
  return {0.0, 0.0, 0.0};  // unreachable: the script is never empty
}

}  // namespace

absl::StatusOr<std::array<double, 6>> ArmJointsFor(double radius_m, double azimuth_rad,
                                                   double height_m) {
  // The pitch joints keep the chain in the vertical plane at the azimuth; a link's direction is
  // its angle from +z towards the radial direction: upper arm q2, forearm q2 + q3, and the hand
  // q2 + q3 + q5 = pi (pointing down). So joint5 is kWristToFingers above the finger midpoint
  // and the shoulder-to-joint5 triangle gives q3 (elbow up: q3 > 0) and q2.
  const double dr = radius_m;
  const double dz = height_m + kWristToFingers - kShoulderHeight;
  const double d2 = dr * dr + dz * dz;
  const double c3 =
      (d2 - kUpperArm * kUpperArm - kForearm * kForearm) / (2.0 * kUpperArm * kForearm);
  if (!std::isfinite(c3) || std::abs(c3) > 1.0) {
    return absl::InvalidArgumentError(
        absl::StrCat("arm: radius ", radius_m, " m, height ", height_m, " m is out of reach"));
  }
  const double q3 = std::acos(c3);
  const double q2 =
      std::atan2(dr, dz) - std::atan2(kForearm * std::sin(q3), kUpperArm + kForearm * std::cos(q3));
  const double q5 = M_PI - q2 - q3;
  const double pitch[3] = {q2, q3, q5};
  for (int k = 0; k < 3; ++k) {
    if (std::abs(pitch[k]) > kPitchLimit[k]) {
      return absl::InvalidArgumentError(absl::StrCat(
          "arm: radius ", radius_m, " m, height ", height_m, " m needs ",
          kPickArmJoints[k == 2 ? 4 : k + 1], " = ", pitch[k], " rad, beyond its limit"));
    }
  }
  return std::array<double, 6>{std::remainder(azimuth_rad, 2.0 * M_PI), q2, q3, 0.0, q5, 0.0};
}

std::vector<PickWaypoint> PickScript(const PickPileScene& scene) {
  const double bin_r = scene.bin_floor_center_m.head<2>().norm();
  const double bin_az = std::atan2(scene.bin_floor_center_m.y(), scene.bin_floor_center_m.x());
  // The fingers' centres 35 mm above the ground: the 6 cm pads span 5-65 mm, the cube's whole
  // height (40 mm), with the hand (above the pads' roots) clear of its top.
  const double grasp_h = 0.035;
  // Released 12 cm above the bin floor: the cube's bottom clears the walls' top (8 cm).
  const double drop_h = scene.bin_floor_center_m.z() + 0.12;
  return {
      {"settle", 0.3, 0.30, -0.6, 0.35, false},  // home, while the pile settles
      {"approach", 0.5, kTargetRadius, 0.0, 0.15, false},
      {"descend", 0.4, kTargetRadius, 0.0, grasp_h, false},
      {"close", 0.25, kTargetRadius, 0.0, grasp_h, true},
      {"lift", 0.4, kTargetRadius, 0.0, 0.25, true},
      {"carry", 0.8, bin_r, bin_az, drop_h, true},
      {"release", 0.3, bin_r, bin_az, drop_h, false},
      {"retreat", 0.3, 0.30, bin_az, 0.35, false},
  };
}

double PickScriptDuration(const std::vector<PickWaypoint>& script) {
  double total = 0.0;
  for (const PickWaypoint& w : script) total += w.duration_s;
  return total;
}

int PickSegmentAt(const std::vector<PickWaypoint>& script, double t_s) {
  double start = 0.0;
  for (size_t i = 0; i < script.size(); ++i) {
    start += script[i].duration_s;
    if (t_s < start) return static_cast<int>(i);
  }
  return static_cast<int>(script.size()) - 1;
}

absl::Status CommandPick(core::World& world, int32_t robot_id,
                         const std::vector<PickWaypoint>& script, double t_s) {
  const core::WorldRobot* robot = world.robot(robot_id);
  if (robot == nullptr) {
    return absl::NotFoundError(absl::StrCat("robot_id: no robot with id ", robot_id));
  }
  if (script.empty()) return absl::InvalidArgumentError("script: empty");
  // The joints' rates by a central difference over 1 ms (the waypoints' smoothstep makes them
  // continuous): the PD's target velocity, so the arm tracks without lag.
  constexpr double kDiff = 5e-4;
  const CylindricalPoint p = ScriptPoint(script, t_s);
  const CylindricalPoint before = ScriptPoint(script, t_s - kDiff);
  const CylindricalPoint after = ScriptPoint(script, t_s + kDiff);
  ASSIGN_OR_RETURN(const auto q, ArmJointsFor(p.radius_m, p.azimuth_rad, p.height_m));
  ASSIGN_OR_RETURN(const auto q_before,
                   ArmJointsFor(before.radius_m, before.azimuth_rad, before.height_m));
  ASSIGN_OR_RETURN(const auto q_after,
                   ArmJointsFor(after.radius_m, after.azimuth_rad, after.height_m));
  for (int k = 0; k < 6; ++k) {
    ASSIGN_OR_RETURN(const int joint, core::RobotJointIndex(*robot, kPickArmJoints[k]));
    core::JointMotor motor;
    motor.mode = core::JointMotorMode::kPosition;
    motor.target_position = q[k];
    motor.target_velocity = (q_after[k] - q_before[k]) / (2.0 * kDiff);
    motor.stiffness = kPickArmKp;
    motor.damping = kPickArmKd;
    RETURN_IF_ERROR(world.SetJointMotor(robot_id, joint, motor));
  }
  ASSIGN_OR_RETURN(const int finger, core::RobotJointIndex(*robot, kPickFingerJoint));
  core::JointMotor grip;
  grip.mode = core::JointMotorMode::kPosition;
  // Closed: a target past any part, so the motor squeezes at its cap.
  grip.target_position =
      script[PickSegmentAt(script, t_s)].gripper_closed ? kPickFingerClosedM : 0.0;
  grip.stiffness = kPickFingerKp;
  grip.damping = kPickFingerKd;
  grip.max_effort = kPickSqueezeN;
  return world.SetJointMotor(robot_id, finger, grip);
}

absl::StatusOr<PickPileScene> BuildPickPileScene(std::string arm_urdf,
                                                 const PickPileOptions& options) {
  const std::vector<std::pair<double, double>> cells = PileCells();
  constexpr int max_parts = 40;
  if (options.pile_parts < 0 || options.pile_parts > max_parts) {
    return absl::InvalidArgumentError(
        absl::StrCat("pile_parts: ", options.pile_parts, " is not in [0, ", max_parts, "]"));
  }
  core::WorldSettings settings;
  settings.pipeline = core::PipelineKind::kRigidLcp;
  settings.dt_s = options.dt_s;
  settings.gravity_m_per_s2 = Vec3(0.0, 0.0, -9.81);
  settings.rigid_lcp.friction_coefficient = options.friction_coefficient;
  settings.rigid_lcp.torsional_friction_radius_m = options.torsional_friction_radius_m;
  ASSIGN_OR_RETURN(core::World world, core::World::Create(settings));
  RETURN_IF_ERROR(world.AddGroundPlane(Vec3::UnitZ(), 0.0).status());
  PickPileScene scene{std::move(world)};
  core::World& w = scene.world;

  // The target, resting 0.1 mm above the ground.
  ASSIGN_OR_RETURN(core::TriangleMesh cube, core::MakeBox(Vec3::Constant(kTargetHalf)));
  ASSIGN_OR_RETURN(core::TriangleMesh target_mesh,
                   Placed(cube, Eigen::Matrix3d::Identity(), kTargetRadius, 0.0, 1e-4));
  ASSIGN_OR_RETURN(core::RigidBody target,
                   core::RigidBody::Create(std::move(target_mesh), kTargetDensity));
  ASSIGN_OR_RETURN(scene.target_id, w.AddBody(std::make_unique<core::RigidBody>(std::move(target)),
                                              Named("target")));

  // The pile: boxes (half extents 15-30 mm) and hexagonal prisms (radius 20-35 mm, 30-60 mm
  // long), yawed at random and tilted up to 0.3 rad, +-1 cm about their cells, each released
  // 5 mm above the ground or above the highest part already placed whose footprint (bounding box)
  // meets its own: neighbours touch and later parts land on earlier ones, so they fall into a pile.
  std::mt19937_64 rng(options.seed);
  std::vector<Eigen::AlignedBox3d> placed_boxes;
  for (int i = 0; i < options.pile_parts; ++i) {
    const auto [cell_x, cell_y] = cells[static_cast<size_t>(i) % cells.size()];
    const double a = Uniform(rng, 0.015, 0.03), b = Uniform(rng, 0.015, 0.03);
    const double z = Uniform(rng, 0.015, 0.03);
    ASSIGN_OR_RETURN(core::TriangleMesh shape, i % 2 == 0
                                                   ? core::MakeBox(Vec3(a, b, z))
                                                   : core::MakeCylinder(a + 0.005, 2.0 * z, 6));
    const double yaw = Uniform(rng, -M_PI, M_PI);
    const double tilt_axis = Uniform(rng, -M_PI, M_PI);
    const double tilt = Uniform(rng, 0.0, 0.3);
    const Eigen::Matrix3d rotation =
        (Eigen::AngleAxisd(tilt, Vec3(std::cos(tilt_axis), std::sin(tilt_axis), 0.0)) *
         Eigen::AngleAxisd(yaw, Vec3::UnitZ()))
            .toRotationMatrix();
    const double x = cell_x + Uniform(rng, -0.01, 0.01);
    const double y = cell_y + Uniform(rng, -0.01, 0.01);
    ASSIGN_OR_RETURN(core::TriangleMesh on_ground, Placed(shape, rotation, x, y, 0.005));
    const Eigen::AlignedBox3d footprint(on_ground.vertices().colwise().minCoeff().transpose(),
                                        on_ground.vertices().colwise().maxCoeff().transpose());
    double bottom = 0.005;
    for (const Eigen::AlignedBox3d& other : placed_boxes) {
      if (FootprintsMeet(footprint, other)) bottom = std::max(bottom, other.max().z() + 0.005);
    }
    ASSIGN_OR_RETURN(core::TriangleMesh placed, Placed(shape, rotation, x, y, bottom));
    placed_boxes.emplace_back(placed.vertices().colwise().minCoeff().transpose(),
                              placed.vertices().colwise().maxCoeff().transpose());
    ASSIGN_OR_RETURN(core::RigidBody part,
                     core::RigidBody::Create(std::move(placed), kPartDensity));
    ASSIGN_OR_RETURN(const int32_t id, w.AddBody(std::make_unique<core::RigidBody>(std::move(part)),
                                                 Named(absl::StrCat("part", i))));
    scene.pile_ids.push_back(id);
  }

  // The bin: a floor and four walls, static.
  const double outer = kBinInnerHalf + kBinWall;
  const double wall_z = kBinFloor + 0.5 * kBinWallHeight;
  const struct {
    const char* name;
    Vec3 half, center;
  } bin_boxes[] = {
      {"bin_floor", {outer, outer, 0.5 * kBinFloor}, {0.0, kBinY, 0.5 * kBinFloor}},
      {"bin_wall_px",
       {0.5 * kBinWall, outer, 0.5 * kBinWallHeight},
       {kBinInnerHalf + 0.5 * kBinWall, kBinY, wall_z}},
      {"bin_wall_nx",
       {0.5 * kBinWall, outer, 0.5 * kBinWallHeight},
       {-kBinInnerHalf - 0.5 * kBinWall, kBinY, wall_z}},
      {"bin_wall_py",
       {kBinInnerHalf, 0.5 * kBinWall, 0.5 * kBinWallHeight},
       {0.0, kBinY + kBinInnerHalf + 0.5 * kBinWall, wall_z}},
      {"bin_wall_ny",
       {kBinInnerHalf, 0.5 * kBinWall, 0.5 * kBinWallHeight},
       {0.0, kBinY - kBinInnerHalf - 0.5 * kBinWall, wall_z}},
  };
  for (const auto& b : bin_boxes) {
    ASSIGN_OR_RETURN(const int32_t id, AddStaticBox(w, b.name, b.half, b.center));
    scene.bin_ids.push_back(id);
  }
  scene.bin_floor_center_m = Vec3(0.0, kBinY, kBinFloor);
  scene.bin_inner_half_m = Vec3(kBinInnerHalf, kBinInnerHalf, kBinWallHeight);
  if (!options.with_arm) return scene;

  // The arm at the script's first waypoint, at rest, its motors holding it there.
  core::RobotSpec spec;
  spec.name = "arm";
  spec.urdf = std::move(arm_urdf);
  ASSIGN_OR_RETURN(scene.robot_id, w.AddRobot(std::move(spec)));
  const core::WorldRobot& robot = *w.robot(scene.robot_id);
  const std::vector<PickWaypoint> script = PickScript(scene);
  const PickWaypoint& home = script.front();
  ASSIGN_OR_RETURN(const auto q_home, ArmJointsFor(home.radius_m, home.azimuth_rad, home.height_m));
  std::vector<double> q(robot.joints.size(), 0.0);
  for (int k = 0; k < 6; ++k) {
    ASSIGN_OR_RETURN(const int joint, core::RobotJointIndex(robot, kPickArmJoints[k]));
    q[joint] = q_home[k];
  }
  RETURN_IF_ERROR(w.SetJointState(scene.robot_id, q, std::vector<double>(q.size(), 0.0)));
  RETURN_IF_ERROR(CommandPick(w, scene.robot_id, script, 0.0));
  return scene;
}

}  // namespace contactsim::scenes
