#include "scenes/penalty/penalty_scenes.h"

#include <Eigen/Geometry>
#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <numbers>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_format.h"
#include "core/common/status_macros.h"
#include "core/dynamics/rigid_body.h"
#include "core/geometry/generators.h"
#include "scenes/penalty/deformable_scenes.h"
#include "scenes/penalty/scene_building.h"

namespace contactsim::core {
namespace {

constexpr double kPi = std::numbers::pi;

using scene_internal::AddRigid;
using scene_internal::AddStatic;
using scene_internal::CheckOptions;
using scene_internal::EmptyScene;
using scene_internal::MakeWorld;
using scene_internal::NamedOptions;
using scene_internal::Scaled;

}  // namespace

std::vector<std::string> PenaltySceneNames() {
  return {"chain", "stick", "rings", "box", "blob", "tori_cloth", "bucket"};
}

absl::StatusOr<PenaltyScene> MakePenaltyScene(std::string_view name,
                                              const PenaltySceneOptions& options) {
  if (name == "chain") return MakeChainScene(options);
  if (name == "stick") return MakeStickScene(options);
  if (name == "rings") return MakeRingsScene(options);
  if (name == "box") return MakeBoxScene(options);
  if (name == "blob") return MakeBlobScene(options);
  if (name == "tori_cloth") return MakeToriClothScene(options);
  if (name == "bucket") return MakeBucketScene(options);
  return absl::InvalidArgumentError(absl::StrFormat(
      "scene: unknown name '%s' (chain, stick, rings, box, blob, tori_cloth, bucket)", name));
}

// InvalidArgument naming the first ChainSceneParams field out of range.
absl::Status CheckChainParams(const ChainSceneParams& params) {
  const auto positive = [](const char* field, double value) {
    if (std::isfinite(value) && value > 0.0) return absl::OkStatus();
    return absl::InvalidArgumentError(
        absl::StrFormat("%s: must be finite and > 0, got %g", field, value));
  };
  RETURN_IF_ERROR(positive("major_radius_m", params.major_radius_m));
  RETURN_IF_ERROR(positive("tube_radius_m", params.tube_radius_m));
  if (!(params.tube_radius_m < params.major_radius_m)) {
    return absl::InvalidArgumentError(
        absl::StrFormat("tube_radius_m: must be < major_radius_m (%g), got %g",
                        params.major_radius_m, params.tube_radius_m));
  }
  RETURN_IF_ERROR(positive("box_half_width_m", params.box_half_width_m));
  RETURN_IF_ERROR(positive("link_density_kg_per_m3", params.link_density_kg_per_m3));
  if (!std::isfinite(params.box_depth_fraction)) {
    return absl::InvalidArgumentError(
        absl::StrFormat("box_depth_fraction: must be finite, got %g", params.box_depth_fraction));
  }
  if (!(std::isfinite(params.box_min_half_height_m) && params.box_min_half_height_m >= 0.0)) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "box_min_half_height_m: must be finite and >= 0, got %g", params.box_min_half_height_m));
  }
  return absl::OkStatus();
}

absl::StatusOr<PenaltyScene> MakeChainScene(const PenaltySceneOptions& options,
                                            const ChainSceneParams& params) {
  RETURN_IF_ERROR(CheckOptions(options));
  RETURN_IF_ERROR(CheckChainParams(params));
  const double kMajor = params.major_radius_m;  // link ring radius R [m]
  const double kMinor = params.tube_radius_m;   // link tube radius r [m]
  // k: a link interface carries up to ~100 vertex-face pairs at once, so the interface's
  // stiffness is ~100 k; explicit stepping needs 100 k dt^2 / m_eff <~ 1 with m_eff ~ m / 3 =
  // 33 kg (rim point of a ring), i.e. k <~ 800 N/m. Measured at dt 0.02 s: k >= 3e3 N/m
  // diverges within 1.1 s with both models, k = 1e3 N/m runs.
  constexpr double k = 1e3;  // [N/m]
  const int links = options.count > 0 ? options.count : 12;
  if (links < 2) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "count: a chain needs at least 2 links (the static anchor and one free link), got %d",
        links));
  }
  const int major_segments = Scaled(40, options.resolution, 8);
  const int minor_segments = Scaled(15, options.resolution, 4);
  ASSIGN_OR_RETURN(World world, MakeWorld(options, 0.02, k));
  PenaltyScene scene = EmptyScene("chain", std::move(world));
  ASSIGN_OR_RETURN(TriangleMesh torus, MakeTorus(kMajor, kMinor, major_segments, minor_segments));
  // Links along +x, alternately in the xy-plane (as generated) and the xz-plane (turned about x
  // by 90 degrees), each link's tube threading its neighbour's hole with a gap of 0.2 r.
  const double spacing = 2.0 * kMajor - 2.0 * kMinor - 0.2 * kMinor;
  const Eigen::Quaterniond flat = Eigen::Quaterniond::Identity();
  const Eigen::Quaterniond upright(Eigen::AngleAxisd(kPi / 2.0, Vec3::UnitX()));
  for (int i = 0; i < links; ++i) {
    const Vec3 p(i * spacing, 0.0, 0.0);
    const Eigen::Quaterniond& q = i % 2 == 0 ? flat : upright;
    const std::string name = absl::StrFormat("link%d", i);
    if (i == 0) {
      ASSIGN_OR_RETURN(int32_t id, AddStatic(scene.world, torus, q.toRotationMatrix(), p, name,
                                             &scene.num_triangles));
      (void)id;
    } else {
      ASSIGN_OR_RETURN(int32_t id, AddRigid(scene.world, torus, params.link_density_kg_per_m3, p, q,
                                            name, &scene.num_triangles));
      scene.force_bodies.push_back(id);
    }
  }
  // The box in the swing's path: below the anchor, a third of the chain's length out.
  const double length = (links - 1) * spacing;
  const Vec3 half(0.25 * length, params.box_half_width_m,
                  std::max(0.1 * length + 0.05, params.box_min_half_height_m));
  ASSIGN_OR_RETURN(TriangleMesh box, MakeBox(half));
  ASSIGN_OR_RETURN(int32_t box_id,
                   AddStatic(scene.world, box, Mat3::Identity(),
                             Vec3(0.55 * length, 0.0, -params.box_depth_fraction * length), "box",
                             &scene.num_triangles));
  scene.force_against.push_back(box_id);
  scene.description = absl::StrFormat(
      "chain: %d torus links (%d x %d segments) swinging onto a static box, %d triangles, "
      "dt %g s, k %g N/m",
      links, major_segments, minor_segments, scene.num_triangles, scene.world.settings().dt_s,
      scene.world.settings().stiffness_n_per_m);
  return scene;
}

absl::StatusOr<PenaltyScene> MakeStickScene(const PenaltySceneOptions& options,
                                            const StickSceneParams& params) {
  RETURN_IF_ERROR(CheckOptions(options));
  // Icosphere: 4 subdivisions (5,120 triangles) at full size; resolution scales the count.
  const int subdivisions = options.resolution >= 1.0 ? 4 : options.resolution >= 0.5 ? 3 : 2;
  // Gravity off: the figure is about the direction of the bounce.
  ASSIGN_OR_RETURN(World world,
                   MakeWorld(options, params.dt_s, params.stiffness_n_per_m, Vec3::Zero(),
                             /*energy_check=*/params.stick_density_kg_per_m3 > 0.0));
  PenaltyScene scene = EmptyScene("stick", std::move(world));
  constexpr double kBallRadius = 0.1;
  ASSIGN_OR_RETURN(TriangleMesh sphere, MakeSphere(kBallRadius, subdivisions));
  ASSIGN_OR_RETURN(int32_t ball,
                   AddRigid(scene.world, std::move(sphere), 500.0, params.ball_position_m,
                            Eigen::Quaterniond::Identity(), "ball", &scene.num_triangles));
  RETURN_IF_ERROR(static_cast<RigidBody*>(scene.world.body(ball))
                      ->SetVelocity(params.ball_velocity_m_per_s, Vec3::Zero()));
  // The stick: a box 1.0 x 0.05 x 0.05 m along x centred at the origin, spinning about -y.
  ASSIGN_OR_RETURN(TriangleMesh stick_mesh, MakeBox(Vec3(0.5, 0.025, 0.025)));
  scene.num_triangles += stick_mesh.num_faces();
  absl::StatusOr<RigidBody> made =
      params.stick_density_kg_per_m3 > 0.0
          ? RigidBody::Create(std::move(stick_mesh), params.stick_density_kg_per_m3)
          : RigidBody::CreateWithoutMass(std::move(stick_mesh), RigidBodyKind::kKinematic);
  ASSIGN_OR_RETURN(RigidBody stick_body, std::move(made));
  RETURN_IF_ERROR(stick_body.SetPose(Vec3::Zero(), Eigen::Quaterniond(Eigen::AngleAxisd(
                                                       -params.initial_angle_rad, Vec3::UnitY()))));
  RETURN_IF_ERROR(stick_body.SetVelocity(Vec3::Zero(), Vec3(0.0, -params.spin_rad_per_s, 0.0)));
  ASSIGN_OR_RETURN(int32_t stick,
                   scene.world.AddBody(std::make_unique<RigidBody>(std::move(stick_body)),
                                       NamedOptions("stick")));
  scene.force_bodies = {ball};
  (void)stick;
  scene.description = absl::StrFormat(
      "stick: a rigid ball (%d triangles) hits a stick spinning at %g rad/s, %d "
      "triangles, dt %g s, k %g N/m, no gravity",
      scene.world.body(ball)->surface().num_faces(), params.spin_rad_per_s, scene.num_triangles,
      scene.world.settings().dt_s, scene.world.settings().stiffness_n_per_m);
  return scene;
}

absl::StatusOr<PenaltyScene> MakeRingsScene(const PenaltySceneOptions& options,
                                            const RingsSceneParams& params) {
  RETURN_IF_ERROR(CheckOptions(options));
  const int count = options.count > 0 ? options.count : 9;
  const int side = static_cast<int>(std::ceil(std::sqrt(static_cast<double>(count))));
  const int ring_major = Scaled(32, options.resolution, 8);
  const int ring_minor = Scaled(12, options.resolution, 4);
  const int pin_segments = Scaled(16, options.resolution, 6);
  // k and dt: a ring (0.45 kg, rim effective mass ~0.15 kg) meets a pin with tens of pairs at
  // once; k 1e4 N/m at dt 2 ms diverged within 0.4 s with both models.
  ASSIGN_OR_RETURN(World world, MakeWorld(options, 1e-3, 5e3));
  PenaltyScene scene = EmptyScene("rings", std::move(world));
  constexpr double kPitch = 0.25;      // pin spacing [m]
  constexpr double kPinHeight = 0.3;   // [m]
  constexpr double kPinRadius = 0.01;  // [m]
  const double extent = 0.5 * side * kPitch;
  ASSIGN_OR_RETURN(TriangleMesh base, MakeBox(Vec3(extent, extent, 0.05)));
  ASSIGN_OR_RETURN(int32_t base_id, AddStatic(scene.world, base, Mat3::Identity(),
                                              Vec3(0, 0, -0.05), "base", &scene.num_triangles));
  (void)base_id;
  ASSIGN_OR_RETURN(TriangleMesh pin, MakeCylinder(kPinRadius, kPinHeight, pin_segments));
  ASSIGN_OR_RETURN(TriangleMesh ring, MakeTorus(0.08, 0.012, ring_major, ring_minor));
  for (int i = 0; i < count; ++i) {
    const double x = (i % side - 0.5 * (side - 1)) * kPitch;
    const double y = (i / side - 0.5 * (side - 1)) * kPitch;
    ASSIGN_OR_RETURN(int32_t pin_id,
                     AddStatic(scene.world, pin, Mat3::Identity(), Vec3(x, y, 0.5 * kPinHeight),
                               absl::StrFormat("pin%d", i), &scene.num_triangles));
    (void)pin_id;
    // Rings above their pin, slightly off-centre and tilted so they hit the pin's top.
    const Eigen::Quaterniond tilt(
        Eigen::AngleAxisd(params.tilt_rad + 0.05 * i, Vec3(1.0, 0.5, 0).normalized()));
    ASSIGN_OR_RETURN(int32_t ring_id,
                     AddRigid(scene.world, ring, 2000.0,
                              Vec3(x + params.ring_offset_m, y, kPinHeight + params.drop_height_m),
                              tilt, absl::StrFormat("ring%d", i), &scene.num_triangles));
    scene.force_bodies.push_back(ring_id);
  }
  scene.description = absl::StrFormat(
      "rings: %d rigid tori (%d x %d) falling onto thin pins (%d segments), %d triangles, "
      "dt %g s, k %g N/m",
      count, ring_major, ring_minor, pin_segments, scene.num_triangles, scene.world.settings().dt_s,
      scene.world.settings().stiffness_n_per_m);
  return scene;
}

absl::StatusOr<PenaltyScene> MakeBoxScene(const PenaltySceneOptions& options) {
  RETURN_IF_ERROR(CheckOptions(options));
  ASSIGN_OR_RETURN(World world, MakeWorld(options, 0.01, 2500.0));
  PenaltyScene scene = EmptyScene("box", std::move(world));
  RETURN_IF_ERROR(scene.world.AddGroundPlane(Vec3::UnitZ(), 0.0).status());
  ASSIGN_OR_RETURN(TriangleMesh box, MakeBox(Vec3(0.1, 0.1, 0.1)));
  // 1 kg (density 125 kg/m^3), tilted 3 degrees about x so it lands on an edge and rocks; its
  // lowest vertex starts 1 cm above the plane.
  const Eigen::Quaterniond tilt(Eigen::AngleAxisd(3.0 * kPi / 180.0, Vec3::UnitX()));
  const double lowest = 0.1 * (std::cos(3.0 * kPi / 180.0) + std::sin(3.0 * kPi / 180.0));
  ASSIGN_OR_RETURN(int32_t id,
                   AddRigid(scene.world, std::move(box), 125.0, Vec3(0.0, 0.0, lowest + 0.01), tilt,
                            "box", &scene.num_triangles));
  scene.force_bodies.push_back(id);
  scene.description =
      "box: a 1 kg cube dropped tilted 3 deg from 1 cm onto a plane, dt 0.01 s, "
      "k 2500 N/m";
  return scene;
}

}  // namespace contactsim::core
