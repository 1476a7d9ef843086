#include "scenes/penalty/deformable_scenes.h"

#include <Eigen/Geometry>
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <memory>
#include <numbers>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_format.h"
#include "core/common/status_macros.h"
#include "core/dynamics/corotational_fem.h"
#include "core/dynamics/mass_spring_cloth.h"
#include "core/geometry/bowl_generator.h"
#include "core/geometry/generators.h"
#include "core/geometry/tet_mesh.h"
#include "scenes/penalty/scene_building.h"

namespace contactsim::core {
namespace {

using scene_internal::AddStatic;
using scene_internal::CheckOptions;
using scene_internal::EmptyScene;
using scene_internal::MakeWorld;
using scene_internal::NamedOptions;
using scene_internal::Scaled;

// The penalty stiffness k of a reference mesh (a scene at full size), for a mesh whose contact
// vertices are `ratio` times as far apart: k ratio^2, so the contact stiffness per unit area stays
// as in the reference (a coarse build with the full size's k sinks several times deeper), and so
// does omega dt of a contact vertex whose mass grows as ratio^2 (a surface); on a solid's surface
// (mass ~ ratio^3) omega dt changes by ratio^-1/2.
double StiffnessForSpacing(double full_size_k_n_per_m, double ratio) {
  return full_size_k_n_per_m * ratio * ratio;
}

// A mass-spring surface body from `mesh` rotated by R and moved to `center`.
absl::StatusOr<int32_t> AddMassSpring(World& world, const TriangleMesh& mesh,
                                      const MassSpringClothParams& params, const Mat3& rotation,
                                      const Vec3& center, const std::vector<int>& pinned,
                                      const std::string& name, int* triangles) {
  *triangles += mesh.num_faces();
  ASSIGN_OR_RETURN(
      TriangleMesh moved,
      TriangleMesh::Create(Transformed(mesh.vertices(), rotation, center), mesh.faces()));
  ASSIGN_OR_RETURN(MassSpringCloth body, MassSpringCloth::Create(std::move(moved), params, pinned));
  return world.AddBody(std::make_unique<MassSpringCloth>(std::move(body)), NamedOptions(name));
}

absl::Status PassedThrough(const World& world, int32_t body, int vertex, double by_m,
                           const char* what) {
  return absl::FailedPreconditionError(
      absl::StrFormat("body %d (%s) vertex %d: %.4g m past %s at t = %.4g s", body,
                      world.sim_body(body)->name, vertex, by_m, what, world.time_s()));
}

}  // namespace

absl::StatusOr<PenaltyScene> MakeBlobScene(const PenaltySceneOptions& options) {
  RETURN_IF_ERROR(CheckOptions(options));
  using G = BlobSceneGeometry;
  // dt: the FEM's critical step estimate at resolution 10 is 0.77 ms (StableTimeStepEstimate,
  // itself about half the true critical step); 0.5 ms leaves room for the contact springs.
  // k: the lightest surface vertices (cube-grid corners mapped onto the sphere) weigh roughly
  // 4e-4 kg, so 3 pairs at 200 N/m give omega dt = sqrt(600 / 4e-4) 5e-4 = 0.61 < sqrt(2).
  constexpr double kDt = 5e-4;  // [s]
  constexpr double k = 200.0;   // [N/m]
  const int bowl_segments = Scaled(128, options.resolution, 12);
  const int bowl_rings = Scaled(26, options.resolution, 4);
  const int blob_resolution = Scaled(10, options.resolution, 3);
  ASSIGN_OR_RETURN(World world,
                   MakeWorld(options, kDt, StiffnessForSpacing(k, 10.0 / blob_resolution)));
  PenaltyScene scene = EmptyScene("blob", std::move(world));
  ASSIGN_OR_RETURN(TriangleMesh bowl,
                   MakeBowl(G::kBowlInnerRadiusM, G::kBowlThicknessM, bowl_segments, bowl_rings));
  ASSIGN_OR_RETURN(int32_t bowl_id, AddStatic(scene.world, bowl, Mat3::Identity(), Vec3::Zero(),
                                              "bowl", &scene.num_triangles));
  // The blob 8 cm off the bowl's axis, its lowest point 8 cm above the bowl's bottom below it,
  // so it lands on the slope, slides and rocks.
  ASSIGN_OR_RETURN(TetMesh ball, MakeTetSphere(G::kBlobRadiusM, blob_resolution));
  const Vec3 start(0.08, 0.0, -G::kBowlInnerRadiusM + G::kBlobRadiusM + 0.05);
  ASSIGN_OR_RETURN(TetMesh moved, TetMesh::Create(Translated(ball.vertices(), start), ball.tets()));
  scene.num_triangles += moved.surface().num_faces();
  const CorotationalFemParams params{.youngs_modulus_pa = 2e4,
                                     .poisson_ratio = 0.3,
                                     .density_kg_per_m3 = 1000.0,
                                     .mass_damping_per_s = 1.0,
                                     .stiffness_damping_s = 2e-5};
  ASSIGN_OR_RETURN(CorotationalFem fem, CorotationalFem::Create(std::move(moved), params));
  ASSIGN_OR_RETURN(
      int32_t blob_id,
      scene.world.AddBody(std::make_unique<CorotationalFem>(std::move(fem)), NamedOptions("blob")));
  scene.force_bodies = {blob_id};
  scene.force_against = {bowl_id};
  // Passed through: a blob vertex below the rim deeper in the wall than half its thickness
  // (past that the outer surface is the nearer one).
  scene.check_containment = [blob_id](const World& w) -> absl::Status {
    const Points3& x = w.body(blob_id)->positions_t0();
    for (int i = 0; i < x.rows(); ++i) {
      const double depth = x.row(i).norm() - G::kBowlInnerRadiusM;
      if (x(i, 2) < 0.0 && depth > 0.5 * G::kBowlThicknessM) {
        return PassedThrough(w, blob_id, i, depth, "the bowl's inner surface");
      }
    }
    return absl::OkStatus();
  };
  scene.description = absl::StrFormat(
      "blob: a soft FEM ball (tet sphere resolution %d, %d surface triangles) dropped into a "
      "thick bowl (%d x %d), %d triangles, dt 0.5 ms, k %g N/m",
      blob_resolution, scene.world.body(blob_id)->surface().num_faces(), bowl_segments, bowl_rings,
      scene.num_triangles, scene.world.settings().stiffness_n_per_m);
  return scene;
}

absl::StatusOr<PenaltyScene> MakeToriClothScene(const PenaltySceneOptions& options) {
  RETURN_IF_ERROR(CheckOptions(options));
  using G = ToriClothGeometry;
  // dt and k: the lightest vertices are the tori's inner ones (5.7e-5 kg) and the cloth's
  // (8.8e-5 kg): 3 pairs at 60 N/m give omega dt = sqrt(180 / 5.7e-5) 5e-4 = 0.89 and 0.72. The
  // spring stiffnesses are about the largest that keep the Gershgorin bound of each body's critical
  // step (MassSpringCloth) near 1 ms.
  constexpr double kDt = 5e-4;  // [s]
  constexpr double k = 60.0;    // [N/m]
  const int count = options.count > 0 ? options.count : 32;
  const int cells = Scaled(128, options.resolution, 8);
  const int major_segments = Scaled(64, options.resolution, 8);
  const int tube_segments = Scaled(8, options.resolution, 4);
  ASSIGN_OR_RETURN(World world, MakeWorld(options, kDt, StiffnessForSpacing(k, 128.0 / cells)));
  PenaltyScene scene = EmptyScene("tori_cloth", std::move(world));
  // Cloth: 1 kg/m^2 (1.44 kg), pinned along y = +-0.6 m.
  ASSIGN_OR_RETURN(TriangleMesh cloth_mesh,
                   MakeClothGrid(2.0 * G::kClothHalfSizeM, 2.0 * G::kClothHalfSizeM, cells, cells));
  std::vector<int> pinned;
  for (int i = 0; i <= cells; ++i) {
    pinned.push_back(i);                        // y = -0.6 m
    pinned.push_back(cells * (cells + 1) + i);  // y = +0.6 m
  }
  const MassSpringClothParams cloth_params{.area_density_kg_per_m2 = 1.0,
                                           .stretch_stiffness_n_per_m = 30.0,
                                           .bend_stiffness_n_per_m = 2.0,
                                           .spring_damping_n_s_per_m = 0.0,
                                           .mass_damping_per_s = 2.0};
  ASSIGN_OR_RETURN(int32_t cloth_id,
                   AddMassSpring(scene.world, cloth_mesh, cloth_params, Mat3::Identity(),
                                 Vec3::Zero(), pinned, "cloth", &scene.num_triangles));
  // Tori: 50 g each (0.845 kg/m^2 over 4 pi^2 R r = 0.0592 m^2), 8 segments around the tube:
  // with few tube segments the bending springs (across each edge, joining the two opposite
  // vertices) are far from flat and hold the tube's cross-section (a fine tube of springs has no
  // bending stiffness worth the name and flattens under its own weight). One layer on a 6 x 6
  // grid of 0.19 m pitch without its corners (32 places; more tori go 0.15 m higher), lowest
  // points 2-7 cm above the cloth, each torus tilted differently so it lands on an edge and
  // tips over. (Two layers of larger tori, the upper one falling 0.18 m further, pushed a torus
  // vertex 1.5 cm through the cloth at 0.33 s.)
  ASSIGN_OR_RETURN(TriangleMesh torus, MakeTorus(G::kTorusMajorRadiusM, G::kTorusTubeRadiusM,
                                                 major_segments, tube_segments));
  const MassSpringClothParams torus_params{.area_density_kg_per_m2 = 0.845,
                                           .stretch_stiffness_n_per_m = 15.0,
                                           .bend_stiffness_n_per_m = 12.0,
                                           .spring_damping_n_s_per_m = 0.0,
                                           .mass_damping_per_s = 2.0};
  constexpr double kPitch = 0.19;  // [m]
  constexpr int kPlaces[32] = {1,  2,  3,  4,  6,  7,  8,  9,  10, 11, 12, 13, 14, 15, 16, 17,
                               18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 31, 32, 33, 34};
  for (int i = 0; i < count; ++i) {
    const int place = kPlaces[i % 32];
    const double x = (place % 6 - 2.5) * kPitch;
    const double y = (place / 6 - 2.5) * kPitch;
    const double z =
        G::kTorusTubeRadiusM + G::kTorusMajorRadiusM + 0.02 + 0.025 * (i % 3) + 0.15 * (i / 32);
    const Mat3 tilt =
        Eigen::AngleAxisd(0.4 + 0.25 * (i % 5), Vec3(std::cos(1.3 * i), std::sin(1.3 * i), 0.0))
            .toRotationMatrix();
    ASSIGN_OR_RETURN(int32_t id,
                     AddMassSpring(scene.world, torus, torus_params, tilt, Vec3(x, y, z), {},
                                   absl::StrFormat("torus%d", i), &scene.num_triangles));
    scene.force_bodies.push_back(id);
  }
  scene.force_against = {cloth_id};
  // Passed through: a torus vertex within kSearch of the cloth more than kBound behind the
  // cloth's tangent plane at its nearest cloth vertex, on the side the grid's normal
  // (d x / d i) x (d x / d j) points away from (+z at rest, the side the tori fall from), or a
  // torus centre more than R + r below the cloth's lowest vertex (fell through and away).
  // kBound: penalty depths stay under 1 cm (max 7 mm measured) and a nearest vertex is within
  // half a cell (4.7 mm) of the point under the torus vertex; a tube that crossed the cloth has
  // vertices up to 2 r = 6 cm behind it. (Heights above the cloth point under a vertex do not
  // work: the cloth folds vertical where heavy tori drag it down by a pinned edge.)
  const std::vector<int32_t> tori = scene.force_bodies;
  scene.check_containment = [cloth_id, tori, cells](const World& w) -> absl::Status {
    constexpr double kSearch = 0.03;  // [m], also the hash's cell size
    constexpr double kBound = 0.015;  // [m]
    const Points3& c = w.body(cloth_id)->positions_t0();
    const auto key = [](int64_t i, int64_t j, int64_t k) {
      return (i * 73'856'093) ^ (j * 19'349'663) ^ (k * 83'492'791);
    };
    const auto cell = [](double value) {
      return static_cast<int64_t>(std::floor(value / kSearch));
    };
    std::unordered_map<int64_t, std::vector<int32_t>> grid;
    for (int n = 0; n < c.rows(); ++n) {
      grid[key(cell(c(n, 0)), cell(c(n, 1)), cell(c(n, 2)))].push_back(n);
    }
    const auto at = [&](int i, int j) -> Vec3 {
      return c.row(std::clamp(j, 0, cells) * (cells + 1) + std::clamp(i, 0, cells)).transpose();
    };
    const double lowest_cloth_z = c.col(2).minCoeff();
    for (int32_t id : tori) {
      const Points3& x = w.body(id)->positions_t0();
      const double centre_z = x.col(2).mean();
      const double fell =
          lowest_cloth_z - (G::kTorusMajorRadiusM + G::kTorusTubeRadiusM) - centre_z;
      if (fell > 0.0) return PassedThrough(w, id, 0, fell, "the cloth's lowest point (centre)");
      for (int v = 0; v < x.rows(); ++v) {
        const Vec3 p = x.row(v).transpose();
        int nearest = -1;
        double best = kSearch * kSearch;
        for (int64_t di = -1; di <= 1; ++di) {
          for (int64_t dj = -1; dj <= 1; ++dj) {
            for (int64_t dk = -1; dk <= 1; ++dk) {
              const auto it = grid.find(key(cell(p.x()) + di, cell(p.y()) + dj, cell(p.z()) + dk));
              if (it == grid.end()) continue;
              for (int32_t n : it->second) {
                const double d2 = (c.row(n).transpose() - p).squaredNorm();
                if (d2 < best) {
                  best = d2;
                  nearest = n;
                }
              }
            }
          }
        }
        if (nearest < 0) continue;
        const int i = nearest % (cells + 1);
        const int j = nearest / (cells + 1);
        const Vec3 normal = (at(i + 1, j) - at(i - 1, j)).cross(at(i, j + 1) - at(i, j - 1));
        if (normal.norm() == 0.0) continue;
        const double behind = -(p - c.row(nearest).transpose()).dot(normal.normalized());
        if (behind > kBound) return PassedThrough(w, id, v, behind, "the cloth");
      }
    }
    return absl::OkStatus();
  };
  scene.description = absl::StrFormat(
      "tori_cloth: %d mass-spring tori (%d x %d) falling onto a cloth (%d x %d cells) pinned "
      "along two edges, %d triangles, dt 0.5 ms, k %g N/m",
      count, major_segments, tube_segments, cells, cells, scene.num_triangles,
      scene.world.settings().stiffness_n_per_m);
  return scene;
}

absl::StatusOr<PenaltyScene> MakeBucketScene(const PenaltySceneOptions& options) {
  RETURN_IF_ERROR(CheckOptions(options));
  using G = BucketGeometry;
  // The balls are the blob's FEM material on tet spheres of radius 5 cm and resolution 6 (432
  // surface triangles, 1,296 tets, 0.51 kg each; FEM critical step estimate 0.675 ms). k: the
  // pile loads the bottom balls with the weight (and, as it lands, the momentum) of four layers,
  // so the contact stiffness per unit area is 4 times the blob's (200 N/m at its vertex spacing
  // r / resolution = 1 cm), scaled to this mesh's spacing (StiffnessForSpacing): 555.6 N/m at
  // full size. dt 0.25 ms keeps omega dt of the lightest surface vertices (3.1e-4 kg) at the
  // blob's: 0.58 in 3 pairs, 0.82 in 6. (At the blob's dt 0.5 ms and stiffness per area, 138.9
  // N/m, the landing pile pressed bottom vertices 1.8 cm into the 4 cm floor; now 0.6 cm.)
  constexpr double kDt = 2.5e-4;                // [s]
  constexpr double kBlobK = 200.0;              // [N/m]
  constexpr double kBlobSpacingM = 0.1 / 10.0;  // the blob's radius / resolution [m]
  constexpr double kPileFactor = 4.0;           // stiffness per area over the blob's
  const int count = options.count > 0 ? options.count : kBucketFullCount;
  const int ball_resolution = Scaled(6, options.resolution, 2);
  const double spacing_m = G::kBallRadiusM / ball_resolution;
  ASSIGN_OR_RETURN(World world,
                   MakeWorld(options, kDt,
                             StiffnessForSpacing(kPileFactor * kBlobK, spacing_m / kBlobSpacingM)));
  PenaltyScene scene = EmptyScene("bucket", std::move(world));
  // Bucket: a floor with its top at z = 0 and four walls around [-a, a]^2, all t thick.
  const double a = G::kInnerHalfWidthM;
  const double t = G::kWallThicknessM;
  const double height = G::kWallHeightM;
  ASSIGN_OR_RETURN(TriangleMesh floor, MakeBox(Vec3(a + t, a + t, 0.5 * t)));
  ASSIGN_OR_RETURN(int32_t floor_id,
                   AddStatic(scene.world, floor, Mat3::Identity(), Vec3(0, 0, -0.5 * t), "floor",
                             &scene.num_triangles));
  scene.force_against.push_back(floor_id);
  ASSIGN_OR_RETURN(TriangleMesh wall_x, MakeBox(Vec3(0.5 * t, a + t, 0.5 * height)));
  ASSIGN_OR_RETURN(TriangleMesh wall_y, MakeBox(Vec3(a, 0.5 * t, 0.5 * height)));
  const struct {
    const TriangleMesh* mesh;
    Vec3 center;
    const char* name;
  } walls[] = {{&wall_x, Vec3(-a - 0.5 * t, 0, 0.5 * height), "wall_x_min"},
               {&wall_x, Vec3(a + 0.5 * t, 0, 0.5 * height), "wall_x_max"},
               {&wall_y, Vec3(0, -a - 0.5 * t, 0.5 * height), "wall_y_min"},
               {&wall_y, Vec3(0, a + 0.5 * t, 0.5 * height), "wall_y_max"}};
  for (const auto& wall : walls) {
    ASSIGN_OR_RETURN(int32_t id, AddStatic(scene.world, *wall.mesh, Mat3::Identity(), wall.center,
                                           wall.name, &scene.num_triangles));
    scene.force_against.push_back(id);
  }
  // Balls: even layers are 8 x 8 grids at an 0.11 m pitch (1 cm gaps; 1.5 cm to the walls),
  // odd layers the 7 x 7 hollows between them; layers 7 cm apart (a ball resting in a hollow
  // sits 6.3 cm above the layer below), the first 1 cm above the floor; the 240 balls of the
  // full size fill four layers (226) and 14 places of the fifth, whose top is at 0.39 m, below
  // the walls' 0.5 m. Each ball is shifted by up to 2.5 mm in x and y (a fixed pattern) so the
  // pile is not symmetric.
  ASSIGN_OR_RETURN(TetMesh ball, MakeTetSphere(G::kBallRadiusM, ball_resolution));
  const CorotationalFemParams params{.youngs_modulus_pa = 2e4,
                                     .poisson_ratio = 0.3,
                                     .density_kg_per_m3 = 1000.0,
                                     .mass_damping_per_s = 1.0,
                                     .stiffness_damping_s = 2e-5};
  constexpr double kPitch = 0.11;      // [m]
  constexpr double kLayerStep = 0.07;  // [m]
  int layer = 0;
  int in_layer = 0;
  for (int i = 0; i < count; ++i) {
    const int side = layer % 2 == 0 ? 8 : 7;
    const double x = (in_layer % side - 0.5 * (side - 1)) * kPitch + 0.0025 * std::sin(2.1 * i);
    const double y = (in_layer / side - 0.5 * (side - 1)) * kPitch + 0.0025 * std::cos(1.7 * i);
    const double z = G::kBallRadiusM + 0.01 + layer * kLayerStep;
    ASSIGN_OR_RETURN(TetMesh moved,
                     TetMesh::Create(Translated(ball.vertices(), Vec3(x, y, z)), ball.tets()));
    scene.num_triangles += moved.surface().num_faces();
    ASSIGN_OR_RETURN(CorotationalFem fem, CorotationalFem::Create(std::move(moved), params));
    ASSIGN_OR_RETURN(int32_t id,
                     scene.world.AddBody(std::make_unique<CorotationalFem>(std::move(fem)),
                                         NamedOptions(absl::StrFormat("ball%d", i))));
    scene.force_bodies.push_back(id);
    if (++in_layer == side * side) {
      ++layer;
      in_layer = 0;
    }
  }
  // Passed through: a ball vertex below the walls' top more than half a wall's thickness into a
  // wall or the floor.
  const std::vector<int32_t> balls = scene.force_bodies;
  scene.check_containment = [balls](const World& w) -> absl::Status {
    for (int32_t id : balls) {
      const Points3& x = w.body(id)->positions_t0();
      for (int v = 0; v < x.rows(); ++v) {
        if (x(v, 2) > G::kWallHeightM) continue;
        const double side = std::max(std::abs(x(v, 0)), std::abs(x(v, 1))) - G::kInnerHalfWidthM;
        if (side > 0.5 * G::kWallThicknessM) return PassedThrough(w, id, v, side, "a wall");
        if (x(v, 2) < -0.5 * G::kWallThicknessM) {
          return PassedThrough(w, id, v, -x(v, 2), "the floor's top");
        }
      }
    }
    return absl::OkStatus();
  };
  scene.description = absl::StrFormat(
      "bucket: %d soft FEM balls (tet sphere resolution %d, %d surface triangles each) falling "
      "into a bucket of 5 boxes, %d triangles, dt 0.25 ms, k %g N/m",
      count, ball_resolution, ball.surface().num_faces(), scene.num_triangles,
      scene.world.settings().stiffness_n_per_m);
  return scene;
}

}  // namespace contactsim::core
